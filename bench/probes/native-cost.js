// What a single-term search costs the native side, in CPU µs a query, by kind and by what the
// request asks for (issue #64: searchMany's rate on two cores is bounded by this CPU plus the JS
// thread's). Native searchMany calls of 2,048 requests, answers left as pages; CPU of the whole
// process (process.cpuUsage), best of three. Run with one pool thread so that nothing overlaps:
//   RAYON_NUM_THREADS=1 RYE_SEARCH_ENCODER=off node bench/probes/native-cost.js [c10k|c60k]
import { createMemoryIndex } from '../../dist/index.js';
import { buildRequest } from '../../dist/search-request.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c60k';
const COUNT = 20_000;
const CHUNK = 2048;
const index = createMemoryIndex();
const docs = tier(name);
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
await index.ready();
const mix = queryMix().queries;

async function cpuPerQuery(kind, extra) {
  const terms = mix.filter((q) => (kind === 'all' ? q.kind.startsWith('single') : q.kind === kind)).map((q) => q.terms[0]);
  const reqs = Array.from(
    { length: COUNT },
    (_, i) => buildRequest({ query: terms[i % terms.length], scope: 'knowledge', limit: 10, ...extra }, undefined).req,
  );
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    for (let f = 0; f < COUNT; f += CHUNK) await index.native.searchMany(JSON.stringify(reqs.slice(f, f + CHUNK)));
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / COUNT);
  }
  return +best.toFixed(1);
}

const rows = {};
for (const kind of ['single-rare', 'single-mid', 'single-common', 'all']) {
  rows[kind] = {
    default: await cpuPerQuery(kind, {}),
    'no preview': await cpuPerQuery(kind, { preview_chars: 0 }),
    'lower-bound count': await cpuPerQuery(kind, { count: 'lower_bound' }),
    'lean (ids, scores)': await cpuPerQuery(kind, {
      preview_chars: 0,
      include_fields: ['id', 'score'],
      count: 'lower_bound',
    }),
  };
}
await index.close();
console.log(`${name}: CPU µs a single-term query (native searchMany, pages unread; scope knowledge, limit 10)`);
console.table(rows);
