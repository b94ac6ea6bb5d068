// The package's own documentation stays out of the way: it answers when nothing of the user's
// does, or when asked for (a space, a scope in its namespace); it never outranks a user's items.
// Through the Node API (search and searchMany), an MCP client and the CLI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { openIndex } from '../dist/index.js';
import { connectMcp, knowledge, runCli, workspace } from './helpers.mjs';

/** A workspace with one item of the user's about signatures, the package's docs included. */
function withOwnItem() {
  const ws = workspace();
  ws.write('project', {
    'knowledge/sig.md': knowledge({
      name: 'sig',
      title: 'How our signatures are verified',
      description: 'team policy on signing items',
    }),
  });
  return ws;
}

const options = (ws) => ({ projectPath: ws.project, userSpace: ws.user, cacheDir: ws.cache });
const args = (ws) => ['--project', ws.project, '--user-space', ws.user, '--cache-dir', ws.cache];
const isDocs = (id) => id.startsWith('rye-search/');

describe("the package's own docs", () => {
  it('Node API: a user question gets the user item only; docs answer what nothing else does, or when asked', async () => {
    const ws = withOwnItem();
    const index = await openIndex(options(ws));
    try {
      for (const query of ['how are signatures verified', 'signatures']) {
        const res = await index.search({ query });
        assert.deepEqual(
          res.results.map((r) => r.id),
          ['sig'],
          query,
        );
      }
      const fallback = await index.search({ query: 'fuzzy' });
      assert.ok(fallback.total > 0 && fallback.results.every((r) => isDocs(r.id)), JSON.stringify(fallback.results));
      for (const asked of [{ space: 'system' }, { scope: 'knowledge.rye-search.*' }]) {
        const res = await index.search({ query: 'signatures', ...asked });
        assert.ok(res.results.length > 0 && res.results.every((r) => isDocs(r.id)), JSON.stringify(asked));
      }
      const [mine, docs] = await index.searchMany([{ query: 'signatures' }, { query: 'fuzzy' }]);
      assert.deepEqual(
        mine.results.map((r) => r.id),
        ['sig'],
      );
      assert.ok(docs.total > 0 && docs.results.every((r) => isDocs(r.id)));
    } finally {
      await index.close();
      ws.cleanup();
    }
  });

  it('MCP and CLI: the same', async () => {
    const ws = withOwnItem();
    try {
      const cli = JSON.parse(runCli(['search', 'how are signatures verified', '--json', ...args(ws)]).stdout);
      assert.deepEqual(
        cli.results.map((r) => r.id),
        ['sig'],
      );
      const { client } = await connectMcp(args(ws));
      const res = await client.callTool({ name: 'rye_search', arguments: { query: 'how are signatures verified' } });
      assert.deepEqual(
        res.structuredContent.results.map((r) => r.id),
        ['sig'],
      );
      const docs = await client.callTool({ name: 'rye_search', arguments: { query: 'fuzzy' } });
      assert.ok(docs.structuredContent.results.every((r) => isDocs(r.id)) && docs.structuredContent.total > 0);
      await client.close();
    } finally {
      ws.cleanup();
    }
  });
});
