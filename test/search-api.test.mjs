// Query mode through the public Node API, on fixture trees the tests create.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { openIndex, QuerySyntaxError, InvalidScopeError, InvalidArgumentError } from '../dist/index.js';
import { connectMcp, directive, knowledge, pyTool, workspace, wsArgs, wsOptions } from './helpers.mjs';

describe('query mode (anchor §10 cases the contract keeps)', () => {
  const ws = workspace();
  let index;
  before(async () => {
    ws.write('project', {
      'directives/create_tool.md': directive('create_tool', 'Create a new tool'),
      'directives/bootstrap.md': directive('bootstrap', 'Bootstrap project'),
      'tools/scraper.py': pyTool({ description: 'Web scraper tool', category: 'web' }),
      'tools/web/scrape.py': pyTool({ description: 'Web scraper tool', category: 'web' }),
      'knowledge/api_patterns.md':
        '---\ntitle: API patterns\ndescription: Patterns for rapid API design\ncategory: design\n---\n\nBody about endpoints.\n',
    });
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
  });
  after(() => ws.cleanup());

  it('finds a directive by a word of its name (case 1) with the envelope of the seeds', async () => {
    const res = await index.search({ query: 'create', scope: 'rye.search.directive.*', space: 'project' });
    assert.deepEqual(Object.keys(res).sort(), [
      'has_more',
      'limit',
      'offset',
      'query',
      'results',
      'scope',
      'search_type',
      'space',
      'total',
    ]);
    assert.equal(res.search_type, 'keyword');
    assert.equal(res.space, 'project');
    assert.equal(res.total, 1);
    const r = res.results[0];
    assert.equal(r.name, 'create_tool');
    assert.equal(r.type, 'directive');
    assert.equal(r.source, 'project');
    assert.equal(r.description, 'Create a new tool');
    assert.equal(r.score, 1);
    for (const key of [
      'id',
      'name',
      'title',
      'description',
      'category',
      'score',
      'type',
      'source',
      'preview',
      'path',
      'signed',
      'integrity',
    ]) {
      assert.ok(key in r, `result has ${key}`);
    }
  });

  it('finds tools and knowledge (cases 2, 3); knowledge descriptions are extracted', async () => {
    assert.ok((await index.search({ query: 'scraper', scope: 'rye.fetch.tool.*' })).total >= 1);
    const k = await index.search({ query: 'api', scope: 'knowledge' });
    assert.equal(k.total, 1);
    assert.equal(k.results[0].title, 'API patterns');
    assert.equal(k.results[0].description, 'Patterns for rapid API design');
  });

  it('lists everything with * and paginates with a stable total (cases 4, 5, 12, 49)', async () => {
    const all = await index.search({ query: '*', scope: 'directive' });
    assert.equal(all.total, 2);
    assert.ok(all.results.every((r) => r.score === 1));
    const page = await index.search({ query: '*', scope: 'directive', limit: 1, offset: 1 });
    assert.equal(page.total, 2);
    assert.equal(page.results.length, 1);
    assert.equal(page.results[0].id, all.results[1].id);
    const beyond = await index.search({ query: '*', scope: 'directive', offset: 5 });
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.total, 2);
  });

  // Anchor case 6 answered a missing project with no error and no items: a silent failure the
  // contract fixes. A project path that is not a directory is an error with a hint, and nothing is
  // created for it (issues 17 and 19).
  it('a missing project is an error with a hint, and no cache is created for it (case 6, changed)', async () => {
    const before = fs.readdirSync(ws.cache).length;
    await assert.rejects(
      openIndex({
        projectPath: '/nonexistent/path',
        userSpace: ws.user,
        cacheDir: ws.cache,
        includeDefaultBundle: false,
      }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /does not exist/.test(err.message) && err.hint.length > 0,
    );
    assert.equal(fs.readdirSync(ws.cache).length, before);
  });

  it('boolean operators, phrases and wildcards (cases 7–10, 35)', async () => {
    assert.equal((await index.search({ query: 'create OR bootstrap', scope: 'directive' })).total, 2);
    const not = await index.search({ query: 'NOT bootstrap', scope: 'directive' });
    assert.deepEqual(
      not.results.map((r) => r.name),
      ['create_tool'],
    );
    assert.equal(
      (await index.search({ query: '"Create a new tool"', scope: 'directive' })).results[0].name,
      'create_tool',
    );
    assert.equal((await index.search({ query: 'boot*', scope: 'directive' })).results[0].name, 'bootstrap');
    assert.equal(
      (await index.search({ query: '(create OR bootstrap) AND project', scope: 'directive' })).results[0].name,
      'bootstrap',
    );
  });

  it('fields must all match (case 11)', async () => {
    const res = await index.search({ query: '*', scope: 'directive', fields: { name: 'bootstrap' } });
    assert.deepEqual(
      res.results.map((r) => r.name),
      ['bootstrap'],
    );
    await assert.rejects(index.search({ query: '*', scope: 'directive', fields: { nope: 'x' } }), {
      code: 'E_INVALID_ARGUMENT',
    });
  });

  it('name and category outrank content; scores are 0–1 (case 44)', async () => {
    const res = await index.search({ query: 'scrape', scope: 'tool' });
    assert.equal(res.results[0].id, 'web/scrape');
    assert.ok(res.results.every((r) => r.score > 0 && r.score <= 1));
  });

  it('sort_by name and unknown sort_by is an error (case 47)', async () => {
    const res = await index.search({ query: '*', scope: 'directive', sortBy: 'name' });
    assert.deepEqual(
      res.results.map((r) => r.name),
      ['bootstrap', 'create_tool'],
    );
    await assert.rejects(index.search({ query: '*', scope: 'directive', sort_by: 'bogus' }), {
      code: 'E_INVALID_ARGUMENT',
    });
  });
});

describe('deliberate differences from the anchor', () => {
  const ws = workspace();
  let index;
  before(async () => {
    ws.write('project', {
      'tools/rye/core/a.py': pyTool({ description: 'alpha core' }),
      'tools/rye/core_utils/b.py': pyTool({ description: 'alpha utils' }),
      'tools/rye/core/bash.py': pyTool({ description: 'alpha bash item' }),
      'tools/rye/core/bash/run.py': pyTool({ description: 'alpha bash run' }),
      'tools/create_tool.py': pyTool({ description: 'makes things' }),
      'knowledge/rapid.md': knowledge({ title: 'Rapid prototyping', description: 'rapid prototyping guide' }),
      'knowledge/threads.md': knowledge({ title: 'Threads', description: 'a multithreaded file-system walker' }),
    });
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
  });
  after(() => ws.cleanup());

  it('scope namespaces are segment-aware (anchor case 39 matched rye/core_x)', async () => {
    const ids = async (scope) =>
      (await index.search({ query: 'alpha', scope, limit: 50 })).results.map((r) => r.id).sort();
    assert.deepEqual(await ids('tool.rye.core.*'), ['rye/core/a', 'rye/core/bash', 'rye/core/bash/run']);
    assert.deepEqual(await ids('rye.search.tool.rye.core.*'), ['rye/core/a', 'rye/core/bash', 'rye/core/bash/run']);
    assert.deepEqual(await ids('tool.rye.core.bash'), ['rye/core/bash', 'rye/core/bash/run']);
    assert.deepEqual(await ids('rye.*.tool.rye.core_utils.*'), ['rye/core_utils/b']);
  });

  it('invalid scopes are errors naming the accepted forms (case 40)', async () => {
    for (const scope of ['rye.search.*', 'rye.fetch', 'Tool', 'tools', 'config', '', 'rye.execute.tool.*', 'tool..x']) {
      await assert.rejects(index.search({ query: 'x', scope }), (err) => {
        assert.ok(err instanceof InvalidScopeError, `${scope}: ${err}`);
        assert.equal(err.code, 'E_INVALID_SCOPE');
        assert.match(err.hint, /rye\.search\.KIND/);
        return true;
      });
    }
  });

  it('matches tokens, not substrings (case 33 matched "api" inside "rapid")', async () => {
    assert.equal((await index.search({ query: 'api', scope: 'knowledge' })).total, 0);
    assert.equal((await index.search({ query: 'rapid', scope: 'knowledge' })).total, 1);
  });

  it('identifiers are found by parts and whole; wildcards expand inside identifiers (case 34 missed tool*)', async () => {
    for (const q of ['create', 'tool', 'create_tool', 'tool*']) {
      const res = await index.search({ query: q, scope: 'tool' });
      assert.ok(
        res.results.some((r) => r.id === 'create_tool'),
        q,
      );
    }
    for (const q of ['file', 'system', 'file-system', 'file*', '*thread*']) {
      assert.equal((await index.search({ query: q, scope: 'knowledge' })).results[0]?.id, 'threads', q);
    }
  });

  it('malformed queries are errors with position and hint (cases 24, 26–30 were silently reinterpreted)', async () => {
    for (const [query, position] of [
      ['foo ) bar', 4],
      ['NOT', 0],
      ['foo OR', 4],
      ['foo AND', 4],
      ['"unbalanced phrase', 0],
      ['(foo', 0],
    ]) {
      await assert.rejects(index.search({ query, scope: 'tool' }), (err) => {
        assert.ok(err instanceof QuerySyntaxError, query);
        assert.equal(err.code, 'E_QUERY_SYNTAX');
        assert.equal(err.position, position, query);
        assert.ok(err.hint.length > 0);
        return true;
      });
    }
  });

  it('bad limit, offset, space and fuzzy values are errors, not slice tricks (case 49)', async () => {
    for (const bad of [
      { limit: -1 },
      { limit: 1.5 },
      { offset: -2 },
      { limit: '5' },
      { space: 'everywhere' },
      { fuzzy: { max_distance: -1 } },
      { fuzzy: 'yes' },
    ]) {
      await assert.rejects(
        index.search({ query: 'alpha', scope: 'tool', ...bad }),
        InvalidArgumentError,
        JSON.stringify(bad),
      );
    }
    // The engine's limits have one owner, the core, and one code.
    await assert.rejects(
      index.search({ query: 'alpha', scope: 'tool', limit: 5000 }),
      (err) => err.code === 'E_LIMIT' && /1000/.test(err.message) && !!err.hint,
    );
    await assert.rejects(index.search({ query: 'alpha', scope: 'tool', offset: 200_000 }), { code: 'E_LIMIT' });
    await assert.rejects(
      index.search({ query: 'alpha', scope: 'tool', preview_chars: 10_001 }),
      (err) => err.code === 'E_LIMIT' && /10000/.test(err.message) && !!err.hint,
    );
    assert.equal(
      (await index.search({ query: 'alpha', scope: 'tool', preview_chars: 10_000 })).results.length > 0,
      true,
    );
    const far = await index.search({ query: 'alpha beta', scope: 'tool', proximity: { max_distance: 5000 } });
    assert.match(far.warnings.join(' '), /proximity.max_distance 5000 was clamped to 1000/);
    // A misspelt option is an error naming it, not an option silently not applied.
    await assert.rejects(
      index.search({ query: 'alpha', scope: 'tool', sortby: 'name' }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /"sortby"/.test(err.message) && /sortBy/.test(err.hint),
    );
  });

  it('fuzzy finds typos, clamps distance with a warning and ranks exact first (case 55)', async () => {
    // Without fuzzy, a plain query that finds nothing is tried again with typos allowed by word
    // length, and says so; `fuzzy: {enabled: false}` keeps it exact.
    const rescued = await index.search({ query: 'alpah', scope: 'tool' });
    assert.ok(rescued.total >= 4);
    assert.match(rescued.warnings.join(' '), /nothing matched as written; these match with typos allowed/);
    const res = await index.search({ query: 'alpah', scope: 'tool', fuzzy: { enabled: true, max_distance: 9 } });
    assert.ok(res.total >= 4);
    assert.match(res.warnings.join(' '), /clamped to 2/);
    assert.equal(
      (await index.search({ query: 'alpah', scope: 'tool', fuzzy: { enabled: false, max_distance: 2 } })).total,
      0,
    );
  });

  it('proximity keeps near terms and drops far ones (case 56)', async () => {
    const ws2 = workspace();
    ws2.write('project', {
      'tools/near.py': pyTool({ description: 'thread one two three four orchestrator' }),
      'tools/far.py': pyTool({ description: 'thread one two three four five six seven orchestrator' }),
    });
    const idx = await openIndex({
      projectPath: ws2.project,
      userSpace: ws2.user,
      cacheDir: ws2.cache,
      includeDefaultBundle: false,
    });
    const ids = async (p) =>
      (await idx.search({ query: 'thread orchestrator', scope: 'tool', proximity: p })).results.map((r) => r.id).sort();
    assert.deepEqual(await ids(undefined), ['far', 'near']);
    assert.deepEqual(await ids({ enabled: true }), ['near']);
    assert.deepEqual(await ids({ enabled: true, max_distance: 10 }), ['far', 'near']);
    ws2.cleanup();
  });

  it('filters: category, tags, version ranges, negation, unknown keys', async () => {
    const ws3 = workspace();
    ws3.write('project', {
      'knowledge/a.md': knowledge({
        title: 'alpha',
        category: 'rye/core',
        version: '1.2.0',
        tags: ['api', 'Web'],
        author: 'ann',
      }),
      'knowledge/b.md': knowledge({ title: 'alpha two', category: 'other', version: '0.9.0', tags: ['cli'] }),
    });
    const idx = await openIndex({
      projectPath: ws3.project,
      userSpace: ws3.user,
      cacheDir: ws3.cache,
      includeDefaultBundle: false,
    });
    const ids = async (filters) =>
      (await idx.search({ query: 'alpha', scope: 'knowledge', filters })).results.map((r) => r.id).sort();
    assert.deepEqual(await ids({ category: 'RYE/CORE' }), ['a']);
    assert.deepEqual(await ids({ tags: 'api' }), ['a']);
    assert.deepEqual(await ids({ tags: ['cli', 'api'] }), ['a', 'b']);
    assert.deepEqual(await ids({ tags: '!api' }), ['b']);
    assert.deepEqual(await ids({ version: '>=1.2' }), ['a']);
    assert.deepEqual(await ids({ version: '<1' }), ['b']);
    assert.deepEqual(await ids({ author: 'ann' }), ['a']);
    assert.deepEqual(await ids({ missing_key: 'x' }), []);
    assert.deepEqual(await ids({ source: 'project' }), ['a', 'b']);
    assert.deepEqual(await ids({ signed: false }), ['a', 'b']);
    assert.deepEqual(await ids({ integrity: 'unsigned' }), ['a', 'b']);
    await assert.rejects(ids({ version: '>=x' }), { code: 'E_INVALID_ARGUMENT' });
    await assert.rejects(ids({ date_from: 'yesterday' }), { code: 'E_INVALID_ARGUMENT' });
    ws3.cleanup();
  });

  it('filters take type (the kind, as results name it); words the filters or scope leave out are said to', async () => {
    const ws4 = workspace();
    ws4.write('project', {
      'directives/make_widget.md': directive('make_widget', 'Make a widget'),
      'tools/widget.py': pyTool({ description: 'widget maker', category: 'rye/core' }),
      'knowledge/widgets.md': knowledge({ title: 'widgets', description: 'about widgets' }),
    });
    const idx = await openIndex(wsOptions(ws4));
    const search = (filters, extra = {}) => idx.search({ query: 'widget', filters, ...extra });
    const ids = async (filters) => (await search(filters)).results.map((r) => `${r.type}:${r.id}`).sort();
    assert.deepEqual(await ids({ type: 'tool' }), ['tool:widget']);
    assert.deepEqual(await ids({ type: ['tool', 'knowledge'] }), ['knowledge:widgets', 'tool:widget']);
    assert.deepEqual(await ids({ type: '!directive' }), ['knowledge:widgets', 'tool:widget']);
    const said = async (filters, extra) => {
      const res = await search(filters, extra);
      assert.equal(res.total, 0);
      const warnings = (res.warnings ?? []).join(' | ');
      // The words were fine: no typo rescue, no "did you mean".
      assert.doesNotMatch(warnings, /did you mean|typos allowed/);
      return warnings;
    };
    assert.match(await said({ signed: true }), /3 items hold these words, but none passes the filter signed = true$/);
    assert.match(
      await said({ name: 'widget' }),
      /none passes the filter name = widget \(no item has a "name" key: .*ask fields \{"name": …\}\)/,
    );
    assert.match(await said({ catgory: 'rye/core' }), /no item has a "catgory" key/);
    // What the caller wrote is echoed cut short.
    const long = await said({ ['k'.repeat(5000)]: ['v'.repeat(5000), 'a', 'b', 'c', 'd'] });
    assert.ok(long.length < 1500, `${long.length} characters`);
    assert.match(long, /k+… = v+… or a or b or 2 more/);
    assert.match(await said({ type: 'tool', category: 'other' }), /none passes the filter category = other$/);
    assert.match(await said({ type: 'directive', category: 'rye/core' }), /none passes the filters together$/);
    assert.match(await said(undefined, { scope: 'tool.rye.nothing.*' }), /none passes the scope or space asked for$/);
    // Words no item holds are still typos first.
    const typo = await search({ signed: false }, { query: 'widgte' });
    assert.match((typo.warnings ?? []).join(' '), /typos allowed/);
    await idx.close();
    // An MCP client gets the same answer.
    const { client } = await connectMcp(wsArgs(ws4));
    const mcp = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'widget', filters: { signed: true } },
    });
    assert.match(mcp.structuredContent.warnings.join(' '), /none passes the filter signed = true/);
    const typed = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'widget', filters: { type: 'tool' } },
    });
    assert.deepEqual(
      typed.structuredContent.results.map((r) => r.id),
      ['widget'],
    );
    await client.close();
    ws4.cleanup();
  });
});

describe('spaces, precedence and shadows', () => {
  const ws = workspace();
  let index;
  before(async () => {
    ws.write('project', { 'tools/my/tool.py': pyTool({ description: 'deploy helper' }) });
    ws.write('user', {
      'tools/my/tool.py': pyTool({ description: 'old helper' }),
      'tools/only/user.py': pyTool({ description: 'helper' }),
    });
    ws.write('core', { 'tools/my/tool.py': pyTool({ description: 'older helper' }) });
    ws.write('extra', { 'tools/my/tool.py': pyTool({ description: 'oldest helper' }) });
    // One item named in NFC in the project and in NFD in the user space (as macOS writes names).
    ws.write('project', { 'knowledge/caf\u00e9.md': '---\ntitle: Cafe notes\n---\nespresso\n' });
    ws.write('user', { 'knowledge/cafe\u0301.md': '---\ntitle: Cafe notes, older\n---\nespresso\n' });
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      systemBundles: [
        { id: 'core', root: ws.bundle('core') },
        { id: 'extra', root: ws.bundle('extra') },
      ],
    });
  });
  after(() => ws.cleanup());

  it('copies whose names differ only in Unicode form (NFC / NFD) are one item: shadowed, fetched by either', async () => {
    const res = await index.search({ query: 'espresso', scope: 'knowledge' });
    assert.equal(res.results.length, 2);
    const winner = res.results.find((r) => r.source === 'project');
    const shadowed = res.results.find((r) => r.source === 'user');
    assert.deepEqual(winner.shadows, [{ space: 'user' }]);
    assert.equal(shadowed.shadowed_by, 'project');
    const report = await index.verify(['knowledge:cafe\u0301']);
    assert.equal(report.total, 2);
  });

  it('annotates the winner and every shadowed copy across three spaces and two bundles', async () => {
    const res = await index.search({ query: 'helper', scope: 'tool', limit: 10 });
    const copies = res.results.filter((r) => r.id === 'my/tool');
    assert.equal(copies.length, 4);
    const winner = copies.find((r) => r.source === 'project');
    assert.deepEqual(winner.shadows, [{ space: 'user' }, { space: 'system:core' }, { space: 'system:extra' }]);
    for (const other of copies.filter((r) => r !== winner)) assert.equal(other.shadowed_by, 'project');
    const unique = res.results.find((r) => r.id === 'only/user');
    assert.equal(unique.shadows, undefined);
    assert.equal(unique.shadowed_by, undefined);
  });

  it('marks a hit even when the other copy did not match the query (anchor case 18 did not)', async () => {
    const res = await index.search({ query: 'deploy', scope: 'tool' });
    assert.equal(res.total, 1);
    assert.equal(res.results[0].shadows.length, 3);
  });

  it('ties break project > user > system, then id; system results carry the bundle', async () => {
    const res = await index.search({ query: '*', scope: 'tool.my.*' });
    assert.deepEqual(
      res.results.map((r) => r.bundle ?? r.source),
      ['project', 'user', 'core', 'extra'],
    );
    assert.deepEqual(
      res.results.map((r) => r.source),
      ['project', 'user', 'system', 'system'],
    );
  });

  it('space restricts the search, and a single bundle can be named', async () => {
    assert.deepEqual(
      (await index.search({ query: '*', scope: 'tool', space: 'user' })).results.map((r) => r.id).sort(),
      ['my/tool', 'only/user'],
    );
    assert.equal((await index.search({ query: '*', scope: 'tool', space: 'system' })).total, 2);
    assert.equal((await index.search({ query: '*', scope: 'tool', space: 'system:extra' })).total, 1);
    // `source`, rye_fetch's name for it, is the same filter; the two must agree when both are given.
    const viaSource = await index.search({ query: '*', scope: 'tool', source: 'user' });
    assert.deepEqual([viaSource.space, viaSource.results.map((r) => r.id).sort()], ['user', ['my/tool', 'only/user']]);
    await assert.rejects(index.search({ query: '*', scope: 'tool', space: 'user', source: 'system' }), /disagree/);
  });
});

describe("the caller's own objects", () => {
  it('what their getters and proxies throw is refused with a code, in every call that reads options, and the index answers after', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/walrus.md': knowledge({ id: 'walrus', title: 'Walrus facts' }, 'tusks') });
    const boom = () => {
      throw new Error('boom');
    };
    const theirs = (what) => (err) =>
      err.code === 'E_INVALID_ARGUMENT' && err.message === `reading ${what} threw: boom` && err.hint.length > 0;
    const throwing = (key, extra = {}) => ({
      ...extra,
      get [key]() {
        return boom();
      },
    });
    await assert.rejects(openIndex(throwing('projectPath')), theirs('the open options'));
    await assert.rejects(openIndex(new Proxy({}, { ownKeys: boom })), theirs('the open options'));
    const index = await openIndex(wsOptions(ws));
    try {
      await assert.rejects(index.search(throwing('query')), theirs('the search options'));
      await assert.rejects(index.fetch(throwing('item_id')), theirs('the fetch options'));
      await assert.rejects(index.fetchMany(throwing('item_ids')), theirs('the fetchMany options'));
      await assert.rejects(
        index.fetchMany({ item_ids: new Proxy(['walrus'], { get: boom }) }),
        theirs("the fetchMany options' item_ids"),
      );
      await assert.rejects(index.verify(new Proxy(['walrus'], { get: boom })), theirs('the ids'));
      await assert.rejects(index.ready(throwing('semantic')), theirs('the ready options'));
      assert.throws(() => index.searchStream([{ query: 'walrus' }], throwing('batch')), theirs('the stream options'));
      assert.throws(() => index.searchStream(new Proxy({}, { has: boom })), theirs('the searches'));
      const [failed] = await index.searchMany([throwing('query')]);
      assert.ok(theirs('the search options')(failed.error));
      // A getter is read once: what was checked is what runs.
      let reads = 0;
      const res = await index.search({
        get query() {
          reads += 1;
          return reads === 1 ? 'walrus' : 'x'.repeat(100_000);
        },
      });
      assert.deepEqual([res.results.map((r) => r.id), res.query], [['walrus'], 'walrus']);
      assert.deepEqual(
        (await index.fetchMany({ item_ids: ['walrus'] })).items.map((i) => i.item_id),
        ['walrus'],
      );
    } finally {
      await index.close();
    }
  });

  it('system bundles that are not a list of { id, root } are refused with a code, and each bundle is read once', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/walrus.md': knowledge({ id: 'walrus', title: 'Walrus facts' }, 'tusks') });
    ws.write('core', { 'knowledge/narwhal.md': knowledge({ id: 'narwhal', title: 'Narwhal facts' }, 'tusks') });
    const refused = (pattern) => (err) =>
      err.code === 'E_INVALID_ARGUMENT' && pattern.test(err.message) && err.hint.length > 0;
    const open = (systemBundles) => openIndex({ ...wsOptions(ws), systemBundles });
    // Before: null entries and anything not a list threw a bare TypeError; a string was read as a list of letters.
    for (const given of [5, 'core', {}, new Map()])
      await assert.rejects(open(given), refused(/^systemBundles must be a list/));
    for (const given of [[null], [5], [{ root: ws.root }], [{ id: '../x', root: ws.root }]])
      await assert.rejects(open(given), refused(/^invalid system bundle/));
    for (const root of [5, undefined, '', `${ws.root}/\0`])
      await assert.rejects(open([{ id: 'x', root }]), refused(/^system bundle "x": root must be a path/));
    await assert.rejects(
      open([
        { id: 'x', root: ws.root },
        { id: 'x', root: ws.root },
      ]),
      refused(/^system bundle "x" is given twice/),
    );
    const throwing = {
      get id() {
        throw new Error('boom');
      },
    };
    await assert.rejects(open([throwing]), refused(/^reading the open options' systemBundles threw: boom$/));
    // What was checked is what is searched, whatever the getter returns next.
    let reads = 0;
    const bundle = {
      get id() {
        reads += 1;
        return reads === 1 ? 'core' : '../../elsewhere';
      },
      root: ws.bundle('core'),
    };
    const index = await open([bundle]);
    try {
      const res = await index.search({ query: 'narwhal', space: 'system:core' });
      assert.deepEqual(
        res.results.map((r) => [r.id, r.bundle]),
        [['narwhal', 'core']],
      );
      assert.equal(reads, 1);
    } finally {
      await index.close();
      ws.cleanup();
    }
  });
});
