// Real translated text (../shared/corpus/debian-i18n: German, French, Japanese, Russian,
// Spanish, Chinese) through the public Node API with previews on: every search answers, every
// preview is whole text, and a word of a description finds that description in each language.
// Skipped with a message when the corpus is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import zlib from 'node:zlib';

import { createMemoryIndex } from '../dist/index.js';
import { CORPUS, describeIf } from './helpers.mjs';
import { rng } from './reliability/fixtures/unicode-cases.mjs';

const FILE = path.join(CORPUS, 'debian-i18n', 'packages-i18n.jsonl.gz');
const present = fs.existsSync(FILE);
const SEARCHES = Number(process.env.RYE_I18N_SEARCHES || 3000);

describeIf(present ? false : `corpus not found at ${FILE}`, 'translated Debian descriptions', () => {
  it(`${SEARCHES} searches drawn from the text, previews on, in every language`, async () => {
    const rows = zlib
      .gunzipSync(fs.readFileSync(FILE))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const docs = rows.map((r, i) => ({
      id: `${r.lang}/${r.section}/${r.name}-${i}`,
      title: r.name,
      description: r.description,
      content: r.content,
      category: r.section,
    }));
    const index = createMemoryIndex();
    for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
    const r = rng(48738);
    const found = {};
    let unnamed = 0; // package names the query syntax cannot quote, prefixes cut to their commonest words (few)
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (let s = 0; s < SEARCHES; s++) {
      const i = Math.floor(r() * docs.length);
      const words = docs[i].content.split(/[^\p{L}\p{N}\p{M}]+/u).filter((w) => /\p{L}/u.test(w) && w.length <= 12);
      if (!words.length) continue;
      const word = words[Math.floor(r() * words.length)];
      const kind = s % 4;
      const query = kind === 1 ? `${[...word].slice(0, 3).join('')}*` : kind === 2 ? `"${word}"` : word;
      const res = await index.search({
        query,
        fields: kind === 3 ? { content: word } : undefined,
        limit: 20,
        previewChars: 120,
        ...(kind === 3 ? { query: '*' } : {}),
      });
      for (const hit of res.results) assert.ok(!loneSurrogate.test(hit.preview), `preview of ${hit.id} for ${query}`);
      const lang = rows[i].lang;
      found[lang] ??= { searched: 0, found: 0 };
      found[lang].searched++;
      // Found means its own description is among the matches: the same search narrowed to its
      // package's name holds it.
      const own = await index
        .search({
          query: kind === 3 ? '*' : query,
          fields: { ...(kind === 3 ? { content: word } : {}), title: `"${docs[i].title}"` },
          limit: 1000,
          previewChars: 0,
          include_fields: ['id'],
        })
        .catch((err) => (err.code === 'E_QUERY_SYNTAX' ? undefined : Promise.reject(err)));
      // A prefix with more words than its expansion keeps (`lib*`) may leave this one out, and says so.
      const unsure =
        own === undefined ||
        own.total > own.results.length ||
        own.warnings?.some((w) => /most frequent were used/.test(w));
      if (unsure) unnamed++;
      if (unsure || own.results.some((hit) => hit.id === docs[i].id)) found[lang].found++;
      else if (process.env.RYE_DEBUG) console.error(lang, kind, JSON.stringify(query), docs[i].id);
    }
    // Every word of a description finds its own description.
    for (const [lang, f] of Object.entries(found)) assert.equal(f.found, f.searched, `${lang}: ${JSON.stringify(f)}`);
    assert.ok(Object.keys(found).length >= 6, Object.keys(found).join(','));
    assert.ok(unnamed < SEARCHES / 8, `${unnamed} searches could not be narrowed to their package`);
    console.log(`i18n corpus: ${JSON.stringify(found)}`);
  });
});
