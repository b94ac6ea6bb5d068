// The addon in worker threads, as a pool of workers uses it: loaded first by a worker (never by the
// main thread), workers that end and come again, workers terminated while they add, search or
// merge. Each answers or is gone; the process never crashes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

import { ROOT } from '../helpers.mjs';

/** Runs `workers` workers one after another in a process whose main thread never loads the addon. */
const PARENT = `
import { Worker } from 'node:worker_threads';
const [workers, terminateAfterMs] = JSON.parse(process.argv[1]);
const work = \`
const { parentPort } = await import('node:worker_threads');
const { createMemoryIndex } = await import(${JSON.stringify(`${ROOT}/dist/index.js`)});
const index = createMemoryIndex();
for (let part = 0; part < 3; part++) {
  await index.add(Array.from({ length: 2000 }, (_, i) => ({ id: 'k/item' + part + '_' + i, title: 'item ' + i + ' fuzzy', content: 'text about fuzzy things' })));
}
const many = await index.searchMany(Array.from({ length: 2000 }, (_, i) => ({ query: i % 2 ? 'fuzzy' : 'fuzy~1 AND item' })));
await index.ready();
parentPort.postMessage(many.length + ' ' + (await index.search({ query: 'things' })).total);
await index.close();
\`;
const outcomes = [];
for (let n = 0; n < workers; n++) {
  const worker = new Worker(work, { eval: true });
  const limit = terminateAfterMs[n % terminateAfterMs.length];
  outcomes.push(await new Promise((resolve) => {
    let answer = 'none';
    const timer = limit === null ? undefined : setTimeout(() => worker.terminate(), limit);
    worker.on('message', (m) => { answer = m; });
    worker.on('error', (e) => { answer = 'error ' + e.message; });
    worker.on('exit', () => { clearTimeout(timer); resolve(answer); });
  }));
}
console.log(JSON.stringify(outcomes));
`;

function runParent(workers, terminateAfterMs) {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PARENT, JSON.stringify([workers, terminateAfterMs])],
    {
      encoding: 'utf8',
      env: { ...process.env, RYE_SEARCH_ENCODER: 'off' },
      timeout: 120_000,
    },
  );
  assert.equal(run.signal, null, `killed by ${run.signal}: ${run.stderr.slice(-2000)}`);
  assert.equal(run.status, 0, run.stderr.slice(-2000));
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

describe('the addon in worker threads', () => {
  it('workers that load it one after another, the main thread never: each answers', () => {
    // The first worker to load the allocator ended before the next began: with mimalloc v3 the
    // next one's first allocation crashed the whole process (SIGSEGV).
    const outcomes = runParent(3, [null]);
    assert.deepEqual(outcomes, Array(3).fill('2000 6000'));
  });

  it('workers terminated while they add, search or merge: the process goes on, later workers answer', () => {
    const outcomes = runParent(6, [30, 150, 400, null]);
    assert.equal(outcomes.length, 6);
    for (const [n, outcome] of outcomes.entries()) {
      // A terminated worker may have answered before it was stopped, or not.
      assert.ok(['none', '2000 6000'].includes(outcome), `worker ${n}: ${outcome}`);
    }
    assert.equal(outcomes[3], '2000 6000');
  });
});
