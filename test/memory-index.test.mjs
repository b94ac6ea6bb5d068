// The in-memory index over plain documents.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex, InvalidArgumentError } from '../dist/index.js';

describe('createMemoryIndex', () => {
  it('adds, searches, replaces and removes plain documents', async () => {
    const mem = createMemoryIndex();
    await mem.add([
      { id: 'guides/fuzzy', title: 'Fuzzy search', content: 'typos are tolerated', tags: ['search'] },
      { id: 'guides/scope', title: 'Scopes', description: 'namespaces and kinds', kind: 'knowledge' },
      { id: 'tools/grep', title: 'grep', kind: 'tool', category: 'text' },
    ]);
    assert.equal(mem.size, 3);
    const r = await mem.search({ query: 'fuzzy' });
    assert.equal(r.results[0].id, 'guides/fuzzy');
    assert.equal(r.scope, '*');
    assert.equal((await mem.search({ query: '*', scope: 'tool' })).total, 1);
    assert.equal((await mem.search({ query: 'typo', fuzzy: { enabled: true, max_distance: 1 } })).total, 1);
    assert.equal((await mem.search({ query: '*', filters: { tags: 'search' } })).total, 1);
    await mem.add([{ id: 'guides/fuzzy', title: 'Approximate matching' }]);
    assert.equal(mem.size, 3);
    assert.equal((await mem.search({ query: 'typos' })).total, 0);
    assert.equal((await mem.search({ query: 'approximate' })).total, 1);
    await mem.remove(['guides/scope']);
    assert.equal(mem.size, 2);
    const many = await mem.searchMany([{ query: 'grep' }, { query: '(' }]);
    assert.equal(many[0].total, 1);
    assert.equal(many[1].error.code, 'E_QUERY_SYNTAX');
  });

  it('searchMany keeps order and errors in place across native calls', async () => {
    const mem = createMemoryIndex();
    const words = Array.from({ length: 300 }, (_, i) => `word${i.toString(36)}x`);
    await mem.add(words.map((w, i) => ({ id: `doc/${i}`, title: w })));
    // More queries than one native call takes, with option errors (kept in JS), query errors
    // (from the native side) and hits mixed through every chunk.
    const list = Array.from({ length: 5000 }, (_, i) => {
      if (i % 997 === 0) return { query: 'x', limit: -1 };
      if (i % 613 === 0) return { query: '"unbalanced' };
      return { query: words[i % words.length], limit: 1 };
    });
    const many = await mem.searchMany(list);
    assert.equal(many.length, list.length);
    many.forEach((r, i) => {
      if (i % 997 === 0) assert.equal(r.error.code, 'E_INVALID_ARGUMENT', `#${i}`);
      else if (i % 613 === 0) assert.equal(r.error.code, 'E_QUERY_SYNTAX', `#${i}`);
      else assert.equal(r.results[0].id, `doc/${i % words.length}`, `#${i}`);
    });
  });

  it('rejects documents without ids', async () => {
    const mem = createMemoryIndex();
    await assert.rejects(mem.add([{ title: 'no id' }]), InvalidArgumentError);
    await assert.rejects(mem.add('nope'), InvalidArgumentError);
  });

  it('commits all of a large add or none of it', async () => {
    const mem = createMemoryIndex();
    const docs = Array.from({ length: 12_000 }, (_, i) => ({ id: `bulk/item-${i}`, title: `bulk item ${i}`, content: 'shared words' }));
    await assert.rejects(mem.add([...docs, { title: 'no id, after two full chunks' }]), InvalidArgumentError);
    assert.equal(mem.size, 0);
    assert.equal((await mem.search({ query: 'shared', limit: 0 })).total, 0);
    await mem.add(docs);
    assert.equal(mem.size, 12_000);
    // Equal scores: the order is by id, exactly, across the chunks and segments of the add.
    const byId = docs.map((d) => d.id).sort();
    const page = await mem.search({ query: 'shared', limit: 5, offset: 5_000 });
    assert.equal(page.total, 12_000);
    assert.deepEqual(page.results.map((r) => r.id), byId.slice(5_000, 5_005));
  });
});
