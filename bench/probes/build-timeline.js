// When a batched build uses one core and when two (issue #64 point 4, "both cores used"): a Debian
// tier added in batches of 5,000 with the defaults, while a second process reads the time every
// thread of the first has run (`/proc/<pid>/task/*/schedstat`, nanoseconds) every 10 ms. Each
// add is split into its stretches where Tantivy's indexing thread runs alone (the other threads
// together under a fifth of a core: a segment's writing at the commit, after the documents were
// handed over) and the rest. A stretch of one core can only be filled by the next add's work,
// which the caller starts once this add has returned, searchable: this is what keeps the wall
// time above the CPU time spread over both cores. Linux only.
//   node bench/probes/build-timeline.js [c10k|c60k|c1m]
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SAMPLE_MS = 10;
/** Other threads' share of a core under which the indexing thread counts as running alone. */
const ALONE_BELOW = 0.2;
/** Indexing thread's share of a core from which it counts as running. */
const RUNNING_FROM = 0.8;

/** Nanoseconds each of `pid`'s threads has run so far, by thread id, with its group: the JS thread, Tantivy's indexing threads (one a batch), the rest. */
function runTimes(pid) {
  const threads = new Map();
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined; // the process ended
  }
  for (const tid of tasks) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const group = Number(tid) === pid ? 'js' : name.startsWith('thrd-tantivy-in') ? 'indexing' : 'other';
      threads.set(tid, { group, ns });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

if (process.argv[2] === '--sample') {
  // The sampler: times are on the clock both processes share (ms since the epoch).
  const pid = Number(process.argv[3]);
  // Each interval: its end and how long each group ran in it (a thread that began within it counts
  // from zero; one that ended loses its last interval).
  const samples = [];
  let before = runTimes(pid);
  const timer = setInterval(() => {
    const threads = runTimes(pid);
    if (!threads) return;
    const ran = { t: performance.timeOrigin + performance.now(), js: 0, indexing: 0, other: 0 };
    for (const [tid, { group, ns }] of threads) ran[group] += ns - (before?.get(tid)?.ns ?? 0);
    samples.push(ran);
    before = threads;
  }, SAMPLE_MS);
  process.on('message', () => {
    clearInterval(timer);
    process.send(samples, () => process.exit(0));
  });
} else {
  const name = process.argv[2] ?? 'c60k';
  const { tier } = await import('../corpus.js');
  const { ADD_BATCH, ENGINES } = await import('../engines.js');
  const { createMemoryIndex } = await import('../../dist/index.js');
  const docs = tier(name).map(({ base, ...d }) => d);
  const now = () => performance.timeOrigin + performance.now();
  const sampler = fork(fileURLToPath(import.meta.url), ['--sample', String(process.pid)]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const index = createMemoryIndex();
  const adds = [];
  for (let i = 0; i < docs.length; i += ADD_BATCH) {
    const start = now();
    await index.add(docs.slice(i, i + ADD_BATCH));
    adds.push({ start, end: now() });
  }
  await new Promise((resolve) => setTimeout(resolve, 3 * SAMPLE_MS));
  const samples = await new Promise((resolve) => {
    sampler.once('message', resolve);
    sampler.send('stop');
  });
  await index.close();
  // FTS5 on the same items, in the same process once rye-search's index is closed.
  const fts5 = await ENGINES.fts5(undefined, 'default');
  const f0 = performance.now();
  await fts5.build(docs);
  const fts5Ms = performance.now() - f0;

  const rows = adds.map(({ start, end }, i) => {
    let indexing = 0;
    let js = 0;
    let others = 0;
    let aloneMs = 0;
    for (let k = 1; k < samples.length; k++) {
      const [a, b] = [samples[k - 1], samples[k]];
      if (a.t < start || b.t > end) continue;
      const ms = b.t - a.t;
      const ran = (group) => b[group] / 1e6;
      indexing += ran('indexing');
      js += ran('js');
      others += ran('other');
      if (ran('indexing') >= RUNNING_FROM * ms && ran('js') + ran('other') < ALONE_BELOW * ms) aloneMs += ms;
    }
    const wall = end - start;
    return {
      add: i + 1,
      'wall ms': Math.round(wall),
      'indexing thread ms': Math.round(indexing),
      'JS thread ms': Math.round(js),
      'other threads ms': Math.round(others),
      'indexing alone ms': Math.round(aloneMs),
      'one core idle': `${Math.round((100 * aloneMs) / wall)}%`,
    };
  });
  const sum = (key) => rows.reduce((n, r) => n + r[key], 0);
  const wall = sum('wall ms');
  const cpu = sum('indexing thread ms') + sum('JS thread ms') + sum('other threads ms');
  console.log(
    `${name}: ${docs.length} items added in batches of ${ADD_BATCH} with the defaults; run time per thread group while each add ran (sampled every ${SAMPLE_MS} ms)`,
  );
  console.table(rows);
  const x = (ms) => `${(ms / fts5Ms).toFixed(2)}× FTS5`;
  const alone = sum('indexing alone ms');
  console.table({
    'adds until they return': { ms: Math.round(wall), 'vs SQLite FTS5': x(wall) },
    'of which the indexing thread ran alone': { ms: alone, 'vs SQLite FTS5': `${Math.round((100 * alone) / wall)}% of the adds` },
    'CPU of every thread, spread over two cores': { ms: Math.round(cpu / 2), 'vs SQLite FTS5': x(cpu / 2) },
    "the indexing thread's own run time (no overlap can go below it)": {
      ms: sum('indexing thread ms'),
      'vs SQLite FTS5': x(sum('indexing thread ms')),
    },
    "the JS thread's (documents checked, copied and sent as JSON)": {
      ms: sum('JS thread ms'),
      'vs SQLite FTS5': x(sum('JS thread ms')),
    },
    "every other thread's (the binding's upserts on libuv's pool: parsed, embedded, prepared; V8's helpers)": {
      ms: sum('other threads ms'),
      'vs SQLite FTS5': x(sum('other threads ms')),
    },
    'SQLite FTS5, same batches': { ms: Math.round(fts5Ms), 'vs SQLite FTS5': x(fts5Ms) },
  });
}
