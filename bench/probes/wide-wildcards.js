// Wildcards and prefixes that match most of the index (`*e*`, `*s`, `a*`), beside narrower ones,
// a plain word and queries of several wide wildcards (up to 26): each expands to up to 256 terms a
// field (1,280 clauses), every one frequent, chosen among every term it matches (`*e*`: most of
// the dictionary; an ordered map of them took half of `*e*`'s time before they were hashed).
// Time of one `search()` with default options (previews on, limit 10), best of three, and of the
// same with `limit: 0` (the count alone): what an agent waits for when it asks one of these
// (issue #64 beside "never hang": before wide unions were scored whole, Tantivy's block-max WAND
// walked its sorted list of 1,280 clauses at every step, and `*e*` took 0.8 s at c60k, 12.6 s at c1m).
//   RYE_SEARCH_ENCODER=off node bench/probes/wide-wildcards.js [c10k|c60k|c1m]
import { createMemoryIndex } from '../../dist/index.js';
import { tier } from '../corpus.js';

const name = process.argv[2] ?? 'c60k';
const index = createMemoryIndex();
const docs = tier(name).map(({ base, ...d }) => d);
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
await index.ready();
const LETTERS = [...'eaiorstnlcudpmhgbfywkvxzjq'];
const QUERIES = [
  '*e*',
  '*s',
  'a*',
  'e*',
  '*ing',
  '*tion',
  'lib*',
  '*a*b*c*',
  'data',
  // Several at once: each expands (and is counted) on its own.
  '*e* *a* *i* *o*',
  '*e* OR *a* OR *i*',
  '*e* AND *a*',
  '*e* NOT a*',
  LETTERS.map((l) => `*${l}*`).join(' '),
];
const best = async (opts) => {
  let ms = Number.POSITIVE_INFINITY;
  let total = 0;
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    total = (await index.search(opts)).total;
    ms = Math.min(ms, performance.now() - t);
  }
  return { ms: Number(ms.toFixed(1)), total };
};
const rows = [];
for (const query of QUERIES) {
  const page = await best({ query });
  const count = await best({ query, limit: 0 });
  const shown = query.length > 24 ? `${query.slice(0, 20)} … (${query.split(' ').length} words)` : query;
  rows.push({ query: shown, matches: page.total, 'search() ms': page.ms, 'limit 0 ms': count.ms });
}
await index.close();
console.log(`${name}: ${docs.length} items; one search() of each, best of 3 (default options)`);
console.table(rows);
