// Typos are rescued: a plain query that finds nothing is tried again with typos allowed by word
// length (one from 5 letters, two from 9) and says so; when even that finds nothing, the answer
// suggests the index's closest words. Explicit `fuzzy` (even `enabled: false`), operators and
// quotes stay strict. Through the Node API, an MCP client and the CLI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { connectMcp, knowledge, runCli, workspace, wsArgs } from './helpers.mjs';

const RESCUED = /nothing matched as written; these match with typos allowed/;

describe('typo rescue', () => {
  it('Node API: rescued with a warning, suggestions when nothing is close enough, strict when asked', async () => {
    const index = createMemoryIndex();
    await index.add([
      { id: 'perms', title: 'permissions', description: 'who may read and write files' },
      { id: 'birds', title: 'bird watching', description: 'field guide' },
    ]);
    const res = await index.search({ query: 'permisions' });
    assert.deepEqual(
      res.results.map((r) => r.id),
      ['perms'],
    );
    assert.match(res.warnings.join(' '), RESCUED);
    const none = await index.search({ query: 'bord' });
    assert.equal(none.total, 0);
    assert.ok(
      none.warnings.some((w) => /did you mean: bird\b.*\(for bord\)/.test(w)),
      JSON.stringify(none.warnings),
    );
    for (const strict of [
      { query: 'permisions', fuzzy: { enabled: false } },
      { query: '"permisions"' },
      { query: 'permisions OR zzzzzz' },
    ]) {
      const r = await index.search(strict);
      assert.equal(r.total, 0, JSON.stringify(strict));
      assert.ok(!(r.warnings ?? []).some((w) => RESCUED.test(w)), JSON.stringify(strict));
    }
  });

  it('Lucene\'s ~ (word~1, "two words"~3) is said to be no operator, naming the options that are', async () => {
    const index = createMemoryIndex();
    await index.add([{ id: 'finch', title: 'zebrafinch', description: 'a small bird of the grasslands' }]);
    const TILDE = /"~" is no operator here.*proximity.*fuzzy/;
    for (const query of [
      'zebrafinch~1',
      'zebrafnch~',
      'zebrafinch~0.8',
      '"small bird"~1e1',
      'bird AND "small bird"~2',
    ]) {
      const res = await index.search({ query });
      assert.match((res.warnings ?? []).join(' '), TILDE, query);
    }
    // As the warning says: the options find it.
    const near = await index.search({ query: 'small bird', proximity: { enabled: true, max_distance: 3 } });
    assert.equal(near.total, 1);
    for (const query of ['zebrafinch', 'a~b', 'a~e5', '~2', 'bird-watching']) {
      const res = await index.search({ query });
      assert.doesNotMatch((res.warnings ?? []).join(' '), TILDE, query);
    }
    await index.close();
  });

  it("Lucene's boosts (word^2) and ranges ([a TO b]) are said to be no operators, in the query and in fields", async () => {
    const index = createMemoryIndex();
    await index.add([{ id: 'finch', title: 'zebrafinch', description: 'a small bird of the grasslands' }]);
    const BOOST = /"\^" is no operator here/;
    const RANGE = /ranges are no operator here.*date_from/;
    for (const [opts, warning] of [
      [{ query: 'zebrafinch^2' }, BOOST],
      [{ query: 'zebrafinch^1e3' }, BOOST],
      [{ query: '"small bird"^0.5 grasslands' }, BOOST],
      [{ query: '(bird OR finch)^3' }, BOOST],
      [{ query: 'bird', fields: { title: 'zebrafinch^4' } }, BOOST],
      [{ query: 'bird [2020 TO 2024]' }, RANGE],
      [{ query: 'bird {a TO *]' }, RANGE],
    ]) {
      const res = await index.search(opts);
      assert.match((res.warnings ?? []).join(' '), warning, JSON.stringify(opts));
    }
    for (const query of ['zebrafinch', 'x^y', '^2', 'bird [draft]', 'go to bird']) {
      const res = await index.search({ query });
      assert.doesNotMatch((res.warnings ?? []).join(' '), /no operator here/, query);
    }
    await index.close();
  });

  it('MCP and CLI: the rescued answer and its warning reach the client', async () => {
    const ws = workspace();
    try {
      ws.write('project', {
        'knowledge/perms.md': knowledge({ name: 'perms', title: 'permissions', description: 'who may write files' }),
      });
      const cli = runCli(['search', 'permisions', '--json', ...wsArgs(ws)]);
      assert.equal(cli.status, 0, cli.stderr);
      const out = JSON.parse(cli.stdout);
      assert.equal(out.results[0].id, 'perms');
      assert.match(out.warnings.join(' '), RESCUED);
      const { client } = await connectMcp(wsArgs(ws));
      const res = await client.callTool({ name: 'rye_search', arguments: { query: 'permisions' } });
      assert.equal(res.isError, undefined);
      assert.equal(res.structuredContent.results[0].id, 'perms');
      assert.match(res.structuredContent.warnings.join(' '), RESCUED);
      // The query's own warnings (here Lucene's ~) reach them too: an index over spaces dropped
      // every warning its options made.
      const tilde = await client.callTool({ name: 'rye_search', arguments: { query: '"who may"~3' } });
      assert.match(tilde.structuredContent.warnings.join(' '), /"~" is no operator here/);
      assert.match(tilde.content[0].text, /"~" is no operator here/);
      await client.close();
      const cliTilde = runCli(['search', 'permissions~1', '--json', ...wsArgs(ws)]);
      assert.match(JSON.parse(cliTilde.stdout).warnings.join(' '), /"~" is no operator here/);
    } finally {
      ws.cleanup();
    }
  });
});
