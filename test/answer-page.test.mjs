// Answers cross from the native side as pages (a text an answer, fields sliced out of it; see
// ts/answer-page.ts). Through the public API: results are plain objects whatever the wire, text
// in any script reads back exactly, highlights index the preview as JavaScript strings do, each
// result owns its objects, and a caller who asks for ids and scores gets ids and scores.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';

const TEXTS = [
  {
    title: 'Say "hi" \\ été 😀 needle',
    description: 'line\nbreak\ttab \u0000 nul',
    content: '😀😀 café needle ☃ needle',
  },
  { title: 'Кроссплатформенная needle', description: 'библиотека', content: 'для работы с needle изображениями' },
  { title: '猫 needle 黒猫', description: 'ελληνικά κείμενα', content: 'עברית needle العربية 𝔘𝔫𝔦' },
  { title: 'plain needle', description: '', content: '' },
];

async function indexOf(docs) {
  const index = createMemoryIndex();
  await index.add(docs);
  return index;
}

describe('answer pages', () => {
  it('read back every field as it was added, in any script, with highlights at string indices', async () => {
    const docs = TEXTS.map((t, i) => ({
      id: `t/item-${i}`,
      ...t,
      category: i % 2 ? 'é/cat' : 'cat',
      date: 1769817600000 + i,
      source: i === 3 ? 'system:bündle' : 'project',
      metadata: { author: `ann ${'ü'.repeat(i)}`, n: i, flag: i % 2 === 0, list: ['a', '"b"'] },
      tags: ['t'],
      version: `1.${i}`,
    }));
    const index = await indexOf(docs);
    const single = await index.search({ query: 'needle', limit: 10 });
    const [many] = await index.searchMany([{ query: 'needle', limit: 10 }]);
    assert.deepEqual(many, single);
    assert.equal(single.total, docs.length);
    for (const r of single.results) {
      const d = docs.find((x) => x.id === r.id);
      assert.equal(r.title, d.title);
      assert.equal(r.description, d.description);
      assert.equal(r.category, d.category);
      assert.equal(r.date, new Date(d.date).toISOString());
      assert.deepEqual(r.metadata, { ...d.metadata, version: d.version, tags: d.tags });
      assert.equal(r.source, d.source.startsWith('system') ? 'system' : d.source);
      if (d.source.startsWith('system:')) assert.equal(r.bundle, 'bündle');
      assert.equal(r.signed, false);
      assert.equal(r.integrity, 'unsigned');
      assert.equal(typeof r.tokens, 'number');
      // A preview comes from the content: an item without content shows none, nor highlights.
      assert.equal(r.highlights === undefined, d.content === '', r.id);
      if (d.content) assert.ok(r.highlights.length > 0, r.id);
      for (const [start, end] of r.highlights ?? []) assert.equal(r.preview.slice(start, end).toLowerCase(), 'needle');
    }
    await index.close();
  });

  it('read each hit its own type and source when they change from hit to hit, alike in length or not', async () => {
    // Neighbouring hits' fields alike in length ('directive' and 'knowledge', two of the
    // 'system' labels) or not (a long label): each result reads its own.
    const kinds = ['directive', 'knowledge', 'tool'];
    const sources = ['project', 'user', 'system:aa', 'system:bb', 'system:a-bundle-named-at-length'];
    const docs = Array.from({ length: 24 }, (_, i) => ({
      id: `k/item-${i}`,
      kind: kinds[(i * 7) % 3],
      source: sources[(i * 3) % 5],
      title: `needle ${i}`,
      content: `needle number ${i}`,
    }));
    const index = await indexOf(docs);
    const asked = { query: 'needle', scope: '*', limit: 7 };
    const pages = [];
    for (let offset = 0; offset < docs.length; offset += 7) pages.push({ ...asked, offset });
    const answers = [...(await index.searchMany(pages)), ...(await Promise.all(pages.map((p) => index.search(p))))];
    const seen = new Set();
    for (const answer of answers) {
      for (const r of answer.results) {
        const d = docs.find((x) => x.id === r.id && x.kind === r.type);
        assert.ok(d, `${r.type} ${r.id} was added`);
        assert.equal(r.source, d.source.startsWith('system') ? 'system' : d.source);
        assert.equal(r.bundle, d.source.startsWith('system:') ? d.source.slice('system:'.length) : undefined);
        seen.add(`${r.type} ${r.id}`);
      }
    }
    assert.equal(seen.size, docs.length);
    await index.close();
  });

  it('read each hit its own texts when neighbouring hits share some of them', async () => {
    // The page writes a text the hit before had in the same place once (and a title equal to
    // the name once): runs of shared kinds, sources, categories, names and titles, broken at
    // different hits, read back as added, whichever wire and whichever hit came before.
    const docs = Array.from({ length: 30 }, (_, i) => {
      const name = `needle-${i >> 2}`;
      return {
        id: `s/item-${i}`,
        kind: i % 5 === 0 ? 'tool' : 'knowledge',
        source: i % 7 === 0 ? 'system:kit' : 'project',
        name,
        title: i % 3 === 0 ? name : `Needle ${i >> 1}`,
        description: i % 4 ? 'shared words' : '',
        category: `cat/${i >> 3}`,
        content: 'needle',
      };
    });
    const index = await indexOf(docs);
    const asks = [0, 5, 11].map((offset) => ({ query: 'needle', scope: '*', limit: 20, offset }));
    const answers = [...(await index.searchMany(asks)), ...(await Promise.all(asks.map((a) => index.search(a))))];
    const views = await index.searchMany(asks, { lazy: true });
    let read = 0;
    for (const [k, answer] of answers.entries()) {
      assert.deepEqual(JSON.parse(JSON.stringify(answer)), JSON.parse(JSON.stringify(views[k % asks.length])));
      for (const r of answer.results) {
        const d = docs.find((x) => x.id === r.id && x.kind === r.type);
        assert.ok(d, `${r.type} ${r.id} was added`);
        const want = [d.name, d.title, d.description, d.category, d.source.startsWith('system') ? 'system' : d.source];
        assert.deepEqual([r.name, r.title, r.description, r.category, r.source], want, r.id);
        read++;
      }
    }
    assert.ok(read > 40);
    await index.close();
  });

  it('are plain objects that own what they hold', async () => {
    const index = await indexOf([
      { id: 'a/one', title: 'needle one', content: 'the needle body', metadata: { tags: ['x'] } },
      { id: 'a/two', title: 'needle two', content: 'a needle body', metadata: { tags: ['x'] } },
    ]);
    const first = await index.search({ query: 'needle' });
    // Made by constructors, not literals (ts/untenured.ts): plain all the same.
    assert.equal(Object.getPrototypeOf(first), Object.prototype);
    assert.deepStrictEqual({ ...first }, first);
    for (const r of first.results) {
      assert.equal(Object.getPrototypeOf(r), Object.prototype);
      assert.deepStrictEqual({ ...r }, r);
      for (const pair of r.highlights) assert.deepStrictEqual(pair, [...pair]);
      for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(r))) {
        assert.ok('value' in d && d.enumerable && d.writable, `${key} is a plain data property`);
      }
      assert.deepEqual(JSON.parse(JSON.stringify(r)), r);
      assert.deepEqual(structuredClone(r), r);
      assert.deepEqual({ ...r }, r);
    }
    // Changing one answer's objects changes no other answer.
    first.results[0].metadata.tags.push('changed');
    first.results[0].highlights[0][0] = -1;
    const again = await index.search({ query: 'needle' });
    assert.deepEqual(again.results[0].metadata.tags, ['x']);
    assert.notEqual(again.results[0].highlights[0][0], -1);
    assert.deepEqual(first.results[1].metadata.tags, ['x']);
    await index.close();
  });

  it('answer a batch in order, with errors in place and narrowed results as asked', async () => {
    const index = await indexOf(TEXTS.map((t, i) => ({ id: `t/item-${i}`, ...t })));
    const answers = await index.searchMany([
      { query: 'needle', include_fields: ['id', 'score'] },
      { query: 'needle AND (' },
      { query: 'nothingmatchesthis' },
      { query: 'изображениями', include_fields: ['id', 'preview', 'highlights'] },
      { query: 'needle', explain: true, facets: true, limit: 1 },
    ]);
    assert.deepEqual(Object.keys(answers[0].results[0]).sort(), ['id', 'score', 'type']);
    assert.equal(answers[1].error.code, 'E_QUERY_SYNTAX');
    assert.equal(answers[2].total, 0);
    const [hit] = answers[3].results;
    assert.deepEqual(Object.keys(hit).sort(), ['highlights', 'id', 'preview', 'type']);
    const [start, end] = hit.highlights[0];
    assert.equal(hit.preview.slice(start, end), 'изображениями');
    assert.ok(answers[4].results[0].explain.length > 0);
    assert.equal(answers[4].counts.type.knowledge, TEXTS.length);
    await index.close();
  });

  it('read the same whatever their size, searched on the JS thread or off it, one after another', async () => {
    // search() answers plain queries on the JS thread, into a table it keeps from one search to
    // the next (a larger answer brings its own); searchMany answers off it. Sizes alternate, so
    // each answer is read after a larger and a smaller one wrote there.
    const docs = Array.from({ length: 1500 }, (_, i) => ({
      id: `t/many-${i}`,
      title: `needle ${i % 3 ? 'thread' : 'other'} ${TEXTS[i % TEXTS.length].title}`,
      content: TEXTS[i % TEXTS.length].content,
      metadata: { n: i },
    }));
    const index = await indexOf(docs);
    const asks = [5, 1000, 1, 300, 1000, 10, 0, 700].map((limit, k) => ({
      query: k % 2 ? 'needle' : 'thread',
      limit,
      offset: k * 3,
    }));
    const many = await index.searchMany(asks);
    for (let round = 0; round < 2; round++)
      for (const [k, ask] of asks.entries()) {
        const one = await index.search(ask);
        assert.equal(one.results.length, Math.min(ask.limit, Math.max(0, one.total - ask.offset)));
        assert.deepEqual(one, many[k], `search ${k} (limit ${ask.limit})`);
      }
    await index.close();
  });
});
