// kill -9 mid-index: the next open sees the last committed index, the refresh completes, nothing
// is lost. A dead writer's lock is recovered; a live writer in another process is reported and
// readers keep working; a refresh waits for it (bounded), and processes that build one index at
// once all answer in full.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { openIndex } from '../../dist/index.js';
import { connectMcp, workspace, wsArgs } from '../helpers.mjs';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'index-child.mjs');
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'rye-search.js');
const FILES = 12_000;

function child(args) {
  return spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Options for a workspace's project alone, with its own cache and no user space or bundle. */
const spaceOf = (ws, extra = {}) => ({
  projectPath: ws.project,
  cacheDir: ws.cache,
  userSpace: path.join(ws.cache, 'no-user'),
  includeDefaultBundle: false,
  ...extra,
});

/**
 * A process holding the index's writer (`hold`, or `churn`: taking it again and again), and how to
 * make it let go (resolves once it has).
 */
async function holding(ws, mode = 'hold') {
  const holder = child([mode, ws.project, ws.cache]);
  const exited = new Promise((r) => holder.on('exit', r));
  await new Promise((resolve, reject) => {
    holder.stdout.on('data', (d) => String(d).includes('holding') && resolve());
    holder.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return {
    release: async () => {
      holder.stdin.end();
      await exited;
    },
  };
}

function tree(ws) {
  ws.write(
    'project',
    Object.fromEntries(
      Array.from({ length: FILES }, (_, i) => [`knowledge/k${i % 40}/item${i}.md`, `alpha item ${i}\n`]),
    ),
  );
}

describe('crash safety', () => {
  it('kill -9 at several points during the first index loses nothing committed', async () => {
    const ws = workspace();
    tree(ws);
    const opts = spaceOf(ws);
    const outcomes = [];
    for (const delay of [150, 400, 800, 1500, 2500]) {
      const c = child(['refresh', ws.project, ws.cache]);
      const exited = new Promise((r) => c.on('exit', r));
      let finished = false;
      c.stdout.on('data', (d) => (finished ||= String(d).includes('done')));
      await new Promise((r) => setTimeout(r, delay));
      c.kill('SIGKILL');
      await exited;
      // The committed state is whole: nothing, or every item of a completed refresh.
      const index = await openIndex({ ...opts, refresh: false });
      const seen = (await index.search({ query: 'alpha', scope: 'knowledge', limit: 0 })).total;
      assert.ok(seen === 0 || seen === FILES, `after kill at ${delay} ms the index shows ${seen} items`);
      outcomes.push(`${delay}ms:${finished ? 'finished' : 'killed'}:${seen}`);
    }
    // The killed writers left no lock behind: a refresh takes the writer and completes.
    const index = await openIndex(opts);
    assert.equal(index.lastReport.readOnly, false);
    assert.equal(index.lastReport.items, FILES);
    assert.equal((await index.search({ query: 'alpha', scope: 'knowledge', limit: 0 })).total, FILES);
    console.log(`kill -9 during indexing (delay:outcome:items visible after): ${outcomes.join(', ')}`);
    ws.cleanup();
  });

  it('a refresh that runs out of file descriptors commits nothing and says why', {
    skip: process.platform !== 'linux' && 'ulimit -n is a Linux shell test',
  }, async () => {
    const ws = workspace();
    tree(ws);
    const opts = spaceOf(ws, { watch: false });
    // Every descriptor but `free` taken once the index is open: the refresh must run out.
    for (const free of [0, 2, 4]) {
      const run = spawnSync(
        'bash',
        ['-c', `ulimit -n 256; exec "${process.execPath}" "${CHILD}" exhausted "${ws.project}" "${ws.cache}" ${free}`],
        { encoding: 'utf8', timeout: 120_000 },
      );
      assert.equal(run.status, 1, `${free} free: the refresh ran out of descriptors (${run.stdout}${run.stderr})`);
      // Where the descriptors run out decides the message: a read or a listing says E_IO with the
      // ulimit hint; inside Tantivy's indexing thread only "the writer was killed" comes back.
      assert.match(run.stderr, /^E_(IO|INDEX): .+\n {2}hint: \S/, `${free} free`);
      if (run.stderr.startsWith('E_IO')) assert.match(run.stderr, /ulimit -n/, `${free} free`);
    }
    const index = await openIndex({ ...opts, refresh: false });
    const seen = (await index.search({ query: 'alpha', scope: 'knowledge', limit: 0 })).total;
    assert.equal(seen, 0, `a failed refresh left ${seen} of ${FILES} items`);
    // With descriptors again, the same index refreshes whole.
    assert.equal((await index.refresh()).items, FILES);
    await index.close();
    ws.cleanup();
  });

  it('a live writer in another process: the refresh waits for it, then answers from the last commit with a warning; then completes', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n' });
    const opts = spaceOf(ws, { writerWaitMs: 400 });
    const index = await openIndex(opts);
    const holder = await holding(ws);
    ws.write('project', { 'knowledge/b.md': 'alpha beta\n' });
    const started = performance.now();
    const locked = await index.refresh();
    const waited = performance.now() - started;
    assert.ok(waited >= 350 && waited < 5000, `waited ${waited} ms for a writer held past writerWaitMs 400`);
    assert.equal(locked.readOnly, true);
    assert.match(locked.warnings.map((w) => w.message).join(' '), /another process/);
    const stale = await index.search({ query: 'alpha', scope: 'knowledge' });
    assert.equal(stale.total, 1);
    assert.match((stale.warnings ?? []).join(' '), /another process has been writing this index .*last committed/);
    assert.throws(
      () => index.native.batch(),
      (err) => /E_INDEX_LOCKED/.test(err.message),
    );
    await holder.release();
    const after = await index.refresh();
    assert.equal(after.readOnly, false);
    const fresh = await index.search({ query: 'alpha', scope: 'knowledge' });
    assert.equal(fresh.total, 2);
    assert.equal(fresh.warnings, undefined);
    await index.close();
    ws.cleanup();
  });

  it('a writer let go within the wait: the refresh waits for it and writes what changed', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n' });
    const opts = spaceOf(ws);
    const index = await openIndex(opts);
    const holder = await holding(ws);
    ws.write('project', { 'knowledge/b.md': 'alpha beta\n' });
    setTimeout(() => holder.release(), 600);
    const report = await index.refresh();
    assert.equal(report.readOnly, false);
    assert.equal(report.added, 1);
    const res = await index.search({ query: 'alpha', scope: 'knowledge' });
    assert.equal(res.total, 2);
    assert.equal(res.warnings, undefined);
    await index.close();
    ws.cleanup();
  });

  it('a writer another process keeps taking again: the refresh takes it in a moment between, and writes', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n' });
    const first = await openIndex(spaceOf(ws));
    await first.close();
    const churner = await holding(ws, 'churn');
    try {
      ws.write('project', { 'knowledge/b.md': 'alpha beta\n' });
      const index = await openIndex(spaceOf(ws, { refresh: false, writerWaitMs: 20_000 }));
      const report = await index.refresh();
      assert.equal(report.readOnly, false, JSON.stringify(report.warnings));
      assert.equal(report.added, 1);
      assert.equal((await index.search({ query: 'alpha', scope: 'knowledge' })).total, 2);
      await index.close();
    } finally {
      await churner.release();
      ws.cleanup();
    }
  });

  it('a first build still under way in another process past the wait is E_INDEX_LOCKED, not an empty answer', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n' });
    const holder = await holding(ws);
    const opts = spaceOf(ws, { writerWaitMs: 300 });
    await assert.rejects(
      openIndex(opts),
      (err) => err.code === 'E_INDEX_LOCKED' && /another process/.test(err.message) && !!err.hint,
    );
    await holder.release();
    const index = await openIndex(opts);
    assert.equal((await index.search({ query: 'alpha', scope: 'knowledge' })).total, 1);
    await index.close();
    ws.cleanup();
  });

  it('two MCP servers asked at once over one fresh project both answer in full (MCP SDK client)', async () => {
    const ws = workspace();
    tree(ws);
    const servers = await Promise.all([0, 1].map(() => connectMcp(wsArgs(ws))));
    const answers = await Promise.all(
      servers.map(({ client }) =>
        client.callTool({ name: 'rye_search', arguments: { query: 'alpha', scope: 'knowledge', limit: 1 } }),
      ),
    );
    for (const res of answers) {
      assert.ok(!res.isError, res.content?.[0]?.text);
      assert.equal(res.structuredContent.total, FILES, JSON.stringify(res.structuredContent.warnings));
      assert.equal(res.structuredContent.warnings, undefined);
    }
    await Promise.all(servers.map(({ client }) => client.close()));
    ws.cleanup();
  });

  it('processes that build one index at once all answer in full (CLI)', async () => {
    const ws = workspace();
    tree(ws);
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise((resolve) => {
          const p = spawn(
            process.execPath,
            [CLI, 'search', 'alpha', '--project', ws.project, '--cache-dir', ws.cache, '--limit', '0', '--json'],
            {
              stdio: ['ignore', 'pipe', 'pipe'],
              env: { ...process.env, USER_SPACE: path.join(ws.cache, 'no-user') },
            },
          );
          let out = '';
          let err = '';
          p.stdout.on('data', (d) => (out += d));
          p.stderr.on('data', (d) => (err += d));
          p.on('exit', (code) => resolve({ code, out, err }));
        }),
    );
    for (const { code, out, err } of await Promise.all(runs)) {
      // With --json an error is a document on stdout.
      assert.equal(code, 0, err || out);
      const res = JSON.parse(out);
      assert.ok(
        res.total >= FILES,
        `a process answered ${res.total} of ${FILES} items: ${JSON.stringify(res.warnings)}`,
      );
      assert.equal(res.warnings, undefined);
    }
    ws.cleanup();
  });
});
