// What leaving defaults out of the request saves (ts/wire.ts, `requestJson`): the same searches
// sent as every key of the request (the wire before) and as `requestJson` sends them, taking
// turns in one process on one index: the JSON's build on the JS thread, and the native search
// that parses it (`searchSync`, answer unread), p50 in µs of the second half of the rounds.
//   RYE_SEARCH_ENCODER=off node bench/probes/request-wire.js [c10k|c60k]
import { buildRequest } from '../../dist/search-request.js';
import { requestJson } from '../../dist/wire.js';
import { bothEngines, KINDS, optionsFor, p50, termsOf, us } from './single-term.js';

const name = process.argv[2] ?? 'c60k';
const { index } = await bothEngines(name);
const ROUNDS = 20_000;
const table = new Float64Array(1024);
const WIRES = { 'every key': (req) => JSON.stringify(req), requestJson };
const rows = [];
for (const kind of KINDS) {
  const terms = termsOf(kind);
  const t = Object.fromEntries(Object.keys(WIRES).flatMap((w) => [[`${w} json`, []], [`${w} search`, []]]));
  const chars = {};
  for (let i = 0; i < ROUNDS; i++) {
    const { req } = buildRequest(optionsFor(terms[i % terms.length]), undefined);
    const order = i % 2 ? Object.keys(WIRES) : Object.keys(WIRES).reverse();
    for (const wire of order) {
      let s = performance.now();
      const payload = WIRES[wire](req);
      t[`${wire} json`].push(performance.now() - s);
      s = performance.now();
      index.native.searchSync(payload, table);
      t[`${wire} search`].push(performance.now() - s);
      chars[wire] = payload.length;
    }
  }
  const row = { kind };
  for (const [key, xs] of Object.entries(t)) row[`${key} µs`] = us(p50(xs.slice(ROUNDS / 2)));
  for (const [wire, n] of Object.entries(chars)) row[`${wire} chars`] = n;
  rows.push(row);
}
console.log(`${name}: a single-term search's request, every key against requestJson (p50, in turns)`);
console.table(rows);
await index.close();
