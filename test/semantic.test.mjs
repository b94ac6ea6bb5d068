// Natural-language questions (semantic part): a shipped embedding model, items embedded
// at indexing, `mode: auto | keyword | semantic | hybrid` on every entry point, the envelope's
// `search_type` and each result's `match`; filters stay exact; without the model, keyword only
// with a clear warning.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { knowledge, runCli, workspace, connectMcp, wsArgs } from './helpers.mjs';

const DOCS = [
  {
    id: 'tools/tmux',
    title: 'terminal multiplexer',
    description: 'switch between several programs in one terminal, detach them and reattach them later',
  },
  {
    id: 'tools/gzip',
    title: 'GNU compression utility',
    description: 'reduces the size of files',
    content: 'gzip compresses files with the deflate algorithm.',
  },
  { id: 'tools/curl', title: 'URL transfer tool', description: 'fetches web pages and talks to HTTP APIs' },
  { id: 'guides/cooking', kind: 'directive', title: 'Bake bread', description: 'knead dough and bake a loaf' },
];
const QUESTION = 'keep my shell alive when ssh drops';

describe('semantic search', () => {
  it('Node API: a plain question runs hybrid and finds the item said in other words', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS);
    const keyword = await index.search({ query: QUESTION, mode: 'keyword' });
    assert.equal(keyword.search_type, 'keyword');
    assert.equal(keyword.total, 0, 'no item has these words');
    const auto = await index.search({ query: QUESTION });
    assert.equal(auto.search_type, 'hybrid');
    assert.equal(auto.results[0].id, 'tools/tmux');
    assert.ok(auto.results.every((r) => ['keyword', 'semantic', 'both'].includes(r.match)));
    assert.ok(auto.results.every((r) => r.score >= 0 && r.score <= 1));
    const semantic = await index.search({ query: 'make files smaller', mode: 'semantic' });
    assert.equal(semantic.search_type, 'semantic');
    assert.equal(semantic.results[0].id, 'tools/gzip');
    assert.equal(semantic.results[0].match, 'semantic');
    assert.ok(semantic.results[0].preview.length > 0, 'a hit found by meaning still has a preview');
    // Identifiers, operators and quotes stay keyword in auto mode.
    for (const query of ['tools/gzip', 'gzip OR curl', '"compression utility"', 'create_tool files']) {
      assert.equal((await index.search({ query })).search_type, 'keyword', query);
    }
    await assert.rejects(index.search({ query: 'x', mode: 'vector' }), { code: 'E_INVALID_ARGUMENT' });
  });

  it('Node API: auto answers by words when every word finds ten items or more, with the first page hybrid gives', async () => {
    const index = createMemoryIndex();
    const boards = Array.from({ length: 14 }, (_, i) => ({
      id: `games/board${i}`,
      title: `chess game ${i % 3 ? 'engine' : 'board'}`,
      description: `a chess game to play ${'well '.repeat(i % 4)}against the computer`,
    }));
    await index.add([...DOCS, ...boards]);
    // Compared answers must come from one tier of vectors: the sentence encoder settling between
    // two searches (a loaded machine) would change the second's ranking by meaning.
    await index.ready({ semantic: 'full', timeoutMs: 60_000 });
    const settled = await index.search({ query: 'chess game' });
    assert.equal(settled.search_type, 'keyword', 'fourteen items have both words');
    const hybrid = await index.search({ query: 'chess game', mode: 'hybrid' });
    assert.deepEqual(
      settled.results.map((r) => r.id),
      hybrid.results.map((r) => r.id),
    );
    const keyword = await index.search({ query: 'chess game', mode: 'keyword' });
    assert.deepEqual(settled, keyword, 'the keyword answer, whole');
    // Fewer than ten items have every word: meaning fills the page after them.
    const few = await index.search({ query: 'board chess game' });
    assert.equal(few.search_type, 'hybrid');
    assert.ok(few.results.length > 5);
    // The same answer as hybrid, counts included, whether the page holds every such item or not.
    for (const page of [{}, { limit: 3 }, { offset: 2, limit: 2 }, { offset: 12, limit: 5 }]) {
      const asked = { query: 'board chess game', facets: true, ...page };
      assert.deepEqual(
        await index.search(asked),
        await index.search({ ...asked, mode: 'hybrid' }),
        JSON.stringify(page),
      );
    }
  });

  it("Node API: words found only in an item's body do not outrank meaning; words that name an item do", async () => {
    const index = createMemoryIndex();
    const question = 'how do I make a new tool';
    // Items about writing tools without the words "make" or "new", and a backup item that holds
    // every word, in its body only.
    const tools = ['Create', 'Write', 'Build', 'Author', 'Generate'].flatMap((verb) =>
      ['a tool', 'tool files', 'a tool script', 'tool metadata'].flatMap((what) =>
        ['for agents', 'with metadata', 'and sign it', 'from a template'].map((how) => ({
          id: `tools/${verb}-${what}-${how}`.toLowerCase().replace(/ /g, '-'),
          title: `${verb} ${what} ${how}`,
          description: 'Writes a tool file and checks it',
        })),
      ),
    );
    const backup = {
      id: 'ops/backup',
      title: 'Back up a mail server',
      description: 'Copies mailboxes to another disk every night',
      content: 'Make room on the disk first; a new copy replaces the old, and the rsync tool checks it.',
    };
    await index.add([...tools, backup]);
    const ids = (res) => res.results.map((r) => r.id);
    assert.deepEqual(ids(await index.search({ query: question, mode: 'keyword' })), ['ops/backup']);
    const byMeaning = await index.search({ query: question, mode: 'semantic', limit: 60 });
    assert.ok(!ids(byMeaning).includes('ops/backup'), 'meaning alone does not find it');
    const auto = await index.search({ query: question, limit: 100 });
    assert.equal(auto.search_type, 'hybrid');
    assert.deepEqual(ids(auto).slice(0, 10), ids(byMeaning).slice(0, 10), 'meaning leads');
    const found = auto.results.find((r) => r.id === 'ops/backup');
    assert.equal(found?.match, 'keyword', 'the words add it after');
    await index.add([
      { id: 'tools/toolsmith', title: 'Make a new tool', description: 'Scaffolds a tool from a template' },
    ]);
    const named = await index.search({ query: question });
    assert.equal(named.results[0].id, 'tools/toolsmith', 'words that name an item keep it first');
  });

  it('Node API: scope, filters and paging stay exact in semantic and hybrid modes', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS);
    for (const mode of ['semantic', 'hybrid']) {
      const res = await index.search({ query: 'bake some bread at home', scope: 'tool', mode });
      assert.ok(
        res.results.every((r) => r.type === 'tool'),
        `${mode}: only tools`,
      );
      const all = await index.search({ query: 'programs files web pages', mode, limit: 10 });
      const first = await index.search({ query: 'programs files web pages', mode, limit: 1 });
      const second = await index.search({ query: 'programs files web pages', mode, limit: 1, offset: 1 });
      assert.deepEqual(
        [...first.results, ...second.results].map((r) => r.id),
        all.results.slice(0, 2).map((r) => r.id),
        `${mode}: pages agree with one long page`,
      );
    }
    const [many] = await index.searchMany([{ query: QUESTION }]);
    assert.equal(many.search_type, 'hybrid');
  });

  it('Node API: semantic and hybrid modes follow NOT and fields, and embed no operator or wildcard', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS);
    const ids = (res) => res.results.map((r) => r.id);
    for (const mode of ['semantic', 'hybrid']) {
      // What NOT keeps out stays out of the items found by meaning.
      const without = await index.search({ query: 'compress files or fetch web pages NOT gzip', mode });
      assert.ok(ids(without).length > 0, mode);
      assert.ok(!ids(without).includes('tools/gzip'), `${mode}: ${ids(without)}`);
      const withIt = await index.search({ query: 'compress files or fetch web pages', mode });
      assert.ok(ids(withIt).includes('tools/gzip'), `${mode}: ${ids(withIt)}`);
      // fields select in every mode.
      const fielded = await index.search({
        query: 'fetch web pages and compress files',
        mode,
        fields: { title: 'transfer' },
      });
      assert.deepEqual(ids(fielded), ['tools/curl'], mode);
      // A query with no words to embed (NOT alone, *, wildcards) is answered by its keywords, and says so.
      for (const query of ['NOT gzip', '*', 'multi* compress*']) {
        const res = await index.search({ query, mode });
        const keyword = await index.search({ query, mode: 'keyword' });
        assert.equal(res.search_type, 'keyword', `${mode} ${query}`);
        assert.deepEqual(ids(res), ids(keyword), `${mode} ${query}`);
        assert.match((res.warnings ?? []).join(' '), /no words to rank by meaning/, `${mode} ${query}`);
      }
    }
    await index.close();
  });

  it('Node API: hybrid and like pages are slices of one ranking, with one total', async () => {
    // Many items share words and meaning: the word list reaches items a short page's list did
    // not, and a fused score that depended on the page's depth reordered and recounted pages.
    const words = ['music', 'player', 'audio', 'file', 'network', 'server', 'mail', 'client', 'chess', 'game'];
    let seed = 11;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return words[seed % words.length];
    };
    const docs = Array.from({ length: 800 }, (_, i) => ({
      id: `salad/i${i}`,
      title: `${pick()} ${pick()}`,
      description: `${pick()} ${pick()} ${pick()} ${pick()}`,
    }));
    const index = createMemoryIndex();
    await index.add(docs);
    const asks = [
      { query: 'play music files', mode: 'hybrid' },
      { query: 'a quiet zebra playing chess', mode: 'auto' },
      { like: 'knowledge:salad/i3' },
    ];
    for (const ask of asks) {
      const whole = await index.search({ ...ask, limit: 200, preview_chars: 0 });
      assert.equal(whole.search_type, 'hybrid', JSON.stringify(ask));
      const pages = await index.searchMany(
        Array.from({ length: 200 / 8 }, (_, k) => ({ ...ask, limit: 8, offset: 8 * k, preview_chars: 0 })),
      );
      const seen = pages.flatMap((p) => p.results);
      assert.deepEqual(
        seen.map((r) => [r.id, r.score, r.match]),
        whole.results.map((r) => [r.id, r.score, r.match]),
        `${JSON.stringify(ask)}: pages of 8 agree with one page of 200`,
      );
      assert.deepEqual(new Set(pages.map((p) => p.total)), new Set([whole.total]), `${JSON.stringify(ask)}: one total`);
    }
  });

  it('Node API: like follows mode (words, meaning or both) and says sort_by does not apply', async () => {
    const index = createMemoryIndex();
    await index.add(DOCS.map((d, i) => ({ ...d, id: `d${i}` })));
    const like = 'knowledge:d0';
    const both = await index.search({ like });
    const words = await index.search({ like, mode: 'keyword' });
    const meaning = await index.search({ like, mode: 'semantic' });
    assert.equal(both.search_type, 'hybrid');
    assert.equal(words.search_type, 'keyword');
    assert.ok(
      words.results.every((r) => r.match === 'keyword'),
      JSON.stringify(words.results),
    );
    assert.equal(meaning.search_type, 'semantic');
    assert.ok(meaning.results.length > 0 && meaning.results.every((r) => r.match === 'semantic'));
    const sorted = await index.search({ like, sort_by: 'name' });
    assert.match(sorted.warnings.join(' '), /sort_by is ignored with like/);
  });

  it('Node API: like keeps only the items scoring at least min_score, in every page, the total and the counts', async () => {
    // like ignored min_score: every item came back, whatever the bound.
    const words = ['music', 'player', 'audio', 'file', 'network', 'server', 'mail', 'client', 'chess', 'game'];
    const docs = Array.from({ length: 200 }, (_, i) => ({
      id: `mix/i${i}`,
      title: `${words[i % 10]} ${words[(i * 3) % 10]}`,
      description: `${words[(i * 7) % 10]} ${words[(i + 1) % 10]} ${words[(i * 9) % 10]}`,
    }));
    const index = createMemoryIndex();
    await index.add(docs);
    const ask = { like: 'knowledge:mix/i3', preview_chars: 0 };
    const all = await index.search({ ...ask, limit: 100 });
    assert.equal(all.search_type, 'hybrid');
    const bound = all.results[Math.floor(all.results.length / 2)].score;
    const above = all.results.filter((r) => r.score >= bound - 1e-4).map((r) => r.id);
    assert.ok(above.length < all.total, 'the bound falls inside the list');
    const cut = await index.search({ ...ask, limit: 100, min_score: bound });
    assert.deepEqual(
      cut.results.map((r) => r.id),
      above,
    );
    assert.equal(cut.total, above.length);
    // Counts cover the items the total counts, cut or not (like had no counts).
    for (const extra of [{}, { min_score: bound }]) {
      const counted = await index.search({ ...ask, ...extra, limit: 3, facets: true });
      const sum = Object.values(counted.counts.type).reduce((a, b) => a + b, 0);
      assert.equal(sum, counted.total, JSON.stringify(extra));
    }
    const page = await index.search({ ...ask, limit: 5, offset: 5, min_score: bound });
    assert.deepEqual(
      page.results.map((r) => r.id),
      above.slice(5, 10),
    );
    assert.equal(page.total, above.length);
  });

  it('Node API: a fused total never counts more items than could match; limits hold in every mode', async () => {
    // Items that share words and meaning: a like search's word list and its meaning list both
    // find most of them, and only the fused depth said which were found both ways.
    const topics = ['compress files', 'archive files', 'pack files', 'zip files', 'shrink files'];
    const docs = Array.from({ length: 300 }, (_, i) => ({
      id: `tools/t${i}`,
      kind: i % 3 ? 'tool' : 'knowledge',
      title: `${topics[i % 5]} utility ${i}`,
      description: `a tool to ${topics[(i + 1) % 5]} and ${topics[(i + 2) % 5]} quickly`,
    }));
    const index = createMemoryIndex();
    await index.add(docs);
    const tools = docs.filter((d) => d.kind === 'tool').length;
    const asks = [
      { like: 'tool:tools/t1' },
      { like: 'tool:tools/t1', scope: 'tool' },
      { query: 'shrink and compress archive files', mode: 'hybrid' },
      { query: 'shrink and compress archive files', mode: 'hybrid', scope: 'tool' },
    ];
    for (const ask of asks) {
      const res = await index.search({ ...ask, limit: 5 });
      const most = ask.scope === 'tool' ? tools : docs.length;
      assert.equal(res.search_type, 'hybrid');
      assert.ok(res.total <= most, `${JSON.stringify(ask)}: total ${res.total} of ${most} items`);
      assert.ok(res.total >= res.results.length);
    }
    // The query's length limit is the same whatever mode runs it (a semantic search never
    // parses its query, and took a query of any length).
    const long = 'compress '.repeat(600);
    for (const mode of ['keyword', 'semantic', 'hybrid', 'auto']) {
      await assert.rejects(index.search({ query: long, mode }), (err) => {
        assert.equal(err.code, 'E_LIMIT', mode);
        assert.match(err.message, /4096/);
        return true;
      });
    }
  });

  it('CLI: --mode, and keyword only with a clear warning when the model is turned off', () => {
    const ws = workspace();
    ws.write('project', {
      'knowledge/tmux.md': knowledge({ name: 'tmux', title: 'terminal multiplexer', description: DOCS[0].description }),
      'knowledge/gzip.md': knowledge({ name: 'gzip', title: 'compression utility', description: DOCS[1].description }),
    });
    const run = (args, env) => runCli(['search', ...args, '--json', ...wsArgs(ws)], { env });
    const semantic = JSON.parse(run(['make files smaller', '--mode', 'semantic']).stdout);
    assert.equal(semantic.search_type, 'semantic');
    assert.equal(semantic.results[0].id, 'gzip');
    const off = run([QUESTION], { RYE_SEARCH_MODEL: 'off' });
    const res = JSON.parse(off.stdout);
    assert.equal(res.search_type, 'keyword');
    assert.match(res.warnings.join(' '), /semantic search is off/);
    const bad = run(['x', '--mode', 'vector']);
    assert.equal(bad.status, 2, bad.stderr);
    ws.cleanup();
  });

  it('MCP: an agent following next_offset through a plain question sees exactly total results, once each', async () => {
    const ws = workspace();
    const words = ['music', 'player', 'audio', 'file', 'network', 'server', 'mail', 'client', 'chess', 'game'];
    const files = {};
    for (let i = 0; i < 150; i++) {
      const w = (k) => words[(i * 7 + k * 3 + (i >> k)) % words.length];
      files[`knowledge/salad/i${i}.md`] = knowledge({
        name: `i${i}`,
        title: `${w(0)} ${w(1)}`,
        description: `${w(2)} ${w(3)} ${w(4)}`,
      });
    }
    ws.write('project', files);
    const { client } = await connectMcp(wsArgs(ws), { name: 'semantic-walk' });
    for (const query of ['play music files', 'a quiet zebra playing chess']) {
      const seen = [];
      const totals = new Set();
      let offset = 0;
      for (let call = 0; call < 50; call++) {
        const res = await client.callTool({
          name: 'rye_search',
          arguments: { query, limit: 9, offset, preview_chars: 0, include_fields: ['id'] },
        });
        assert.ok(!res.isError, res.content[0].text);
        const page = res.structuredContent;
        assert.equal(page.search_type, 'hybrid');
        totals.add(page.total);
        seen.push(...page.results.map((r) => r.id));
        if (!page.has_more) break;
        offset = page.next_offset;
      }
      assert.deepEqual([...totals], [seen.length], `${query}: one total, and it is what the pages held`);
      assert.equal(new Set(seen).size, seen.length, `${query}: no result twice`);
    }
    await client.close();
    ws.cleanup();
  });

  it('MCP: mode is a described argument; answers say what ran and how each result matched', async () => {
    const ws = workspace();
    ws.write('project', {
      'knowledge/tmux.md': knowledge({ name: 'tmux', title: 'terminal multiplexer', description: DOCS[0].description }),
      'knowledge/gzip.md': knowledge({ name: 'gzip', title: 'compression utility', description: DOCS[1].description }),
    });
    const { client } = await connectMcp(wsArgs(ws), { name: 'semantic-test' });
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'rye_search');
    assert.deepEqual(search.inputSchema.properties.mode.enum, ['auto', 'keyword', 'semantic', 'hybrid']);
    assert.match(search.inputSchema.properties.mode.description, /plain question/);
    const res = await client.callTool({ name: 'rye_search', arguments: { query: QUESTION } });
    assert.ok(!res.isError, res.content[0].text);
    assert.equal(res.structuredContent.search_type, 'hybrid');
    assert.equal(res.structuredContent.results[0].id, 'tmux');
    assert.ok(res.structuredContent.results[0].match);
    const bad = await client.callTool({ name: 'rye_search', arguments: { query: 'x', mode: 'vector' } });
    assert.equal(bad.isError, true);
    // rye_fetch's query mode takes it; its ID mode refuses it instead of ignoring it.
    const found = await client.callTool({
      name: 'rye_fetch',
      arguments: { query: QUESTION, scope: '*', mode: 'semantic' },
    });
    assert.ok(!found.isError, found.content[0].text);
    assert.equal(found.structuredContent.search_type, 'semantic');
    const misplaced = await client.callTool({
      name: 'rye_fetch',
      arguments: { item_id: 'knowledge:tmux', mode: 'semantic' },
    });
    assert.equal(misplaced.isError, true);
    assert.match(misplaced.content[0].text, /mode/);
    await client.close();
    ws.cleanup();
  });
});
