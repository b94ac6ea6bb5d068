// `lazy: true` of searchMany and searchStream (ts/result-view.ts): results that read their fields
// from the page when first asked for. Through the public API of both facades: a lazy answer is
// the plain answer field for field and in JSON, whatever the options; reading ids and scores
// decodes nothing else; the rest is shaped once and behaves as a plain result's fields do.
import assert from 'node:assert/strict';
import util from 'node:util';
import { describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { RESULT_FIELDS } from '../dist/result-fields.js';
import { pyTool, workspace, wsOptions } from './helpers.mjs';

const DOCS = Array.from({ length: 40 }, (_, i) => ({
  id: `lib/item-${i}`,
  title: i % 3 ? `needle tool ${i}` : `Кроссплатформенная needle ${i} 😀`,
  description: `reads files ${i % 5}`,
  content: `needle café ${'word '.repeat(i)} needle`,
  category: i % 2 ? 'lib' : 'é/cat',
  date: 1769817600000 + i,
  source: i % 7 === 0 ? 'system:bündle' : 'project',
  metadata: { author: `ann ${i}`, n: i, flag: i % 2 === 0, list: ['a', '"b"'] },
  tags: ['t', `tag${i % 4}`],
  version: `1.${i}`,
}));

/** Searches in every shape an answer can take: pages, narrowed fields, itemless, facets, explain, errors. */
const SEARCHES = [
  { query: 'needle', limit: 10 },
  { query: 'needle', limit: 5, offset: 3 },
  { query: 'needle', include_fields: ['id', 'title', 'metadata'] },
  { query: 'needle', include_fields: ['id'], preview_chars: 0 },
  { query: 'needle', include_fields: ['id', 'score', 'highlights'] },
  { query: 'needle', include_fields: ['id', 'bundle', 'source'] },
  { query: 'files', facets: true, explain: true, limit: 3 },
  { query: 'needle', preview_chars: 0, count: 'lower_bound' },
  { query: 'nothing-matches-this' },
  { query: 'AND (' },
  { query: 'needle', limit: 0 },
];

async function indexOf(docs) {
  const index = createMemoryIndex();
  await index.add(docs);
  return index;
}

/** Every result of a list of answers (failed entries have none). */
const resultsOf = (answers) => answers.flatMap((a) => a.results ?? []);

describe('lazy results', () => {
  it('are the plain answers, field for field and in JSON, in every shape of answer', async () => {
    const index = await indexOf(DOCS);
    const plain = await index.searchMany(SEARCHES);
    const lazy = await index.searchMany(SEARCHES, { lazy: true });
    assert.equal(JSON.stringify(lazy), JSON.stringify(plain));
    assert.ok(resultsOf(plain).length > 40);
    const plainResults = resultsOf(plain);
    resultsOf(lazy).forEach((view, k) => {
      const want = plainResults[k];
      // One field at a time: `id` first (read from the page), then the rest (shaped once).
      for (const field of RESULT_FIELDS) assert.deepEqual(view[field], want[field], `${want.id} ${field}`);
      assert.deepEqual(Object.keys(view.toJSON()), Object.keys(want));
      assert.deepEqual(view.toJSON(), want);
    });
    // Failed entries are the same coded failures.
    assert.equal(lazy[9].error.code, 'E_QUERY_SYNTAX');
    await index.close();
  });

  it('read ids and scores without decoding anything else, and shape the rest once', async () => {
    const index = await indexOf(DOCS);
    const lazy = await index.searchMany([{ query: 'needle', limit: 20 }], { lazy: true });
    const views = lazy[0].results;
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = (...args) => {
      parsed++;
      return parse(...args);
    };
    try {
      const ranked = views.map((v) => [v.id, v.score]);
      assert.equal(ranked.length, 20);
      assert.ok(ranked.every(([id, score]) => id.startsWith('lib/item-') && score > 0));
      assert.equal(parsed, 0, 'ids and scores are read without parsing any metadata');
      const first = views[0].metadata;
      assert.equal(parsed, 1, 'one result shaped: its metadata parsed');
      assert.equal(views[0].metadata, first, 'the same object on every read');
      views[0].title;
      views[0].highlights;
      assert.equal(parsed, 1, 'shaped once');
    } finally {
      JSON.parse = parse;
    }
    await index.close();
  });

  it('behave as plain results when written, inspected or copied through toJSON', async () => {
    const index = await indexOf(DOCS);
    const [plain] = await index.searchMany([{ query: 'needle', limit: 3 }]);
    const [lazy] = await index.searchMany([{ query: 'needle', limit: 3 }], { lazy: true });
    const [view, other] = lazy.results;
    view.title = 'renamed';
    view.score = 0.5;
    view.metadata.added = true;
    assert.equal(view.title, 'renamed');
    assert.equal(view.score, 0.5);
    assert.equal(JSON.parse(JSON.stringify(view)).metadata.added, true);
    assert.equal(other.title, plain.results[1].title, 'results own their fields');
    // An id written before anything was shaped is kept too.
    other.id = 'mine';
    assert.equal(other.id, 'mine');
    assert.equal(other.toJSON().id, 'mine');
    assert.match(util.inspect(lazy.results[2]), new RegExp(`title: '${plain.results[2].title}'`));
    assert.deepEqual({ ...lazy.results[2].toJSON() }, plain.results[2]);
    await index.close();
  });

  it('stream as the plain stream does, a batch at a time', async () => {
    const index = await indexOf(DOCS);
    const searches = Array.from({ length: 25 }, (_, i) => SEARCHES[i % SEARCHES.length]);
    const plain = [];
    for await (const a of index.searchStream(searches, { batch: 4 })) plain.push(a);
    const lazy = [];
    for await (const a of index.searchStream(searches, { batch: 4, lazy: true })) lazy.push(a);
    assert.equal(JSON.stringify(lazy), JSON.stringify(plain));
    assert.equal(lazy.length, 25);
    await index.close();
  });

  it('refuse a lazy that is not a boolean, and options they do not know, with coded errors', async () => {
    const index = await indexOf(DOCS.slice(0, 3));
    for (const bad of [{ lazy: 'yes' }, { lazy: 1 }, { lazy: {} }])
      await assert.rejects(index.searchMany([{ query: 'needle' }], bad), {
        code: 'E_INVALID_ARGUMENT',
        message: /lazy must be true or false/,
      });
    await assert.rejects(index.searchMany([{ query: 'needle' }], { lasy: true }), {
      code: 'E_INVALID_ARGUMENT',
      message: /unknown searchMany option "lasy"/,
    });
    await assert.rejects(index.searchMany([{ query: 'needle' }], { batch: 4 }), { code: 'E_INVALID_ARGUMENT' });
    // Options that are no object are refused, not ignored.
    for (const bad of ['lazy', true, 5, [{ lazy: true }]]) {
      await assert.rejects(index.searchMany([{ query: 'needle' }], bad), {
        code: 'E_INVALID_ARGUMENT',
        message: /searchMany's options must be an object/,
      });
      assert.throws(() => index.searchStream([{ query: 'needle' }], bad), {
        code: 'E_INVALID_ARGUMENT',
        message: /searchStream's options must be an object/,
      });
    }
    assert.throws(() => index.searchStream([{ query: 'needle' }], { lazy: 'no' }), {
      code: 'E_INVALID_ARGUMENT',
      message: /lazy must be true or false/,
    });
    // Leaving the options out, or lazy false, is the plain answer.
    const [a] = await index.searchMany([{ query: 'needle' }], undefined);
    const [b] = await index.searchMany([{ query: 'needle' }], { lazy: false });
    assert.equal(Object.keys(a.results[0]).length > 5, true);
    assert.deepEqual(b, a);
    await index.close();
  });

  it('of a persistent index show shadows as plain results do', async () => {
    const ws = workspace();
    const tool = pyTool({ description: 'Read a file from disk' });
    ws.write('project', { 'tools/fs/read.py': tool, 'tools/fs/write.py': pyTool({ description: 'Write a file' }) });
    ws.write('user', { 'tools/fs/read.py': tool });
    const index = await openIndex(wsOptions(ws));
    const searches = [{ query: 'file' }, { query: 'read', include_fields: ['id', 'shadowed_by', 'shadows'] }];
    const plain = await index.searchMany(searches);
    const lazy = await index.searchMany(searches, { lazy: true });
    assert.equal(JSON.stringify(lazy), JSON.stringify(plain));
    const shadowed = lazy[0].results.find((r) => r.source === 'user');
    assert.equal(shadowed.shadowed_by, 'project');
    assert.deepEqual(lazy[0].results.find((r) => r.source === 'project' && r.id === shadowed.id).shadows, [
      { space: 'user' },
    ]);
    await index.close();
    ws.cleanup();
  });
});
