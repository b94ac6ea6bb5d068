// Proximity over texts of repeated words: every slop (up to the 1,000 MCP accepts) is answered,
// and what it finds is what the rule says — every word of the query within `slop` of its place
// (a repeated word counts where it first stands). Tantivy's carried slop allocated without bound
// on such texts: a Thai phrase at proximity 100 aborted the process.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { createMemoryIndex } from '../../dist/index.js';

const RUNS = Math.max(40, Math.floor(Number(process.env.RYE_FUZZ_CASES ?? 3000) / 15));
const WORDS = ['kx', 'ky', 'kz', 'kw'];

/** The rule, by brute force: some window [low, low + slop] holds a placed position of every word. */
function near(text, query, slop) {
  const places = new Map();
  for (const [i, w] of query.entries()) if (!places.has(w)) places.set(w, i);
  const placed = [...places].map(([w, at]) => text.flatMap((t, p) => (t === w ? [p - at] : [])));
  if (placed.some((list) => list.length === 0)) return false;
  return placed.flat().some((low) => placed.every((list) => list.some((p) => p >= low && p <= low + slop)));
}

describe('proximity fuzz', () => {
  it('the Thai phrase and the ASCII storm of the report are answered at every slop', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'thai', title: 'x', content: 'ภาษาไทยเป็นภาษา'.repeat(30) },
      { id: 'ascii', title: 'y', content: 'kx ky kx ky kz '.repeat(2000) },
    ]);
    for (const slop of [0, 5, 40, 60, 100, 300, 1000]) {
      const proximity = { enabled: true, max_distance: slop };
      const thai = await index.search({ query: '"ภาษาไทยเป็นภาษาภาษาไทย"', proximity, mode: 'keyword' });
      assert.deepEqual(
        thai.results.map((r) => r.id),
        ['thai'],
        `slop ${slop}`,
      );
      const ascii = await index.search({ query: 'kx ky kx ky kz kx ky kx ky kz kx ky', proximity, mode: 'keyword' });
      assert.deepEqual(
        ascii.results.map((r) => r.id),
        ['ascii'],
        `slop ${slop}`,
      );
    }
  });

  it('repeated-word texts × query lengths × slop: found exactly where every word is within the slop', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 12 }),
        fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(100, 255, 256, 1000)),
        async (texts, repeat, query, slop) => {
          if (new Set(query).size < 2) return;
          const index = createMemoryIndex();
          const docs = texts.map((t, i) => ({ id: `d${i}`, title: 'qq', content: Array(repeat).fill(t).flat() }));
          await index.add(docs.map((d) => ({ ...d, content: d.content.join(' ') })));
          const res = await index.search({
            query: query.join(' '),
            proximity: { enabled: true, max_distance: slop },
            mode: 'keyword',
            limit: 100,
          });
          const expected = docs
            .filter((d) => query.every((w) => d.content.includes(w)) && near(d.content, query, slop))
            .map((d) => d.id)
            .sort();
          assert.deepEqual(res.results.map((r) => r.id).sort(), expected, `${query.join(' ')} ~${slop}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
