// What one CLI command costs end to end on a large project, as a user runs it (one process per
// command, default options), beside `grep -rl` over the same tree (what an agent would run
// instead) and Node starting with nothing to do.
//
//   node bench/probes/cli-latency.js [c10k|c60k] [--runs N] [--json]
//
// Reports medians (ms) of: the first command (builds the index), a search on an unchanged tree,
// a search right after an edit (and that it finds the edit), a search right after a new file.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tier, writeTree } from '../corpus.js';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'rye-search.js');
const args = process.argv.slice(2);
const tierName = args.find((a) => /^c\d/.test(a)) ?? 'c60k';
const runs = Number(args[args.indexOf('--runs') + 1]) || 7;
/** Folders changed this recently are not vouched for by their times (`ts/scan-snapshot.ts`). */
const RACY_MS = 2000;

const root = fs.mkdtempSync(path.join(os.tmpdir(), `rye-cli-${tierName}-`));
const project = path.join(root, 'project');
const env = { ...process.env, RYE_SEARCH_CACHE_DIR: path.join(root, 'cache'), USER_SPACE: path.join(root, 'user') };
const docs = tier(tierName);
writeTree(docs, project);

const timed = (cmd, argv) => {
  const t = performance.now();
  const res = spawnSync(cmd, argv, { cwd: project, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  if (res.status !== 0 && res.status !== 1) throw new Error(`${cmd} ${argv.join(' ')}: ${res.stderr}`);
  return { ms, stdout: res.stdout };
};
const search = (query) => timed(process.execPath, [CLI, 'search', query, '--project', project, '--no-default-bundle']);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const round = (x) => Math.round(x);

const out = { tier: tierName, files: docs.length, runs };
out.firstCommandMs = round(search('library').ms);
// A user does not search within two seconds of creating the folders; the walk after that is stored.
sleep(RACY_MS + 500);
out.walkAndStoreMs = round(search('library').ms);

const unchanged = [];
const nodeAlone = [];
const grep = [];
for (let i = 0; i < runs; i++) {
  unchanged.push(search('library').ms);
  nodeAlone.push(timed(process.execPath, ['-e', '']).ms);
  grep.push(timed('grep', ['-rli', 'library', '.ai']).ms);
}
out.unchangedMs = round(median(unchanged));
out.nodeStartMs = round(median(nodeAlone));
out.grepMs = round(median(grep));

const edited = [];
let editsFound = 0;
for (let i = 0; i < runs; i++) {
  const word = `zyzzyva${i}quux`;
  fs.appendFileSync(path.join(project, '.ai', 'knowledge', `${docs[100 + i].id}.md`), `\n${word}\n`);
  const res = search(word);
  edited.push(res.ms);
  if (res.stdout.includes(docs[100 + i].id)) editsFound++;
  // The next unchanged search stores the walk again (its cost is in walkAndStoreMs).
  search('library');
}
out.afterEditMs = round(median(edited));
out.editsFound = `${editsFound}/${runs}`;

const added = [];
let addsFound = 0;
for (let i = 0; i < runs; i++) {
  const word = `qwertyuiop${i}x`;
  writeTree([{ ...docs[200], id: `${docs[200].id}-new${i}`, content: word }], project);
  const res = search(word);
  added.push(res.ms);
  if (res.stdout.includes(`-new${i}`)) addsFound++;
}
out.afterNewFileMs = round(median(added));
out.newFilesFound = `${addsFound}/${runs}`;
out.unchangedVsGrep = +(out.unchangedMs / out.grepMs).toFixed(2);

fs.rmSync(root, { recursive: true, force: true });
if (args.includes('--json')) process.stdout.write(`${JSON.stringify(out)}\n`);
else for (const [k, v] of Object.entries(out)) console.log(`${k.padEnd(18)} ${v}`);
