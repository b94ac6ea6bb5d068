// The README as a reader tries it: its CLI transcript run line by line on the embedded default,
// its numbers read off what they describe, and its example questions asked of the real corpus.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { openIndex } from '../dist/index.js';
import { CLI, CORPUS, describeIf, ROOT, tmpdir } from './helpers.mjs';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The `$ command` lines of the README's transcript, each with the lines it shows. */
function transcript() {
  const block = /````text\n([\s\S]*?)\n````/.exec(README)?.[1];
  assert.ok(block, 'the README has a ````text transcript');
  const steps = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), lines: [] });
    else if (line.trim()) steps.at(-1)?.lines.push(line);
  }
  return steps;
}

/** A shown line as a pattern: `…` stands for the rest of a line or any elided part. */
const pattern = (line) =>
  new RegExp(
    `^${line
      .trimEnd()
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/…/g, '.*')}\\s*$`,
  );

describe('README', () => {
  let work;
  before(() => {
    work = tmpdir('rye-readme-');
    // `rye-search` on PATH, as after a global install.
    fs.mkdirSync(path.join(work, 'bin'));
    const shim = path.join(work, 'bin', 'rye-search');
    fs.writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('the CLI transcript prints what the README shows', {
    skip: process.platform === 'win32' && 'a POSIX shell',
  }, () => {
    const steps = transcript();
    assert.ok(steps.length >= 3, 'search, verify and fetch are shown');
    for (const { command, lines } of steps) {
      const res = spawnSync('sh', ['-c', `{ ${command}; } 2>&1`], {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${path.join(work, 'bin')}${path.delimiter}${process.env.PATH}`,
          RYE_SEARCH_CACHE_DIR: path.join(work, 'cache'),
          USER_SPACE: path.join(work, 'no-user'),
          CI: '1',
        },
      });
      const shown = res.stdout.split('\n');
      for (const line of lines) {
        assert.ok(
          shown.some((out) => pattern(line).test(out)),
          `${command}\n  README shows: ${line}\n  it printed:\n${res.stdout}`,
        );
      }
    }
  });

  it('the models are the sizes the README gives', () => {
    for (const file of ['minilm-static-256.rye-embed', 'minilm-l6.rye-encoder']) {
      const mb = fs.statSync(path.join(ROOT, 'model', file)).size / 1e6;
      assert.match(README, new RegExp(`\\(\`model/\`, ${mb.toFixed(1)} MB`), file);
    }
  });
});

const RYEOS = path.join(CORPUS, 'ryeos');
const BUNDLES = ['ryeos', 'ryeos-core', 'ryeos-code', 'ryeos-email', 'ryeos-web'];

/** Each example question the README names, and what it says the question finds in the RYE corpus. */
const QUESTIONS = [
  { query: 'how do I make a new tool', top: 3, finds: ['directive:rye/core/create_tool'] },
  {
    query: 'limit how much money an agent can spend',
    top: 3,
    finds: ['knowledge:rye/agent/threads/limits-and-safety'],
  },
  {
    query: 'how are signatures verified',
    top: 2,
    finds: ['knowledge:rye/core/registry/trust-model', 'knowledge:rye/core/signing-and-integrity'],
  },
];

describeIf(fs.existsSync(RYEOS) ? false : `corpus not found at ${RYEOS}`, 'README questions on the RYE corpus', () => {
  let root;
  let index;
  before(async () => {
    root = tmpdir('rye-readme-corpus-');
    index = await openIndex({
      projectPath: path.join(RYEOS, 'project'),
      userSpace: path.join(root, 'no-user'),
      cacheDir: path.join(root, 'cache'),
      includeDefaultBundle: false,
      systemBundles: BUNDLES.map((id) => ({ id, root: path.join(RYEOS, 'system', id) })),
      watch: false,
    });
  });
  after(async () => {
    await index?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const { query, top, finds } of QUESTIONS) {
    it(`"${query}" finds what the README says, with default options`, async () => {
      assert.ok(README.replace(/\s+/g, ' ').includes(query), `the README names "${query}"`);
      const res = await index.search({ query });
      const ids = res.results.slice(0, top).map((r) => `${r.type}:${r.id}`);
      for (const id of finds) assert.ok(ids.includes(id), `${id} in the top ${top}: ${ids.join(', ')}`);
    });
  }
});
