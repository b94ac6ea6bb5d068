// Where one `search()` of a single term spends its time (issue #64: "p50 at or below MiniSearch's
// on rare, mid and common terms at 60k, previews on"): the whole call as users make it; the native
// search alone, answer left unparsed (what no wire change can remove); the request's build and
// JSON; reading the answer's page and shaping it — beside MiniSearch's whole search on the same terms, in
// one process, timed alternately. The sentence encoder is off, so nothing else takes the cores.
//   RYE_SEARCH_ENCODER=off node bench/probes/single-latency.js [c10k|c60k]
import { buildRequest } from '../../dist/search-request.js';
import { PageReader } from '../../dist/answer-page.js';
import { envelope } from '../../dist/search-results.js';
import { bothEngines, KINDS, optionsFor, p50, termsOf, us } from './single-term.js';

const name = process.argv[2] ?? 'c60k';
const { index, mini } = await bothEngines(name);

const ROUNDS = 2000;
const rows = [];
for (const kind of KINDS) {
  const terms = termsOf(kind);
  const t = { whole: [], native: [], request: [], answer: [], minisearch: [] };
  const opts = (i) => optionsFor(terms[i % terms.length]);
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
