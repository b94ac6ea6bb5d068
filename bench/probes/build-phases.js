// Where a build's time goes (issue #64 point 4): a Debian tier added in batches of 5,000 (as users
// add) and in one add, beside SQLite FTS5 in one transaction, each setting in its own process
// (the settings are read when the addon loads): default; without the static model's embedding
// (RYE_SEARCH_MODEL=off); without the background sentence encoder (RYE_SEARCH_ENCODER=off); both
// off. Wall time of the adds (the first answers are available when they return) and peak RSS.
// Then, with the adds' merges and the encoder still to come, `ready()`: the time it takes to merge.
//   node bench/probes/build-phases.js [c10k|c60k|c1m] [default]   (`default`: that setting alone,
//   in batches of 5,000: at c1m the whole table takes a quarter of an hour)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const name = process.argv[2] ?? 'c60k';
const self = fileURLToPath(import.meta.url);

if (process.argv[3] === '--child') {
  const { tier } = await import('../corpus.js');
  const docs = tier(name).map(({ base, ...d }) => d);
  const engine = process.argv[4];
  let ms;
  let peakAtAdds;
  let mergeMs;
  // CPU time of every thread of the process (the JS thread, the binding's, Tantivy's) while the adds ran.
  let cpu;
  if (engine === 'fts5') {
    const { ENGINES } = await import('../engines.js');
    const fts5 = await ENGINES.fts5(undefined, 'default');
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fts5.build(docs);
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
  } else {
    const { createMemoryIndex } = await import('../../dist/index.js');
    const index = createMemoryIndex();
    const batch = engine === 'one add' ? docs.length : 5000;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < docs.length; i += batch) await index.add(docs.slice(i, i + batch));
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    peakAtAdds = Math.round(process.resourceUsage().maxRSS / 1024);
    const t1 = performance.now();
    await index.ready();
    mergeMs = Math.round(performance.now() - t1);
    await index.close();
  }
  const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  console.log(JSON.stringify({ ms: Math.round(ms), cpuMs, peakRssMB: peakAtAdds ?? peakRssMB, mergeMs, peakMergedMB: peakRssMB }));
  process.exit(0);
}

const ALL_SETTINGS = [
  ['default', {}],
  ['no static embedding', { RYE_SEARCH_MODEL: 'off' }],
  ['no background encoder', { RYE_SEARCH_ENCODER: 'off' }],
  ['neither', { RYE_SEARCH_MODEL: 'off', RYE_SEARCH_ENCODER: 'off' }],
];
const SETTINGS = process.argv[3] === 'default' ? ALL_SETTINGS.slice(0, 1) : ALL_SETTINGS;
const run = (engine, env) =>
  JSON.parse(
    execFileSync(process.execPath, [self, name, '--child', engine], { env: { ...process.env, ...env }, encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1),
  );
const fts5 = run('fts5', {});
const rows = [{ engine: 'SQLite FTS5, one transaction', setting: '', 'add ms': fts5.ms, 'peak RSS MB': fts5.peakRssMB }];
for (const engine of process.argv[3] === 'default' ? ['batches of 5,000'] : ['batches of 5,000', 'one add']) {
  for (const [setting, env] of SETTINGS) {
    const r = run(engine, env);
    rows.push({
      engine: `rye-search, ${engine}`,
      setting,
      'add ms': r.ms,
      'peak RSS MB': r.peakRssMB,
      '× FTS5 time': +(r.ms / fts5.ms).toFixed(1),
      'then merged (ready) ms': r.mergeMs,
      'peak RSS merged MB': r.peakMergedMB,
    });
  }
}
console.log(`${name}: adds until they return (keyword answers available), then ready() (the merges they left), one process each`);
console.table(rows);
