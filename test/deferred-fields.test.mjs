// A plain result's metadata and highlights are made from the answer's page when first read
// (ts/deferred-field.ts). Through the public API: such a result is, to everything that lists,
// copies, compares, prints or serialises objects, the plain object it was before, and its fields
// read, write, delete and freeze as data properties do.
import assert from 'node:assert/strict';
import util from 'node:util';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';

const DOCS = Array.from({ length: 12 }, (_, i) => ({
  id: `lib/item-${i}`,
  title: `needle tool ${i}`,
  description: `reads files ${i}`,
  content: `the needle and the thread ${'word '.repeat(i)} needle`,
  metadata: { author: `ann ${i}`, n: i, flag: i % 2 === 0, list: ['a', '"b"'] },
  tags: ['t', `tag${i % 4}`],
  version: `1.${i}`,
}));

async function answer(options = {}) {
  const index = createMemoryIndex();
  await index.add(DOCS);
  return { index, res: await index.search({ query: 'needle', ...options }) };
}

/** The plain object a result stands for: every own enumerable field, read. */
const plainOf = (r) => Object.fromEntries(Object.entries(r));

describe('deferred result fields', () => {
  it('are own enumerable fields, in the order a plain result has them', async () => {
    const { res } = await answer();
    const r = res.results[0];
    const keys = Object.keys(r);
    assert.ok(keys.includes('metadata') && keys.includes('highlights'), keys.join());
    // After tokens, metadata before highlights: where shaping has always put them.
    assert.deepEqual(keys.slice(-3), ['tokens', 'metadata', 'highlights']);
    const doc = DOCS.find((d) => d.id === r.id);
    assert.equal(r.metadata.author, doc.metadata.author);
    assert.equal(r.metadata.version, doc.version);
    assert.deepEqual(r.metadata.tags, doc.tags);
  });

  it('highlight what the preview shows', async () => {
    const { res } = await answer();
    for (const r of res.results) {
      assert.ok(r.highlights.length > 0);
      for (const [start, end] of r.highlights) assert.equal(r.preview.slice(start, end).toLowerCase(), 'needle');
    }
  });

  it('are seen by spread, JSON, structuredClone and deepStrictEqual as data fields', async () => {
    const { res } = await answer();
    for (const r of res.results) {
      const plain = JSON.parse(JSON.stringify(r));
      assert.deepStrictEqual(r, plain);
      assert.deepStrictEqual({ ...r }, plain);
      assert.deepStrictEqual(structuredClone(r), plain);
      assert.deepStrictEqual(Object.assign({}, r), plain);
    }
    assert.deepStrictEqual(structuredClone(res), JSON.parse(JSON.stringify(res)));
  });

  it('print as a plain result prints', async () => {
    const { res } = await answer();
    const r = res.results[0];
    const printed = util.inspect(r, { depth: 4 });
    assert.doesNotMatch(printed, /Getter|Setter|Symbol/);
    assert.equal(printed, util.inspect(JSON.parse(JSON.stringify(r)), { depth: 4 }));
    assert.match(util.inspect(res, { depth: 6 }), new RegExp(r.metadata.author));
  });

  it('read the same value every time, and keep what is done to it', async () => {
    const { res } = await answer();
    const r = res.results[0];
    const metadata = r.metadata;
    const highlights = r.highlights;
    assert.equal(r.metadata, metadata);
    assert.equal(r.highlights, highlights);
    metadata.extra = 1;
    highlights.push([0, 0]);
    assert.equal(r.metadata.extra, 1);
    assert.deepEqual(r.highlights.at(-1), [0, 0]);
  });

  it('write, delete and redefine as data fields do, read or not', async () => {
    const { res } = await answer();
    const [a, b, c] = res.results;
    a.metadata = { mine: true };
    assert.deepEqual(a.metadata, { mine: true });
    assert.deepEqual(plainOf(a).metadata, { mine: true });
    delete b.highlights;
    assert.equal('highlights' in b, false);
    assert.equal(b.highlights, undefined);
    b.highlights = 'x';
    assert.equal(b.highlights, 'x');
    assert.equal(Object.keys(b).at(-1), 'highlights');
    Object.defineProperty(c, 'metadata', { value: 7, enumerable: false });
    assert.equal(c.metadata, 7);
    assert.equal(Object.keys(c).includes('metadata'), false);
  });

  it('keep a non-enumerable field non-enumerable when it is read', async () => {
    const { res } = await answer();
    const r = res.results[0];
    Object.defineProperty(r, 'metadata', { enumerable: false });
    assert.equal(r.metadata.n >= 0, true);
    assert.equal(Object.keys(r).includes('metadata'), false);
    assert.equal(JSON.parse(JSON.stringify(r)).metadata, undefined);
  });

  it('are read-only on a frozen result, and settle on a sealed one', async () => {
    const { res } = await answer();
    const [frozen, sealed] = res.results;
    Object.freeze(frozen);
    const m = frozen.metadata;
    assert.equal(frozen.metadata, m);
    assert.equal(frozen.highlights, frozen.highlights);
    assert.throws(() => {
      frozen.metadata = 1;
    }, TypeError);
    assert.equal(frozen.metadata, m);
    assert.deepStrictEqual(structuredClone(frozen), JSON.parse(JSON.stringify(frozen)));
    Object.seal(sealed);
    const h = sealed.highlights;
    assert.equal(sealed.highlights, h);
    sealed.highlights = [[1, 2]];
    assert.deepEqual(sealed.highlights, [[1, 2]]);
  });

  it('are inherited as data fields are', async () => {
    const { res } = await answer();
    const r = res.results[0];
    const child = Object.create(r);
    assert.equal(child.metadata, r.metadata);
    child.highlights = [];
    assert.deepEqual(child.highlights, []);
    assert.ok(r.highlights.length > 0, 'writing through an heir leaves the parent as it was');
  });

  it('are the same in searchMany, a search and a stream, with highlights asked for alone', async () => {
    const { index, res } = await answer();
    const [many] = await index.searchMany([{ query: 'needle' }]);
    assert.deepStrictEqual(many, res);
    const narrowed = await index.search({ query: 'needle', include_fields: ['id', 'highlights', 'metadata'] });
    narrowed.results.forEach((r, k) => {
      assert.deepStrictEqual(Object.keys(r), ['id', 'type', 'highlights', 'metadata']);
      assert.deepStrictEqual(r.highlights, res.results[k].highlights);
      assert.deepStrictEqual(r.metadata, res.results[k].metadata);
    });
    const streamed = [];
    for await (const a of index.searchStream([{ query: 'needle' }])) streamed.push(a);
    assert.deepStrictEqual(streamed[0], res);
  });

  it('keep their values when later searches write over what the earlier ones were read from', async () => {
    const { index } = await answer();
    const { index: other } = await answer();
    const queries = [{ query: 'needle', limit: 5 }, { query: 'thread', offset: 3 }, { query: 'tool 7' }];
    const want = [];
    for (const q of queries) want.push(JSON.stringify(await other.search(q)));
    // Nothing of the earlier answers is read until every search has run.
    const searched = [];
    for (const q of queries) searched.push(await index.search(q));
    const many = await index.searchMany(queries);
    const again = await index.searchMany(queries.toReversed());
    const json = (answers) => answers.map((a) => JSON.stringify(a));
    assert.deepEqual(json(searched), want);
    assert.deepEqual(json(many), want);
    assert.deepEqual(json(again.toReversed()), want);
  });

  it('are absent where there is nothing to show', async () => {
    const index = createMemoryIndex();
    await index.add([{ id: 'a/plain', title: 'needle', content: 'needle' }]);
    const { results } = await index.search({ query: 'needle' });
    assert.equal('metadata' in results[0], false);
    const { results: unpreviewed } = await index.search({ query: 'needle', preview_chars: 0 });
    assert.equal('highlights' in unpreviewed[0], false);
  });
});
