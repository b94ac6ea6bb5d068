// Property test of the agent-answer options through the Node API, in every mode: any mix of
// mode, like, since/until, boost_recent, min_score, facets, include_fields, explain, preview
// length, scope lists, paging and filters gives an envelope that keeps its own promises, or a
// typed error with a stable code — never a crash, a hang or an untyped error. Single searches
// and searchMany run the same mixes (searchMany answers each entry in place).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { createMemoryIndex, RyeSearchError } from '../../dist/index.js';

const CODES = new Set(['E_QUERY_SYNTAX', 'E_LIMIT', 'E_INVALID_ARGUMENT', 'E_INVALID_SCOPE', 'E_NOT_FOUND']);
const RUNS = Number(process.env.RYE_OPTION_FUZZ_RUNS || 1500);
const DAY = 86_400_000;
const NOW = Date.now();

const WORDS = ['file', 'thread', 'search', 'keep', 'shell', 'alive', 'compress', 'archive', 'the', 'how', 'do', 'I'];
const TOKENS = [
  ...WORDS,
  'AND',
  'OR',
  'NOT',
  '(',
  ')',
  '"',
  '*',
  'file*',
  'create_tool',
  'é',
  'Straße',
  '搜索',
  '\u0301',
];

function items() {
  return Array.from({ length: 400 }, (_, i) => ({
    id: `ns${i % 7}/item${i}`,
    kind: ['knowledge', 'tool', 'directive'][i % 3],
    title: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]} item ${i}`,
    description: `${WORDS[(i * 3) % WORDS.length]} utility for ${WORDS[(i * 7) % WORDS.length]} work`,
    category: `cat${i % 4}`,
    content: `${'compress an archive and keep the shell alive '.repeat((i % 5) + 1)} Straße café 搜索引擎 ${i}`,
    tags: [`t${i % 3}`],
    // Some undated, some in the future, most within the last year.
    date: i % 11 === 0 ? undefined : NOW - ((i * 37) % 400) * DAY + (i % 13 === 0 ? 30 * DAY : 0),
    source: i % 5 === 0 ? 'user' : i % 9 === 0 ? 'system:pack' : 'project',
  }));
}

// Hostile values are rare enough that most mixes are valid and reach the search itself.
const sometimes = (valid, hostile) => fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: hostile, weight: 1 });

const query = fc.oneof(
  // Plain words (questions run hybrid in auto mode), operators and other scripts, any text.
  { arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((t) => t.join(' ')), weight: 6 },
  { arbitrary: fc.array(fc.constantFrom(...TOKENS), { maxLength: 8 }).map((t) => t.join(' ')), weight: 3 },
  { arbitrary: fc.string({ maxLength: 120 }), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const options = fc.record(
  {
    mode: sometimes(fc.constantFrom('auto', 'keyword', 'semantic', 'hybrid'), fc.constantFrom('fast', '', 7)),
    like: sometimes(
      fc.integer({ min: 0, max: 399 }).map((i) => `${['knowledge', 'tool', 'directive'][i % 3]}:ns${i % 7}/item${i}`),
      fc.oneof(fc.constantFrom('tool:missing/none', 'nope:x', ':', ''), fc.string({ maxLength: 30 })),
    ),
    since: sometimes(
      fc.constantFrom('7d', '2w', '3m', '1y', '12h', new Date(NOW - 90 * DAY).toISOString().slice(0, 10)),
      fc.oneof(fc.constantFrom('-3d', '0d', '99999y', 'yesterday', '2026-13-45'), fc.string({ maxLength: 12 })),
    ),
    until: sometimes(fc.constantFrom('1d', '30d', new Date(NOW).toISOString()), fc.constantFrom('soon', '1e9d')),
    boost_recent: sometimes(fc.constantFrom(true, false, '30d', '1d', '2w'), fc.constantFrom('0d', 'fast', 3, null)),
    min_score: sometimes(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(-1, 2, Number.NaN, '0.5')),
    facets: fc.boolean(),
    include_fields: sometimes(
      fc.subarray(['id', 'type', 'score', 'title', 'preview', 'highlights', 'shadows', 'tokens', 'match', 'date']),
      fc.constantFrom(['bogus'], 'id', [], [3]),
    ),
    explain: fc.boolean(),
    preview_chars: sometimes(fc.constantFrom(0, 1, 20, 200, 2000), fc.constantFrom(-1, 1e9, 1.5, 'long')),
    scope: sometimes(
      fc.oneof(
        fc.constantFrom('knowledge', 'tool.ns1.*', 'directive'),
        fc.subarray(['knowledge', 'tool', 'directive.ns2.*'], { minLength: 1 }),
      ),
      fc.oneof(fc.constant([]), fc.constant(['tool', 7]), fc.string({ maxLength: 20 })),
    ),
    space: sometimes(fc.constantFrom('all', 'project', 'user', 'system', 'system:pack'), fc.constantFrom('moon', '')),
    limit: sometimes(fc.integer({ min: 0, max: 100 }), fc.constantFrom(-1, 101, 1e6, 2.5)),
    offset: sometimes(fc.integer({ min: 0, max: 120 }), fc.constantFrom(-3, 1e7, 4_000_000_000)),
    filters: sometimes(
      fc.constantFrom({ category: 'cat1' }, { tags: ['t2'] }, { category: ['cat0', 'cat3'] }),
      fc.constantFrom({ category: 5 }, { '': 'x' }, 'cat1'),
    ),
    sort_by: fc.constantFrom('score', 'name', 'date'),
  },
  { requiredKeys: [] },
);

/** What every answer promises, whatever was asked. */
function checkEnvelope(res, opts) {
  assert.ok(Array.isArray(res.results) && Number.isInteger(res.total) && res.total >= 0);
  assert.ok(['keyword', 'hybrid', 'semantic'].includes(res.search_type), res.search_type);
  if (Number.isInteger(opts.limit) && opts.limit >= 0) assert.ok(res.results.length <= opts.limit);
  // A page that ends before the last match points at the next one (a page of no results
  // cannot advance, so it has no next offset).
  if (res.next_offset !== undefined) assert.ok(res.has_more && res.next_offset === res.offset + res.results.length);
  if (res.has_more && res.results.length > 0) assert.equal(res.next_offset, res.offset + res.results.length);
  for (const r of res.results) {
    assert.equal(typeof r.id, 'string');
    assert.ok(typeof r.type === 'string');
    if (typeof r.score === 'number') assert.ok(r.score >= 0 && r.score <= 1, `score ${r.score}`);
    if (r.highlights && typeof r.preview === 'string') {
      for (const [a, b] of r.highlights) assert.ok(a >= 0 && a < b && b <= r.preview.length, `highlight ${a}-${b}`);
    }
  }
  if (res.counts) {
    for (const values of Object.values(res.counts)) {
      for (const n of Object.values(values)) assert.ok(Number.isInteger(n) && n >= 0);
    }
    // Every match has one type: the type counts add up to the total.
    const types = Object.values(res.counts.type ?? {}).reduce((a, b) => a + b, 0);
    assert.equal(types, res.total, 'type counts add up to the total');
  }
  const minScore = opts.min_score;
  if (typeof minScore === 'number' && minScore >= 0 && minScore <= 1) {
    for (const r of res.results)
      if (typeof r.score === 'number') assert.ok(r.score >= minScore - 1e-4, `${r.score} < ${minScore}`);
  }
  const fields = opts.include_fields;
  if (Array.isArray(fields) && fields.every((f) => typeof f === 'string')) {
    for (const r of res.results) {
      for (const k of Object.keys(r))
        assert.ok(k === 'id' || k === 'type' || fields.includes(k), `field ${k} not asked for`);
    }
  }
  const scopes = typeof opts.scope === 'string' ? [opts.scope] : Array.isArray(opts.scope) ? opts.scope : [];
  const kinds = new Set(scopes.map((sc) => String(sc).split('.')[0]));
  if (kinds.size && ![...kinds].some((k) => k === '*' || k === 'rye')) {
    for (const r of res.results) assert.ok(kinds.has(r.type), `type ${r.type} outside scope ${opts.scope}`);
  }
  // Dated results only, within since/until (durations count back from now: m = 30 days, y = 365).
  const showsDate = !Array.isArray(fields) || fields.includes('date');
  const from = timeBound(opts.since, false);
  const to = timeBound(opts.until, true);
  if (showsDate && (from !== undefined || to !== undefined)) {
    for (const r of res.results) {
      assert.ok(r.date, `undated ${r.id} with since/until`);
      const t = Date.parse(r.date);
      if (from !== undefined) assert.ok(t >= from, `${r.date} before since ${opts.since}`);
      if (to !== undefined) assert.ok(t <= to + 60_000, `${r.date} after until ${opts.until}`);
    }
  }
  const category = opts.filters?.category;
  if (res.counts?.category && (typeof category === 'string' || Array.isArray(category))) {
    const allowed = new Set([category].flat());
    for (const c of Object.keys(res.counts.category))
      assert.ok(allowed.has(c), `counted category ${c} outside the filter`);
  }
  if (typeof opts.preview_chars === 'number' && Number.isInteger(opts.preview_chars) && opts.preview_chars >= 0) {
    for (const r of res.results) {
      if (typeof r.preview === 'string')
        assert.ok(
          [...r.preview].length <= opts.preview_chars,
          `preview of ${[...r.preview].length} > ${opts.preview_chars}`,
        );
    }
  }
}

const DURATION_MS = { h: 3_600_000, d: DAY, w: 7 * DAY, m: 30 * DAY, y: 365 * DAY };

/** A valid since/until as epoch milliseconds (as the test knows it), else undefined. */
function timeBound(value, until) {
  if (typeof value !== 'string') return undefined;
  const d = /^(\d+)([hdwmy])$/.exec(value);
  if (d) return Date.now() - Number(d[1]) * DURATION_MS[d[2]];
  const t = Date.parse(value);
  if (!Number.isFinite(t)) return undefined;
  return until && /^\d{4}-\d\d-\d\d$/.test(value) ? t + DAY - 1 : t;
}

function checkRefusal(err, what) {
  assert.ok(err instanceof RyeSearchError, `untyped error for ${what}: ${err?.stack ?? err}`);
  assert.ok(CODES.has(err.code), `${err.code} for ${what}`);
  assert.ok(err.hint.length > 0);
}

describe('option fuzzing (fast-check), every mode', () => {
  it('any mix of agent-answer options answers in bounded time or refuses with a code', async () => {
    const mem = createMemoryIndex();
    await mem.add(items());
    let answered = 0;
    let refused = 0;
    const types = new Set();
    await fc.assert(
      fc.asyncProperty(query, options, async (q, o) => {
        const opts = q === undefined ? o : { query: q, ...o };
        const what = JSON.stringify(opts).slice(0, 200);
        const started = performance.now();
        try {
          const res = await mem.search(opts);
          checkEnvelope(res, opts);
          types.add(res.search_type);
          answered++;
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          checkRefusal(err, what);
          refused++;
        }
        assert.ok(performance.now() - started < 2000, `slow: ${what}`);
      }),
      { numRuns: RUNS, seed: Number(process.env.RYE_OPTION_FUZZ_SEED || 20261126) },
    );
    console.log(`option fuzz: ${answered} answered, ${refused} refused with a code, modes ${[...types]}`);
    assert.ok(answered > RUNS / 3 && refused > RUNS / 20, 'both paths are exercised');
    for (const t of ['keyword', 'hybrid', 'semantic']) assert.ok(types.has(t), `${t} answers were exercised`);
  });

  it('searchMany answers the same mixes entry by entry, in order', async () => {
    const mem = createMemoryIndex();
    await mem.add(items());
    const batch = fc.sample(fc.tuple(query, options), { numRuns: 300, seed: 26112026 });
    const list = batch.map(([q, o]) => (q === undefined ? o : { query: q, ...o }));
    const started = performance.now();
    const answers = await mem.searchMany(list);
    assert.ok(performance.now() - started < 30_000, 'bounded');
    assert.equal(answers.length, list.length);
    let failures = 0;
    for (const [i, a] of answers.entries()) {
      if ('error' in a) {
        assert.ok(CODES.has(a.error.code), `${a.error.code} for ${JSON.stringify(list[i]).slice(0, 200)}`);
        assert.ok(a.error.hint.length > 0);
        failures++;
      } else {
        checkEnvelope(a, list[i]);
        // The entry is the answer to its own request: the same as a single search gives.
        const single = await mem.search(list[i]);
        assert.deepEqual(
          a.results.map((r) => r.id),
          single.results.map((r) => r.id),
          JSON.stringify(list[i]).slice(0, 200),
        );
        assert.equal(a.total, single.total);
      }
    }
    assert.ok(failures > 0 && failures < list.length, 'both paths are exercised');
  });

  it('a page is a slice of one ranking with one total, whatever the options', async () => {
    const mem = createMemoryIndex();
    await mem.add(items());
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        query,
        options,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 30 }),
        async (q, o, offset, limit) => {
          const base = { ...(q === undefined ? {} : { query: q }), ...o };
          let whole;
          try {
            whole = await mem.search({ ...base, offset: 0, limit: offset + limit });
          } catch (err) {
            if (err instanceof assert.AssertionError) throw err;
            return; // refusals are checked above
          }
          const page = await mem.search({ ...base, offset, limit });
          const what = JSON.stringify({ ...base, offset, limit }).slice(0, 240);
          assert.equal(page.total, whole.total, `total differs by page: ${what}`);
          assert.deepEqual(
            page.results.map((r) => [r.id, r.score]),
            whole.results.slice(offset, offset + limit).map((r) => [r.id, r.score]),
            `page is not a slice: ${what}`,
          );
          compared++;
        },
      ),
      { numRuns: Math.ceil(RUNS / 3), seed: Number(process.env.RYE_OPTION_FUZZ_SEED || 20261126) + 1 },
    );
    assert.ok(compared > RUNS / 10, `pages compared: ${compared}`);
  });

  it('a min_score cut near the best counts what it keeps, whatever the page (found by seed 4242)', async () => {
    // Scores a hair apart: the count compared raw scores with the bound, the ranking the
    // scores it ranks by (low bits dropped), so the total and the counts moved with the offset.
    const mem = createMemoryIndex();
    await mem.add(items());
    const base = { query: 'keep', min_score: 0.9999426305294038, facets: true, filters: { category: 'cat1' } };
    const totals = new Set();
    for (const offset of [0, 5, 18, 26, 40]) {
      const res = await mem.search({ ...base, offset });
      checkEnvelope(res, { ...base, offset });
      totals.add(res.total);
    }
    assert.equal(totals.size, 1, `one total: ${[...totals]}`);
  });
});
