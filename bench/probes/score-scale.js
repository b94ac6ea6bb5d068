// What a score means in each mode (issue #63 point 3), over the real RYE corpus and its plain
// questions (bench/quality/questions.js), after the sentence encoder has settled: for `min_score`
// cuts, how many answering items each mode keeps (in its top 50) and how many other results pass
// the cut with them. A score that means the same in every mode keeps the answers and drops the
// rest at the same cut whatever the mode.
//   node bench/probes/score-scale.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openIndex } from '../../dist/index.js';
import { RYE_HELD_OUT_QUESTIONS, RYE_QUESTIONS } from '../quality/questions.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RYEOS = path.resolve(HERE, '..', '..', '..', 'shared', 'corpus', 'ryeos');
const CUTS = [0.1, 0.2, 0.3, 0.5, 0.7];
const DEPTH = 50;

const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-score-scale-'));
const index = await openIndex({
  projectPath: path.join(RYEOS, 'project'),
  userSpace: path.join(cache, 'user'),
  cacheDir: cache,
  systemBundles: fs.readdirSync(path.join(RYEOS, 'system')).map((id) => ({ id, root: path.join(RYEOS, 'system', id) })),
  includeDefaultBundle: false,
});
await index.ready({ semantic: 'full' });

const questions = [...RYE_QUESTIONS, ...RYE_HELD_OUT_QUESTIONS];
const rows = [];
for (const mode of ['keyword', 'hybrid', 'semantic']) {
  const answers = [];
  const others = [];
  for (const [question, want] of questions) {
    const res = await index.search({ query: question, limit: DEPTH, previewChars: 0, mode });
    for (const r of res.results) (r.id === want ? answers : others).push(r.score);
  }
  const row = { mode, questions: questions.length, 'answer in top 50': answers.length };
  for (const cut of CUTS) {
    row[`kept ≥${cut}`] = answers.filter((s) => s >= cut).length;
    row[`others/q ≥${cut}`] = +(others.filter((s) => s >= cut).length / questions.length).toFixed(1);
  }
  rows.push(row);
}
await index.close();
fs.rmSync(cache, { recursive: true, force: true });
console.table(rows);
