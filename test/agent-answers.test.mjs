// Answers built for agents (first part): paging says whether more follows and where,
// previews and result fields can be cut to what an agent needs, and MCP answers say what to do next.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { generateKeyPairSync } from 'node:crypto';

import { createMemoryIndex, openIndex, signText, trustFile } from '../dist/index.js';
import { directive, knowledge, pyTool, runCli, workspace, connectMcp, wsArgs } from './helpers.mjs';

describe('answers built for agents', () => {
  it('Node API: has_more and next_offset page to the end; preview_chars and include_fields cut the answer', async () => {
    const index = createMemoryIndex();
    await index.add(
      Array.from({ length: 25 }, (_, i) => ({ id: `n${i}`, title: `note ${i}`, content: 'alpha '.repeat(50) })),
    );
    const seen = [];
    let offset = 0;
    for (;;) {
      const page = await index.search({ query: 'alpha', limit: 10, offset });
      seen.push(...page.results.map((r) => r.id));
      if (!page.has_more) {
        assert.equal(page.next_offset, undefined);
        break;
      }
      assert.equal(page.next_offset, offset + page.results.length);
      offset = page.next_offset;
    }
    assert.equal(new Set(seen).size, 25);
    const lean = await index.search({ query: 'alpha', preview_chars: 0, include_fields: ['score'] });
    assert.deepEqual(Object.keys(lean.results[0]).sort(), ['id', 'score', 'type']);
    const camel = await index.search({ query: 'alpha', previewChars: 0, includeFields: ['title'] });
    assert.deepEqual(Object.keys(camel.results[0]).sort(), ['id', 'title', 'type']);
    await assert.rejects(
      index.search({ query: 'alpha', include_fields: ['nope'] }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /score/.test(err.hint),
    );
  });

  it('since and until take ISO dates and durations; every result says about how many tokens it costs', async () => {
    const index = createMemoryIndex();
    const day = 86_400_000;
    await index.add([
      { id: 'fresh', title: 'alpha fresh', date: Date.now() - 2 * day, content: 'x'.repeat(400) },
      { id: 'month', title: 'alpha month', date: Date.now() - 20 * day },
      { id: 'old', title: 'alpha old', date: '2020-01-15' },
    ]);
    const idsOf = async (o) => (await index.search({ query: 'alpha', ...o })).results.map((r) => r.id).sort();
    assert.deepEqual(await idsOf({ since: '7d' }), ['fresh']);
    assert.deepEqual(await idsOf({ since: '3w' }), ['fresh', 'month']);
    assert.deepEqual(await idsOf({ since: '1m', until: '1w' }), ['month']);
    assert.deepEqual(await idsOf({ until: '2020-01-15' }), ['old']);
    assert.deepEqual(await idsOf({ since: '2019-12-31', until: '2020-02-01' }), ['old']);
    // The Node API takes Date objects too.
    assert.deepEqual(await idsOf({ since: new Date(Date.now() - 7 * day) }), ['fresh']);
    assert.deepEqual(await idsOf({ until: new Date('2020-01-31') }), ['old']);
    await assert.rejects(index.search({ query: 'alpha', since: new Date('nonsense') }), {
      code: 'E_INVALID_ARGUMENT',
    });
    // A count-only page (limit 0) has more, but no next page to ask for: the same offset would
    // loop forever.
    const counted = await index.search({ query: 'alpha', limit: 0 });
    assert.equal(counted.total, 3);
    assert.equal(counted.has_more, true);
    assert.equal(counted.next_offset, undefined);
    await assert.rejects(
      index.search({ query: 'alpha', since: 'last week' }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /7d/.test(err.hint),
    );
    const fresh = (await index.search({ query: 'fresh' })).results[0];
    assert.ok(fresh.tokens >= 100 && fresh.tokens < 110, String(fresh.tokens));
  });

  it('MCP and CLI: the same options; MCP answers carry a usage hint, and shrink', async () => {
    const ws = workspace();
    ws.write(
      'project',
      Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `knowledge/k${i}.md`,
          knowledge({ name: `k${i}`, title: `Alpha note ${i}` }, 'alpha body text '.repeat(40)),
        ]),
      ),
    );
    const common = [...wsArgs(ws)];
    const cli = JSON.parse(
      runCli([
        'search',
        'alpha',
        '--limit',
        '5',
        '--preview-chars',
        '0',
        '--include-fields',
        'id,score',
        '--json',
        ...common,
      ]).stdout,
    );
    assert.equal(cli.has_more, true);
    const recent = JSON.parse(runCli(['search', 'alpha', '--since', '1d', '--json', ...common]).stdout);
    assert.equal(recent.total, 12, 'files just written are dated by their modification time');
    assert.equal(runCli(['search', 'alpha', '--until', '2000-01-01', '--json', ...common]).status, 1);
    assert.equal(cli.next_offset, 5);
    assert.deepEqual(Object.keys(cli.results[0]).sort(), ['id', 'score', 'type']);
    const { client } = await connectMcp([...common], { name: 'agent-test' });
    const full = await client.callTool({ name: 'rye_search', arguments: { query: 'alpha', limit: 10 } });
    assert.ok(
      full.structuredContent.results.every((r) => r.tokens > 100 && r.date),
      'tokens and date on every result',
    );
    const since = await client.callTool({ name: 'rye_search', arguments: { query: 'alpha', since: '2h' } });
    assert.equal(since.structuredContent.total, 12);
    const lean = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'alpha', limit: 10, preview_chars: 0, include_fields: ['score', 'title'] },
    });
    for (const res of [full, lean]) {
      assert.ok(!res.isError, res.content[0].text);
      assert.match(res.structuredContent.usage_hint, /rye_fetch \{"item_id": "knowledge:k\d+"\}/);
      assert.match(res.structuredContent.usage_hint, /"offset": 10/);
    }
    // A count-only call: the hint says how many match and how to see them, never "no results".
    const counted = await client.callTool({ name: 'rye_search', arguments: { query: 'alpha', limit: 0 } });
    assert.equal(counted.structuredContent.next_offset, undefined);
    assert.match(counted.structuredContent.usage_hint, /^12 results match; ask with a "limit"/);
    const bytes = (r) => Buffer.byteLength(r.content[0].text);
    assert.ok(bytes(lean) * 3 < bytes(full), `lean ${bytes(lean)} vs full ${bytes(full)} bytes`);
    console.log(
      `MCP answer, 10 results: ${bytes(full)} bytes by default, ${bytes(lean)} with preview_chars 0 and include_fields [score, title]`,
    );
    await client.close();
    ws.cleanup();
  });

  it('several ids in one fetch: Node API fetchMany and the CLI answer per id, in order', async () => {
    const author = generateKeyPairSync('ed25519').privateKey;
    const trust = trustFile(author, 'author');
    const ws = workspace();
    ws.write('project', {
      [`config/keys/trusted/${trust.name}`]: trust.text,
      'tools/rye/read.py': signText(pyTool({ description: 'Read a file' }), 'tool', '.py', author),
      'tools/rye/loose.py': pyTool({ description: 'Unsigned helper' }),
      'knowledge/guide.md': signText(
        knowledge({ name: 'guide', title: 'Guide' }, 'how to'),
        'knowledge',
        '.md',
        author,
      ),
    });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const { items } = await index.fetchMany({ item_ids: ['tool:rye/read', 'tool:nope', 'tool:rye/loose', 'guide'] });
    assert.deepEqual(
      items.map((i) => i.status),
      ['success', 'error', 'error', 'success'],
    );
    assert.equal(items[0].item_id, 'rye/read');
    assert.equal(items[1].code, 'E_NOT_FOUND');
    assert.equal(items[2].error_type, 'integrity');
    assert.equal(items[3].item_type, 'knowledge');
    const camel = await index.fetchMany({ itemIds: ['guide'] });
    assert.equal(camel.items[0].status, 'success');
    await assert.rejects(index.fetchMany({ item_ids: [] }), (err) => err.code === 'E_INVALID_ARGUMENT');
    await index.close();

    const json = runCli(['fetch', 'tool:rye/read', 'tool:nope', 'guide', '--json', ...wsArgs(ws)]);
    assert.equal(json.status, 1, json.stderr);
    assert.deepEqual(
      JSON.parse(json.stdout).items.map((i) => i.status),
      ['success', 'error', 'success'],
    );
    const text = runCli(['fetch', 'tool:rye/read', 'guide', ...wsArgs(ws)]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /Read a file[\s\S]*how to/);
    assert.match(text.stderr, /# tool:rye\/read[\s\S]*# knowledge:guide/);
    ws.cleanup();
  });

  it('MCP answers stay within a size budget, cut at a result boundary, and page on from the cut', async () => {
    const ws = workspace();
    ws.write(
      'project',
      Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [
          `knowledge/big${i}.md`,
          knowledge(
            { name: `big${i}`, title: `Budget note ${i}`, description: 'budget '.repeat(60) },
            'budget '.repeat(300),
          ),
        ]),
      ),
    );
    const { client } = await connectMcp(wsArgs(ws), { name: 'budget-test' });
    const call = async (a) => client.callTool({ name: 'rye_search', arguments: { query: 'budget', ...a } });
    const cut = await call({ limit: 60, preview_chars: 1000 });
    assert.ok(!cut.isError, cut.content[0].text);
    const page = cut.structuredContent;
    assert.ok(page.results.length > 0 && page.results.length < 60, String(page.results.length));
    assert.ok(Buffer.byteLength(cut.content[0].text) / 4 <= 8000, String(Buffer.byteLength(cut.content[0].text)));
    assert.equal(page.has_more, true);
    assert.equal(page.next_offset, page.results.length);
    assert.ok(page.warnings.some((w) => /cut to \d+ of 60/.test(w)));
    const rest = (await call({ limit: 60, offset: page.next_offset, preview_chars: 0, include_fields: ['score'] }))
      .structuredContent;
    const seen = [...page.results, ...rest.results].map((r) => r.id);
    assert.equal(new Set(seen).size, 60);
    const roomy = await call({ limit: 60, preview_chars: 1000, max_answer_tokens: 100_000 });
    assert.equal(roomy.structuredContent.results.length, 60);
    const small = await call({ limit: 60, preview_chars: 1000, max_answer_tokens: 500 });
    assert.equal(small.structuredContent.results.length, 1);
    const bad = await call({ max_answer_tokens: 10 });
    assert.equal(bad.isError, true);
    const viaFetch = await client.callTool({
      name: 'rye_fetch',
      arguments: { query: 'budget', scope: '*', limit: 60, preview_chars: 1000 },
    });
    assert.ok(viaFetch.structuredContent.results.length < 60);
    await client.close();
    ws.cleanup();
  });

  it('scope takes a list: items of any of the scopes, in one ranking, on every surface', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'rye/deploy', kind: 'directive', title: 'deploy the app' },
      { id: 'rye/ops/deploy-notes', kind: 'knowledge', title: 'deploy notes' },
      { id: 'other/deploy-faq', kind: 'knowledge', title: 'deploy faq' },
      { id: 'rye/deploy-tool', kind: 'tool', title: 'deploy tool' },
    ]);
    const ids = async (scope) =>
      (await index.search({ query: 'deploy', scope, mode: 'keyword' })).results.map((r) => r.id).sort();
    assert.deepEqual(await ids(['directive', 'knowledge.rye.*']), ['rye/deploy', 'rye/ops/deploy-notes']);
    assert.deepEqual(await ids(['tool', '*']), await ids(undefined));
    assert.equal((await index.search({ query: 'deploy', scope: ['directive', 'tool'] })).scope, 'directive, tool');
    await assert.rejects(index.search({ query: 'deploy', scope: [] }), (err) => err.code === 'E_INVALID_SCOPE');
    // Too many scopes: the error says so, names the list by its start and hints at a wider scope.
    const many = Array.from({ length: 5000 }, (_, i) => `knowledge.s${i}.*`);
    await assert.rejects(index.search({ query: 'deploy', scope: many }), (err) => {
      assert.equal(err.code, 'E_INVALID_SCOPE');
      assert.match(err.message, /1 to 20 entries, this one 5000/);
      assert.ok(err.message.length < 400, `${err.message.length} characters`);
      assert.match(err.hint, /at most 20 scopes/);
      return true;
    });
    await assert.rejects(index.search({ query: 'deploy', scope: ['tool', 'tools'] }), (err) =>
      /did you mean "tool"/.test(err.message),
    );

    const ws = workspace();
    ws.write('project', {
      'directives/deploy.md': directive('deploy', 'deploy the app'),
      'knowledge/rye/deploy-notes.md': knowledge({ name: 'deploy-notes', title: 'deploy notes' }),
      'tools/deploy_tool.py': pyTool({ description: 'deploy tool' }),
    });
    const cli = runCli(['search', 'deploy', '--scope', 'directive', '--scope', 'knowledge', '--json', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(
      JSON.parse(cli.stdout)
        .results.map((r) => r.type)
        .sort(),
      ['directive', 'knowledge'],
    );
    const { client } = await connectMcp(wsArgs(ws), { name: 'scopes-test' });
    const res = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'deploy', scope: ['tool', 'knowledge.rye.*'] },
    });
    assert.ok(!res.isError, res.content[0].text);
    assert.deepEqual(res.structuredContent.results.map((r) => r.type).sort(), ['knowledge', 'tool']);
    await client.close();
    ws.cleanup();
  });

  it('min_score keeps only results scoring at least that much, totals and paging included, on every surface', async () => {
    const index = createMemoryIndex();
    await index.add(
      Array.from({ length: 30 }, (_, i) => ({
        id: `m${String(i).padStart(2, '0')}`,
        title: i < 4 ? 'gamma' : 'other',
        content: 'gamma text',
      })),
    );
    const all = await index.search({ query: 'gamma', limit: 100, mode: 'keyword' });
    const strong = all.results.filter((r) => r.score >= 0.5).map((r) => r.id);
    assert.equal(strong.length, 4);
    for (const sortBy of ['score', 'name']) {
      const res = await index.search({ query: 'gamma', min_score: 0.5, limit: 3, sortBy, mode: 'keyword' });
      assert.equal(res.total, 4);
      assert.equal(res.has_more, true);
      assert.ok(res.results.every((r) => strong.includes(r.id) && r.score >= 0.5));
    }
    const camel = await index.search({ query: 'gamma', minScore: 0.5, mode: 'keyword' });
    assert.equal(camel.total, 4);
    const hybrid = await index.search({ query: 'gamma text notes', min_score: 0.9, mode: 'hybrid' });
    assert.ok(hybrid.results.every((r) => r.score >= 0.9));
    await assert.rejects(index.search({ query: 'gamma', min_score: 2 }), (err) => err.code === 'E_INVALID_ARGUMENT');

    const ws = workspace();
    ws.write('project', {
      'knowledge/strong.md': knowledge({ name: 'strong', title: 'gamma gamma', description: 'gamma' }),
      'knowledge/weak.md': knowledge({ name: 'weak', title: 'notes' }, `${'filler words here '.repeat(30)} gamma`),
    });
    const cli = runCli(['search', 'gamma', '--min-score', '0.5', '--json', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(
      JSON.parse(cli.stdout).results.map((r) => r.id),
      ['strong'],
    );
    assert.equal(runCli(['search', 'gamma', '--min-score', 'high', ...wsArgs(ws)]).status, 2);
    const { client } = await connectMcp(wsArgs(ws), { name: 'min-score-test' });
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'gamma', min_score: 0.5 } });
    assert.ok(!res.isError, res.content[0].text);
    assert.equal(res.structuredContent.total, 1);
    const loose = await client.callTool({ name: 'rye_search', arguments: { query: 'gamma' } });
    assert.equal(loose.structuredContent.total, 2);
    await client.close();
    ws.cleanup();
  });

  it('previews open on the matched word even after many words that only contain it', async () => {
    const index = createMemoryIndex();
    // `tar` is inside every `start` and `guitar`: those are no match, the word at the end is.
    await index.add([{ id: 'archive', content: `${'start guitar '.repeat(60)}then the tar archive tool` }]);
    for (const query of ['tar', 'tar*']) {
      const hit = (await index.search({ query, mode: 'keyword', preview_chars: 60 })).results[0];
      assert.match(hit.preview, /the tar archive/, query);
      assert.deepEqual(
        hit.highlights.map(([a, b]) => hit.preview.slice(a, b)),
        ['tar'],
        query,
      );
    }
  });

  it('previews show whitespace runs as one space, open and end on words, and mark the words exactly', async () => {
    const index = createMemoryIndex();
    const filler = 'lorem  ipsum\n\ndolor\tsit amet \r\n'.repeat(20);
    await index.add([
      { id: 'ascii', content: `\n  ${filler}the   tmux\n\n session\tkeeps ${filler}  \n` },
      { id: 'wide', content: `\u3000${filler}the\u3000tmux\u00a0\u00a0session — café ${filler}\u2028` },
      { id: 'short', content: '\t tmux \n\n session \r\n' },
    ]);
    const res = await index.search({ query: 'tmux session', mode: 'keyword', preview_chars: 80 });
    assert.deepEqual(res.results.map((r) => r.id).sort(), ['ascii', 'short', 'wide']);
    for (const hit of res.results) {
      assert.doesNotMatch(hit.preview, /\s\s|[\t\n\r\u3000\u00a0\u2028]|^\s|\s$/u, hit.id);
      assert.match(hit.preview, /tmux session/, hit.id);
      assert.deepEqual(
        hit.highlights.map(([a, b]) => hit.preview.slice(a, b)),
        ['tmux', 'session'],
        hit.id,
      );
    }
    assert.equal(res.results.find((r) => r.id === 'short').preview, 'tmux session');
  });

  it('highlights: the matched words of each preview as JavaScript string ranges; the CLI marks them', async () => {
    const index = createMemoryIndex();
    await index.add([
      {
        id: 'emoji',
        title: 'signing bundles',
        content: '🔑 Signing café bundles: sign_bundle checks every file. Unrelated tail.',
      },
      { id: 'plain', title: 'other', content: 'nothing matches here' },
    ]);
    const res = await index.search({ query: 'cafe bundle', mode: 'keyword' });
    const hit = res.results[0];
    assert.equal(hit.id, 'emoji');
    const marked = hit.highlights.map(([a, b]) => hit.preview.slice(a, b));
    // Diacritics folded, identifier parts and word forms found: the exact text of the preview.
    assert.deepEqual(marked, ['café', 'bundles', 'bundle']);
    const none = await index.search({ query: 'cafe', preview_chars: 0, mode: 'keyword' });
    assert.equal(none.results[0].highlights, undefined);
    const only = await index.search({ query: 'cafe', include_fields: ['highlights'], mode: 'keyword' });
    assert.deepEqual(Object.keys(only.results[0]).sort(), ['highlights', 'id', 'type']);
    const semantic = await index.search({ query: 'cryptographic signing of archives', mode: 'semantic' });
    for (const r of semantic.results) assert.ok(Array.isArray(r.highlights));

    const ws = workspace();
    ws.write('project', {
      'knowledge/sign.md': knowledge(
        { name: 'sign', title: 'Signing' },
        'How to sign a bundle so that others trust it.',
      ),
    });
    const plain = runCli(['search', 'bundle', ...wsArgs(ws)]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /> How to sign a bundle/);
    assert.ok(!plain.stdout.includes('\x1b['), 'no marks in a pipe');
    const tty = runCli(['search', 'bundle', ...wsArgs(ws)], { env: { FORCE_COLOR: '1' } });
    assert.ok(tty.stdout.includes('sign a \x1b[7mbundle\x1b[27m so'), tty.stdout);
    const { client } = await connectMcp(wsArgs(ws), { name: 'highlights-test' });
    const mcp = await client.callTool({ name: 'rye_search', arguments: { query: 'bundle' } });
    assert.ok(!mcp.isError, mcp.content[0].text);
    const [first] = mcp.structuredContent.results;
    assert.deepEqual(
      first.highlights.map(([a, b]) => first.preview.slice(a, b)),
      ['bundle'],
    );
    await client.close();
    ws.cleanup();
  });

  it('facets: counts by type, space, category and integrity over every match, not the page', async () => {
    const index = createMemoryIndex();
    await index.add(
      Array.from({ length: 12 }, (_, i) => ({
        id: `f${i}`,
        kind: i % 3 === 0 ? 'tool' : 'knowledge',
        source: i < 4 ? 'user' : 'project',
        category: i % 2 ? 'net' : 'fs',
        title: 'epsilon',
      })),
    );
    const res = await index.search({ query: 'epsilon', limit: 1, facets: true });
    assert.equal(res.total, 12);
    assert.deepEqual(res.counts, {
      type: { knowledge: 8, tool: 4 },
      space: { project: 8, user: 4 },
      category: { fs: 6, net: 6 },
      integrity: { unsigned: 12 },
    });
    const narrowed = await index.search({ query: 'epsilon', scope: 'tool', facets: true });
    assert.deepEqual(narrowed.counts.type, { tool: 4 });
    assert.equal((await index.search({ query: 'epsilon' })).counts, undefined);
    await assert.rejects(index.search({ query: 'epsilon', facets: 'yes' }), (err) => err.code === 'E_INVALID_ARGUMENT');
    const semantic = await index.search({ query: 'epsilon notes here', mode: 'hybrid', facets: true });
    assert.ok(semantic.counts.type.knowledge >= 8);
    const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
    for (const mode of ['keyword', 'hybrid']) {
      const cut = await index.search({ query: 'epsilon', mode, facets: true, min_score: 0.99, boost_recent: true });
      assert.equal(sum(cut.counts.type), cut.total, mode);
    }

    const author = generateKeyPairSync('ed25519').privateKey;
    const trust = trustFile(author, 'author');
    const ws = workspace();
    ws.write('project', {
      [`config/keys/trusted/${trust.name}`]: trust.text,
      'tools/net/fetch.py': signText(pyTool({ description: 'zeta fetch', category: 'net' }), 'tool', '.py', author),
      'tools/net/post.py': pyTool({ description: 'zeta post', category: 'net' }),
      'knowledge/zeta.md': knowledge({ name: 'zeta', title: 'zeta guide', category: 'docs' }),
    });
    const cli = runCli(['search', 'zeta', '--facets', '--limit', '1', '--json', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    const env = JSON.parse(cli.stdout);
    assert.deepEqual(env.counts.integrity, { unsigned: 2, verified: 1 });
    assert.deepEqual(env.counts.type, { knowledge: 1, tool: 2 });
    const human = runCli(['search', 'zeta', '--facets', ...wsArgs(ws)]);
    assert.match(human.stdout, /type: tool 2, knowledge 1/);
    const { client } = await connectMcp(wsArgs(ws), { name: 'facets-test' });
    const mcp = await client.callTool({ name: 'rye_search', arguments: { query: 'zeta', limit: 1, facets: true } });
    assert.ok(!mcp.isError, mcp.content[0].text);
    assert.deepEqual(mcp.structuredContent.counts.category, { docs: 1, net: 2 });
    await client.close();
    ws.cleanup();
  });

  it('boost_recent favours newer items among similar matches, bounded, on every surface', async () => {
    const day = 86_400_000;
    const index = createMemoryIndex();
    await index.add([
      { id: 'old', title: 'notes', content: 'lambda notes', date: Date.now() - 400 * day },
      { id: 'new', title: 'notes', content: 'lambda notes too', date: Date.now() - day },
      { id: 'classic', title: 'lambda', date: '2015-01-01' },
    ]);
    const ids = async (o) => (await index.search({ query: 'lambda', mode: 'keyword', ...o })).results.map((r) => r.id);
    assert.deepEqual(await ids({}), ['classic', 'old', 'new']);
    assert.deepEqual(await ids({ boost_recent: true }), ['classic', 'new', 'old']);
    assert.deepEqual(await ids({ boostRecent: '7d' }), ['classic', 'new', 'old']);
    assert.deepEqual(await ids({ boost_recent: false }), ['classic', 'old', 'new']);
    await assert.rejects(
      index.search({ query: 'lambda', boost_recent: 'soon' }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /7d/.test(err.hint),
    );

    const ws = workspace();
    ws.write('project', {
      'knowledge/old.md': knowledge({ name: 'old', title: 'notes', updated_at: '2020-01-01' }, 'lambda notes'),
      'knowledge/new.md': knowledge(
        { name: 'new', title: 'notes', updated_at: new Date(Date.now() - day).toISOString().slice(0, 10) },
        'lambda notes too',
      ),
    });
    const order = (out) => JSON.parse(out).results.map((r) => r.id);
    const plain = runCli(['search', 'lambda', '--json', ...wsArgs(ws)]);
    assert.deepEqual(order(plain.stdout), ['old', 'new']);
    const cli = runCli(['search', 'lambda', '--boost-recent', '30d', '--json', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(order(cli.stdout), ['new', 'old']);
    const { client } = await connectMcp(wsArgs(ws), { name: 'recent-test' });
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'lambda', boost_recent: true } });
    assert.ok(!res.isError, res.content[0].text);
    assert.deepEqual(
      res.structuredContent.results.map((r) => r.id),
      ['new', 'old'],
    );
    await client.close();
    ws.cleanup();
  });

  it('like: the items most like one item, itself left out, narrowed by a query, on every surface', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'k/deploy', kind: 'tool', title: 'Deploy to kubernetes', description: 'roll out a cluster deployment' },
      { id: 'k/scale', kind: 'tool', title: 'Scale kubernetes pods', description: 'cluster autoscaling' },
      { id: 'k/logs', kind: 'knowledge', title: 'Kubernetes logs', description: 'read pod logs from a cluster' },
      { id: 'b/bread', kind: 'knowledge', title: 'Bake bread', description: 'sourdough recipe with flour' },
      { id: 'b/cake', kind: 'knowledge', title: 'Bake a cake', description: 'sponge recipe with flour' },
    ]);
    const like = await index.search({ like: 'tool:k/deploy', limit: 2 });
    assert.deepEqual(like.results.map((r) => r.id).sort(), ['k/logs', 'k/scale']);
    assert.equal(like.query, '*');
    const bare = await index.search({ like: 'b/bread', limit: 1 });
    assert.equal(bare.results[0].id, 'b/cake');
    const narrowed = await index.search({ like: 'tool:k/deploy', query: 'logs' });
    assert.deepEqual(
      narrowed.results.map((r) => r.id),
      ['k/logs'],
    );
    await assert.rejects(index.search({ like: 'tool:k/none' }), (err) => err.code === 'E_NOT_FOUND');
    await assert.rejects(index.search({}), (err) => err.code === 'E_INVALID_ARGUMENT' && /like/.test(err.hint));

    const ws = workspace();
    ws.write('project', {
      'tools/k/deploy.py': pyTool({ description: 'Deploy to a kubernetes cluster' }),
      'tools/k/scale.py': pyTool({ description: 'Scale kubernetes cluster pods' }),
      'knowledge/bread.md': knowledge({ name: 'bread', title: 'Bake bread' }, 'sourdough flour'),
    });
    const cli = runCli(['search', '--like', 'tool:k/deploy', '--json', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).results[0].id, 'k/scale');
    assert.ok(!JSON.parse(cli.stdout).results.some((r) => r.id === 'k/deploy'));
    const { client } = await connectMcp(wsArgs(ws), { name: 'like-test' });
    const res = await client.callTool({ name: 'rye_search', arguments: { like: 'tool:k/deploy' } });
    assert.ok(!res.isError, res.content[0].text);
    assert.equal(res.structuredContent.results[0].id, 'k/scale');
    const neither = await client.callTool({ name: 'rye_search', arguments: {} });
    assert.equal(neither.isError, true);
    await client.close();
    ws.cleanup();
  });

  it('explain: each result lists what each query term gave it, on every surface', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'one', title: 'sandbox runner', description: 'runs tools', content: 'an isolated sandbox' },
      { id: 'two', title: 'other', description: 'sandbax typo here' },
    ]);
    const res = await index.search({ query: 'sandbox runners', explain: true, mode: 'keyword' });
    const parts = res.results[0].explain;
    assert.ok(parts.some((p) => p.field === 'title' && p.term === 'sandbox' && p.how === 'exact' && p.bm25 > 0));
    assert.ok(parts.some((p) => p.field === 'stem' && p.term === 'runner' && p.how === 'word form'));
    const sorted = parts.map((p) => p.weight * p.bm25);
    assert.deepEqual(
      sorted,
      [...sorted].sort((a, b) => b - a),
    );
    const typo = await index.search({ query: 'sandbox', fuzzy: { enabled: true }, explain: true, mode: 'keyword' });
    assert.equal(typo.results.find((r) => r.id === 'two').explain[0].how, 'typo');
    assert.equal((await index.search({ query: 'sandbox' })).results[0].explain, undefined);

    const ws = workspace();
    ws.write('project', { 'knowledge/box.md': knowledge({ name: 'box', title: 'sandbox guide' }, 'sandbox') });
    const cli = runCli(['search', 'sandbox', '--explain', ...wsArgs(ws)]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /= title:sandbox \(exact\) 3×/);
    const { client } = await connectMcp(wsArgs(ws), { name: 'explain-test' });
    const mcp = await client.callTool({ name: 'rye_search', arguments: { query: 'sandbox', explain: true } });
    assert.ok(!mcp.isError, mcp.content[0].text);
    assert.equal(mcp.structuredContent.results[0].explain[0].how, 'exact');
    await client.close();
    ws.cleanup();
  });
});
