// A panic inside a native search crosses N-API as E_INTERNAL and the same index serves the next
// call; a slow search never holds back the quick ones asked after it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../../dist/index.js';
import { ROOT } from '../helpers.mjs';

/** Runs in a child whose RYE_SEARCH_TEST_PANIC makes any query holding "kaboom" panic natively. */
const CHILD = `
const { createMemoryIndex } = await import(${JSON.stringify(`${ROOT}/dist/index.js`)});
const index = createMemoryIndex();
await index.add([{ id: 'a', title: 'alpha kaboom' }, { id: 'b', title: 'beta' }]);
const out = [];
for (const query of ['kaboom', '*kaboom', 'alpha', 'kaboom', 'beta']) {
  try {
    const res = await index.search({ query });
    out.push({ query, total: res.total });
  } catch (err) {
    out.push({ query, code: err.code, hint: err.hint });
  }
}
await index.add([{ id: 'c', title: 'gamma' }]);
out.push({ query: 'gamma', total: (await index.search({ query: 'gamma' })).total });
console.log(JSON.stringify(out));
`;

describe('panics and starvation', () => {
  it('a native panic is E_INTERNAL, in place and on the thread pool, and the index serves on', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
      encoding: 'utf8',
      env: { ...process.env, RYE_SEARCH_TEST_PANIC: 'kaboom' },
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1));
    for (const q of out.filter((o) => o.query.includes('kaboom'))) {
      assert.equal(q.code, 'E_INTERNAL', JSON.stringify(q));
      assert.ok(q.hint.length > 0);
    }
    assert.deepEqual(
      out.filter((o) => !o.query.includes('kaboom')).map((o) => [o.query, o.total]),
      [
        ['alpha', 1],
        ['beta', 1],
        ['gamma', 1],
      ],
    );
  });

  it('quick searches asked after a slow one answer before it', async () => {
    const index = createMemoryIndex();
    const word = (i) => `w${((i * 2654435761) >>> 0).toString(36)}`;
    await index.add(
      Array.from({ length: 20_000 }, (_, i) => ({
        id: `d${i}`,
        title: `${word(i)} ${word(i + 1)}`,
        content: `${word(i * 3)} ${word(i * 7)} common`,
      })),
    );
    const order = [];
    // 32 distinct leading wildcards over 80k words: every dictionary walked many times over.
    const slow = index
      .search({ query: Array.from({ length: 32 }, (_, i) => `*${i.toString(36)}*`).join(' OR '), limit: 50 })
      .then(() => order.push('slow'));
    const quick = Array.from({ length: 20 }, (_, i) =>
      index.search({ query: i % 2 ? 'common' : word(i), limit: 5 }).then(() => order.push(`quick${i}`)),
    );
    await Promise.all([slow, ...quick]);
    assert.equal(order.at(-1), 'slow', order.join(' '));
  });
});
