// Counts on demand (issue #64): `count: 'lower_bound' | 'none'` lets top-k skip counting the
// matches it skipped; the page is the same, `total_relation` says whether `total` is exact, and
// paging by `has_more` still reaches every result. Node API (search and searchMany) and MCP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { connectMcp } from './helpers.mjs';

async function bigIndex() {
  const mem = createMemoryIndex();
  const docs = Array.from({ length: 6000 }, (_, i) => ({
    id: `d${i}`,
    title: `item ${i}`,
    content: `${'common '.repeat(1 + (i % 7))}${'word '.repeat(i % 5)}${'filler '.repeat(i % 11)}`,
  }));
  await mem.add(docs);
  return mem;
}

describe('counts on demand', () => {
  it('a lower bound keeps the page, says gte when matches were skipped, and pages on by has_more', async () => {
    const mem = await bigIndex();
    const exact = await mem.search({ query: 'common', previewChars: 0 });
    assert.equal(exact.total_relation, undefined);
    for (const count of ['lower_bound', 'none']) {
      const res = await mem.search({ query: 'common', previewChars: 0, count });
      assert.deepEqual(
        res.results.map((r) => [r.id, r.score]),
        exact.results.map((r) => [r.id, r.score]),
      );
      assert.equal(res.total_relation, 'gte', count);
      assert.ok(res.total < exact.total && res.total >= res.results.length, `${res.total} of ${exact.total}`);
      assert.equal(res.has_more, true);
      assert.equal(res.next_offset, 10);
    }
    // A rare word is counted exactly anyway, and says so.
    const rare = await mem.search({ query: '"item 42"', count: 'lower_bound' });
    assert.equal(rare.total_relation, 'eq');
    // searchMany takes it per search; a bad value is a coded error in its place.
    const many = await mem.searchMany([
      { query: 'common', count: 'lower_bound', previewChars: 0 },
      { query: 'common', count: 'roughly' },
    ]);
    assert.equal(many[0].total_relation, 'gte');
    assert.equal(many[1].error.code, 'E_INVALID_ARGUMENT');
    await assert.rejects(mem.search({ query: 'x', count: 'roughly' }), { code: 'E_INVALID_ARGUMENT' });
  });

  it('paging by has_more with a lower bound reaches exactly the results of an exact count', async () => {
    const mem = await bigIndex();
    const seen = [];
    for (let offset = 0, page; ; offset = page.next_offset) {
      page = await mem.search({ query: 'word', previewChars: 0, limit: 100, offset, count: 'lower_bound' });
      seen.push(...page.results.map((r) => r.id));
      if (!page.has_more) break;
      assert.ok(seen.length < 10_000, 'paging does not end');
    }
    const exact = [];
    for (let offset = 0, page; ; offset = page.next_offset) {
      page = await mem.search({ query: 'word', previewChars: 0, limit: 1000, offset });
      exact.push(...page.results.map((r) => r.id));
      if (!page.has_more) break;
    }
    assert.deepEqual(seen, exact);
  });

  it('is a Node API option: MCP does not offer it (its schema refuses it by name)', async () => {
    const { client } = await connectMcp(['--no-default-bundle']);
    const { tools } = await client.listTools();
    assert.equal(tools.find((t) => t.name === 'rye_search').inputSchema.properties.count, undefined);
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'x', count: 'none' } });
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /count/);
    await client.close();
  });
});
