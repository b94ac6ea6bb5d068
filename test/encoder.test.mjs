// The sentence-encoder tier: searches answer at once with the static model, the index encodes its
// items in the background, and once every item has its encoder vector searches by meaning use
// them (`vectors: 'encoder'`); a caller can wait for it; vectors are kept with an index on disk;
// where the encoder cannot be read, the static tier answers and says why. Through the Node API,
// the CLI and an MCP client.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { CLI, connectMcp, knowledge, runCli, tmpdir, workspace, wsArgs, wsOptions } from './helpers.mjs';

const DOCS = [
  {
    id: 'tools/tmux',
    title: 'terminal multiplexer',
    description: 'detach programs from a terminal and reattach them later',
  },
  { id: 'tools/wget', title: 'retrieves files from the web', description: 'non-interactive network downloader' },
  { id: 'tools/gzip', title: 'GNU compression utility', description: 'reduces the size of files' },
  { id: 'guides/bread', title: 'Bake bread', description: 'knead dough and bake a loaf' },
];

const WGET = knowledge({
  name: 'wget',
  title: 'retrieves files from the web',
  description: 'non-interactive network downloader',
});

/** Runs `code` (an ES module body) in a child process with `env`; its stdout, parsed as JSON. */
function inChild(code, env = {}) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: path.dirname(CLI),
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  return JSON.parse(out);
}

describe('sentence encoder tier', () => {
  it('Node API: answers at once, settles in the background, then ranks by the encoder', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS);
    const first = await index.search({ query: 'download a file from a website' });
    assert.equal(first.search_type, 'hybrid');
    assert.ok(['static', 'encoder'].includes(first.vectors), first.vectors);
    const status = await index.ready({ semantic: 'full' });
    assert.deepEqual(status, { vectors: 'encoder', encoder: { state: 'settled', encoded: 4, total: 4 } });
    const res = await index.search({ query: 'download a file from a website' });
    assert.equal(res.vectors, 'encoder');
    assert.equal(res.results[0].id, 'tools/wget');
    assert.ok(!res.warnings?.some((w) => w.includes('static model')), res.warnings);
    // Keyword searches say nothing of vectors.
    assert.equal((await index.search({ query: 'gzip' })).vectors, undefined);
    // New items: the static model answers (and says the encoder is at work) until they are encoded.
    await index.add([{ id: 'tools/screen', title: 'screen', description: 'terminal sessions that survive logout' }]);
    const settled = await index.ready({ semantic: 'full' });
    assert.deepEqual(settled.encoder, { state: 'settled', encoded: 5, total: 5 });
    assert.equal((await index.search({ query: 'download a file from a website' })).vectors, 'encoder');
  });

  it('ready() waits for nothing on an index with nothing to encode, in memory and on disk', async () => {
    // It never settled before: with no segments there was no round that said so.
    const empty = createMemoryIndex();
    const status = await empty.ready({ semantic: 'full', timeoutMs: 20000 });
    assert.deepEqual(status.encoder, { state: 'settled', encoded: 0, total: 0 });
    assert.equal((await empty.search({ query: 'anything at all' })).total, 0);
    await empty.close();
    const ws = workspace();
    fs.mkdirSync(path.join(ws.project, '.ai'), { recursive: true });
    const onDisk = await openIndex(wsOptions(ws));
    assert.equal((await onDisk.ready({ semantic: 'full', timeoutMs: 20000 })).encoder.state, 'settled');
    await onDisk.close();
  });

  it('ready() checks its options and times out with a coded error', async () => {
    const index = createMemoryIndex();
    await assert.rejects(index.ready({ semantic: 'all' }), { code: 'E_INVALID_ARGUMENT' });
    await assert.rejects(index.ready({ semantic: 'full', timeoutMs: -1 }), { code: 'E_INVALID_ARGUMENT' });
    const res = inChild(
      `import { createMemoryIndex } from '../dist/index.js';
       const index = createMemoryIndex();
       await index.add(Array.from({ length: 300 }, (_, i) => ({ id: 'd' + i, title: 'item ' + i, description: 'words about topic ' + i })));
       const first = await index.search({ query: 'words about a topic', mode: 'hybrid' });
       const err = await index.ready({ semantic: 'full', timeoutMs: 1 }).then(() => null, (e) => e.code);
       console.log(JSON.stringify({ err, first: first.vectors, warnings: first.warnings ?? [] }));`,
      { RYE_SEARCH_ENCODER_THREADS: '1' },
    );
    assert.equal(res.err, 'E_TIMEOUT');
    assert.equal(res.first, 'static');
    assert.ok(
      // Before it has counted the items it says it is starting, never "0 of 0".
      res.warnings.some((w) => /sentence encoder (has encoded \d+ of [1-9]\d* items|is starting)/.test(w)),
      res.warnings,
    );
  });

  it('an encoder turned off, missing, damaged or a special file: the static model answers, and the status says why', () => {
    const dir = tmpdir();
    const garbage = path.join(dir, 'garbage.rye-encoder');
    fs.writeFileSync(garbage, 'RYEENC01 this is not an encoder');
    const cases = [
      ['off', /RYE_SEARCH_ENCODER=off/, false],
      [path.join(dir, 'missing.rye-encoder'), /not usable/, true],
      [garbage, /not usable/, true],
      ['/dev/zero', /not a regular file/, true],
      [dir, /not a regular file/, true],
    ];
    if (process.platform !== 'win32') {
      const fifo = path.join(dir, 'fifo.rye-encoder');
      execFileSync('mkfifo', [fifo]);
      cases.push([fifo, /not a regular file/, true]);
    }
    for (const [encoder, why, warns] of cases) {
      const { stdout: out, stderr } = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createMemoryIndex } from '../dist/index.js';
           const index = createMemoryIndex();
           const first = index.semanticStatus();
           await index.add(${JSON.stringify(DOCS)});
           const early = await index.search({ query: 'download a file from a website' });
           const status = await index.ready({ semantic: 'full', timeoutMs: 60000 });
           const res = await index.search({ query: 'download a file from a website' });
           console.log(JSON.stringify({ first, early: early.warnings ?? [], status, vectors: res.vectors, top: res.results[0]?.id }));`,
        ],
        {
          cwd: path.dirname(CLI),
          env: { ...process.env, RYE_SEARCH_ENCODER: encoder },
          encoding: 'utf8',
          timeout: 60_000,
          stdio: 'pipe',
        },
      );
      const res = JSON.parse(out);
      const warnings = stderr.split('\n').filter((l) => l.includes('sentence encoder is off'));
      assert.equal(warnings.length, warns ? 1 : 0, `${encoder}: ${stderr}`);
      assert.equal(res.status.encoder.state, 'off', encoder);
      if (encoder === 'off') {
        // Turned off, it is off from the start: no answer says it is starting.
        assert.equal(res.first.encoder.state, 'off');
        assert.match(res.first.encoder.error, why);
        assert.ok(!res.early.some((w) => /sentence encoder/.test(w)), res.early.join(' | '));
      }
      assert.match(res.status.encoder.error, why);
      assert.equal(res.status.vectors, 'static');
      assert.equal(res.vectors, 'static');
      assert.equal(res.top, 'tools/wget');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an index on disk keeps its vectors: a new process settles without encoding again', async () => {
    const ws = workspace();
    try {
      ws.write('project', {
        'knowledge/tmux.md': knowledge({
          name: 'tmux',
          title: 'terminal multiplexer',
          description: 'detach programs and reattach them later',
        }),
        'knowledge/wget.md': WGET,
      });
      const index = await openIndex(wsOptions(ws));
      const status = await index.ready({ semantic: 'full' });
      assert.deepEqual(status.encoder, { state: 'settled', encoded: 2, total: 2 });
      const file = path.join(index.location, 'rye-encoded.vectors');
      const kept = fs.statSync(file).size;
      await index.close();
      // Closed: its encoding threads have ended (nothing reads or writes its files any more).
      assert.deepEqual(index.semanticStatus().encoder, {
        state: 'off',
        encoded: 2,
        total: 2,
        error: 'stopped: the index was closed',
      });
      const again = inChild(
        `import { openIndex } from '../dist/index.js';
         const index = await openIndex(${JSON.stringify(wsOptions(ws))});
         const status = await index.ready({ semantic: 'full' });
         const res = await index.search({ query: 'download a file from a website' });
         console.log(JSON.stringify({ status, vectors: res.vectors, top: res.results[0]?.id }));`,
      );
      assert.deepEqual(again.status.encoder, { state: 'settled', encoded: 2, total: 2 });
      assert.equal(again.vectors, 'encoder');
      assert.equal(again.top, 'wget');
      assert.equal(fs.statSync(file).size, kept, 'nothing was encoded again');
    } finally {
      ws.cleanup();
    }
  });

  it('vectors of texts no item holds any longer are let go, in the file too (a long-lived index kept them all)', async () => {
    const ws = workspace();
    try {
      const files = {};
      for (let i = 0; i < 1100; i++)
        files[`knowledge/n/note${i}.md`] = knowledge({ name: `note${i}`, title: `note ${i}` });
      ws.write('project', files);
      const index = await openIndex(wsOptions(ws));
      assert.equal((await index.ready({ semantic: 'full' })).encoder.encoded, 1100);
      const file = path.join(index.location, 'rye-encoded.vectors');
      const full = fs.statSync(file).size;
      for (let i = 1; i < 1100; i++) fs.rmSync(path.join(ws.project, '.ai', 'knowledge', 'n', `note${i}.md`));
      // (The vectors are looked over when the encoding next runs: after items come.)
      ws.write('project', { 'knowledge/n/fresh.md': knowledge({ name: 'fresh', title: 'a fresh note' }) });
      await index.refresh();
      const status = await index.ready({ semantic: 'full' });
      assert.deepEqual(status.encoder, { state: 'settled', encoded: 2, total: 2 });
      const after = fs.statSync(file).size;
      assert.ok(after < full / 100, `${after} bytes of ${full} kept for two items`);
      const res = await index.search({ query: 'note 0', mode: 'hybrid' });
      assert.equal(res.vectors, 'encoder');
      assert.equal(res.results[0]?.id, 'n/note0');
      await index.close();
    } finally {
      ws.cleanup();
    }
  });

  it('CLI: index waits for the encoder and says so; a question then ranks by it', () => {
    const ws = workspace();
    try {
      ws.write('project', {
        'knowledge/wget.md': WGET,
        'knowledge/bread.md': knowledge({
          name: 'bread',
          title: 'Bake bread',
          description: 'knead dough and bake a loaf',
        }),
      });
      const indexed = runCli(['index', ...wsArgs(ws)]);
      assert.equal(indexed.status, 0, indexed.stderr);
      assert.match(indexed.stdout, /sentence encoder: 2 of 2 items encoded/);
      const json = JSON.parse(runCli(['index', '--json', ...wsArgs(ws)]).stdout);
      assert.deepEqual(json.semantic, { vectors: 'encoder', encoder: { state: 'settled', encoded: 2, total: 2 } });
      const res = JSON.parse(runCli(['search', 'download a file from a website', '--json', ...wsArgs(ws)]).stdout);
      assert.equal(res.vectors, 'encoder');
      assert.equal(res.results[0].id, 'wget');
      const off = runCli(['index', ...wsArgs(ws)], { env: { RYE_SEARCH_ENCODER: 'off' } });
      assert.match(
        off.stdout,
        /sentence encoder off \(.*RYE_SEARCH_ENCODER=off.*\): the static model ranks by meaning/,
      );
    } finally {
      ws.cleanup();
    }
  });

  it('MCP: answers say which vectors ranked them', async () => {
    const ws = workspace();
    try {
      ws.write('project', {
        'knowledge/wget.md': WGET,
      });
      runCli(['index', ...wsArgs(ws)]);
      const { client } = await connectMcp(wsArgs(ws));
      const res = await client.callTool({ name: 'rye_search', arguments: { query: 'download a file from a website' } });
      assert.equal(res.isError, undefined);
      assert.ok(['static', 'encoder'].includes(res.structuredContent.vectors), JSON.stringify(res.structuredContent));
      await client.close();
    } finally {
      ws.cleanup();
    }
  });
});
