// Runs one engine on one tier in one profile (`default` or `ids`, see engines.js) in its own
// process and prints one JSON line of measurements.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { tier } from './corpus.js';
import { ENGINES } from './engines.js';
import { KINDS, queryMix } from './queries.js';

const [engineName, tierName, reps = '3', profile = 'default', streamed = '1000000'] = process.argv.slice(2);
/** Items added one at a time after the build (default profile). */
const ONE_ITEM_ADDS = 100;
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const docs = tier(tierName);
const { queries, known } = queryMix({ knownWithin: docs.length });
const baseRss = rssMb();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rye-bench-${engineName}-`));
const engine = await ENGINES[engineName](dir, profile);

const t0 = performance.now();
await engine.build(docs);
const buildMs = performance.now() - t0;
// Work an engine leaves for after its adds return (rye-search in memory: the merges of a run of
// adds), done before anything is timed, so no query shares the cores with it.
const t1 = performance.now();
await engine.settle?.();
const settleMs = engine.settle ? Math.round(performance.now() - t1) : undefined;
const peakRss = rssMb();
const out = {
  engine: engineName,
  tier: tierName,
  profile,
  docs: docs.length,
  buildMs: Math.round(buildMs),
  settleMs,
  baseRssMb: baseRss,
  peakRssMb: peakRss,
  kinds: {},
};

// Warm-up, the same for every engine: the JIT compiles each engine's query path before timing,
// so the first kind timed does not pay for it (cold start is measured apart: open + first query).
// V8 optimises a function after a few hundred calls, so the set runs WARM_ROUNDS times: with one
// round, the first kind timed (single-rare) ran partly unoptimised for the JS-heavy engines.
// Warm-up queries come from another seed, so no timed query is already in a cache.
const WARM_ROUNDS = 10;
const warmUp = queryMix({ seed: 7, perKind: 5 }).queries;
for (let round = 0; round < WARM_ROUNDS; round++) for (const q of warmUp) await engine.run(q);

for (const kind of KINDS) {
  const list = queries.filter((q) => q.kind === kind);
  if ((await engine.run(list[0])) === null) {
    out.kinds[kind] = null;
    continue;
  }
  const times = [];
  const bare = [];
  let hits = 0;
  const timed = async (run, q, into) => {
    const s = performance.now();
    const ids = await run(q);
    into.push(performance.now() - s);
    return ids;
  };
  for (let r = 0; r < Number(reps); r++) {
    for (const [j, q] of list.entries()) {
      // With `bare` (the same query without previews), both run, in alternating order, so
      // neither always finds the caches the other warmed.
      if (engine.bare && (j + r) % 2) await timed(engine.bare, q, bare);
      const ids = await timed(engine.run, q, times);
      if (engine.bare && !((j + r) % 2)) await timed(engine.bare, q, bare);
      if (r === 0 && ids.length) hits++;
    }
  }
  out.kinds[kind] = {
    p50: +pct(times, 50).toFixed(4),
    p99: +pct(times, 99).toFixed(4),
    withHits: hits,
    n: list.length,
  };
  if (engine.bare) out.kinds[kind].bareP50 = +pct(bare, 50).toFixed(4);
}

let rr = 0;
for (const k of known) {
  const ids = await engine.known(k.text);
  const base = (id) => id.replace(/-r\d+$/, '');
  const rank = ids.findIndex((id) => base(id) === k.target);
  if (rank >= 0) rr += 1 / (rank + 1);
}
out.mrr10 = +(rr / known.length).toFixed(4);

// The peak so far: work an engine defers past its build (rye-search: reading the sentence
// encoder and encoding while the queries above ran) shows here, not in the build's peak. Taken
// before the throughput rows, whose batch of 20,000 kept answers is the bench's own memory.
out.runPeakRssMb = rssMb();

// Throughput of single-term queries: searchMany where the engine has a batch API, else a loop.
const singles = queries.filter((q) => q.kind.startsWith('single'));
// Fewer at c1m, where each query costs milliseconds: the rate is what is measured.
const batchSize = docs.length > 100_000 ? 2_000 : 20_000;
out.batchSize = batchSize;
const batchList = Array.from({ length: batchSize }, (_, i) => singles[i % singles.length]);
// The best of three calls: one call alone at c1m took in a full collection of this process's
// own million documents (3,060 q/s against ~6,100 on the calls after it).
const BATCH_ROUNDS = 3;
/** The best rate of `batch` over `batchList`. */
async function batchRate(batch) {
  await batch(batchList.slice(0, 1000));
  let best = 0;
  for (let round = 0; round < BATCH_ROUNDS; round++) {
    const s = performance.now();
    await batch(batchList);
    best = Math.max(best, Math.round(batchList.length / ((performance.now() - s) / 1000)));
  }
  return best;
}
if (engine.batch) out.batchQps = await batchRate(engine.batch);
// rye-search's results that read their fields when first asked for (`lazy: true`).
if (engine.batchLazy) out.batchLazyQps = await batchRate(engine.batchLazy);
// Lean answers: ids and scores, no preview, a lower-bound count.
if (engine.batchLean) out.batchLeanQps = await batchRate(engine.batchLean);
// Memory over a long stream of searches (issue #64: "memory flat over 1M streamed queries"): the
// process's resident memory at each tenth of the stream, every answer read and then dropped.
if (engine.stream) {
  const count = Number(streamed);
  const tenth = Math.max(1, Math.floor(count / 10));
  const rss = [];
  let n = 0;
  let results = 0;
  const s = performance.now();
  for await (const answer of engine.stream(singles, count)) {
    // Read as a caller ranking the answers would: each result's id and score.
    for (const r of answer.results ?? []) if (r.id && Number.isFinite(r.score)) results++;
    if (++n % tenth === 0) rss.push(Math.round(process.memoryUsage().rss / 1048576));
  }
  out.stream = { count: n, results, qps: Math.round(n / ((performance.now() - s) / 1000)), rssMb: rss };
}
const seqList = batchList.slice(0, Math.min(5000, batchSize / 2));
const s = performance.now();
for (const q of seqList) await engine.run(q);
out.sequentialQps = Math.round(seqList.length / ((performance.now() - s) / 1000));

// Items added one at a time after the build, as an application adds what changes (default
// profile): each add's time, then single-mid queries again, which pay for what the adds left
// behind (rye-search: one small segment per add until merged).
if (profile === 'default' && engine.addOne) {
  const adds = [];
  for (let i = 0; i < ONE_ITEM_ADDS; i++) {
    const d = docs[i % docs.length];
    const s = performance.now();
    await engine.addOne({ ...d, id: `${d.id}-added${i}` });
    adds.push(performance.now() - s);
  }
  out.addOneP50Ms = +pct(adds, 50).toFixed(3);
  // As a server adds what its requests bring: each add asked for without waiting for the others.
  const together = performance.now();
  await Promise.all(
    Array.from({ length: ONE_ITEM_ADDS }, (_, i) =>
      engine.addOne({ ...docs[i % docs.length], id: `${docs[i % docs.length].id}-together${i}` }),
    ),
  );
  out.addAtOnceMs = +(performance.now() - together).toFixed(1);
  const mids = queries.filter((q) => q.kind === 'single-mid');
  const after = [];
  for (let r = 0; r < Number(reps); r++)
    for (const q of mids) {
      const s = performance.now();
      await engine.run(q);
      after.push(performance.now() - s);
    }
  out.midAfterAddsP50Ms = +pct(after, 50).toFixed(4);
}

if (engine.diskBytes) out.diskMb = +(engine.diskBytes() / 1048576).toFixed(1);
if (engine.reopen) out.openFirstMs = +(await engine.reopen(singles[0].terms[0])).toFixed(1);
fs.rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
