// How many term-dictionary lookups (walks of a field's FST, `tantivy_fst::raw::Fst::get`) one
// keyword search makes, by kind: a count, so it does not move with the machine's load as times
// do. `examples/profile_search.rs` (built first, release) searches the tier with the bench's
// terms in keyword mode, previews on; a uprobe on the lookup counts its calls (`perf probe`,
// `perf stat`: Linux, root), and the calls of one more pass over the terms, divided by their
// number, are the lookups of one search. Issue #64: a two-word search looked each word up in
// every field twice more for the nearness of its words; the phrase row guards against a phrase
// looking its words up twice.
//   node bench/probes/dictionary-lookups.js [c10k|c60k]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { toNative } from '../../dist/memory-index.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const name = process.argv[2] ?? 'c60k';
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
try {
  run('perf', ['--version']);
} catch {
  console.error('dictionary-lookups: needs `perf` (Linux, with uprobes) on the PATH');
  process.exit(1);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const host = /host: (\S+)/.exec(run('rustc', ['-vV']))[1];
run('cargo', ['build', '--release', '--target', host, '-p', 'rye-search-core', '--example', 'profile_search'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const target = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
const bin = path.join(target, host, 'release', 'examples', 'profile_search');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-search-lookups-'));
const docsFile = path.join(dir, 'docs.json');
fs.writeFileSync(docsFile, JSON.stringify(tier(name).map(({ base, ...d }) => toNative(d))));
const queries = queryMix().queries;
const kinds = {
  'single-rare': (q) => q.terms[0],
  'single-mid': (q) => q.terms[0],
  'single-common': (q) => q.terms[0],
  and2: (q) => `${q.terms[0]} AND ${q.terms[1]}`,
  words2: (q) => `${q.terms[0]} ${q.terms[1]}`,
  // Looked up once by the phrase's own clause (f6dded8 had every token looked up again: 27 -> 35).
  phrase: (q) => `"${q.terms.join(' ')}"`,
};

// The lookup's symbol, as the example was built, and a probe on it (removed at the end).
const symbol = run('nm', [bin])
  .split('\n')
  .map((l) => l.split(' ')[2])
  .find((s) => s && /tantivy_fst3raw15Fst\$LT\$Data\$GT\$3get/.test(s));
if (!symbol) throw new Error('no tantivy_fst::raw::Fst::get in the example: inlined, or renamed?');
const event = 'rye_lookups:fst_get';
run('perf', ['probe', '-q', '-x', bin, '--no-demangle', '-a', `${event}=${symbol}`]);
try {
  const env = { ...process.env, INDEX_DIR: path.join(dir, 'index'), PREVIEW: '200', PAGE: '1', NO_MANY: '1' };
  fs.mkdirSync(env.INDEX_DIR);
  // Built once, by the first run.
  run(bin, [docsFile, 'zzzzqqqx', '1'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const rows = [];
  for (const [kind, text] of Object.entries(kinds)) {
    const list = queries.filter((q) => q.kind === kind).map(text);
    const file = path.join(dir, `${kind}.txt`);
    fs.writeFileSync(file, list.join('\n'));
    // The calls of a run with `repeats` passes over the terms (perf stat writes to stderr).
    const count = (repeats) => {
      const script = `perf stat -x, -e ${event} "$@" 2>&1 >/dev/null`;
      const out = run('sh', ['-c', script, 'sh', bin, docsFile, file, String(repeats)], { env });
      return Number(out.split('\n').find((l) => l.includes(event)).split(',')[0]);
    };
    rows.push({ kind, searches: list.length, 'lookups a search': (count(2) - count(1)) / list.length });
  }
  console.log(`${name}: term-dictionary lookups per keyword search (profile_search, previews on)`);
  console.table(rows);
} finally {
  run('perf', ['probe', '-q', '-d', event]);
  fs.rmSync(dir, { recursive: true, force: true });
}
