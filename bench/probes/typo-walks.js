// What a search costs that walks the term dictionary with a Levenshtein automaton, in
// instructions (callgrind counts them whatever else the machine is doing): the bench's fuzzy
// terms (one edit), and words the tier does not hold, each retried with typos allowed by its
// length and then given "did you mean" (the bench's rare words that are not in the tier,
// two-word `a AND b` queries with one of them, mid-frequency words spelt backwards), and the
// bench's typos rescued by that retry. `examples/profile_search.rs` (built first,
// release) searches in keyword mode, previews on, after waiting (`SETTLE_MS`) for the segment's
// all-terms dictionary the first searches started building, so the walks are those of a warm
// index. Issue #64: a word that matched nothing cost 2.5–7 ms at c60k, 0.7–1.3 ms at c10k.
// `--bin path` runs another build of the example (a commit's, to compare).
//   node bench/probes/typo-walks.js [c10k|c60k] [--bin path]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { queryMix } from '../queries.js';
import { buildExamples, writeTier } from './rust-examples.js';

const args = process.argv.slice(2);
const at = args.indexOf('--bin');
const other = at >= 0 ? args.splice(at, 2)[1] : undefined;
const name = args[0] ?? 'c10k';
const bin = other ?? buildExamples(['profile_search']).profile_search;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-search-typo-walks-'));
try {
  const { plain, native } = await writeTier(name, dir);
  const held = new Set();
  for (const d of JSON.parse(fs.readFileSync(plain, 'utf8')))
    for (const w of `${d.title} ${d.name} ${d.description} ${d.content}`.toLowerCase().match(/[a-z0-9]+/g) ?? []) held.add(w);
  const queries = queryMix().queries;
  const missing = queries.filter((q) => q.kind === 'single-rare' && !held.has(q.terms[0])).map((q) => q.terms[0]);
  const mids = queries.filter((q) => q.kind === 'single-mid').map((q) => q.terms[0]);
  const typos = queries.filter((q) => q.kind === 'fuzzy').map((q) => q.terms[0]);
  // Mid-frequency words spelt backwards: almost never within two edits of a word the tier holds.
  const reversed = mids.map((w) => [...w].reverse().join('')).filter((w) => !held.has(w));
  const kinds = {
    'fuzzy (one edit, FUZZY=1)': typos,
    'the same typos, rescued by the retry': typos,
    'a word the tier lacks (the bench rare words)': missing,
    'a AND b, b lacking': missing.map((w, i) => `${mids[i % mids.length]} AND ${w}`),
    'a word spelt backwards': reversed,
  };
  const env = { ...process.env, INDEX_DIR: path.join(dir, 'index'), PREVIEW: '200', PAGE: '1', NO_MANY: '1' };
  fs.mkdirSync(env.INDEX_DIR);
  execFileSync(bin, [native, 'zzzzqqqx', '1'], { env, stdio: 'ignore' });
  const rows = [];
  for (const [kind, list] of Object.entries(kinds)) {
    if (list.length === 0) continue;
    const file = path.join(dir, 'queries.txt');
    fs.writeFileSync(file, list.join('\n'));
    const out = path.join(dir, 'callgrind.out');
    const fuzzy = kind.startsWith('fuzzy') ? { FUZZY: '1' } : {};
    execFileSync(
      'valgrind',
      ['--tool=callgrind', "--toggle-collect=*run_warm*", `--callgrind-out-file=${out}`, bin, native, file, '1'],
      // Under valgrind the dictionary's build, on another thread, takes ~50 times as long (c60k: seconds).
      { env: { ...env, ...fuzzy, SETTLE_MS: '30000' }, stdio: 'ignore' },
    );
    const total = Number(/^summary: (\d+)/m.exec(fs.readFileSync(out, 'utf8'))[1]);
    rows.push({ kind, searches: list.length, 'instructions a search': Math.round(total / list.length) });
  }
  console.log(`${name}: instructions per keyword search that walks with a Levenshtein automaton (profile_search, previews on${other ? `, ${other}` : ''})`);
  console.table(rows);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
