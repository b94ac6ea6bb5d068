// Where one `search()` of a single term spends its time (issue #64: "p50 at or below MiniSearch's
// on rare, mid and common terms at 60k, previews on"): the whole call as users make it; the native
// search alone, answer left unparsed (what no wire change can remove); the request's build and
// JSON; reading the answer's page and shaping it; the whole call and those parts composed, taking
// turns (what the facade itself adds) — beside MiniSearch's whole search on the same terms, in
// one process, timed alternately. The sentence encoder is off, so nothing else takes the cores.
// Then Tantivy's own floor on the same terms, in the same run (`examples/search_floor.rs`, built
// first: the bench's five fields and boosts in a bare index, without Node): the top 10 alone, with
// the count, with their stored documents, with Tantivy's own 200-character snippets; the rate
// each leaves a batch of these queries on this machine's cores; and Tantivy's rate measured on
// every core at once, lean and as a default answer, beside rye-search's `searchMany` of the same
// terms with default options and lean (issue #64's "≥ 30,000 default, ≥ 100,000 lean").
//   RYE_SEARCH_ENCODER=off node bench/probes/single-latency.js [c10k|c60k]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tier } from '../corpus.js';
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
  // The facade against its parts composed in one plain function, the two taking turns on each
  // term: timed in passes of their own (above), each part runs with the caches warm for it, and
  // the whole call seemed ~25 µs dearer than its parts; in turns, the facade costs ~3 µs.
  const composed = (o) => {
    const p = buildRequest(o, undefined);
    const raw = index.native.searchSync(JSON.stringify(p.req));
    const reader = new PageReader(raw);
    return envelope({ ...p, space: 'all', warnings: [] }, reader.answer(0), reader);
  };
  const turns = { facade: [], parts: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const which of i % 2 ? ['facade', 'parts'] : ['parts', 'facade']) {
      const s = performance.now();
      if (which === 'facade') await index.search(opts(i));
      else composed(opts(i));
      turns[which].push(performance.now() - s);
    }
  }
  // The first rounds warm the JIT and the caches: the second half is timed.
  const half = (xs) => xs.slice(ROUNDS / 2);
  rows.push({
    kind,
    'search() µs': us(p50(half(t.whole))),
    'native alone µs': us(p50(half(t.native))),
    'request µs': us(p50(half(t.request))),
    'read + shape µs': us(p50(half(t.answer))),
    'in turns: search() µs': us(p50(half(turns.facade))),
    'its parts µs': us(p50(half(turns.parts))),
    'MiniSearch µs': us(p50(half(t.minisearch))),
    'search() ÷ MiniSearch': +(p50(half(t.whole)) / p50(half(t.minisearch))).toFixed(2),
    'native alone ÷ MiniSearch': +(p50(half(t.native)) / p50(half(t.minisearch))).toFixed(2),
  });
}
// The same terms as a batch, `searchMany`'s rate, best of three: default options (previews on),
// and lean (ids and scores, no preview, a lower-bound count), each result's id and score read.
const allTerms = KINDS.flatMap(termsOf);
const LEAN = { preview_chars: 0, include_fields: ['id', 'score'], count: 'lower_bound' };
async function batchRate(extra) {
  const batch = Array.from({ length: 20_000 }, (_, i) => ({ ...optionsFor(allTerms[i % allTerms.length]), ...extra }));
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const s = performance.now();
    let read = 0;
    for (const a of await index.searchMany(batch)) for (const r of a.results) read += r.score + r.id.length;
    best = Math.max(best, batch.length / ((performance.now() - s) / 1000));
    if (Number.isNaN(read)) throw new Error('unreadable scores');
  }
  return Math.round(best);
}
const rates = { default: await batchRate({}), lean: await batchRate(LEAN) };
await index.close();

// Tantivy alone on the same documents and terms.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1];
execFileSync('cargo', ['build', '--release', '--target', host, '-p', 'rye-search-core', '--example', 'search_floor'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-search-floor-'));
fs.writeFileSync(path.join(dir, 'docs.json'), JSON.stringify(tier(name)));
fs.writeFileSync(path.join(dir, 'terms.json'), JSON.stringify(Object.fromEntries(KINDS.map((k) => [k, termsOf(k)]))));
const bin = path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), host, 'release', 'examples', 'search_floor');
const floor = JSON.parse(execFileSync(bin, [path.join(dir, 'docs.json'), path.join(dir, 'terms.json')], { encoding: 'utf8' }));
fs.rmSync(dir, { recursive: true, force: true });
for (const row of rows) {
  const f = floor[row.kind];
  row['Tantivy alone: top 10 µs'] = f.uncounted_us;
  row['+ exact count µs'] = f.ranked_us;
  row['+ stored docs µs'] = f.loaded_us;
  row['+ its snippets µs'] = f.previewed_us;
}
console.log(`${name}: p50 of one single-term search, previews on (scope knowledge, limit 10)`);
console.table(rows);
// What each of Tantivy's steps leaves of a batch's rate: its mean CPU a query over the kinds, on
// every core, with nothing else (no request, no N-API, no answer) in the way.
const cores = os.availableParallelism();
for (const [step, what] of [
  ['uncounted_mean_us', 'top 10 (no count)'],
  ['loaded_mean_us', 'top 10, counted, with the stored documents'],
  ['previewed_mean_us', 'top 10, counted, with the stored documents and its own 200-character snippets'],
]) {
  const meanUs = KINDS.reduce((sum, k) => sum + floor[k][step], 0) / KINDS.length;
  console.log(
    `Tantivy's own ${what}, mean over the kinds: ${meanUs.toFixed(1)} µs a query → at most ${Math.round((cores * 1e6) / meanUs)} queries/s on ${cores} cores`,
  );
}
// Measured, not derived: Tantivy on every core at once, each thread its own searcher.
const { threads, lean_qps: leanQps, default_qps: defaultQps } = floor.parallel;
console.log(`Measured on ${threads} threads at once, best of 3 (queries/s):`);
console.table({
  'lean (top 10, nothing else)': { "Tantivy's own": leanQps, 'rye-search searchMany': rates.lean },
  'default (counted, stored documents, 200-character previews)': {
    "Tantivy's own": defaultQps,
    'rye-search searchMany': rates.default,
  },
});
