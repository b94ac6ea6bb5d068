// Where a searchMany's time goes (issue #64): the whole call, the native searches alone
// (requests as the facade sends them, answers left as pages) and reading the answers alone, at a
// Debian tier, with the sentence encoder off so that nothing else takes the cores. When the
// native searches alone are far from a target, the wire is not what stands in the way; reading
// alone is the ceiling the JS thread sets, on any number of cores.
//   RYE_SEARCH_ENCODER=off node bench/probes/wire-share.js [c10k|c60k] [default|lean]
import { createMemoryIndex } from '../../dist/index.js';
import { PageReader } from '../../dist/answer-page.js';
import { buildRequest } from '../../dist/search-request.js';
import { envelope } from '../../dist/search-results.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c60k';
const shape = process.argv[3] ?? 'lean';
const COUNT = 20_000;
const CHUNK = 512;
const extra =
  shape === 'lean' ? { preview_chars: 0, include_fields: ['id', 'score'], count: 'lower_bound' } : { count: 'exact' };
const index = createMemoryIndex();
const docs = tier(name).map(({ base, ...d }) => d);
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
// Merged before anything is timed (the adds return before their merges).
await index.ready();
const terms = queryMix().queries.filter((q) => q.kind.startsWith('single')).map((q) => q.terms[0]);
const list = Array.from({ length: COUNT }, (_, i) => ({ query: terms[i % terms.length], scope: 'knowledge', limit: 10, ...extra }));
const prepared = list.map((o) => ({ ...buildRequest(o, undefined), space: 'all', warnings: [] }));
const reqs = prepared.map((p) => p.req);
const qps = (ms) => Math.round(COUNT / (ms / 1000));
const best = { searchMany: 0, 'native searches alone': 0, 'reading answers alone': 0 };
await index.searchMany(list.slice(0, 2000));
for (let round = 0; round < 3; round++) {
  let t = performance.now();
  await index.searchMany(list);
  best.searchMany = Math.max(best.searchMany, qps(performance.now() - t));
  const pages = [];
  t = performance.now();
  for (let f = 0; f < COUNT; f += CHUNK) pages.push(await index.native.searchMany(JSON.stringify(reqs.slice(f, f + CHUNK))));
  best['native searches alone'] = Math.max(best['native searches alone'], qps(performance.now() - t));
  // Reading the pages into results on this thread alone, every answer kept (as searchMany
  // keeps them): the most queries a second this thread can hand over, however many cores search.
  const kept = new Array(COUNT);
  t = performance.now();
  let i = 0;
  for (const page of pages) {
    const reader = new PageReader(page);
    for (let k = 0; k < page.texts.length; k++, i++) kept[i] = envelope(prepared[i], reader.answer(k), reader);
  }
  best['reading answers alone'] = Math.max(best['reading answers alone'], qps(performance.now() - t));
}
await index.close();
console.log(`${name}, ${shape} single-term queries (scope knowledge, limit 10), queries per second (best of 3):`);
console.table(best);
