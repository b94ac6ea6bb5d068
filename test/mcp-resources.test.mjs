// What an agent pays and gets over MCP (issue #63), through the SDK's real client and the Python
// MCP SDK: a small tool surface, answers said once (text for the model, JSON for programs), items
// as `rye://` resources linked from search answers, read with fetch's integrity rules, and
// completion of the template's arguments.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { openIndex, signText, trustFile } from '../dist/index.js';
import { connectMcp, describeIf, pyTool, ROOT, sentTokens, workspace, wsArgs, wsOptions } from './helpers.mjs';

const TEMPLATE = 'rye://{kind}/{+id}';
const author = generateKeyPairSync('ed25519').privateKey;

function fixture() {
  const ws = workspace();
  const trust = trustFile(author, 'author');
  const signed = (description, category = 'rye/file') =>
    signText(pyTool({ description, category }), 'tool', '.py', author);
  ws.write('project', {
    [`config/keys/trusted/${trust.name}`]: trust.text,
    'tools/rye/file/read.py': signed('Read file contents'),
    'tools/rye/file/write.py': signed('Write file contents'),
    'tools/rye/file/read dir.py': signed('Read a directory listing'),
    'tools/rye/file/unsigned.py': pyTool({ description: 'Unsigned file reader' }),
  });
  ws.write('core', { 'tools/rye/file/read.py': signed('Read file, system copy') });
  return ws;
}

const serverArgs = (ws) => [...wsArgs(ws), '--bundle', `core=${ws.bundle('core')}`];

describe('MCP: what an agent pays, and items as resources (SDK client)', () => {
  const ws = fixture();
  let client;
  before(async () => {
    ({ client } = await connectMcp(serverArgs(ws)));
  });
  after(() => ws.cleanup());

  it('a search answer is text for the model and JSON for programs, not the JSON twice', async () => {
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'read' } });
    const env = res.structuredContent;
    const text = res.content[0].text;
    assert.equal(res.content[0].type, 'text');
    assert.notEqual(text, JSON.stringify(env));
    assert.ok(text.length < JSON.stringify(env).length / 1.5, `${text.length} vs ${JSON.stringify(env).length}`);
    for (const r of env.results) assert.ok(text.includes(`${r.type}:${r.id}`), r.id);
    // The budget counts everything sent: a small one cuts the page, counting text, links and JSON.
    const small = await client.callTool({ name: 'rye_search', arguments: { query: 'file', max_answer_tokens: 500 } });
    assert.ok(small.structuredContent.results.length >= 1);
    if (small.structuredContent.results.length > 1) assert.ok(sentTokens(small) <= 500, String(sentTokens(small)));
    // include_fields: the text shows what was asked (path is left out otherwise), and no links.
    const asked = await client.callTool({ name: 'rye_search', arguments: { query: 'read', include_fields: ['path'] } });
    assert.match(asked.content[0].text, /path: .*read\.py/);
    assert.deepEqual(
      asked.content.filter((c) => c.type !== 'text'),
      [],
    );
    assert.doesNotMatch(res.content[0].text, /path: /);
  });

  it('search results link their items; reading a link gives what rye_fetch gives', async () => {
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'read', scope: 'tool' } });
    const links = res.content.filter((c) => c.type === 'resource_link');
    const winners = res.structuredContent.results.filter((r) => !r.shadowed_by);
    assert.deepEqual(
      links.map((l) => l.uri),
      winners.map((r) => `rye://${r.type}/${r.id.split('/').map(encodeURIComponent).join('/')}`),
    );
    // The shadowed system copy of rye/file/read has no link of its own: the URI reads the winner.
    assert.ok(res.structuredContent.results.some((r) => r.shadowed_by === 'project'));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      [TEMPLATE],
    );
    for (const link of links.filter((l) => !l.uri.endsWith('unsigned'))) {
      const read = await client.readResource({ uri: link.uri });
      const id = decodeURIComponent(link.uri.slice('rye://tool/'.length));
      const fetched = await client.callTool({ name: 'rye_fetch', arguments: { item_id: `tool:${id}` } });
      assert.equal(read.contents[0].text, fetched.structuredContent.content, link.uri);
      assert.equal(read.contents[0].mimeType, 'text/x-python');
      assert.equal(read.contents[0]._meta['rye-search/integrity'], 'verified');
      assert.equal(read.contents[0]._meta['rye-search/source'], 'project');
    }
    // An id with a space travels percent-encoded and reads back.
    assert.ok(links.some((l) => l.uri === 'rye://tool/rye/file/read%20dir'));
  });

  it('a resource read keeps fetch integrity rules and answers bad URIs with coded errors', async () => {
    const cases = [
      ['rye://tool/rye/file/unsigned', 'E_INTEGRITY'],
      ['rye://tool/rye/file/nope', 'E_NOT_FOUND'],
      ['rye://widget/rye/file/read', 'E_INVALID_ARGUMENT'],
      ['rye://tool/%E0%A4%A', 'E_INVALID_ARGUMENT'],
      ['rye://tool/..%2F..%2Fsecret', 'E_INVALID_ID'],
    ];
    for (const [uri, code] of cases) {
      await assert.rejects(client.readResource({ uri }), (err) => {
        assert.equal(err.data?.code, code, `${uri}: ${err.message}`);
        assert.ok(err.data.hint, uri);
        return true;
      });
    }
    // The server is still answering.
    assert.ok((await client.readResource({ uri: 'rye://tool/rye/file/read' })).contents[0].text.length > 0);
  });

  it('completes the template: kinds, and item ids from the index by prefix', async () => {
    const complete = (name, value, args) =>
      client.complete({
        ref: { type: 'ref/resource', uri: TEMPLATE },
        argument: { name, value },
        ...(args && { context: { arguments: args } }),
      });
    assert.deepEqual((await complete('kind', 't')).completion.values, ['tool']);
    assert.deepEqual((await complete('kind', '')).completion.values, ['directive', 'tool', 'knowledge']);
    assert.deepEqual((await complete('id', 'rye/file/re', { kind: 'tool' })).completion.values, [
      'rye/file/read',
      'rye/file/read dir',
    ]);
    assert.deepEqual((await complete('id', 'rye/file/', { kind: 'directive' })).completion.values, []);
    // A file added on disk is completed by the next request (the index refreshes first).
    ws.write('project', { 'tools/rye/file/remove.py': pyTool({ description: 'Remove a file' }) });
    assert.ok((await complete('id', 'rye/file/rem', { kind: 'tool' })).completion.values.includes('rye/file/remove'));
  });
});

describe('RyeIndex.itemIds (what completion reads)', () => {
  it('gives the first ids of a kind by prefix, in order, each once, however many match', async () => {
    const ws = workspace();
    const files = {};
    const ids = Array.from({ length: 300 }, (_, i) => `ns/t${String((i * 7919) % 1000).padStart(3, '0')}`);
    for (const id of ids) files[`tools/${id}.py`] = pyTool({ description: id });
    files['directives/ns/t000.md'] = '# t000';
    ws.write('project', files);
    ws.write('core', { 'tools/ns/t001.py': pyTool({ description: 'system copy' }) });
    const index = await openIndex({ ...wsOptions(ws), systemBundles: [{ id: 'core', root: ws.bundle('core') }] });
    try {
      const all = [...new Set([...ids, 'ns/t001'])].sort();
      assert.deepEqual(index.itemIds('tool', 'ns/', 5), all.slice(0, 5));
      assert.deepEqual(
        index.itemIds('tool', 'ns/t0', 1000),
        all.filter((id) => id.startsWith('ns/t0')),
      );
      assert.deepEqual(index.itemIds('directive', ''), ['ns/t000']);
      assert.deepEqual(index.itemIds(undefined, 'ns/t00', 3), all.filter((id) => id.startsWith('ns/t00')).slice(0, 3));
      assert.deepEqual(index.itemIds('tool', 'nope'), []);
    } finally {
      await index.close();
      ws.cleanup();
    }
  });
});

/** A venv with the pinned Python MCP SDK (test/python/requirements.txt), made once per lock. */
function pythonClient() {
  const lock = fs.readFileSync(path.join(ROOT, 'test', 'python', 'requirements.txt'));
  const dir = path.join(
    ROOT,
    'node_modules',
    '.cache',
    `python-mcp-${createHash('sha256').update(lock).digest('hex').slice(0, 12)}`,
  );
  const python = path.join(dir, 'bin', 'python');
  if (!fs.existsSync(python)) {
    execFileSync('python3', ['-m', 'venv', dir], { stdio: 'ignore' });
    execFileSync(python, ['-m', 'pip', 'install', '-q', '-r', path.join(ROOT, 'test', 'python', 'requirements.txt')], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 300_000,
    });
  }
  return python;
}

function hasPython() {
  try {
    execFileSync('python3', ['-c', 'import sys, venv; assert sys.version_info >= (3, 10)'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describeIf(
  hasPython() ? false : 'python3 (3.10 or later, with venv) not found',
  'MCP: the Python SDK as client',
  () => {
    const ws = fixture();
    after(() => ws.cleanup());

    it('receives the small surface, the text answer with links, a resource read and completions', () => {
      const python = pythonClient();
      const script = path.join(ROOT, 'test', 'python', 'mcp_client.py');
      const cli = path.join(ROOT, 'bin', 'rye-search.js');
      const out = execFileSync(python, [script, process.execPath, cli, ...serverArgs(ws)], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const report = JSON.parse(out.trim().split('\n').at(-1));
      assert.deepEqual(report.tools.sort(), ['rye_fetch', 'rye_search']);
      assert.ok(report.tools_chars <= 6000, `tools/list as the Python SDK sees it: ${report.tools_chars}`);
      assert.equal(report.search_error, false);
      assert.match(report.search_text, /^1-\d+ of \d+ results for "read"/);
      for (const id of report.search_ids) assert.ok(report.search_text.includes(id), id);
      assert.ok(report.links.length > 0);
      assert.equal(report.read.uri, report.links[0]);
      assert.equal(report.read.meta['rye-search/integrity'], 'verified');
      assert.match(report.read.text, /rye:signed/);
      assert.equal(report.unsigned.code, 'E_INTEGRITY', JSON.stringify(report.unsigned));
      assert.deepEqual(report.complete_kind, ['tool']);
      assert.deepEqual(report.complete_id, [
        'rye/file/read',
        'rye/file/read dir',
        'rye/file/unsigned',
        'rye/file/write',
      ]);
    });
  },
);
