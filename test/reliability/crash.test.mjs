// kill -9 mid-index: the next open sees the last committed index, the refresh completes, nothing
// is lost. A dead writer's lock is recovered; a live writer in another process is reported and
// readers keep working.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { openIndex } from '../../dist/index.js';
import { workspace } from '../helpers.mjs';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'index-child.mjs');
const FILES = 12_000;

function child(args) {
  return spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
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
    const opts = {
      projectPath: ws.project,
      cacheDir: ws.cache,
      userSpace: path.join(ws.cache, 'no-user'),
      includeDefaultBundle: false,
    };
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
    const opts = {
      projectPath: ws.project,
      cacheDir: ws.cache,
      userSpace: path.join(ws.cache, 'no-user'),
      includeDefaultBundle: false,
      watch: false,
    };
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

  it('a live writer in another process is reported; searches keep answering; then the refresh completes', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n' });
    const opts = {
      projectPath: ws.project,
      cacheDir: ws.cache,
      userSpace: path.join(ws.cache, 'no-user'),
      includeDefaultBundle: false,
    };
    const index = await openIndex(opts);
    const holder = child(['hold', ws.project, ws.cache]);
    const holderExited = new Promise((r) => holder.on('exit', r));
    await new Promise((resolve, reject) => {
      holder.stdout.on('data', (d) => String(d).includes('holding') && resolve());
      holder.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    ws.write('project', { 'knowledge/b.md': 'alpha beta\n' });
    const locked = await index.refresh();
    assert.equal(locked.readOnly, true);
    assert.match(locked.warnings.map((w) => w.message).join(' '), /another process/);
    assert.equal((await index.search({ query: 'alpha', scope: 'knowledge' })).total, 1);
    assert.throws(
      () => index.native.batch(),
      (err) => /E_INDEX_LOCKED/.test(err.message),
    );
    holder.stdin.end();
    await holderExited;
    const after = await index.refresh();
    assert.equal(after.readOnly, false);
    assert.equal((await index.search({ query: 'alpha', scope: 'knowledge' })).total, 2);
    ws.cleanup();
  });
});
