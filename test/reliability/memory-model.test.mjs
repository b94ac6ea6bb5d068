// Model-based test of a memory index's writes: random sequences of adds (new items and new
// versions of old ones, one at a time or in batches large enough to take the bulk path),
// removals and searches in between, concurrent or not. After each step the index holds exactly
// the model's items, each once, in its latest version — across the merges small edits and bulk
// batches set off.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { createMemoryIndex } from '../../dist/index.js';

const RUNS = Number(process.env.RYE_MEMORY_MODEL_RUNS || 25);

/** A write of `count` items from `from` (ids wrap at 500), `weight` times as likely as others. */
const write = (kind, from, [min, max], weight) => ({
  arbitrary: fc.record({
    kind: fc.constant(kind),
    from: fc.integer({ min: 0, max: from }),
    count: fc.integer({ min, max }),
  }),
  weight,
});

const step = fc.oneof(
  write('add', 400, [1, 3], 6),
  // Over 256 items: a bulk batch (its own merge policy), mostly new versions of existing items.
  write('bulk', 200, [257, 400], 1),
  write('remove', 400, [1, 40], 2),
  // Writes not awaited one by one: they queue, in order, while a search runs.
  write('burst', 400, [2, 12], 2),
);

async function check(index, model, what) {
  const res = await index.search({ query: '*', limit: 0, mode: 'keyword' });
  assert.equal(res.total, model.size, `${what}: total`);
  // Every item in its latest version: one search per version word finds exactly its items.
  const byVersion = new Map();
  for (const [id, v] of model) byVersion.set(v, [...(byVersion.get(v) ?? []), id]);
  for (const [v, ids] of byVersion) {
    const found = [];
    for (let offset = 0; offset < ids.length + 100; offset += 100) {
      const page = await index.search({
        query: v,
        limit: 100,
        offset,
        preview_chars: 0,
        mode: 'keyword',
        include_fields: ['id'],
      });
      assert.equal(page.total, ids.length, `${what}: total of ${v}`);
      found.push(...page.results.map((r) => r.id));
      if (!page.has_more) break;
    }
    assert.deepEqual(found.sort(), ids.sort(), `${what}: items of ${v}`);
  }
}

describe('memory index writes match a model (fast-check)', () => {
  it('adds, new versions, removals, bursts and bulk batches leave exactly the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const index = createMemoryIndex();
        const model = new Map();
        let version = 0;
        const docs = (from, count, v) =>
          Array.from({ length: count }, (_, k) => ({
            id: `m/i${(from + k) % 500}`,
            title: `item ${v}`,
            content: `v${v}`,
          }));
        for (const [n, s] of steps.entries()) {
          const what = `step ${n} of ${JSON.stringify(steps.slice(0, n + 1))}`;
          if (s.kind === 'add' || s.kind === 'bulk') {
            const v = `ver${++version}`;
            const batch = docs(s.from, s.count, v);
            await index.add(batch);
            for (const d of batch) model.set(d.id, v);
          } else if (s.kind === 'remove') {
            const ids = docs(s.from, s.count, '').map((d) => d.id);
            await index.remove(ids);
            for (const id of ids) model.delete(id);
          } else {
            const writes = [];
            for (let k = 0; k < s.count; k++) {
              const v = `ver${++version}`;
              const batch = docs(s.from + k * 7, 2, v);
              writes.push(k % 3 === 2 ? index.remove(batch.map((d) => d.id)) : index.add(batch));
              for (const d of batch) k % 3 === 2 ? model.delete(d.id) : model.set(d.id, v);
            }
            // A search while the writes are queued answers from some committed state.
            const mid = await index.search({ query: '*', limit: 0, mode: 'keyword' });
            assert.ok(Number.isInteger(mid.total));
            await Promise.all(writes);
          }
          await check(index, model, what);
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.RYE_MEMORY_MODEL_SEED || 20261126) },
    );
  });
});
