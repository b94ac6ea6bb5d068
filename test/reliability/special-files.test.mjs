// What a user's environment can put where the model, the cache or its files should be: every
// command answers (keyword search goes on without a model) or fails with one coded message, in
// bounded time, and an index's vectors always belong to the model searching them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { knowledge, runCli, workspace, wsArgs } from '../helpers.mjs';

function tmuxSpace() {
  const ws = workspace();
  ws.write('project', {
    'knowledge/tmux.md': knowledge({
      name: 'tmux',
      title: 'terminal multiplexer',
      description: 'lets you detach a session and reattach it later, keeping programs running',
    }),
  });
  return ws;
}

/** A file that claims 4096 dims × 4M tokens (17 GB of weights) and holds 8 MB. */
function lyingModel(file) {
  const header = Buffer.alloc(20);
  header.write('RYEEMB01', 0, 'latin1');
  header.writeUInt32LE(4096, 8);
  header.writeUInt32LE(4 * 1024 * 1024, 12);
  header.writeUInt32LE(0, 16);
  fs.writeFileSync(file, Buffer.concat([header, Buffer.alloc(8 * 1024 * 1024)]));
}

describe('special files', () => {
  it('a model that is a FIFO, /dev/zero, a folder, oversized or lying about its size never stops keyword search', () => {
    const ws = tmuxSpace();
    const fifo = path.join(ws.root, 'model.fifo');
    execFileSync('mkfifo', [fifo]);
    const lying = path.join(ws.root, 'lying.rye-embed');
    lyingModel(lying);
    const huge = path.join(ws.root, 'huge.rye-embed');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, 600 * 1024 * 1024); // sparse: over the cap, costs no disk
    for (const model of [fifo, '/dev/zero', ws.root, lying, huge]) {
      const started = Date.now();
      const res = runCli(['search', 'multiplexer', '--json', ...wsArgs(ws)], { env: { RYE_SEARCH_MODEL: model } });
      assert.equal(res.status, 0, `${model}: ${res.stderr}`);
      assert.ok(Date.now() - started < 50_000, `${model}: answered, not waited on`);
      assert.deepEqual(
        JSON.parse(res.stdout).results.map((r) => r.id),
        ['tmux'],
        model,
      );
      assert.match(res.stderr, /semantic search is off/, model);
      const index = runCli(['index', ...wsArgs(ws)], { env: { RYE_SEARCH_MODEL: model } });
      assert.equal(index.status, 0, `${model}: index: ${index.stderr}`);
    }
    ws.cleanup();
  });

  it('an index built without the model is searched by meaning once the model is there', () => {
    const ws = tmuxSpace();
    const args = ['search', 'keep my shell alive when ssh drops', '--mode', 'semantic', '--json', ...wsArgs(ws)];
    const off = runCli(['index', ...wsArgs(ws)], { env: { RYE_SEARCH_MODEL: 'off' } });
    assert.equal(off.status, 0, off.stderr);
    const res = runCli(args);
    assert.equal(res.status, 0, res.stderr);
    const answer = JSON.parse(res.stdout);
    assert.equal(answer.search_type, 'semantic');
    assert.deepEqual(
      answer.results.map((r) => r.id),
      ['tmux'],
    );
    // And back: a process without the model searches by words, never with stale vectors.
    const keyword = JSON.parse(runCli(args, { env: { RYE_SEARCH_MODEL: 'off' } }).stdout);
    assert.equal(keyword.search_type, 'keyword');
    ws.cleanup();
  });

  it('a cache directory that cannot hold an index is one coded error, never a hang or a stack', () => {
    const ws = tmuxSpace();
    const file = path.join(ws.root, 'a-file');
    fs.writeFileSync(file, 'x');
    const readOnly = path.join(ws.root, 'read-only');
    fs.mkdirSync(readOnly, { mode: 0o555 });
    const cases = ['/proc/self', '/proc/self/a/b', file, path.join(file, 'below')];
    // root writes anywhere: a read-only folder is only a case for other users.
    if (process.getuid?.() !== 0) cases.push(readOnly);
    for (const cacheDir of cases) {
      const args = ['search', 'multiplexer', '--project', ws.project, '--user-space', ws.user, '--no-default-bundle'];
      const res = runCli([...args, '--cache-dir', cacheDir]);
      assert.equal(res.status, 2, `${cacheDir}: ${res.stderr}`);
      assert.match(res.stderr, /E_IO/, cacheDir);
      assert.match(res.stderr, /hint: .*cache/, cacheDir);
      assert.doesNotMatch(res.stderr, /\n\s+at /, `${cacheDir}: no stack`);
    }
    ws.cleanup();
  });

  it('a usual cache that cannot hold an index (a read-only home) gives way to a folder of our own in TMPDIR', () => {
    const ws = tmuxSpace();
    const file = path.join(ws.root, 'a-file');
    fs.writeFileSync(file, 'x');
    const tmp = path.join(ws.root, 'tmp');
    fs.mkdirSync(tmp);
    const args = ['search', 'multiplexer', '--project', ws.project, '--user-space', ws.user, '--no-default-bundle'];
    // XDG_CACHE_HOME below a file: no cache folder can be made there (as in a read-only home).
    const env = { RYE_SEARCH_CACHE_DIR: '', XDG_CACHE_HOME: path.join(file, 'cache'), TMPDIR: tmp };
    const res = runCli([...args, '--json'], { env });
    assert.equal(res.status, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).total, 1);
    const own = path.join(tmp, `rye-search-${process.getuid?.() ?? os.userInfo().username}`);
    assert.equal(fs.statSync(own).mode & 0o777, 0o700);
    assert.equal(fs.readdirSync(own).length, 1, 'the index is kept there, once');
    // The index command says where and why.
    const indexed = runCli(['index', '--project', ws.project, '--user-space', ws.user, '--no-default-bundle'], { env });
    assert.equal(indexed.status, 0, indexed.stderr);
    assert.match(indexed.stdout + indexed.stderr, /ENOTDIR.*indexes are kept in .*rye-search-/);
    // A cache the caller chose is not replaced: one coded error, as before.
    const chosen = runCli([...args, '--cache-dir', path.join(file, 'cache')], { env });
    assert.equal(chosen.status, 2);
    assert.match(chosen.stderr, /E_IO/);
    assert.equal(runCli(args, { env: { ...env, RYE_SEARCH_CACHE_DIR: file } }).status, 2);
    // A folder of that name others may write to, or a link, is never used: the first error stands.
    fs.rmSync(own, { recursive: true });
    fs.mkdirSync(own, { mode: 0o777 });
    fs.chmodSync(own, 0o777);
    const shared = runCli(args, { env });
    assert.equal(shared.status, 2);
    assert.match(shared.stderr, /E_IO.*ENOTDIR/);
    fs.rmSync(own, { recursive: true });
    fs.symlinkSync(ws.root, own);
    const before = fs.readdirSync(ws.root).sort();
    assert.equal(runCli(args, { env }).status, 2);
    assert.deepEqual(fs.readdirSync(ws.root).sort(), before, 'nothing written through the link');
    ws.cleanup();
  });

  it('special files and folders in place of the cache files are cleared and the index rebuilt', () => {
    const ws = tmuxSpace();
    const search = () => runCli(['search', 'multiplexer', '--json', ...wsArgs(ws)]);
    assert.equal(search().status, 0);
    const [dir] = fs.readdirSync(ws.cache).map((d) => path.join(ws.cache, d));
    const replace = (name, make) => {
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      make(path.join(dir, name));
    };
    const makes = [(p) => execFileSync('mkfifo', [p]), (p) => fs.symlinkSync('/dev/zero', p), (p) => fs.mkdirSync(p)];
    for (const name of ['meta.json', 'rye-state.json', '.managed.json']) {
      for (const make of makes) {
        replace(name, make);
        const res = search();
        assert.equal(res.status, 0, `${name}: ${res.stderr}`);
        assert.deepEqual(
          JSON.parse(res.stdout).results.map((r) => r.id),
          ['tmux'],
          name,
        );
      }
    }
    // A meta.json that parses but names segments that are not there.
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    meta.segments = [{ ...(meta.segments[0] ?? {}), segment_id: 'ffffffffffffffffffffffffffffffff', max_doc: 5 }];
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
    const res = search();
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(
      JSON.parse(res.stdout).results.map((r) => r.id),
      ['tmux'],
    );
    ws.cleanup();
  });
});

describe('cache on disk', () => {
  it('keeps at most 16 indexes: the least recently used idle ones are removed', async () => {
    const { openIndex } = await import('../../dist/index.js');
    const ws = workspace();
    const projects = Array.from({ length: 20 }, (_, i) => {
      const dir = path.join(ws.root, `p${i}`);
      fs.mkdirSync(path.join(dir, '.ai', 'knowledge'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.ai', 'knowledge', 'note.md'), `note ${i}\n`);
      return dir;
    });
    const open = async (projectPath) =>
      (await openIndex({ projectPath, userSpace: ws.user, cacheDir: ws.cache, includeDefaultBundle: false })).close();
    for (const p of projects) await open(p);
    // Twenty indexes, all used an hour ago: idle, so prunable.
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const d of fs.readdirSync(ws.cache)) fs.utimesSync(path.join(ws.cache, d), hourAgo, hourAgo);
    assert.equal(fs.readdirSync(ws.cache).length, 20);
    await open(projects[0]);
    const left = fs.readdirSync(ws.cache);
    assert.equal(left.length, 16, left.join(', '));
    assert.ok(
      left.some((d) => d.startsWith('p0-')),
      'the index just used stays',
    );
    // Recently used ones are never removed, whatever their number.
    for (const p of projects) await open(p);
    assert.equal(fs.readdirSync(ws.cache).length, 20);
    ws.cleanup();
  });

  it("another version's index (another schema) is left alone: each version keeps a folder of its own", async () => {
    const { openIndex } = await import('../../dist/index.js');
    const { indexDirFor } = await import('../../dist/cache.js');
    const { embeddingModel, schemaVersion } = await import('../../dist/native.js');
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'walrus\n' });
    const opts = { projectPath: ws.project, userSpace: ws.user, cacheDir: ws.cache, includeDefaultBundle: false };
    const index = await openIndex(opts);
    // What the previous version of the package would have opened for the same spaces: an index
    // whose schema file says so, which opening it here would have cleared and rebuilt.
    const spaces = index.spaces;
    const older = indexDirFor(ws.cache, ws.project, spaces, embeddingModel(), schemaVersion() - 1, 1 << 20);
    assert.equal(indexDirFor(ws.cache, ws.project, spaces, embeddingModel(), schemaVersion(), 1 << 20), index.location);
    assert.notEqual(older, index.location);
    fs.mkdirSync(older);
    fs.writeFileSync(path.join(older, 'rye-search-schema'), String(schemaVersion() - 1));
    fs.writeFileSync(path.join(older, 'meta.json'), '{"kept": true}');
    await index.close();
    const again = await openIndex(opts);
    assert.equal((await again.search({ query: 'walrus' })).total, 1);
    assert.equal(fs.readFileSync(path.join(older, 'meta.json'), 'utf8'), '{"kept": true}');
    await again.close();
    ws.cleanup();
  });
});
