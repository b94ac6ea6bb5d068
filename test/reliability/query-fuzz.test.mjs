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

  it('boolean queries over words with many postings match exactly the items a model says', async () => {
    // Each word in well over 1,500 items, in any of four fields, so an intersection probes
    // its fields' postings (query/probed.rs); added in batches, some removed.
    const WORDS = ['zebra', 'quokka', 'lynx', 'otter'];
    const FIELDS = ['title', 'description', 'content', 'category'];
    const random = fc.sample(fc.array(fc.nat(99), { minLength: 8, maxLength: 8 }), { numRuns: 3000, seed: 4711 });
    const items = random.map((r, i) => {
      const item = { id: `doc/${i}`, title: `item ${i}`, content: 'filler text' };
      const words = new Set();
      WORDS.forEach((w, k) => {
        if (r[k] < 60) {
          const field = FIELDS[r[k + 4] % 4];
          item[field] = `${item[field] ?? ''} ${w}`.trim();
          words.add(w);
        }
      });
      return { item, words };
    });
    const mem = createMemoryIndex();
    for (let i = 0; i < items.length; i += 600) await mem.add(items.slice(i, i + 600).map((x) => x.item));
    const removed = new Set(items.filter((_, i) => i % 9 === 4).map((x) => x.item.id));
    await mem.remove([...removed]);
    const live = items.filter((x) => !removed.has(x.item.id));

    const expr = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { arbitrary: fc.constantFrom(...WORDS).map((w) => ({ text: w, has: (s) => s.has(w) })), weight: 3 },
        {
          arbitrary: fc.tuple(tie('node'), tie('node')).map(([a, b]) => join(a, b, 'AND', (x, y) => x && y)),
          weight: 2,
        },
        {
          arbitrary: fc.tuple(tie('node'), tie('node')).map(([a, b]) => join(a, b, 'OR', (x, y) => x || y)),
          weight: 1,
        },
        {
          arbitrary: fc.tuple(tie('node'), tie('node')).map(([a, b]) => join(a, b, 'AND NOT', (x, y) => x && !y)),
          weight: 1,
        },
      ),
    })).node;
    const join = (a, b, op, f) => ({ text: `(${a.text} ${op} ${b.text})`, has: (s) => f(a.has(s), b.has(s)) });
    await fc.assert(
      fc.asyncProperty(expr, fc.constantFrom('keyword', 'auto'), async (e, mode) => {
        const want = live.filter((x) => e.has(x.words)).map((x) => x.item.id);
        const res = await mem.search({ query: e.text, mode, limit: 50, previewChars: 0 });
        // `auto` may add items by meaning to a plain question; these queries have operators.
        assert.equal(res.total, want.length, `${e.text} (${mode})`);
        const wanted = new Set(want);
        assert.ok(
          res.results.every((r) => wanted.has(r.id)),
          `${e.text} (${mode}): a result outside the model`,
        );
        assert.equal(res.results.length, Math.min(50, want.length));
      }),
      { numRuns: 200, seed: Number(process.env.RYE_QUERY_FUZZ_SEED || 20261126) },
    );
  });
});
