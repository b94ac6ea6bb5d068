// Where a build's time goes, layer by layer (issue #64: "build at 60k ≤ 2× FTS5's time"), in one
// run, each in its own process, the layers taking turns for three rounds (best of each):
//   - SQLite FTS5 as the bench builds it (five columns, `unicode61`, one transaction);
//   - Tantivy alone on the same five fields (its default tokenizer, positions, every column
//     stored), with one indexing thread and with two (`examples/build_floor.rs`): the engine's
//     own floor, none of what rye-search adds;
//   - rye-search's core alone, without Node, on the documents the Node API sends it (one batch,
//     no model: `examples/profile_build.rs`);
//   - rye-search through its Node API: one add with neither model, then batches of 5,000 with
//     the defaults (what the bench's build row times).
// The examples are built first (release, the addon's target directory: only the examples compile).
//   node bench/probes/build-floor.js [c10k|c60k]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExamples, writeTier } from './rust-examples.js';

const name = process.argv[2] ?? 'c60k';
const self = fileURLToPath(import.meta.url);
const examples = buildExamples(['build_floor', 'profile_build']);

// The documents as each program reads them, written once.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-build-floor-'));
const { plain: plainFile, native: nativeFile } = await writeTier(name, dir);

// The Node layers are timed by `build-phases.js`'s own child (FTS5, or rye-search's adds).
const phases = path.join(path.dirname(self), 'build-phases.js');
const node = (layer, env = {}) => () => {
  const { ms, cpuMs } = JSON.parse(
    execFileSync(process.execPath, [phases, name, '--child', layer], { env: { ...process.env, ...env }, encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1),
  );
  return { ms, cpuMs };
};
const bare = (threads) => () => JSON.parse(execFileSync(examples.build_floor, [plainFile, String(threads)], { encoding: 'utf8' })).ms;
const core = () => {
  const out = execFileSync(examples.profile_build, [nativeFile], { encoding: 'utf8' });
  return Math.round(Number(/committed in ([\d.]+)s/.exec(out)[1]) * 1000);
};
const neither = { RYE_SEARCH_MODEL: 'off', RYE_SEARCH_ENCODER: 'off' };
const LAYERS = [
  ['SQLite FTS5, one transaction', node('fts5')],
  ['Tantivy alone, 1 indexing thread', bare(1)],
  ['Tantivy alone, 2 indexing threads', bare(2)],
  ["rye-search's core alone (Rust, one batch, no model)", core],
  ['rye-search Node API, one add, no model', node('one add', neither)],
  ['rye-search Node API, batches of 5,000, defaults', node('batches')],
];
// The Node layers also say how much CPU the process used: spread evenly over every core, that
// work could take no less wall time than CPU ÷ cores (the floor of the index rye-search writes,
// whatever the threads and the wire do; the Rust layers are not measured so).
const best = LAYERS.map(() => ({ ms: Number.POSITIVE_INFINITY }));
for (let round = 0; round < 3; round++)
  LAYERS.forEach(([, run], i) => {
    const got = run();
    const r = typeof got === 'number' ? { ms: got } : got;
    if (r.ms < best[i].ms) best[i] = r;
  });
fs.rmSync(dir, { recursive: true, force: true });
const cores = os.availableParallelism();
console.log(
  `${name}: a build until it is searchable, best of 3 rounds, one process each (${cores} cores, ${os.loadavg()[0].toFixed(2)} load)`,
);
const fts5 = best[0].ms;
console.table(
  LAYERS.map(([layer], i) => {
    const { ms, cpuMs } = best[i];
    const row = { layer, ms, '× FTS5': +(ms / fts5).toFixed(2) };
    if (cpuMs !== undefined) {
      row['CPU ms'] = cpuMs;
      row['CPU ÷ cores, × FTS5'] = +(cpuMs / cores / fts5).toFixed(2);
    }
    return row;
  }),
);
