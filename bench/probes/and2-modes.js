// The bench's `and2` pairs (two words that one item holds together) typed plainly, per mode: its
// `words2` row. Joined by AND (the `and2` row, a keyword kind: issue #64's "every keyword query
// kind ≥ 2× SQLite FTS5") they are the intersection alone in every mode. Plain, `auto` (the
// default) takes them for a question, and few items hold both, so it is answered by meaning too
// (the query embedded, every item's vector compared); in `keyword` mode it is the intersection. p50 of each mode through the public API, and of
// FTS5 with `snippet()` on the same pairs, in one process, timed alternately (second half of 20
// rounds). The sentence encoder is off, so nothing else takes the cores.
//   RYE_SEARCH_ENCODER=off node bench/probes/and2-modes.js [c10k|c60k]
import { ENGINES } from '../engines.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c60k';
const docs = tier(name).map(({ base, ...d }) => d);
const { createMemoryIndex } = await import('../../dist/index.js');
const index = createMemoryIndex();
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
await index.ready();
const fts5 = await ENGINES.fts5(undefined, 'default');
await fts5.build(docs);
const pairs = queryMix().queries.filter((q) => q.kind === 'and2');
const ROUNDS = 20;
const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const modes = ['keyword', 'auto', 'semantic'];
const times = Object.fromEntries([...modes, 'fts5'].map((m) => [m, []]));
const answeredBy = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const q of pairs) {
    for (const mode of modes) {
      const s = performance.now();
      const res = await index.search({ query: q.terms.join(' '), scope: 'knowledge', limit: 10, mode });
      if (round >= ROUNDS / 2) times[mode].push(performance.now() - s);
      const as = `${mode} → ${res.search_type}`;
      if (round === 0) answeredBy[as] = (answeredBy[as] ?? 0) + 1;
    }
    const s = performance.now();
    await fts5.run(q);
    if (round >= ROUNDS / 2) times.fts5.push(performance.now() - s);
  }
}
await index.close();
const fts = p50(times.fts5);
console.log(`${name}: p50 of the bench's ${pairs.length} and2 pairs, previews on (limit 10)`);
console.table(
  Object.entries(times).map(([mode, t]) => ({
    mode: mode === 'fts5' ? 'SQLite FTS5 with snippet()' : `rye-search, mode ${mode}`,
    'p50 ms': +p50(t).toFixed(3),
    '× FTS5 (above 1: faster)': +(fts / p50(t)).toFixed(2),
  })),
);
console.log('answered as:', answeredBy);
