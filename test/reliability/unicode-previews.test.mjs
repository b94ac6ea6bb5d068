// The reproductions that aborted the process (a preview sliced inside a character), through
// every public surface: Node API search and searchMany, the CLI process and an MCP client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../../dist/index.js';
import { runCli, workspace, connectMcp, wsArgs } from '../helpers.mjs';

const CASES = [
  ['Café au lait', 'cafe', 'Café'],
  ['x ı', 'x', 'ı'],
  ['Ж--Ж', 'ж', 'Ж--Ж'],
  ['Привет__мир', 'мир', 'Привет__мир'],
  ['my--Ключ', 'my', 'Ключ'],
  ['中文搜索引擎'.repeat(12), '搜索', '搜索'],
  ['Ａｂｃ'.repeat(26), 'ａｂｃ', 'Ａｂｃ'],
  ['data__Schlüssel STRAẞE', 'schlussel', 'Schlüssel'],
];

describe('previews of text whose folded form changes length', () => {
  it('Node API: search and searchMany answer with the original characters', async () => {
    const index = createMemoryIndex();
    await index.add(CASES.map(([content], i) => ({ id: `c${i}`, content })));
    for (const [i, [, query, shown]] of CASES.entries()) {
      const res = await index.search({ query, previewChars: 60 });
      const hit = res.results.find((r) => r.id === `c${i}`);
      assert.ok(hit, `${query} finds c${i}`);
      assert.ok(hit.preview.includes(shown), `${query}: ${hit.preview}`);
    }
    const many = await index.searchMany(CASES.map(([, query]) => ({ query, previewChars: 60 })));
    assert.equal(many.length, CASES.length);
    assert.ok(
      many.every((r) => !r.error && r.total >= 1),
      JSON.stringify(many.filter((r) => r.error)),
    );
  });

  it('CLI and MCP: a knowledge file with Café is searched as cafe', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/menu.md': 'Café au lait, crème brûlée and Straße food\n' });
    const cli = runCli(['search', 'cafe', ...wsArgs(ws), '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(JSON.parse(cli.stdout).results[0].preview, /Café/);
    const { client } = await connectMcp([...wsArgs(ws)], { name: 'unicode-test' });
    for (const query of ['cafe', 'creme', 'strasse', 'brulee']) {
      const res = await client.callTool({ name: 'rye_search', arguments: { query, scope: 'knowledge' } });
      assert.ok(!res.isError, res.content[0].text);
      assert.equal(res.structuredContent.total, 1, query);
    }
    await client.close();
    ws.cleanup();
  });
});
