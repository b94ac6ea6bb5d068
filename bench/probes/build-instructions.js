// What a build costs the core in instructions, not seconds (issue #64 point 4: less work per item):
// one bulk batch of a tier's documents, as the Node API sends them (`examples/profile_build.rs`),
// under `valgrind --tool=callgrind`, which counts the same whatever else the machine is doing.
// Split by thread (the one that reads and prepares the documents, and Tantivy's: indexing and
// the commit) and by what rye-search itself does on the indexing thread (its two tokenizers).
// Compare two builds by running it on each. `--model` embeds each item with the bundled static
// model first, as the package does by default. c10k takes ~20 s (callgrind runs ~50× slower).
//   node bench/probes/build-instructions.js [c10k|c60k] [--model]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExamples, writeTier } from './rust-examples.js';

const name = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'c10k';
const model = process.argv.includes('--model');
const { profile_build } = buildExamples(['profile_build']);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-build-instructions-'));
const { native } = await writeTier(name, dir);
const out = path.join(dir, 'callgrind.out');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = { ...process.env };
if (model) env.MODEL = path.join(root, 'model', 'minilm-static-256.rye-embed');
execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, profile_build, native], { env, stdio: 'ignore' });
const report = execFileSync('callgrind_annotate', ['--inclusive=yes', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
fs.rmSync(dir, { recursive: true, force: true });

/** The inclusive count of the first function whose name matches `pattern` (0 when none does). */
const inclusive = (pattern) => {
  for (const line of report.split('\n')) {
    const m = /^\s*([\d,]+)\s/.exec(line);
    if (m && pattern.test(line)) return Number(m[1].replaceAll(',', ''));
  }
  return 0;
};
const millions = (n) => `${(n / 1e6).toFixed(0)}M`;
const rows = {
  'whole build': inclusive(/PROGRAM TOTALS/),
  'main thread: documents read, embedded, prepared': inclusive(/profile_build::main/),
  "Tantivy's threads: indexing, commit": inclusive(/pthread_create\.c:start_thread/),
  '  of which the segment written at the commit': inclusive(/SegmentWriter::finalize/),
  '  of which the identifier tokenizer': inclusive(/IdentTokenizer as tantivy_tokenizer_api::Tokenizer>::token_stream \[/),
  '  of which the stem tokenizer': inclusive(/StemTokenizer as tantivy_tokenizer_api::Tokenizer>::token_stream \[/),
};
console.log(`${name}, one bulk batch in the core, ${model ? 'static model on' : 'no model'}: instructions (callgrind)`);
console.table(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, millions(v)])));
