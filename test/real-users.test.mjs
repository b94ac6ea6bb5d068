// What a new user meets: one index per configuration of spaces, `*` as every kind,
// transpositions as one typo — through the CLI process, the Node API and an MCP client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { CLI, knowledge, pyTool, runCli, workspace, connectMcp, wsArgs } from './helpers.mjs';

function run(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, CI: '1', ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('one index per configuration of spaces', () => {
  it('two processes, one with a bundle and one without, never undo each other', async () => {
    const ws = workspace();
    ws.write('project', { 'tools/local.py': pyTool({ description: 'zebra local tool' }) });
    ws.write(
      'extra',
      Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`tools/b${i}.py`, pyTool({ description: `zebra bundle tool ${i}` })]),
      ),
    );
    const base = ['search', 'zebra', '--scope', 'tool', '--limit', '0', '--json', ...wsArgs(ws)];
    const withBundle = { RYE_SYSTEM_BUNDLES: `extra=${ws.bundle('extra')}` };
    const without = { RYE_SYSTEM_BUNDLES: '' };
    let wrong = 0;
    for (let round = 0; round < 6; round++) {
      const [a, b] = await Promise.all([run(base, withBundle), run(base, without)]);
      assert.equal(a.code, 0);
      assert.equal(b.code, 0);
      if (JSON.parse(a.out).total !== 31) wrong++;
      if (JSON.parse(b.out).total !== 1) wrong++;
    }
    assert.equal(wrong, 0, `${wrong} answers saw the other process's spaces`);
    ws.cleanup();
  });
});

describe('scope * means every kind', () => {
  it('Node API, CLI and MCP accept * and an omitted scope; the envelope echoes *', async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/alpha.py': pyTool({ description: 'alpha tool' }),
      'knowledge/alpha.md': knowledge({ name: 'alpha', title: 'Alpha notes' }),
    });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const star = await index.search({ query: 'alpha', scope: '*' });
    assert.equal(star.total, 2);
    assert.equal(star.scope, '*');
    const omitted = await index.search({ query: 'alpha' });
    assert.equal(omitted.total, 2);
    // Copying the envelope's scope back works.
    assert.equal((await index.search({ query: 'alpha', scope: omitted.scope })).total, 2);
    await index.close();
    const cli = runCli(['search', 'alpha', '--scope', '*', '--json', ...wsArgs(ws)]);
    assert.equal(JSON.parse(cli.stdout).total, 2, cli.stderr);
    const { client } = await connectMcp([...wsArgs(ws)], { name: 'scope-test' });
    for (const args of [{ query: 'alpha', scope: '*' }, { query: 'alpha' }]) {
      const res = await client.callTool({ name: 'rye_search', arguments: args });
      assert.ok(!res.isError, res.content[0].text);
      assert.equal(res.structuredContent.total, 2);
      assert.equal(res.structuredContent.scope, '*');
      const fetched = await client.callTool({ name: 'rye_fetch', arguments: args });
      assert.ok(!fetched.isError, fetched.content[0].text);
      assert.equal(fetched.structuredContent.total, 2);
    }
    await client.close();
    ws.cleanup();
  });
});

describe('fuzzy counts a swapped pair of letters as one edit', () => {
  it('pyhton, spwan, libary and lirbary find their words at distance 1', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'a', title: 'python' },
      { id: 'b', title: 'spawn' },
      { id: 'c', title: 'library' },
      { id: 'd', title: 'the' },
    ]);
    for (const [typo, id] of [
      ['pyhton', 'a'],
      ['spwan', 'b'],
      ['libary', 'c'],
      ['lirbary', 'c'],
    ]) {
      const res = await index.search({ query: typo, fuzzy: { enabled: true, max_distance: 1 } });
      assert.deepEqual(
        res.results.map((r) => r.id),
        [id],
        typo,
      );
    }
  });
});

describe('errors that say what is wrong', () => {
  it('the CLI names the problem and the accepted forms, without stack traces', async () => {
    const ws = workspace();
    ws.write('project', { 'tools/thread.py': pyTool({ description: 'thread pool' }) });
    const common = [...wsArgs(ws)];
    const cases = [
      [['search', '(', ...common], /unclosed parenthesis/],
      [['search', 'x', '--limit', '-1', ...common], /limit -1 is out of range[\s\S]*0 or more/],
      [
        ['search', 'x', '--filter', 'integrity=good', ...common],
        /cannot be "good"[\s\S]*verified, unsigned, modified, untrusted, invalid/,
      ],
      [['search', 'x', '--filter', 'signed=yes', ...common], /cannot be "yes"[\s\S]*true, false/],
      [['search', 'title:thread', ...common], /field search[\s\S]*--field title=/],
      [
        ['search', 'x', '--scope', 'tool.rye.core.*.x', ...common],
        /E_INVALID_SCOPE[\s\S]*last segment[\s\S]*KIND\.NAMESPACE\.\*/,
      ],
    ];
    for (const [args, expected] of cases) {
      const res = runCli(args);
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stdout}`);
      assert.match(res.stderr, expected, args.join(' '));
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'a stack trace');
    }
    const missing = runCli(['fetch', 'tool:nope', ...common]);
    assert.doesNotMatch(missing.stderr, /check the id with rye_search/);
    ws.cleanup();
  });

  it('mcp --http on a busy port says so before indexing', async () => {
    const http = await import('node:http');
    const busy = http.createServer();
    await new Promise((r) => busy.listen(0, '127.0.0.1', r));
    const ws = workspace();
    ws.write('project', { 'tools/a.py': pyTool({ description: 'a' }) });
    const res = runCli(['mcp', '--http', String(busy.address().port), ...wsArgs(ws)]);
    busy.close();
    assert.equal(res.status, 2);
    assert.match(res.stderr, /already in use[\s\S]*--http 0/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
    assert.equal(fs.existsSync(ws.cache) ? fs.readdirSync(ws.cache).length : 0, 0, 'indexed before checking the port');
    ws.cleanup();
  });
});

describe('index progress', () => {
  it('reports each phase: discovering, reading (done of total), committing', async () => {
    const ws = workspace();
    ws.write(
      'project',
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`knowledge/k${i}.md`, `note ${i}\n`])),
    );
    const seen = [];
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      onProgress: (p) => seen.push(p),
    });
    const phases = [...new Set(seen.map((p) => p.phase))];
    assert.deepEqual(phases, ['discovering', 'reading', 'committing']);
    const reading = seen.filter((p) => p.phase === 'reading');
    assert.deepEqual(reading.at(-1), { phase: 'reading', done: 50, total: 50 });
    await index.close();
    ws.cleanup();
  });
});
