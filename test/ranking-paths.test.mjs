// Pages that skip documents equal pages that score every match, to the last digit of every
// score: common words and unions of them are ranked by MaxScore, which passes over documents that
// cannot enter the page, wildcards by block-max WAND up to 64 clauses; `min_score` makes the same
// query score every match. On real Debian descriptions (../shared/corpus/debian),
// across segments and after removals; skipped with a message when the corpus is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import zlib from 'node:zlib';

import { createMemoryIndex } from '../dist/index.js';
import { CORPUS, describeIf } from './helpers.mjs';
import { rng } from './reliability/fixtures/unicode-cases.mjs';

const FILE = path.join(CORPUS, 'debian', 'packages.jsonl.gz');
const present = fs.existsSync(FILE);
const ITEMS = 20_000;

/** Words in at least `min` of the items' descriptions and contents, most frequent first. */
function frequentWords(docs, min) {
  const df = new Map();
  for (const d of docs) {
    for (const w of new Set(`${d.description} ${d.content}`.toLowerCase().match(/[a-z]{4,}/g) ?? [])) {
      df.set(w, (df.get(w) ?? 0) + 1);
    }
  }
  return [...df].filter(([, n]) => n >= min).map(([w]) => w);
}

describeIf(present ? false : `corpus not found at ${FILE}`, 'pages that skip documents', () => {
  it('equal pages that score every match: same items, order, scores and totals', async () => {
    const docs = zlib
      .gunzipSync(fs.readFileSync(FILE))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(0, ITEMS)
      .map((l) => {
        const p = JSON.parse(l);
        return {
          id: `${p.section}/${p.name}`,
          title: p.name,
          description: p.description ?? '',
          content: p.content ?? '',
          category: p.section,
        };
      });
    const index = createMemoryIndex();
    // Batches of 3,000 leave more than one segment; the removals leave deleted documents in them.
    for (let i = 0; i < docs.length; i += 3000) await index.add(docs.slice(i, i + 3000));
    const words = frequentWords(docs, 600);
    assert.ok(words.length >= 20, `only ${words.length} frequent words`);
    const r = rng(2611);
    const pick = () => words[Math.floor(r() * words.length)];
    const queries = [];
    for (let i = 0; i < 40; i++) queries.push(pick(), `${pick()} OR ${pick()}`, `${pick()} OR ${pick()} OR ${pick()}`);
    // Wildcards: unions of up to 256 terms a field (those past 64 clauses score every match).
    for (let i = 0; i < 10; i++)
      queries.push(`${pick().slice(0, 3)}*`, `*${pick().slice(-3)}`, `*${pick().slice(1, 3)}*`);
    const compare = async (when) => {
      for (const query of queries) {
        for (const limit of [1, 10, 50]) {
          const opts = { query, limit, previewChars: 0, mode: 'keyword' };
          const skipping = await index.search(opts);
          const every = await index.search({ ...opts, minScore: 1e-9 });
          const page = (res) => res.results.map((h) => `${h.id} ${h.score}`);
          assert.ok(skipping.results.length > 0, `${query}: nothing found ${when}`);
          assert.deepEqual(page(skipping), page(every), `${query}, limit ${limit}, ${when}`);
          assert.equal(skipping.total, every.total, `${query}: total ${when}`);
        }
      }
    };
    await compare('after adding');
    const removed = docs.filter(() => r() < 0.3).map((d) => d.id);
    await index.remove(removed);
    await compare('after removing 30%');
  });
});
