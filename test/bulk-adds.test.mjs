// Bulk adds to a memory index return once searchable; their merges run when the adds pause, and
// `ready()` runs them at once. Through the public API: answers right before, during and after the
// merges, upserts across a run, and close() with merges pending.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';

/** 300 documents (a bulk add: more than a small edit), part `part`, every title `word`. */
const part = (n, word) =>
  Array.from({ length: 300 }, (_, i) => ({ id: `p${n}/item${i}`, title: `${word} item ${i}`, content: 'bulk body' }));

describe('bulk adds', () => {
  it('are searchable as each add returns, and upserts replace across a run whenever the merges run', async () => {
    // The second run starts before the pause ends, as the merges start, while they run and after.
    for (const pauseMs of [0, 90, 110, 130, 300]) {
      const mem = createMemoryIndex();
      for (let n = 0; n < 5; n++) {
        await mem.add(part(n, 'first'));
        assert.equal((await mem.search({ query: 'first', count: 'exact' })).total, 300 * (n + 1), `pause ${pauseMs}`);
      }
      await sleep(pauseMs);
      for (let n = 0; n < 5; n++) await mem.add(part(n, 'second'));
      assert.equal((await mem.search({ query: 'first' })).total, 0, `pause ${pauseMs}: old versions alive`);
      await mem.ready();
      assert.equal(mem.size, 1500);
      assert.equal(
        (await mem.search({ query: 'first' })).total,
        0,
        `pause ${pauseMs}: old versions alive after merging`,
      );
      const second = await mem.search({ query: 'second', limit: 3 });
      assert.equal(second.total, 1500);
      await mem.close();
    }
  });

  it('answer the same before and after their merges', async () => {
    const mem = createMemoryIndex();
    for (let n = 0; n < 6; n++) await mem.add(part(n, n % 2 ? 'odd' : 'even'));
    const asks = [
      { query: 'odd', limit: 20 },
      { query: 'item 7', mode: 'keyword' },
      { query: 'p3*', limit: 5 },
    ];
    const before = await mem.searchMany(asks);
    await mem.ready();
    const after = await mem.searchMany(asks);
    for (const [i, ask] of asks.entries()) {
      assert.equal(after[i].total, before[i].total, JSON.stringify(ask));
      assert.deepEqual(new Set(after[i].results.map((r) => r.id)).size, after[i].results.length);
    }
    assert.equal(after[0].total, 900);
    await mem.close();
  });

  it('close() with merges pending resolves, and a removal in the run is kept', async () => {
    const mem = createMemoryIndex();
    for (let n = 0; n < 4; n++) await mem.add(part(n, 'kept'));
    await mem.remove(['p1/item1', 'p2/item2']);
    assert.equal(mem.size, 1198);
    await mem.ready();
    assert.equal(mem.size, 1198);
    assert.equal((await mem.search({ query: 'kept' })).total, 1198);
    for (let n = 4; n < 8; n++) await mem.add(part(n, 'kept'));
    await mem.close();
  });
});
