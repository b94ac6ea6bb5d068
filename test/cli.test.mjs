// The CLI as a user runs it: a separate process, its output and exit codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { openIndex } from '../dist/index.js';
import { directive, pyTool, runCli, workspace, wsArgs } from './helpers.mjs';

describe('rye-search CLI', () => {
  const ws = workspace();
  let common;
  before(() => {
    ws.write('project', {
      'directives/create_tool.md': directive('create_tool', 'Create a new tool'),
      'tools/rye/file/read.py': pyTool({ description: 'Read file contents', category: 'rye/file' }),
    });
    ws.write('core', { 'tools/rye/file/read.py': pyTool({ description: 'Read file contents, system copy' }) });
    common = [...wsArgs(ws), '--bundle', `core=${ws.bundle('core')}`];
  });
  after(() => ws.cleanup());

  it('prints aligned human output with space and shadow marks, exit 0', () => {
    const res = runCli(['search', 'read', '--scope', 'tool', ...common]);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /^SCORE\s+TYPE\s+SPACE\s+SIGNATURE\s+ID/m);
    assert.match(res.stdout, /rye\/file\/read\s+\(shadows system:core\)/);
    assert.match(res.stdout, /system:core.*\(shadowed by project\)/);
    assert.match(res.stdout, /1–2 of 2 results/);
  });

  it('human output works with any --include-fields list, and --limit 0 --facets prints the counts', () => {
    const fields = [
      'id',
      'score',
      'title',
      'type',
      'source',
      'integrity',
      'preview',
      'description',
      'signed',
      'tokens',
    ];
    for (const list of [...fields, 'score,title', 'source,integrity,preview']) {
      const res = runCli(['search', 'read', '--include-fields', list, ...common]);
      assert.equal(res.status, 0, `${list}: ${res.stderr}`);
      assert.match(res.stdout, /^SCORE\s+TYPE\s+SPACE\s+SIGNATURE\s+ID/m, list);
      assert.match(res.stdout, /rye\/file\/read/, list);
      assert.equal(res.stderr, '', list);
    }
    const counts = runCli(['search', 'read', '--limit', '0', '--facets', ...common]);
    assert.equal(counts.status, 0, counts.stderr);
    assert.match(counts.stdout, /^type: tool 2$/m);
    assert.match(counts.stdout, /^space: /m);
  });

  it('--json prints exactly the envelope', () => {
    const res = runCli(['search', 'create', '--scope', 'directive', '--json', ...common]);
    assert.equal(res.status, 0, res.stderr);
    const env = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(env).sort(), [
      'has_more',
      'limit',
      'offset',
      'query',
      'results',
      'scope',
      'search_type',
      'space',
      'total',
    ]);
    assert.equal(env.results[0].id, 'create_tool');
    assert.equal(env.results[0].type, 'directive');
  });

  it('passes every option through', () => {
    const res = runCli([
      'search',
      'red',
      '--scope',
      'rye.search.tool.rye.*',
      '--space',
      'all',
      '--limit',
      '1',
      '--offset',
      '0',
      '--sort-by',
      'name',
      '--field',
      'description=contents',
      '--filter',
      'source=project,system',
      '--fuzzy',
      '1',
      '--proximity',
      '3',
      '--json',
      ...common,
    ]);
    assert.equal(res.status, 0, res.stderr);
    const env = JSON.parse(res.stdout);
    assert.equal(env.total, 2);
    assert.equal(env.limit, 1);
    assert.equal(env.results.length, 1);
  });

  it('exit 1 on no hits, 2 on errors with the message on stderr (the JSON document on stdout with --json)', () => {
    const none = runCli(['search', 'zzzyzx', '--scope', 'tool', ...common]);
    assert.equal(none.status, 1);
    const syntax = runCli(['search', 'read AND', '--scope', 'tool', ...common]);
    assert.equal(syntax.status, 2);
    assert.match(syntax.stderr, /E_QUERY_SYNTAX/);
    assert.equal(syntax.stdout, '');
    const scope = runCli(['search', 'x', '--scope', 'tools', '--json', ...common]);
    assert.equal(scope.status, 2);
    // --json: the error is the JSON document on stdout, as every --json outcome is.
    assert.equal(JSON.parse(scope.stdout).error.code, 'E_INVALID_SCOPE');
    assert.equal(scope.stderr, '');
    assert.equal(runCli(['search', 'x', '--limit', 'ten', ...common]).status, 2);
    assert.equal(runCli(['search', 'x', '--nope']).status, 2);
    assert.equal(runCli(['frobnicate']).status, 2);
  });

  it('reads system bundles from RYE_SYSTEM_BUNDLES and the user space from USER_SPACE', () => {
    ws.write('user', { 'tools/mine.py': pyTool({ description: 'personal gizmo' }) });
    const env = { RYE_SYSTEM_BUNDLES: [`extra=${ws.bundle('core')}`].join(path.delimiter), USER_SPACE: ws.user };
    const res = runCli(
      [
        'search',
        'gizmo OR system',
        '--scope',
        'tool',
        '--json',
        '--project',
        ws.project,
        '--cache-dir',
        ws.cache,
        '--no-default-bundle',
      ],
      { env },
    );
    assert.equal(res.status, 0, res.stderr);
    const spaces = JSON.parse(res.stdout)
      .results.map((r) => r.bundle ?? r.source)
      .sort();
    assert.deepEqual(spaces, ['extra', 'user']);
  });

  it('a project or system bundle with no .ai folder where it says (the .ai folder itself, two bundles joined by a comma) is said in every answer of it', async () => {
    const joined = `extra=${ws.bundle('core')},other=${ws.bundle('core')}`;
    const args = ['search', 'system', '--scope', 'tool', '--json', '--project', ws.project, '--cache-dir', ws.cache];
    const res = runCli([...args, '--no-default-bundle'], { env: { RYE_SYSTEM_BUNDLES: joined } });
    const answer = JSON.parse(res.stdout);
    assert.equal(answer.results.filter((r) => r.bundle === 'extra').length, 0);
    assert.match(
      answer.warnings.join(' '),
      /system:extra has no \.ai folder at .*,other=.*: its items are in no answer/,
    );
    // Not when the bundle is there, nor when the search leaves it out.
    const fine = runCli([...args, '--no-default-bundle'], {
      env: { RYE_SYSTEM_BUNDLES: `extra=${ws.bundle('core')}` },
    });
    assert.doesNotMatch(JSON.stringify(JSON.parse(fine.stdout).warnings ?? []), /no \.ai folder/);
    const projectOnly = runCli([...args, '--source', 'project'], { env: { RYE_SYSTEM_BUNDLES: joined } });
    assert.doesNotMatch(JSON.stringify(JSON.parse(projectOnly.stdout).warnings ?? []), /no \.ai folder/);
    // The same for a project given as its .ai folder: the parent is named.
    const inside = runCli([
      'search',
      'tool',
      '--json',
      '--project',
      path.join(ws.project, '.ai'),
      '--cache-dir',
      ws.cache,
    ]);
    assert.match(
      JSON.parse(inside.stdout).warnings.join(' '),
      /project has no \.ai folder at .*no project items: .*\(here its parent\)/,
    );
    // The index command and the Node API say it too, until the folder is there.
    const indexed = runCli(['index', '--project', ws.project, '--cache-dir', ws.cache], {
      env: { RYE_SYSTEM_BUNDLES: joined },
    });
    assert.match(indexed.stdout + indexed.stderr, /system:extra: no \.ai folder here/);
    const index = await openIndex({
      projectPath: ws.project,
      cacheDir: ws.cache,
      systemBundles: [{ id: 'gone', root: path.join(ws.root, 'gone') }],
    });
    const api = await index.search({ query: 'system' });
    assert.match(api.warnings.join(' '), /system:gone has no \.ai folder/);
    fs.mkdirSync(path.join(ws.root, 'gone', '.ai'), { recursive: true });
    await index.refresh();
    assert.doesNotMatch(JSON.stringify((await index.search({ query: 'system' })).warnings ?? []), /no \.ai folder/);
    await index.close();
    // Thousands of them are counted, not each named: in an answer and in the report.
    const many = Array.from({ length: 3000 }, (_, i) => ({ id: `b${i}`, root: path.join(ws.root, `none${i}`) }));
    const crowded = await openIndex({ projectPath: ws.project, cacheDir: ws.cache, systemBundles: many });
    const warnings = (await crowded.search({ query: 'system' })).warnings;
    assert.equal(warnings.filter((w) => /has no \.ai folder/.test(w)).length, 3);
    assert.match(warnings.join(' '), /2997 more spaces searched have no \.ai folder/);
    assert.ok(JSON.stringify(warnings).length < 2000, JSON.stringify(warnings).length);
    assert.ok(crowded.lastReport.warnings.length <= 25, crowded.lastReport.warnings.length);
    await crowded.close();
  });

  it('index reports counts and skips; --help and --version work', () => {
    ws.write('project', { 'tools/notes.txt': 'x' });
    const res = runCli(['index', '--verbose', ...common]);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /items indexed/);
    assert.match(res.stdout, /skipped extension: .*notes\.txt/);
    const json = JSON.parse(runCli(['index', '--json', ...common]).stdout);
    assert.equal(typeof json.items, 'number');
    assert.equal(runCli(['search', '--help']).status, 0);
    assert.match(runCli(['mcp', '--help']).stdout, /--http PORT/);
    assert.match(runCli(['--version']).stdout, /^\d+\.\d+\.\d+/);
    // Commands are looked up as own names only: inherited object keys are unknown commands.
    for (const name of ['constructor', 'toString', '__proto__', 'nope']) {
      const unknown = runCli([name]);
      assert.equal(unknown.status, 2, name);
      assert.match(unknown.stderr, new RegExp(`unknown command "${name}"`));
    }
  });

  it('human output shows control characters from files as escapes: one row per result, no terminal sequences', () => {
    ws.write('project', {
      'knowledge/odd/two\nlines.md': '---\ntitle: Walrus \u001b]0;owned\u0007 title\n---\nwalrus body \u001b[31mred\n',
      'knowledge/odd/plain.md': '---\ntitle: Plain walrus\ndescription: "walrus \\u202eevil"\n---\nwalrus again\n',
    });
    const res = runCli(['search', 'walrus', ...common]);
    assert.equal(res.status, 0, res.stderr);
    assert.ok(!res.stdout.includes('\u001b') && !res.stdout.includes('\u0007'), res.stdout);
    assert.match(res.stdout, /odd\/two\\nlines$/m);
    assert.match(res.stdout, /Walrus \\x1b\]0;owned\\x07 title/);
    // A bidirectional override shows as an escape, not as reversed text that hides what follows.
    assert.match(res.stdout, /walrus \\u202eevil/);
    assert.ok(!res.stdout.includes('\u202e'), res.stdout);
    // Each result's row is where the table puts it: a score, then its id.
    const rows = res.stdout.split('\n').filter((l) => /^\d\.\d{3}\s/.test(l));
    assert.equal(rows.length, 2);
    assert.ok(rows.some((r) => r.endsWith('odd/plain')));
    // --json keeps every character as it is.
    const json = JSON.parse(runCli(['search', 'walrus', '--json', ...common]).stdout);
    assert.ok(json.results.some((r) => r.id === 'odd/two\nlines'));
    const index = runCli(['index', '--verbose', ...common]);
    assert.ok(!index.stdout.includes('\u001b'), index.stdout);
  });

  it('an unknown space names the bundles there are, or says none is configured', () => {
    const json = (args) => JSON.parse(runCli(['search', 'read', '--json', '--space', 'system:nope', ...args]).stdout);
    assert.match(json(common).error.hint, /use all, project, user, system or one of system:core$/);
    assert.match(json(wsArgs(ws)).error.hint, /no system bundle is configured/);
    const many = Array.from({ length: 40 }, (_, i) => ['--bundle', `b${i}=${ws.bundle('core')}`]).flat();
    assert.match(json([...wsArgs(ws), ...many]).error.hint, /one of system:b0, .*system:b9 and 30 more$/);
  });

  it('--filter and --field keys named like Object.prototype members are keys like any other', () => {
    ws.write('project', { 'knowledge/proto.md': '---\ntitle: Proto\nconstructor: builder\n---\nkiwi body\n' });
    assert.equal(runCli(['search', 'kiwi', '--filter', 'constructor=builder', ...common]).status, 0);
    assert.equal(runCli(['search', 'kiwi', '--filter', 'constructor=other', ...common]).status, 1);
    assert.equal(runCli(['search', 'kiwi', '--filter', '__proto__=x', ...common]).status, 1);
    const field = runCli(['search', 'kiwi', '--field', 'constructor=kiwi', ...common]);
    assert.equal(field.status, 2);
    assert.match(field.stderr, /unknown field "constructor"/);
  });

  it('searches the embedded documentation bundle with no project at all', () => {
    const emptyUser = path.join(ws.root, 'empty-user');
    const res = runCli(
      ['search', 'proximity', '--scope', 'knowledge', '--json', '--cache-dir', ws.cache, '--user-space', emptyUser],
      { cwd: ws.root },
    );
    assert.equal(res.status, 0, res.stderr);
    const env = JSON.parse(res.stdout);
    const docs = env.results.filter((r) => r.id.startsWith('rye-search/') && r.bundle === 'rye-search');
    assert.ok(docs.length > 0);
    assert.ok(
      docs.every((r) => r.integrity === 'verified'),
      'the embedded bundle is signed with the release key',
    );
    // Every item of the bundle verifies: editing a doc without re-signing it fails here.
    const verify = runCli(['verify', '--json', '--cache-dir', ws.cache, '--user-space', emptyUser], { cwd: ws.root });
    assert.equal(verify.status, 0, verify.stdout);
    assert.ok(JSON.parse(verify.stdout).counts.verified >= 5);
  });
});
