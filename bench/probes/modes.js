// Cost of each search mode on a Debian tier (default c60k), the way users add data (batches of
// 5,000) and search (previews on): add time, p50/p99 of single searches over the plain-language
// questions and the known-item queries, and searchMany throughput. With `static` (the default)
// the sentence encoder is off, so nothing runs beside the searches; with `encoder` the probe
// first waits for it to settle (reporting the time, the items per second and the peak RSS),
// then searches rank by its vectors.
// At c1m with `encoder`, each replica keeps its package's name (its id still varies), so the
// replicas share their meaning text and the encoder settles after the 63,666 distinct texts (it
// encodes one per text): a search still scans a million vectors, as it would for distinct ones,
// and the tier settles in minutes instead of hours on two cores.
//   node bench/probes/modes.js [c10k|c60k|c1m] [static|encoder]
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';
import { DEBIAN_QUESTIONS } from '../quality/questions.js';

const name = process.argv[2] ?? 'c60k';
const vectors = process.argv[3] ?? 'static';
if (vectors === 'static') process.env.RYE_SEARCH_ENCODER = 'off';
const { createMemoryIndex } = await import('../../dist/index.js');
const shareMeaning = name === 'c1m' && vectors === 'encoder';
const docs = tier(name).map(({ base, ...d }) => (shareMeaning ? { ...d, name: d.title } : d));
const index = createMemoryIndex();
const t0 = performance.now();
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
// Merged before anything is timed (the adds return before their merges).
await index.ready();
const addMs = Math.round(performance.now() - t0);
if (vectors === 'encoder') {
  const status = await index.ready({ semantic: 'full' });
  const seconds = (performance.now() - t0 - addMs) / 1000;
  console.log(
    `${name}: the sentence encoder settled ${seconds.toFixed(1)} s after the adds returned ` +
      `(${status.encoder.encoded} items, ${Math.round(status.encoder.encoded / seconds)}/s); ` +
      `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  );
}

// searchMany runs the query set this many times (fewer at c1m, where a semantic scan is ~16x longer).
const BATCH_REPEATS = name === 'c1m' ? 4 : 20;
const queries = [...DEBIAN_QUESTIONS.map(([q]) => q), ...queryMix().known.map((k) => k.text)];
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const rows = [];
for (const mode of ['keyword', 'auto', 'hybrid', 'semantic']) {
  const times = [];
  for (let round = 0; round < 3; round++) {
    for (const query of queries) {
      const s = performance.now();
      await index.search({ query, mode });
      if (round > 0) times.push(performance.now() - s);
    }
  }
  times.sort((a, b) => a - b);
  const batch = Array.from({ length: BATCH_REPEATS }, () => queries.map((query) => ({ query, mode }))).flat();
  const s = performance.now();
  await index.searchMany(batch);
  const qps = Math.round(batch.length / ((performance.now() - s) / 1000));
  rows.push({
    tier: name,
    vectors,
    mode,
    p50Ms: +pct(times, 50).toFixed(2),
    p99Ms: +pct(times, 99).toFixed(2),
    searchManyQps: qps,
  });
}
console.log(`${name}: ${docs.length} items added in ${addMs} ms (batches of 5,000, embedding included)`);
console.table(rows);
