// Settings a process inherits from its environment and that the libraries under the addon read
// themselves: whatever they hold, a search answers in bounded time and memory, or fails with a
// coded error — never a hang, never an abort.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';

import { ROOT } from '../helpers.mjs';

/** Adds items, runs a batch, a hybrid search and a one-item add; prints what came back. */
const CHILD = `
import fs from 'node:fs';
const out = {};
try {
  const { createMemoryIndex } = await import(${JSON.stringify(`${ROOT}/dist/index.js`)});
  const index = createMemoryIndex();
  await index.add(Array.from({ length: 300 }, (_, i) => ({ id: 'k/item' + i, title: 'item ' + i + ' fuzzy', content: 'text about fuzzy things' })));
  const many = await index.searchMany(Array.from({ length: 500 }, (_, i) => ({ query: i % 2 ? 'fuzzy' : 'item' })));
  out.many = many.map((r) => r.total);
  out.hybrid = (await index.search({ query: 'things that are fuzzy', mode: 'hybrid' })).results.length;
  await index.add([{ id: 'k/new', title: 'brand new' }]);
  out.added = (await index.search({ query: 'brand' })).total;
  await index.close();
} catch (err) {
  out.error = { code: err.code, hint: err.hint, message: err.message };
}
const status = fs.existsSync('/proc/self/status') ? fs.readFileSync('/proc/self/status', 'utf8') : '';
out.threads = Number(/^Threads:\\s+(\\d+)/m.exec(status)?.[1] ?? 0);
console.log(JSON.stringify(out));
`;

function runChild(env) {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
    env: { ...process.env, RYE_SEARCH_ENCODER: 'off', ...env },
    timeout: 60_000,
  });
  assert.equal(run.signal, null, `killed by ${run.signal} (${JSON.stringify(env)}): ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

describe('the environment a process inherits', () => {
  it('RAYON_NUM_THREADS of any value: searches answer with no more pool threads than cores', () => {
    const cores = os.availableParallelism();
    const baseline = runChild({ RAYON_NUM_THREADS: '' });
    assert.equal(baseline.error, undefined, JSON.stringify(baseline.error));
    for (const value of ['100000', '0', '-3', 'lots', '1']) {
      const out = runChild({ RAYON_NUM_THREADS: value });
      assert.equal(out.error, undefined, `${value}: ${JSON.stringify(out.error)}`);
      assert.deepEqual(out.many, baseline.many, value);
      assert.equal(out.hybrid, baseline.hybrid, value);
      assert.equal(out.added, 1, value);
      // Before the pool was sized by the core, 100,000 never answered (5,000: 23 s, 900 MB).
      // (Node's and Tantivy's own threads come and go by a few.)
      if (baseline.threads > 0) {
        assert.ok(out.threads <= baseline.threads + 8, `${value}: ${out.threads} threads, ${baseline.threads} unset`);
      }
    }
    if (baseline.threads > 0) assert.ok(baseline.threads < 64 + cores, `${baseline.threads} threads`);
  });

  it('allocator settings that leave it no memory: a coded error that names them, and no abort', () => {
    for (const env of [{ MIMALLOC_DISALLOW_OS_ALLOC: '1' }, { mimalloc_limit_os_alloc: 'yes' }]) {
      const out = runChild(env);
      assert.equal(out.error?.code, 'E_NATIVE_UNAVAILABLE', JSON.stringify(out));
      assert.match(out.error.hint, new RegExp(Object.keys(env)[0]));
    }
    // With memory reserved for it, or the setting off, the allocator has memory: all works.
    for (const env of [
      { MIMALLOC_DISALLOW_OS_ALLOC: '1', MIMALLOC_RESERVE_OS_MEMORY: '256MiB' },
      { MIMALLOC_DISALLOW_OS_ALLOC: 'off' },
    ]) {
      const out = runChild(env);
      assert.equal(out.error, undefined, `${JSON.stringify(env)}: ${JSON.stringify(out.error)}`);
      assert.equal(out.added, 1);
    }
  });

  it('reads those settings as the allocator does: refused exactly when loading alone would abort', async () => {
    const { allocatorRefusal } = await import(`${ROOT}/dist/allocator-env.js`);
    const values = ['', '1', 'on', 'True', '2', ' 3', '-1', '+1', '0', 'off', 'E', '1x', 'junk'];
    const cases = [
      ...values.map((v) => ({ MIMALLOC_DISALLOW_OS_ALLOC: v })),
      { MIMALLOC_LIMIT_OS_ALLOC: '1' },
      // The current name wins over the old one.
      { MIMALLOC_DISALLOW_OS_ALLOC: '0', MIMALLOC_LIMIT_OS_ALLOC: '1' },
      ...['0', '1', 'on', '24M', '32704K', '32705K', '32M', '33554432', '64MiB', '1x', '-4M', 'junk'].map((r) => ({
        MIMALLOC_DISALLOW_OS_ALLOC: '1',
        MIMALLOC_RESERVE_OS_MEMORY: r,
      })),
    ];
    // Huge pages are not counted as a reservation: where the system has none, loading aborted.
    const meminfo = fs.existsSync('/proc/meminfo') ? fs.readFileSync('/proc/meminfo', 'utf8') : '';
    if (/^HugePages_Total:\s+0$/m.test(meminfo)) {
      cases.push({ MIMALLOC_DISALLOW_OS_ALLOC: '1', MIMALLOC_RESERVE_HUGE_OS_PAGES: '1' });
    }
    for (const env of cases) {
      // The binding loaded alone, with nothing in between: what the allocator does with it.
      const raw = spawnSync(
        process.execPath,
        ['-e', `require(${JSON.stringify(`${ROOT}/native/binding.cjs`)}).schemaVersion()`],
        {
          encoding: 'utf8',
          env: { ...process.env, ...env },
          timeout: 30_000,
        },
      );
      const aborted = raw.signal === 'SIGABRT';
      assert.ok(aborted || raw.status === 0, `${JSON.stringify(env)}: ${raw.signal} ${raw.status} ${raw.stderr}`);
      assert.equal(allocatorRefusal(env) !== undefined, aborted, JSON.stringify(env));
    }
  });

  it('a RUST_MIN_STACK no thread can have: a coded error that names it, and no abort', () => {
    const out = runChild({ RUST_MIN_STACK: '100000000000000' });
    assert.ok(out.error, JSON.stringify(out));
    assert.equal(out.error.code, 'E_IO', JSON.stringify(out.error));
    assert.match(out.error.hint, /RUST_MIN_STACK/);
  });
});
