// Do batched adds slow searches? Two memory indexes in one process — the tier added in batches
// of 5,000 and in one add — answer the same queries of every kind, alternately, with default
// options (previews on); prints how long each took to add and, per kind, p50 for each and the
// ratio. One process, so the machine's load moves both sides alike (the side-by-side bench runs
// them in separate processes).
//   node bench/batched-adds.js [c10k|c60k] [--json]   (--json: one JSON line, as bench/run.js reads it)
import { tier } from './corpus.js';
import { ENGINES } from './engines.js';
import { KINDS, queryMix } from './queries.js';

const name = process.argv[2] ?? 'c60k';
const json = process.argv.includes('--json');
const docs = tier(name).map(({ base, ...d }) => d);
const batched = await ENGINES.rye(undefined, 'default');
const oneAdd = await ENGINES['rye-1add'](undefined, 'default');
const timed = async (engine) => {
  const t0 = performance.now();
  await engine.build(docs);
  return Math.round(performance.now() - t0);
};
const addMs = { batched: await timed(batched), oneAdd: await timed(oneAdd) };

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const rows = [];
for (const kind of KINDS) {
  const list = queryMix().queries.filter((q) => q.kind === kind);
  for (const q of list) await Promise.all([batched.run(q), oneAdd.run(q)]);
  const times = { batched: [], oneAdd: [] };
  for (let round = 0; round < 5; round++)
    for (const q of list)
      for (const [side, engine] of round % 2
        ? [
            ['oneAdd', oneAdd],
            ['batched', batched],
          ]
        : [
            ['batched', batched],
            ['oneAdd', oneAdd],
          ]) {
        const s = performance.now();
        await engine.run(q);
        times[side].push(performance.now() - s);
      }
  const [a, b] = [median(times.batched), median(times.oneAdd)];
  rows.push({ kind, batchedP50Ms: +a.toFixed(3), oneAddP50Ms: +b.toFixed(3), ratio: +(a / b).toFixed(2) });
}
if (json) {
  console.log(JSON.stringify({ addMs, kinds: rows }));
  process.exit(0);
}
console.log(
  `${name}: ${docs.length} items, in batches of 5,000 (${addMs.batched} ms to add) vs one add (${addMs.oneAdd} ms), default options`,
);
console.table(rows);
