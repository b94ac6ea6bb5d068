// searchMany throughput of single-term queries at a Debian tier (default c60k), in the shapes
// agents ask for: default options (previews on), no previews, and lean answers (no preview,
// only id and score), each also with `count: 'lower_bound'` (no recount of what top-k skipped),
// and default options with `lazy: true` (results that read their fields when first asked for),
// after the items were added in batches of 5,000. Every row reads each result's id and score
// within its time, as a caller ranking the answers would; one row reads every field instead (the
// answers serialised whole, as a caller sending them on would). Two last rows time the native calls
// alone, with default options and lean (the binding's searchMany, chunks as the facade sends
// them, two in flight, nothing read): the most any reading on the JS thread could reach. Each row
// also says how much of the call the JS thread spent in garbage collection: every answer is kept
// until the call returns, so the young generation's collections copy all of them; and (Linux) the
// CPU each query took on the JS thread, on the native search threads and on every other thread
// (V8's helpers mark and sweep what the answers hold, beside the JS thread, on the same cores).
//   node bench/probes/lean-batch.js [c10k|c60k]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

import { createMemoryIndex } from '../../dist/index.js';
import { nativeAsync } from '../../dist/native.js';
import { buildRequest } from '../../dist/search-request.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c60k';
const docs = tier(name).map(({ base, ...d }) => d);
const index = createMemoryIndex();
const BATCH = Number(process.env.ADD_BATCH || 5000);
const t0 = performance.now();
for (let i = 0; i < docs.length; i += BATCH) await index.add(docs.slice(i, i + BATCH));
// Merged before anything is timed (the adds return before their merges).
await index.ready();
const addMs = Math.round(performance.now() - t0);

const singles = queryMix().queries.filter((q) => q.kind.startsWith('single'));
const COUNT = 20_000;
// Each shape: the searches' options, and searchMany's.
const SHAPES = {
  'default (previews on)': [{}],
  'default, lazy: true': [{}, { lazy: true }],
  'preview_chars: 0': [{ preview_chars: 0 }],
  'lean: preview_chars 0, include_fields [id, score]': [{ preview_chars: 0, include_fields: ['id', 'score'] }],
  "lean, count: 'lower_bound'": [{ preview_chars: 0, include_fields: ['id', 'score'], count: 'lower_bound' }],
  "default, count: 'lower_bound'": [{ count: 'lower_bound' }],
  "default, count: 'lower_bound', lazy: true": [{ count: 'lower_bound' }, { lazy: true }],
};
/** What a caller ranking the answers reads. */
const readIdsAndScores = (answers) => {
  let n = 0;
  for (const a of answers) for (const r of a.results) n += r.score + r.id.length;
  return n;
};
// Pauses of the JS thread for garbage collection, summed while a timed call runs.
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

/**
 * CPU time of this process's threads so far, in µs, by group: the JS thread, the native search
 * threads (named `rye-search-N`) and every other (V8's helpers, which mark and sweep beside the JS
 * thread, and libuv's). Linux only (`/proc`); undefined elsewhere.
 */
const TICK_US = (() => {
  try {
    return 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  } catch {
    return undefined;
  }
})();
function threadCpu() {
  if (!TICK_US) return undefined;
  const groups = { js: 0, search: 0, other: 0 };
  let tasks;
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  for (const tid of tasks) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    // The name is in parentheses (it may hold spaces); utime and stime are the 12th and 13th fields after it.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const group = Number(tid) === process.pid ? 'js' : name.startsWith('rye-search-') ? 'search' : 'other';
    groups[group] += (Number(fields[11]) + Number(fields[12])) * TICK_US;
  }
  return groups;
}

const rows = [];
/** The facade's searchMany chunk (`SEARCH_MANY_CHUNK` in ts/search-runner.ts) and chunks in flight. */
const CHUNK = 2048;
const AHEAD = 2;
/** The native calls searchMany makes for `list`, with nothing read of their pages. */
async function nativeOnly(list) {
  const reqs = list.map((o) => buildRequest(o, undefined).req);
  const pending = [];
  let next = 0;
  const fill = () => {
    for (; pending.length < AHEAD && next < reqs.length; next += CHUNK) {
      const chunk = JSON.stringify(reqs.slice(next, next + CHUNK));
      pending.push(nativeAsync(() => index.native.searchMany(chunk)));
    }
  };
  fill();
  while (pending.length) {
    await pending.shift();
    fill();
  }
}
const RUNS = [
  ...Object.entries(SHAPES).map(([shape, [extra, many]]) => [
    shape,
    extra,
    async (list) => readIdsAndScores(await index.searchMany(list, many)),
  ]),
  // A caller that keeps or sends every field (it reads metadata and highlights too).
  ['default, every field read (JSON.stringify of the answers)', {}, async (list) => JSON.stringify(await index.searchMany(list)).length],
  ['native calls alone, default options, nothing read', {}, nativeOnly],
  // The most any JS-side work could leave lean answers (issue #64's "≥ 100,000 lean").
  ['native calls alone, lean, count: lower_bound, nothing read', SHAPES["lean, count: 'lower_bound'"][0], nativeOnly],
];
for (const [shape, extra, run] of RUNS) {
  const list = Array.from({ length: COUNT }, (_, i) => ({
    query: singles[i % singles.length].terms[0],
    scope: 'knowledge',
    limit: 10,
    ...extra,
  }));
  await run(list.slice(0, 2000));
  let best = { qps: 0 };
  for (let round = 0; round < 3; round++) {
    gcMs = 0;
    const cpu0 = threadCpu();
    const s = performance.now();
    await run(list);
    const ms = performance.now() - s;
    const cpu1 = threadCpu();
    // Observers are told after the call, on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const qps = Math.round(COUNT / (ms / 1000));
    if (qps > best.qps) {
      best = { qps, 'gc share': `${Math.round((100 * gcMs) / ms)}%` };
      // CPU µs a query by thread group (the clock counts in ticks of 10 ms: ~1% of a call's).
      for (const group of cpu1 ? ['js', 'search', 'other'] : [])
        best[`CPU µs/q ${group}`] = Number(((cpu1[group] - cpu0[group]) / COUNT).toFixed(1));
    }
  }
  rows.push({ tier: name, shape, queries: COUNT, ...best });
}
console.log(`${name}: ${docs.length} items added in batches of ${BATCH} in ${addMs} ms`);
console.table(rows);
