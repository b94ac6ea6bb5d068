// Where one `search()` of a single term spends its time (issue #64: "p50 at or below MiniSearch's
// on rare, mid and common terms at 60k, previews on"): the whole call as users make it; the native
// search alone, answer left unparsed (what no wire change can remove); the request's build and
// JSON; reading the answer's page and shaping it — beside MiniSearch's whole search on the same terms, in
// one process, timed alternately. The sentence encoder is off, so nothing else takes the cores.
//   RYE_SEARCH_ENCODER=off node bench/probes/single-latency.js [c10k|c60k]
import { createRequire } from 'node:module';

import { createMemoryIndex } from '../../dist/index.js';
import { buildRequest } from '../../dist/search-request.js';
import { PageReader } from '../../dist/answer-page.js';
import { envelope } from '../../dist/search-results.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const require = createRequire(import.meta.url);
const MiniSearch = require('minisearch');

const name = process.argv[2] ?? 'c60k';
const docs = tier(name);
const index = createMemoryIndex();
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
await index.ready();
const mini = new MiniSearch({
  fields: ['title', 'name', 'description', 'category', 'content'],
  storeFields: ['category', 'title', 'name', 'description'],
  searchOptions: { boost: { title: 3, name: 3, description: 2, category: 1.5, content: 1 } },
});
mini.addAll(docs);

const ROUNDS = 2000;
const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const us = (ms) => +(ms * 1000).toFixed(1);
const rows = [];
for (const kind of ['single-rare', 'single-mid', 'single-common']) {
  const terms = queryMix()
    .queries.filter((q) => q.kind === kind)
    .map((q) => q.terms[0]);
  const t = { whole: [], native: [], request: [], answer: [], minisearch: [] };
  const opts = (i) => ({ query: terms[i % terms.length], scope: 'knowledge', limit: 10 });
  // Each part in a pass of its own over the same terms, so none runs right after another part
  // warmed the caches for the same term.
  for (let i = 0; i < ROUNDS; i++) {
    const s = performance.now();
    await index.search(opts(i));
    t.whole.push(performance.now() - s);
  }
  const built = [];
  for (let i = 0; i < ROUNDS; i++) {
    const s = performance.now();
    const p = buildRequest(opts(i), undefined);
    built.push([p, JSON.stringify(p.req)]);
    t.request.push(performance.now() - s);
  }
  const raws = [];
  for (const [, payload] of built) {
    const s = performance.now();
    raws.push(index.native.searchSync(payload));
    t.native.push(performance.now() - s);
  }
  for (const [i, raw] of raws.entries()) {
    const s = performance.now();
    const reader = new PageReader(raw);
    envelope({ ...built[i][0], space: 'all', warnings: [] }, reader.answer(0), reader);
    t.answer.push(performance.now() - s);
  }
  for (let i = 0; i < ROUNDS; i++) {
    const s = performance.now();
    mini.search(opts(i).query).slice(0, 10);
    t.minisearch.push(performance.now() - s);
  }
  // The first rounds warm the JIT and the caches: the second half is timed.
  const half = (xs) => xs.slice(ROUNDS / 2);
  rows.push({
    kind,
    'search() µs': us(p50(half(t.whole))),
    'native alone µs': us(p50(half(t.native))),
    'request µs': us(p50(half(t.request))),
    'read + shape µs': us(p50(half(t.answer))),
    'MiniSearch µs': us(p50(half(t.minisearch))),
    'search() ÷ MiniSearch': +(p50(half(t.whole)) / p50(half(t.minisearch))).toFixed(2),
    'native alone ÷ MiniSearch': +(p50(half(t.native)) / p50(half(t.minisearch))).toFixed(2),
  });
}
await index.close();
console.log(`${name}: p50 of one single-term search, previews on (scope knowledge, limit 10)`);
console.table(rows);
