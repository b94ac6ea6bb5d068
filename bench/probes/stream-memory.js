// searchStream over 1M lean single-term queries (the shape of bench/probes/lean-batch.js) (issue #64: "memory flat over 1M streamed queries"):
// the queries come from a generator and every answer is dropped once read; heap and RSS are
// printed every 100,000 answers, with the throughput.
//   node --expose-gc bench/probes/stream-memory.js [c10k|c60k] [count] [lower_bound]
import { createMemoryIndex } from '../../dist/index.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c10k';
const total = Number(process.argv[3] ?? 1_000_000);
const count = process.argv[4] ?? 'exact';
const index = createMemoryIndex();
const docs = tier(name).map(({ base, ...d }) => d);
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
// Merged before anything is timed (the adds return before their merges).
await index.ready();
const terms = queryMix().queries.filter((q) => q.kind.startsWith('single')).map((q) => q.terms[0]);

function* queries() {
  for (let i = 0; i < total; i++) yield { query: terms[i % terms.length], scope: 'knowledge', limit: 10, previewChars: 0, includeFields: ['id', 'score'], count };
}

const mb = (n) => Math.round(n / 1024 / 1024);
const rows = [];
let n = 0;
let t = performance.now();
for await (const answer of index.searchStream(queries(), { batch: 512 })) {
  if ('error' in answer) throw new Error(answer.error.message);
  if (++n % 100_000 === 0) {
    global.gc?.();
    const now = performance.now();
    const { heapUsed, rss } = process.memoryUsage();
    rows.push({ answers: n, 'heap MB': mb(heapUsed), 'rss MB': mb(rss), 'q/s': Math.round(100_000 / ((now - t) / 1000)) });
    t = now;
  }
}
console.log(`${name}: ${docs.length} items, ${total} streamed queries, count: ${count}`);
console.table(rows);
