// What the first search of a term pays over the same search again at once (issue #64: the rare
// term's `search()` p50 against MiniSearch's): each term of a kind searched twice in a row, by
// `search()`, by the native search alone (request built beforehand, page unread) and by
// MiniSearch, each engine in a pass of its own. Where a term's data is already in the CPU's
// caches, and where it is not: what separates a whole `search()` from the sum of its parts timed
// apart (`single-latency.js`).
//   RYE_SEARCH_ENCODER=off node bench/probes/cold-term.js [c10k|c60k]
import { buildRequest } from '../../dist/search-request.js';
import { bothEngines, KINDS, optionsFor, p50, termsOf, us } from './single-term.js';

const name = process.argv[2] ?? 'c60k';
const { index, mini } = await bothEngines(name);

const ROUNDS = 4000;
const rows = [];
for (const kind of KINDS) {
  const terms = termsOf(kind);
  const opts = (i) => optionsFor(terms[i % terms.length]);
  const payloads = terms.map((_, i) => JSON.stringify(buildRequest(opts(i), undefined).req));
  const t = { first: [], again: [], nativeFirst: [], nativeAgain: [], miniFirst: [], miniAgain: [] };
  const twice = async (run, first, again) => {
    let s = performance.now();
    await run();
    first.push(performance.now() - s);
    s = performance.now();
    await run();
    again.push(performance.now() - s);
  };
  // Each engine in a pass of its own (another's garbage would be collected in its time), each
  // term twice in a row: the first follows the searches of another term.
  for (let i = 0; i < ROUNDS; i++) await twice(() => index.search(opts(i)), t.first, t.again);
  for (let i = 0; i < ROUNDS; i++)
    await twice(() => index.native.searchSync(payloads[i % payloads.length]), t.nativeFirst, t.nativeAgain);
  for (let i = 0; i < ROUNDS; i++) await twice(() => mini.search(opts(i).query).slice(0, 10), t.miniFirst, t.miniAgain);
  const half = (xs) => p50(xs.slice(ROUNDS / 2));
  rows.push({
    kind,
    'search() first µs': us(half(t.first)),
    'search() again µs': us(half(t.again)),
    'native first µs': us(half(t.nativeFirst)),
    'native again µs': us(half(t.nativeAgain)),
    'MiniSearch first µs': us(half(t.miniFirst)),
    'MiniSearch again µs': us(half(t.miniAgain)),
  });
}
await index.close();
console.log(`${name}: p50 of a single-term search the first time and again at once (previews on, scope knowledge, limit 10)`);
console.table(rows);
