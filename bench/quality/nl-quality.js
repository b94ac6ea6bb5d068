// Natural-language quality, keyword vs auto (hybrid for plain questions) vs semantic, on the
// question sets of bench/quality/questions.js and the bench's known-item queries: hits in the top 5 / 10,
// MRR@10, zero-result rate. RYE questions run
// over the real RYE corpus as spaces, Debian questions over all 63,666 packages. Each set runs
// twice: at once (the static model's vectors: `tier: static`) and after the sentence encoder has
// settled (`tier: encoder`); the time to settle and the process's peak RSS are reported.
//   node bench/quality/nl-quality.js [ryeos|debian|all]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createMemoryIndex, openIndex } from '../../dist/index.js';
import { packages } from '../corpus.js';
import { queryMix } from '../queries.js';
import { DEBIAN_QUESTIONS, RYE_HELD_OUT_QUESTIONS, RYE_QUESTIONS } from './questions.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RYEOS = path.resolve(HERE, '..', '..', '..', 'shared', 'corpus', 'ryeos');
const which = process.argv[2] ?? 'all';

/** Scores each set now, waits for the encoder to settle, and scores them again. */
async function bothTiers(index, sets) {
  const out = [];
  for (const [name, questions, matches] of sets) out.push(...(await score(name, questions, (o) => index.search(o), matches)));
  const start = performance.now();
  const status = await index.ready({ semantic: 'full' });
  const settled = { settledSeconds: +((performance.now() - start) / 1000).toFixed(1), ...status.encoder, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) };
  console.log('encoder settled:', settled);
  for (const [name, questions, matches] of sets) out.push(...(await score(name, questions, (o) => index.search(o), matches)));
  out.push({ settled: name(sets), ...settled });
  return out;
}

const name = (sets) => sets.map((s) => s[0]).join(', ');

async function score(name, questions, search, matches) {
  const rows = [];
  for (const mode of ['keyword', 'auto', 'semantic']) {
    let top5 = 0;
    let top10 = 0;
    let rr = 0;
    let empty = 0;
    let tier = 'keyword';
    // Each question's rank (1-based) in the top 10, or null: what moved between two runs.
    const ranks = [];
    for (const [question, want] of questions) {
      const res = await search({ query: question, limit: 10, previewChars: 0, mode });
      if (res.vectors) tier = res.vectors;
      if (res.total === 0) empty++;
      const rank = res.results.findIndex((r) => matches(r, want));
      ranks.push(rank >= 0 ? rank + 1 : null);
      if (rank >= 0) {
        rr += 1 / (rank + 1);
        top10++;
        if (rank < 5) top5++;
      }
    }
    const n = questions.length;
    rows.push({ set: name, mode, tier, questions: n, top5, top10, mrr10: +(rr / n).toFixed(3), zeroResult: empty, ranks });
  }
  console.table(rows.map(({ ranks, ...row }) => row));
  return rows;
}

const out = [];
if (which === 'all' || which === 'ryeos') {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-nl-'));
  const bundles = fs
    .readdirSync(path.join(RYEOS, 'system'))
    .map((id) => ({ id, root: path.join(RYEOS, 'system', id) }));
  const index = await openIndex({
    projectPath: path.join(RYEOS, 'project'),
    userSpace: path.join(cache, 'user'),
    cacheDir: cache,
    systemBundles: bundles,
    includeDefaultBundle: false,
  });
  const byId = (r, want) => r.id === want;
  out.push(
    ...(await bothTiers(index, [
      ['ryeos', RYE_QUESTIONS, byId],
      ['ryeos held-out', RYE_HELD_OUT_QUESTIONS, byId],
    ])),
  );
  await index.close();
  fs.rmSync(cache, { recursive: true, force: true });
}
if (which === 'all' || which === 'debian') {
  const index = createMemoryIndex();
  const docs = packages();
  for (let i = 0; i < docs.length; i += 5000) {
    await index.add(docs.slice(i, i + 5000));
  }
  // The lexical guard: the bench's 200 known-item queries (a package's synopsis words) must rank
  // as well in auto mode as in keyword mode.
  const known = queryMix().known.map((k) => [k.text, k.target]);
  out.push(
    ...(await bothTiers(index, [
      ['debian', DEBIAN_QUESTIONS, (r, want) => r.name === want],
      ['debian known items', known, (r, want) => r.id === want],
    ])),
  );
}
fs.mkdirSync(path.join(HERE, '..', 'results'), { recursive: true });
fs.writeFileSync(path.join(HERE, '..', 'results', `nl-quality-${which}.json`), `${JSON.stringify(out, null, 2)}\n`);
