// Known-item search quality per language on the translated Debian descriptions
// (../shared/corpus/debian-i18n): each sampled package's translated synopsis is the query, its
// own entry the target. Prints MRR@10 and hits in the top 10 per language, and what a preview
// costs per language: p50 of one-word searches (a word of a sampled description) with the default
// preview and without one, timed alternately, and their ratio.
//   node bench/quality/i18n-quality.js [path/to/dist/index.js] [samples per language]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const api = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, 'dist', 'index.js');
const samples = Number(process.argv[3] ?? 300);
const corpus =
  process.env.RYE_I18N_CORPUS ?? path.resolve(root, '..', 'shared', 'corpus', 'debian-i18n', 'packages-i18n.jsonl.gz');
const { createMemoryIndex } = await import(pathToFileURL(api).href);

const rows = zlib
  .gunzipSync(fs.readFileSync(corpus))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const index = createMemoryIndex();
const docs = rows.map((r, i) => ({
  id: `${r.lang}/${r.section}/${r.name}/${i}`,
  title: r.name,
  description: r.description,
  content: r.content,
  category: r.section,
}));
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));

const byLang = new Map();
for (const [i, r] of rows.entries()) {
  if (!byLang.has(r.lang)) byLang.set(r.lang, []);
  byLang.get(r.lang).push(i);
}
const out = {};
for (const [lang, list] of [...byLang].sort()) {
  let rr = 0;
  let top10 = 0;
  let n = 0;
  // Every k-th entry: a fixed, spread sample.
  const step = Math.max(1, Math.floor(list.length / samples));
  for (let k = 0; k < list.length && n < samples; k += step) {
    const i = list[k];
    // The synopsis as words: punctuation a user would not type is left out.
    const query = rows[i].description.replace(/[^\p{L}\p{N}\p{M}\s]+/gu, ' ').trim();
    if (!query) continue;
    n++;
    let res;
    try {
      res = await index.search({ query: query.split(/\s+/).join(' OR '), limit: 10, previewChars: 0 });
    } catch {
      continue;
    }
    const rank = res.results.findIndex((r) => r.id === docs[i].id);
    if (rank >= 0) {
      rr += 1 / (rank + 1);
      top10++;
    }
  }
  out[lang] = { queries: n, mrr10: Number((rr / n).toFixed(3)), top10: Number((top10 / n).toFixed(3)) };
}

// What a preview costs: one word of each sampled description (the longest, as a user would pick
// a telling word), searched with the default preview and without, in alternating order.
const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const REPS = 3;
for (const [lang, list] of [...byLang].sort()) {
  const words = [];
  const step = Math.max(1, Math.floor(list.length / samples));
  for (let k = 0; k < list.length && words.length < samples; k += step) {
    const found = rows[list[k]].content?.match(/[\p{L}\p{M}]{4,}/gu) ?? [];
    const longest = found.sort((a, b) => b.length - a.length)[0];
    if (longest) words.push(longest.toLowerCase());
  }
  const timed = { with: [], without: [] };
  const run = async (query, preview) => {
    const s = performance.now();
    await index.search({ query, limit: 10, ...(preview ? {} : { previewChars: 0 }) });
    timed[preview ? 'with' : 'without'].push(performance.now() - s);
  };
  for (const word of words.slice(0, 20)) await run(word, true); // warm-up, untimed below
  timed.with.length = 0;
  for (let r = 0; r < REPS; r++)
    for (const [j, word] of words.entries())
      for (const preview of (j + r) % 2 ? [false, true] : [true, false]) await run(word, preview);
  const [a, b] = [p50(timed.with), p50(timed.without)];
  Object.assign(out[lang], {
    previewP50Ms: Number(a.toFixed(4)),
    noPreviewP50Ms: Number(b.toFixed(4)),
    previewRatio: Number((a / b).toFixed(3)),
  });
}
console.log(JSON.stringify(out));
