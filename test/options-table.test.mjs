// The options table is the one place an option is declared: the Node API accepts each name and
// alias, rye_search states each one offered over MCP (with the table's doc and ranges), and the
// CLI has each flag in its help and applies it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { MAX_MCP_LIMIT, MAX_PREVIEW_CHARS, SEARCH_OPTIONS, snakeNames } from '../dist/search-options.js';
import { connectMcp, runCli } from './helpers.mjs';

describe('the options table', () => {
  it('the Node API accepts every name and alias, and refuses others', async () => {
    const mem = createMemoryIndex();
    await mem.add([{ id: 'a', title: 'hello world' }]);
    for (const [name, spec] of Object.entries(SEARCH_OPTIONS)) {
      for (const key of [name, spec.alias].filter((k) => k && k !== 'query')) {
        // undefined is "not given": only the name's acceptance is tested here.
        const res = await mem.search({ query: 'hello', [key]: undefined });
        assert.equal(res.total, 1, key);
      }
    }
    await assert.rejects(mem.search({ query: 'hello', previewchars: 5 }), /unknown search option "previewchars"/);
  });

  it("rye_search states every option the table gives, with its doc and ranges (rye_fetch's query mode takes them by reference)", async () => {
    const { client } = await connectMcp(['--no-default-bundle']);
    const { tools } = await client.listTools();
    await client.close();
    const props = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.properties]));
    for (const [name, spec] of Object.entries(SEARCH_OPTIONS)) {
      const [snake] = snakeNames(name);
      // An API-only option (`mcp: false`) is not offered to agents.
      if (spec.mcp === false) {
        assert.equal(props.rye_search[snake], undefined, `rye_search leaves out ${snake}`);
        continue;
      }
      assert.ok(props.rye_search[snake], `rye_search states ${snake}`);
      if (name !== 'query') assert.equal(props.rye_search[snake].description, spec.doc, snake);
    }
    assert.equal(props.rye_search.limit.maximum, MAX_MCP_LIMIT);
    assert.equal(props.rye_search.preview_chars.maximum, MAX_PREVIEW_CHARS);
    assert.deepEqual(props.rye_search.mode.enum, SEARCH_OPTIONS.mode.shape.values);
  });

  it('the CLI lists every flag in its help, and each flag reaches the search', () => {
    const help = runCli(['search', '--help']).stdout;
    for (const spec of Object.values(SEARCH_OPTIONS)) {
      if (!spec.cli) continue;
      assert.match(help, new RegExp(`--${spec.cli.flag}\\b`), spec.cli.flag);
    }
    // Flags the table gives are applied: --include-fields narrows, --preview-chars shortens.
    const res = runCli(['search', 'query', '--json', '--preview-chars', '30', '--include-fields', 'id,preview']);
    assert.equal(res.status, 0, res.stderr);
    const env = JSON.parse(res.stdout);
    assert.ok(env.results.length > 0);
    for (const r of env.results) assert.deepEqual(Object.keys(r).sort(), ['id', 'preview', 'type']);
    for (const r of env.results) assert.ok(r.preview.length > 0 && r.preview.length <= 40, r.preview);
  });
});
