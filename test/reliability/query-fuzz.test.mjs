// Property test through the Node API: any query string and any option values give either an
// envelope or a typed error with a stable code — never a crash, a hang or an untyped error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { createMemoryIndex, RyeSearchError } from '../../dist/index.js';

const CODES = new Set(['E_QUERY_SYNTAX', 'E_LIMIT', 'E_INVALID_ARGUMENT', 'E_INVALID_SCOPE']);
const TOKENS = [
  'AND',
  'OR',
  'NOT',
  '(',
  ')',
  '"',
  '*',
  'file*',
  '*thread*',
  'create_tool',
  'é',
  '\u0000',
  '\\',
  ' ',
  'and',
];

describe('query fuzzing (fast-check)', () => {
  it('random queries and options never crash or hang', async () => {
    const mem = createMemoryIndex();
    await mem.add(
      Array.from({ length: 300 }, (_, i) => ({
        id: `ns${i % 5}/doc${i}`,
        title: `file thread create_tool doc${i}`,
        content: 'multithreaded file-system walker '.repeat((i % 4) + 1),
      })),
    );
    const words = fc
      .array(fc.constantFrom(...TOKENS, 'file', 'thread', 'doc1', 'walker'), { maxLength: 12 })
      .map((t) => t.join(' '));
    const query = fc.oneof(
      { arbitrary: words, weight: 4 },
      { arbitrary: fc.string({ maxLength: 200, unit: 'binary' }), weight: 2 },
      { arbitrary: fc.string({ maxLength: 20_000 }), weight: 1 },
    );
    const options = fc.record(
      {
        // Mostly valid values, so the query path is exercised; sometimes hostile ones.
        scope: fc.oneof(
          {
            arbitrary: fc.constantFrom('knowledge', 'knowledge.ns1.*', 'rye.search.knowledge.*', 'rye.*.knowledge.ns*'),
            weight: 8,
          },
          { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
        ),
        limit: fc.oneof(
          { arbitrary: fc.integer({ min: 0, max: 100 }), weight: 8 },
          { arbitrary: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.double(), fc.constant('10')), weight: 1 },
        ),
        offset: fc.oneof(
          { arbitrary: fc.integer({ min: 0, max: 50 }), weight: 8 },
          { arbitrary: fc.integer({ min: -5, max: 200_000 }), weight: 1 },
        ),
        fuzzy: fc.record(
          { enabled: fc.boolean(), max_distance: fc.integer({ min: 0, max: 50 }) },
          { requiredKeys: [] },
        ),
        proximity: fc.record(
          { enabled: fc.boolean(), max_distance: fc.integer({ min: 0, max: 100 }) },
          { requiredKeys: [] },
        ),
        sortBy: fc.constantFrom('score', 'name', 'date', 'score', 'bogus'),
      },
      { requiredKeys: [] },
    );
    let answered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(query, options, async (q, o) => {
        const started = performance.now();
        try {
          const res = await mem.search({ query: q, ...o });
          assert.ok(Array.isArray(res.results) && typeof res.total === 'number');
          answered++;
        } catch (err) {
          assert.ok(err instanceof RyeSearchError, `untyped error for ${JSON.stringify(q).slice(0, 80)}: ${err}`);
          assert.ok(CODES.has(err.code), err.code);
          assert.ok(err.hint.length > 0);
          refused++;
        }
        assert.ok(performance.now() - started < 2000, `slow query ${JSON.stringify(q).slice(0, 80)}`);
      }),
      { numRuns: 3000, seed: 20261122 },
    );
    console.log(`query fuzz: ${answered} answered, ${refused} refused with a code`);
    assert.ok(answered > 300 && refused > 300, 'both paths are exercised');
  });
});
