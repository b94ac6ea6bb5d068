// searchMany throughput of single-term queries at a Debian tier (default c60k), in the shapes
// agents ask for: default options (previews on), no previews, and lean answers (no preview,
// only id and score), after the items were added in batches of 5,000.
//   node bench/lean-batch.js [c10k|c60k]
import { createMemoryIndex } from '../dist/index.js';
import { tier } from './corpus.js';
import { queryMix } from './queries.js';

const name = process.argv[2] ?? 'c60k';
const docs = tier(name).map(({ base, ...d }) => d);
const index = createMemoryIndex();
const BATCH = Number(process.env.ADD_BATCH || 5000);
const t0 = performance.now();
for (let i = 0; i < docs.length; i += BATCH) await index.add(docs.slice(i, i + BATCH));
const addMs = Math.round(performance.now() - t0);

const singles = queryMix().queries.filter((q) => q.kind.startsWith('single'));
const COUNT = 20_000;
const SHAPES = {
  'default (previews on)': {},
  'preview_chars: 0': { preview_chars: 0 },
  'lean: preview_chars 0, include_fields [id, score]': { preview_chars: 0, include_fields: ['id', 'score'] },
};
const rows = [];
for (const [shape, extra] of Object.entries(SHAPES)) {
  const list = Array.from({ length: COUNT }, (_, i) => ({
    query: singles[i % singles.length].terms[0],
    scope: 'knowledge',
    limit: 10,
    ...extra,
  }));
  await index.searchMany(list.slice(0, 2000));
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const s = performance.now();
    await index.searchMany(list);
    best = Math.max(best, Math.round(COUNT / ((performance.now() - s) / 1000)));
  }
  rows.push({ tier: name, shape, queries: COUNT, qps: best });
}
console.log(`${name}: ${docs.length} items added in batches of ${BATCH} in ${addMs} ms`);
console.table(rows);
