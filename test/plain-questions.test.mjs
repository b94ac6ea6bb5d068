// Plain questions (lexical part): stop words never have to match, and a plain-word
// query that finds nothing with every word is answered without the words that match least,
// saying so (`relaxed`, the dropped words in `warnings`). Quotes, AND and fields stay strict.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { knowledge, runCli, workspace, connectMcp, wsArgs } from './helpers.mjs';

const DOCS = [
  { id: 'tools/create', title: 'Create a tool', description: 'make a new tool from a template' },
  { id: 'limits/budget', title: 'Spending limits', description: 'limit how much an agent can spend per thread' },
  { id: 'trust/verify', title: 'Verify bundles', description: 'check signatures so a bundle was not tampered with' },
];

describe('plain questions', () => {
  it('Node API: stop words never have to match; relaxed answers say which words were left out', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS);
    const stop = await index.search({ query: 'how do I make a new tool' });
    assert.equal(stop.results[0].id, 'tools/create');
    assert.equal(stop.relaxed, undefined, 'dropping stop words is not relaxing');
    const relaxed = await index.search({ query: 'limit how much money an agent can spend' });
    assert.equal(relaxed.results[0].id, 'limits/budget');
    assert.equal(relaxed.relaxed, true);
    assert.match(relaxed.warnings.join(' '), /without: money/);
    // Strict forms keep their meaning.
    for (const query of ['"limit money"', 'limit AND money', 'limit money*']) {
      const res = await index.search({ query });
      assert.equal(res.total, 0, query);
      assert.equal(res.relaxed, undefined, query);
    }
    const [many] = await index.searchMany([{ query: 'verify downloaded bundle signatures' }]);
    assert.equal(many.results[0].id, 'trust/verify');
    assert.equal(many.relaxed, true);
  });

  it('tags are searchable text as well as exact filters', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'a', title: 'Snapshot tool', description: 'copies directories', tags: ['backup', 'archive'] },
      { id: 'b', title: 'Backup guide', description: 'how to keep copies' },
      { id: 'c', title: 'Editor', description: 'edits text' },
    ]);
    const res = await index.search({ query: 'archive', mode: 'keyword' });
    assert.deepEqual(
      res.results.map((r) => r.id),
      ['a'],
    );
    const both = await index.search({ query: 'backup', mode: 'keyword' });
    assert.deepEqual(both.results.map((r) => r.id).sort(), ['a', 'b']);
    const filtered = await index.search({ query: '*', filters: { tags: 'backup' } });
    assert.deepEqual(
      filtered.results.map((r) => r.id),
      ['a'],
    );
  });

  it('with fuzzy on, an exact match outranks a typo match, even in a heavier field', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'typo', title: 'sandbax runner', description: 'sandbax sandbax' },
      { id: 'exact', title: 'runner', content: 'isolated sandbox for commands' },
    ]);
    const res = await index.search({ query: 'sandbox', fuzzy: { enabled: true, max_distance: 1 } });
    assert.deepEqual(
      res.results.map((r) => r.id),
      ['exact', 'typo'],
    );
  });

  it('CLI and MCP: a question with a word no item has still finds the item', async () => {
    const ws = workspace();
    ws.write('project', {
      'knowledge/limits.md': knowledge({
        name: 'limits',
        title: 'Spending limits',
        description: 'limit how much an agent can spend',
      }),
    });
    const common = [...wsArgs(ws)];
    const cli = runCli(['search', 'limit how much money an agent can spend', '--json', ...common]);
    assert.equal(cli.status, 0, cli.stderr);
    const env = JSON.parse(cli.stdout);
    assert.equal(env.total, 1);
    assert.equal(env.relaxed, true);
    const { client } = await connectMcp([...common], { name: 'questions-test' });
    const res = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'limit how much money an agent can spend' },
    });
    assert.ok(!res.isError, res.content[0].text);
    assert.equal(res.structuredContent.relaxed, true);
    assert.equal(res.structuredContent.total, 1);
    await client.close();
    ws.cleanup();
  });

  it('word forms: tools finds tool, creating finds create_tool, the exact word first; quotes stay exact', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'create_tool', title: 'create_tool', description: 'make one from a template' },
      { id: 'toolbox', title: 'Tools', description: 'several shell helpers' },
      { id: 'unrelated', title: 'Notes', content: 'tooling and created drafts' },
    ]);
    const ids = async (query) => (await index.search({ query, mode: 'keyword' })).results.map((r) => r.id);
    assert.deepEqual(await ids('tools'), ['toolbox', 'create_tool']);
    assert.deepEqual(await ids('tool'), ['create_tool', 'toolbox']);
    assert.deepEqual(await ids('creating'), ['create_tool']);
    assert.deepEqual(await ids('"tools"'), ['toolbox']);

    const ws = workspace();
    ws.write('project', {
      'knowledge/maker.md': knowledge({ name: 'maker', title: 'create_tool', description: 'makes a tool' }),
    });
    const common = [...wsArgs(ws)];
    const cli = runCli(['search', 'creating tools', '--mode', 'keyword', '--json', ...common]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(
      JSON.parse(cli.stdout).results.map((r) => r.id),
      ['maker'],
    );
    const { client } = await connectMcp([...common], { name: 'word-forms-test' });
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'creating tools', mode: 'keyword' } });
    assert.ok(!res.isError, res.content[0].text);
    assert.deepEqual(
      res.structuredContent.results.map((r) => r.id),
      ['maker'],
    );
    await client.close();
    ws.cleanup();
  });
});
