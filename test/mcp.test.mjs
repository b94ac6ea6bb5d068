// The MCP server, driven by the SDK's real Client over stdio (spawned process) and HTTP.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { signText, trustFile } from '../dist/index.js';
import { directive, pyTool, startHttpServer, workspace, connectMcp, wsArgs } from './helpers.mjs';

const author = generateKeyPairSync('ed25519').privateKey;

function fixture() {
  const ws = workspace();
  const trust = trustFile(author, 'author');
  ws.write('project', {
    [`config/keys/trusted/${trust.name}`]: trust.text,
    'directives/create_tool.md': signText(directive('create_tool', 'Create a new tool'), 'directive', '.md', author),
    'tools/rye/file/read.py': signText(
      pyTool({ description: 'Read file contents', category: 'rye/file', version: '1.4.0' }),
      'tool',
      '.py',
      author,
    ),
    'tools/rye/file/unsigned.py': pyTool({ description: 'Unsigned file helper' }),
  });
  ws.write('core', {
    'tools/rye/file/read.py': signText(pyTool({ description: 'Read file, system copy' }), 'tool', '.py', author),
  });
  return ws;
}

const parse = (res) => JSON.parse(res.content[0].text);

describe('MCP over stdio', () => {
  const ws = fixture();
  let client;
  let stderr = '';
  before(async () => {
    let transport;
    ({ client, transport } = await connectMcp([...wsArgs(ws), '--bundle', `core=${ws.bundle('core')}`]));
    transport.stderr.on('data', (d) => (stderr += d));
  });
  after(async () => {
    await client.close();
    ws.cleanup();
  });

  it('lists both tools with input and output schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['rye_fetch', 'rye_search']);
    for (const key of [
      'query',
      'scope',
      'project_path',
      'space',
      'limit',
      'offset',
      'sort_by',
      'fields',
      'filters',
      'fuzzy',
      'proximity',
    ]) {
      assert.ok(key in byName.rye_search.inputSchema.properties, `rye_search.${key}`);
    }
    for (const key of ['item_id', 'item_ids', 'item_type', 'source', 'destination', 'overwrite', 'query'])
      assert.ok(key in byName.rye_fetch.inputSchema.properties, `rye_fetch.${key}`);
    // Query mode's arguments are rye_search's, stated once there (below: they all work).
    assert.match(byName.rye_fetch.inputSchema.properties.query.description, /rye_search/);
    assert.notEqual(byName.rye_fetch.inputSchema.additionalProperties, false);
    assert.equal(byName.rye_search.annotations.readOnlyHint, true);
    assert.ok(byName.rye_search.outputSchema.properties.results);
    assert.ok(byName.rye_fetch.outputSchema.properties.content);
  });

  it('the whole tool surface (tools/list, schemas included) stays within 6,000 characters', async () => {
    const { tools } = await client.listTools();
    const size = JSON.stringify({ tools }).length;
    assert.ok(size <= 6000, `tools/list is ${size} characters`);
    // Nothing is stated twice: no option's description appears in both tools.
    const docs = (t) => Object.values(t.inputSchema.properties).map((p) => p.description);
    const [search, fetch] = ['rye_search', 'rye_fetch'].map((n) => tools.find((t) => t.name === n));
    const shared = docs(search).filter((d) => d && docs(fetch).includes(d) && !/project root/i.test(d));
    assert.deepEqual(shared, []);
  });

  it('rye_search with every parameter returns the seed envelope as structured content', async () => {
    const res = await client.callTool({
      name: 'rye_search',
      arguments: {
        query: 'read OR file',
        scope: 'rye.search.tool.rye.*',
        project_path: ws.project,
        space: 'all',
        limit: 5,
        offset: 0,
        sort_by: 'score',
        fields: { description: 'file' },
        filters: { source: ['project', 'system'] },
        fuzzy: { enabled: true, max_distance: 1 },
        proximity: { enabled: false },
      },
    });
    assert.ok(!res.isError, res.content?.[0]?.text);
    const env = res.structuredContent;
    assert.deepEqual(Object.keys(env).sort(), [
      'has_more',
      'limit',
      'offset',
      'query',
      'results',
      'scope',
      'search_type',
      'space',
      'total',
      'usage_hint',
    ]);
    const read = env.results.filter((r) => r.id === 'rye/file/read');
    assert.equal(read.length, 2);
    assert.deepEqual(read.find((r) => r.source === 'project').shadows, [{ space: 'system:core' }]);
    assert.equal(read.find((r) => r.source === 'system').shadowed_by, 'project');
    assert.ok(read.every((r) => r.integrity === 'verified' && r.signed === true));
    // The model reads text (once, not the JSON again): each result's kind:id, score and trust.
    const text = res.content[0].text;
    assert.match(text, /^1-\d+ of \d+ results for "read OR file"/);
    for (const r of env.results) assert.ok(text.includes(`${r.type}:${r.id} | score ${r.score}`), r.id);
    assert.match(text, /verified/);
    assert.ok(text.length < JSON.stringify(env).length / 1.5, `${text.length} vs ${JSON.stringify(env).length}`);
  });

  it('bad arguments and bad queries are isError results with a hint', async () => {
    const syntax = await client.callTool({ name: 'rye_search', arguments: { query: 'read AND', scope: 'tool' } });
    assert.equal(syntax.isError, true);
    assert.equal(parse(syntax).error.code, 'E_QUERY_SYNTAX');
    assert.ok(parse(syntax).error.hint);
    const scope = await client.callTool({ name: 'rye_search', arguments: { query: 'x', scope: 'tools' } });
    assert.equal(parse(scope).error.code, 'E_INVALID_SCOPE');
    const limit = await client.callTool({ name: 'rye_search', arguments: { query: 'x', scope: 'tool', limit: 500 } });
    assert.equal(limit.isError, true);
    assert.match(limit.content[0].text, /limit/i);
    const missing = await client.callTool({ name: 'rye_search', arguments: { scope: 'tool' } });
    assert.equal(missing.isError, true);
    // Schema failures have the same shape as every other failure: a code and a hint.
    for (const args of [
      { scope: 'tool' },
      { query: 'x', limit: 101 },
      { query: 'x', sort_by: 'bad' },
      { query: 'x', bogus: 1 },
    ]) {
      const res = await client.callTool({ name: 'rye_search', arguments: args });
      assert.equal(parse(res).error.code, 'E_INVALID_ARGUMENT', JSON.stringify(args));
      assert.ok(parse(res).error.hint, JSON.stringify(args));
    }
    const badFetch = parse(await client.callTool({ name: 'rye_fetch', arguments: { item_id: 5 } }));
    assert.deepEqual([badFetch.status, badFetch.code, !!badFetch.hint], ['error', 'E_INVALID_ARGUMENT', true]);
    // A misspelt option is an error naming it, never silently dropped.
    for (const name of ['rye_search', 'rye_fetch']) {
      const unknown = await client.callTool({ name, arguments: { query: 'read', scope: 'tool', sortBy: 'name' } });
      assert.equal(unknown.isError, true, name);
      assert.match(unknown.content[0].text, /sortBy/);
    }
    const disagree = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'read', scope: 'tool', space: 'project', source: 'system' },
    });
    assert.equal(disagree.isError, true);
    assert.match(parse(disagree).error.message, /disagree/);
  });

  it('a project_path that is not a directory is an error with a hint, and creates no cache', async () => {
    const before = fs.readdirSync(ws.cache).length;
    for (const project_path of [
      path.join(ws.root, 'nonexistent'),
      path.join(ws.project, '.ai', 'tools', 'rye', 'file', 'read.py'),
      // Through a file, and too long for the system (both were E_INTERNAL, "a bug").
      path.join(ws.project, '.ai', 'tools', 'rye', 'file', 'read.py', 'below'),
      path.join(ws.root, 'x'.repeat(5000)),
    ]) {
      for (const name of ['rye_search', 'rye_fetch']) {
        const args =
          name === 'rye_search'
            ? { query: 'read', scope: 'tool', project_path }
            : { item_id: 'tool:rye/file/read', project_path };
        const res = await client.callTool({ name, arguments: args });
        assert.equal(res.isError, true, `${name} ${project_path}`);
        // rye_search nests the error; rye_fetch answers with the fetch failure document.
        const body = parse(res);
        const error = name === 'rye_search' ? body.error : { code: body.code, message: body.error, hint: body.hint };
        assert.equal(error.code, 'E_INVALID_ARGUMENT');
        assert.match(error.message, /does not exist|is not a directory|cannot be read \((ENOTDIR|ENAMETOOLONG)\)/);
        assert.ok(error.hint);
      }
    }
    assert.equal(fs.readdirSync(ws.cache).length, before, 'a cache directory was created for a guessed path');
  });

  it('reopens an evicted project index (the bound itself: reliability/mcp-edges)', async () => {
    const projects = Array.from({ length: 12 }, (_, i) => {
      const dir = path.join(ws.root, `p${i}`);
      fs.mkdirSync(path.join(dir, '.ai', 'knowledge'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.ai', 'knowledge', 'note.md'), `note of project ${i} zebra${i}\n`);
      return dir;
    });
    for (const [i, project_path] of projects.entries()) {
      const res = await client.callTool({
        name: 'rye_search',
        arguments: { query: `zebra${i}`, scope: 'knowledge', project_path },
      });
      assert.equal(res.structuredContent.total, 1);
    }
    const again = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'zebra0', scope: 'knowledge', project_path: projects[0] },
    });
    assert.equal(again.structuredContent.total, 1, again.content[0].text);
  });

  it('space and source name the same filter in both tools', async () => {
    const spacesOf = (res) => res.structuredContent.results.map((r) => r.source).sort();
    const all = await client.callTool({ name: 'rye_search', arguments: { query: 'read', scope: 'tool' } });
    assert.deepEqual(spacesOf(all), ['project', 'system']);
    for (const [name, key] of [
      ['rye_search', 'space'],
      ['rye_search', 'source'],
      ['rye_fetch', 'source'],
      ['rye_fetch', 'space'],
    ]) {
      const res = await client.callTool({ name, arguments: { query: 'read', scope: 'tool', [key]: 'system' } });
      assert.ok(!res.isError, res.content[0].text);
      assert.deepEqual(spacesOf(res), ['system'], `${name} ${key}`);
    }
    const fetched = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_id: 'tool:rye/file/read', space: 'system' },
    });
    assert.equal(fetched.structuredContent.source, 'system');
  });

  it('rye_fetch in ID mode returns the seed response, cascading and copying', async () => {
    const res = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_id: 'rye/file/read', item_type: 'tool' },
    });
    assert.ok(!res.isError, res.content[0].text);
    const body = res.structuredContent;
    assert.equal(body.status, 'success');
    assert.equal(body.source, 'project');
    assert.deepEqual(Object.keys(body.metadata).sort(), ['extension', 'name', 'path', 'version']);
    assert.equal(body.metadata.version, '1.4.0');
    const copy = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_id: 'tool:rye/file/read', source: 'system', destination: 'user' },
    });
    assert.equal(copy.structuredContent.copied_to, 'user');
    assert.ok(fs.existsSync(path.join(ws.user, '.ai/tools/rye/file/read.py')));
  });

  it('rye_fetch refuses unverified items with error_type integrity, and mode mistakes', async () => {
    const res = await client.callTool({ name: 'rye_fetch', arguments: { item_id: 'tool:rye/file/unsigned' } });
    assert.equal(res.isError, true);
    const body = parse(res);
    assert.equal(body.status, 'error');
    assert.equal(body.error_type, 'integrity');
    assert.equal(body.item_id, 'tool:rye/file/unsigned');
    assert.match(body.hint, /RYE_DEV_MODE/);
    const both = await client.callTool({ name: 'rye_fetch', arguments: { item_id: 'x', query: 'y' } });
    assert.match(parse(both).error, /not both/);
    const neither = await client.callTool({ name: 'rye_fetch', arguments: {} });
    assert.match(parse(neither).error, /item_id or query/);
    const missing = await client.callTool({ name: 'rye_fetch', arguments: { item_id: 'tool:nope' } });
    assert.equal(parse(missing).code, 'E_NOT_FOUND');
    assert.equal(parse(missing).error_type, undefined);
    const traversal = await client.callTool({ name: 'rye_fetch', arguments: { item_id: '../../etc/passwd' } });
    assert.equal(parse(traversal).code, 'E_INVALID_ID');
    // What reaches the model names an id longer than any item's by its start (the whole id was
    // echoed: 100,659 characters for a 100,000-character id).
    const huge = await client.callTool({ name: 'rye_fetch', arguments: { item_id: `tool:${'x'.repeat(100_000)}` } });
    assert.equal(parse(huge).code, 'E_NOT_FOUND');
    assert.ok(huge.content[0].text.length < 1500, `${huge.content[0].text.length} characters`);
  });

  it('a refusal names an over-long value by its start, and the first few of many bad entries', async () => {
    // Each was echoed whole before: 100,000 characters or more for one long value, and 305,000
    // for 1,000 unknown include_fields (one line per entry, each listing every field).
    const long = 'x'.repeat(100_000);
    const refusals = [
      ['rye_search', { query: long }, 'E_LIMIT'],
      ['rye_search', { query: 'read', scope: long }, 'E_INVALID_SCOPE'],
      ['rye_search', { query: 'read', space: long }, 'E_INVALID_ARGUMENT'],
      ['rye_search', { query: 'read', source: long }, 'E_INVALID_ARGUMENT'],
      ['rye_search', { query: 'read', mode: long }, 'E_INVALID_ARGUMENT'],
      ['rye_search', { query: 'read', sort_by: long }, 'E_INVALID_ARGUMENT'],
      ['rye_search', { query: 'read', include_fields: Array(1000).fill('bogus') }, 'E_INVALID_ARGUMENT'],
      ['rye_fetch', { item_id: 'tool:rye/file/read', item_type: long }, 'E_INVALID_ARGUMENT'],
      ['rye_fetch', { item_id: 'tool:rye/file/read', source: long }, 'E_INVALID_ARGUMENT'],
      ['rye_fetch', { item_id: 'tool:rye/file/read', destination: long }, 'E_INVALID_ARGUMENT'],
    ];
    for (const [name, args, code] of refusals) {
      const res = await client.callTool({ name, arguments: args });
      const what = `${name} ${Object.keys(args).join(',')}`;
      assert.equal(res.isError, true, what);
      const body = parse(res);
      assert.equal(body.code ?? body.error.code, code, what);
      assert.ok(res.content[0].text.length < 2000, `${what}: ${res.content[0].text.length} characters`);
    }
    const many = parse(
      await client.callTool({
        name: 'rye_search',
        arguments: { query: 'read', include_fields: Array(1000).fill('bogus') },
      }),
    );
    // Only the first 65 entries are checked (Zod checked all 1,000 before counting them: with
    // 900,000 in one request, the server was held for 9 s).
    assert.match(
      many.error.message,
      /at most 64 element\(s\) at include_fields; .*received 'bogus' at include_fields\[0\].*; and 63 more$/,
    );
  });

  it('rye_fetch with item_ids answers one result or error per id, in order', async () => {
    const res = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_ids: ['tool:rye/file/read', 'tool:nope', 'tool:rye/file/unsigned', 'directive:create_tool'] },
    });
    assert.ok(!res.isError, res.content[0].text);
    const items = res.structuredContent.items;
    assert.deepEqual(
      items.map((i) => i.status),
      ['success', 'error', 'error', 'success'],
    );
    assert.equal(items[0].source, 'project');
    assert.equal(items[1].code, 'E_NOT_FOUND');
    assert.equal(items[1].item_id, 'tool:nope');
    assert.equal(items[2].error_type, 'integrity');
    assert.equal(items[3].item_type, 'directive');
    const both = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_id: 'tool:rye/file/read', item_ids: ['tool:rye/file/read'] },
    });
    assert.equal(both.isError, true);
    assert.equal(parse(both).code, 'E_INVALID_ARGUMENT');
  });

  it('rye_fetch in query mode accepts every search parameter', async () => {
    const res = await client.callTool({
      name: 'rye_fetch',
      arguments: {
        query: 'file',
        scope: 'tool',
        source: 'project',
        limit: 1,
        offset: 1,
        sort_by: 'name',
        fields: { name: '*' },
        filters: { category: 'rye/file' },
        fuzzy: { enabled: true },
        proximity: { enabled: true },
      },
    });
    assert.ok(!res.isError, res.content[0].text);
    assert.equal(res.structuredContent.space, 'project');
    assert.equal(res.structuredContent.limit, 1);
  });

  it('picks up an item edited on disk on the next call', async () => {
    fs.writeFileSync(
      path.join(ws.project, '.ai/tools/rye/file/fresh.py'),
      pyTool({ description: 'freshly written quokka' }),
    );
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'quokka', scope: 'tool' } });
    assert.equal(res.structuredContent.total, 1);
    fs.writeFileSync(path.join(ws.project, '.ai/tools/rye/file/fresh.py'), pyTool({ description: 'now a wombat' }));
    const again = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'quokka OR wombat', scope: 'tool' },
    });
    assert.equal(again.structuredContent.results[0].description, 'now a wombat');
  });

  it('writes only protocol messages to stdout (logs went to stderr)', () => {
    assert.match(stderr, /added/);
  });
});

describe('MCP over HTTP', () => {
  const ws = fixture();
  let child;
  let url;
  before(async () => {
    let server;
    ({ child, url: server } = await startHttpServer(wsArgs(ws), { env: { CI: '1' } }));
    url = server.href;
  });
  after(() => {
    child.kill();
    ws.cleanup();
  });

  function raw(headers, body) {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      const req = http.request(
        {
          host: '127.0.0.1',
          port: u.port,
          path: '/mcp',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => (data += d));
          res.on('end', () => resolve({ status: res.statusCode, body: data }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('serves both tools to a Streamable HTTP client', async () => {
    const client = new Client({ name: 'rye-search-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    assert.equal((await client.listTools()).tools.length, 2);
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'create', scope: 'directive' } });
    assert.equal(res.structuredContent.results[0].id, 'create_tool');
    const fetched = await client.callTool({ name: 'rye_fetch', arguments: { item_id: 'directive:create_tool' } });
    assert.equal(fetched.structuredContent.status, 'success');
    await client.close();
  });

  it('rejects foreign Origin and Host, and garbage bodies, and stays up', async () => {
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    assert.equal((await raw({ origin: 'https://evil.example' }, init)).status, 403);
    assert.equal((await raw({ host: 'evil.example' }, init)).status, 403);
    assert.equal((await raw({ host: 'localhost.evil.example:80' }, init)).status, 403);
    assert.equal((await raw({}, '{not json')).status, 400);
    assert.equal((await raw({ origin: 'http://localhost:3000' }, init)).status, 200);
    const again = await raw({}, init);
    assert.equal(again.status, 200);
  });
});
