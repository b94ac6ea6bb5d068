// searchStream over many single-term queries (issue #64: "memory flat over 1M streamed queries"):
// the queries come from a generator and every answer is dropped once its results' ids and scores
// are read; the old generation, heap and RSS are printed at each tenth, with the throughput.
//   node [--expose-gc] bench/probes/stream-memory.js [c10k|c60k] [count] [lean|default] [after-many]
// `lean`: ids and scores, no preview, a lower-bound count; `default`: default options. With
// `after-many`, three searchMany calls of 20,000 default searches run first, as in the bench: they
// hold every answer until they return, which once taught V8 to allocate every later answer in the
// old generation (see ts/untenured.ts); the old generation then grew ~10 KB a search until a full
// collection, and the stream ran at two thirds of its speed.
import v8 from 'node:v8';

import { createMemoryIndex } from '../../dist/index.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c10k';
const total = Number(process.argv[3] ?? 1_000_000);
const shape = process.argv[4] ?? 'lean';
const afterMany = process.argv[5] === 'after-many';
const index = createMemoryIndex();
const docs = tier(name).map(({ base, ...d }) => d);
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
// Merged before anything is timed (the adds return before their merges).
await index.ready();
const terms = queryMix().queries.filter((q) => q.kind.startsWith('single')).map((q) => q.terms[0]);
const LEAN = { previewChars: 0, includeFields: ['id', 'score'], count: 'lower_bound' };
const withDefaults = (i) => ({ query: terms[i % terms.length], scope: 'knowledge', limit: 10 });
const search = shape === 'lean' ? (i) => ({ ...withDefaults(i), ...LEAN }) : withDefaults;

if (afterMany) {
  const list = Array.from({ length: 20_000 }, (_, i) => withDefaults(i));
  for (let round = 0; round < 3; round++) await index.searchMany(list);
}

function* searches() {
  for (let i = 0; i < total; i++) yield search(i);
}

const mb = (n) => Math.round(n / 1024 / 1024);
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
const rows = [];
const tenth = Math.max(1, Math.floor(total / 10));
let n = 0;
let read = 0;
let t = performance.now();
for await (const answer of index.searchStream(searches())) {
  if ('error' in answer) throw new Error(answer.error.message);
  for (const r of answer.results) if (r.id && Number.isFinite(r.score)) read++;
  if (++n % tenth === 0) {
    const now = performance.now();
    const { heapUsed, rss } = process.memoryUsage();
    rows.push({
      answers: n,
      'old generation MB': mb(oldSpace()),
      'heap MB': mb(heapUsed),
      'rss MB': mb(rss),
      'q/s': Math.round(tenth / ((now - t) / 1000)),
    });
    t = now;
  }
}
console.log(
  `${name}: ${docs.length} items, ${total} streamed ${shape} searches${afterMany ? ' after searchMany' : ''}, ${read} results read`,
);
console.table(rows);
// What of the growth was garbage: the stream keeps two batches, so some answers outlive a
// young-generation collection and wait in the old generation for a full one (run with
// `node --expose-gc` to see the old generation after one).
if (globalThis.gc) {
  globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  console.log(
    `after a full collection: old generation ${mb(oldSpace())} MB, heap ${mb(heapUsed)} MB, rss ${mb(rss)} MB`,
  );
}
