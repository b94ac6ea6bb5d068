// Every regular expression of the TypeScript layer runs on what users, repositories and
// environments hold (queries, filters, flags, item files, signature lines), often before a length
// limit. One that backtracks over its input held the JS thread — and with it an MCP server's every
// session — for minutes: `[[{][^\]}]*\sTO\s…` on 200,000 `[` took 55 s; a signature line of a
// megabyte of tabs, hours. recheck (a ReDoS checker) reads each literal and each `new RegExp`
// built from constants, and each must be safe: matched in time linear in its input.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checkSync } from 'recheck';
import ts from 'typescript';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'ts');

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Each regular expression in `file`: its pattern, flags and line; `dynamic` when built at run time from non-constants. */
function expressions(file) {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const consts = new Map();
  const found = [];
  const where = (n) => `${path.relative(root, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  // A template or string of constants, as built at run time (`String.raw` included).
  const evaluate = (n) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
    if (ts.isTaggedTemplateExpression(n) && n.tag.getText() === 'String.raw') {
      return ts.isNoSubstitutionTemplateLiteral(n.template) ? n.template.rawText : undefined;
    }
    if (ts.isIdentifier(n)) return consts.get(n.text);
    if (ts.isTemplateExpression(n)) {
      // Each part as the template makes it (its escapes read), as the `RegExp` receives it.
      let out = n.head.text;
      for (const span of n.templateSpans) {
        const value = evaluate(span.expression);
        if (value === undefined) return undefined;
        out += value + span.literal.text;
      }
      return out;
    }
    return undefined;
  };
  const visit = (n) => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) {
      const value = evaluate(n.initializer);
      if (value !== undefined) consts.set(n.name.text, value);
    }
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = n.getText();
      const slash = text.lastIndexOf('/');
      found.push({ at: where(n), source: text.slice(1, slash), flags: text.slice(slash + 1) });
    }
    if (ts.isNewExpression(n) && n.expression.getText() === 'RegExp') {
      const [pattern, flags] = n.arguments ?? [];
      const source = pattern && evaluate(pattern);
      const flagText = flags ? evaluate(flags) : '';
      found.push(
        source === undefined || flagText === undefined
          ? { at: where(n), dynamic: n.getText() }
          : { at: where(n), source, flags: flagText },
      );
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('regular expressions', () => {
  it('every one in ts/ is matched in linear time (recheck)', () => {
    const all = sources(root).flatMap(expressions);
    assert.ok(all.length > 50, `found only ${all.length}`);
    const unsafe = [];
    for (const r of all) {
      if (r.dynamic) {
        unsafe.push(`${r.at}: built from what is not a constant, so it cannot be checked: ${r.dynamic}`);
        continue;
      }
      const verdict = checkSync(r.source, r.flags, { timeout: 10_000 });
      if (verdict.status !== 'safe') {
        const attack = verdict.attack ? `; e.g. ${JSON.stringify(verdict.attack.string.slice(0, 40))}…` : '';
        unsafe.push(
          `${r.at}: /${r.source}/${r.flags} is ${verdict.status} (${verdict.complexity?.summary ?? verdict.error?.kind ?? '?'})${attack}`,
        );
      }
    }
    assert.deepEqual(unsafe, []);
  });

  it('the check finds a pattern that backtracks', () => {
    assert.equal(checkSync(String.raw`^\s*\d*\.?\d+\s*$`, '').status, 'vulnerable');
    assert.equal(checkSync(String.raw`^\s*(?:\d+(?:\.\d+)?|\.\d+)\s*$`, '').status, 'safe');
  });
});
