// Discovery, parsing, skips and incremental refresh through the Node API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { directive, pyTool, workspace } from './helpers.mjs';

const open = (ws, extra = {}) =>
  openIndex({ projectPath: ws.project, userSpace: ws.user, cacheDir: ws.cache, includeDefaultBundle: false, ...extra });

describe('discovery and metadata', () => {
  it("derives ids and names from paths and reads each kind's metadata", async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/rye/core/bash/bash.py': pyTool({ description: 'Run bash', category: 'rye/core', version: '2.1.0' }),
      'tools/cfg/thing.yaml': 'version: "1.0.0"\ncategory: cfg\ndescription: A yaml tool\n',
      'tools/cfg/other.json': '{"description": "A json tool", "version": "3.0.0"}',
      'tools/cfg/third.toml': 'description = "A toml tool"\ncategory = "cfg"\n',
      'tools/scripts/run.sh': '#!/bin/sh\n# Runs the build script\necho hi\n',
      'directives/rye/make.md': directive('make', 'Make a thing', {
        category: 'rye',
        body: 'Prose after the block mentions zebras.',
      }),
      'knowledge/notes/a.md':
        '---\ntitle: Front matter title\ndescription: From front matter\ncreated_at: 2026-01-02\n---\nBody text.\n',
    });
    const index = await open(ws);
    const get = async (scope, query = '*') => (await index.search({ query, scope, limit: 50 })).results;
    const tools = Object.fromEntries((await get('tool')).map((r) => [r.id, r]));
    assert.equal(tools['rye/core/bash/bash'].name, 'bash');
    assert.equal(tools['rye/core/bash/bash'].description, 'Run bash');
    assert.equal(tools['rye/core/bash/bash'].category, 'rye/core');
    assert.equal(tools['rye/core/bash/bash'].metadata.version, '2.1.0');
    assert.equal(tools['cfg/thing'].description, 'A yaml tool');
    assert.equal(tools['cfg/other'].description, 'A json tool');
    assert.equal(tools['cfg/third'].description, 'A toml tool');
    assert.equal(tools['scripts/run'].description, 'Runs the build script');
    const [d] = await get('directive', 'zebras');
    assert.equal(d.id, 'rye/make');
    assert.equal(d.description, 'Make a thing');
    const [k] = await get('knowledge');
    assert.equal(k.title, 'Front matter title');
    assert.equal(k.description, 'From front matter');
    ws.cleanup();
  });

  it('skips non-items with a reason for each, and never silently', async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/_helper.py': pyTool(),
      'tools/.hidden/x.py': pyTool(),
      'tools/node_modules/dep.py': pyTool(),
      'tools/notes.txt': 'not a tool',
      'tools/big.py': `# ${'x'.repeat(2048)}\n`,
      'tools/ok.py': pyTool({ description: 'fine' }),
      'tools/latin1.py': Buffer.from([0x23, 0x20, 0xe9, 0x0a]),
      'tools/binary.py': Buffer.from([0x00, 0x01, 0x02]),
    });
    const index = await open(ws, { maxFileBytes: 1024 });
    const reasons = Object.fromEntries(index.lastReport.skipped.map((s) => [path.basename(s.path), s.reason]));
    assert.equal(reasons['_helper.py'], 'underscore');
    assert.equal(reasons['.hidden'], 'hidden');
    assert.equal(reasons.node_modules, 'ignored-dir');
    assert.equal(reasons['notes.txt'], 'extension');
    assert.equal(reasons['big.py'], 'too-large');
    assert.equal(reasons['latin1.py'], 'not-utf8');
    assert.equal(reasons['binary.py'], 'binary');
    const res = await index.search({ query: '*', scope: 'tool' });
    assert.deepEqual(
      res.results.map((r) => r.id),
      ['ok'],
    );
    ws.cleanup();
  });

  it('never executes ---js front matter, and still indexes the item with a warning', async () => {
    const ws = workspace();
    const marker = path.join(ws.root, 'pwned');
    ws.write('project', {
      'knowledge/evil.md': `---js\n{ title: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'), 'evil') }\n---\nInnocent body words.\n`,
    });
    const index = await open(ws);
    assert.equal(fs.existsSync(marker), false, 'front matter code ran');
    assert.match(index.lastReport.warnings.map((w) => w.message).join(' '), /not supported/);
    const res = await index.search({ query: 'innocent', scope: 'knowledge' });
    assert.equal(res.results[0].id, 'evil');
    ws.cleanup();
  });

  it('indexes items with broken YAML by their text, reporting the problem', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/broken.md': '```yaml\ntitle: [unclosed\n```\n\nSearchable walrus text.\n' });
    const index = await open(ws);
    assert.equal(index.lastReport.warnings.length, 1);
    assert.equal((await index.search({ query: 'walrus', scope: 'knowledge' })).total, 1);
    ws.cleanup();
  });

  it("reports a file's broken metadata on one line, a TOML fault with its place", async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/cfg/broken.toml': 'description = "walrus tool"\nversion = \n',
      'knowledge/broken.md': '---\ntitle: [unclosed\n---\nWalrus notes.\n',
    });
    const index = await open(ws);
    const warnings = Object.fromEntries(index.lastReport.warnings.map((w) => [path.basename(w.path), w.message]));
    assert.deepEqual(Object.keys(warnings).sort(), ['broken.md', 'broken.toml']);
    for (const message of Object.values(warnings)) assert.doesNotMatch(message, /\n/);
    assert.match(
      warnings['broken.toml'],
      /^metadata could not be read: Invalid TOML document: .* \(line 2, column \d+\)$/,
    );
    assert.equal((await index.search({ query: 'walrus' })).total, 2);
    await index.close();
    ws.cleanup();
  });

  it('does not follow links out of the space, and survives link loops', async (t) => {
    const ws = workspace();
    ws.write('project', { 'tools/ok.py': pyTool({ description: 'inside' }) });
    fs.mkdirSync(path.join(ws.root, 'outside'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, 'outside', 'secret.py'), pyTool({ description: 'secret' }));
    try {
      fs.symlinkSync(path.join(ws.root, 'outside'), path.join(ws.project, '.ai', 'tools', 'out'));
      fs.symlinkSync(path.join(ws.project, '.ai', 'tools'), path.join(ws.project, '.ai', 'tools', 'loop'));
    } catch {
      t.skip('symlinks not permitted here');
      return;
    }
    const index = await open(ws);
    assert.equal((await index.search({ query: 'secret', scope: 'tool' })).total, 0);
    const reasons = index.lastReport.skipped.map((s) => s.reason);
    assert.ok(reasons.includes('link-outside-space'));
    assert.ok(reasons.includes('link-loop'));
    ws.cleanup();
  });
});

describe('incremental refresh', () => {
  it('re-reads only changed files, sees edits, additions and removals, and persists across opens', async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/a.py': pyTool({ description: 'apple' }),
      'tools/b.py': pyTool({ description: 'banana' }),
    });
    const first = await open(ws);
    assert.equal(first.lastReport.added, 2);
    const again = await first.refresh();
    assert.deepEqual([again.added, again.updated, again.removed, again.unchanged], [0, 0, 0, 2]);

    fs.writeFileSync(path.join(ws.project, '.ai/tools/a.py'), pyTool({ description: 'apricot' }));
    fs.rmSync(path.join(ws.project, '.ai/tools/b.py'));
    ws.write('project', { 'tools/c.py': pyTool({ description: 'cherry' }) });
    const changed = await first.refresh();
    assert.deepEqual([changed.added, changed.updated, changed.removed, changed.unchanged], [1, 1, 1, 0]);
    assert.equal((await first.search({ query: 'apricot', scope: 'tool' })).total, 1);
    assert.equal((await first.search({ query: 'apple OR banana', scope: 'tool' })).total, 0);

    const reopened = await open(ws);
    assert.deepEqual(
      [reopened.lastReport.added, reopened.lastReport.updated, reopened.lastReport.unchanged],
      [0, 0, 2],
    );
    assert.equal((await reopened.search({ query: 'cherry', scope: 'tool' })).total, 1);
    ws.cleanup();
  });

  it('a skipped file is reported on every refresh but never counted as added, read again or committed for until it changes', async () => {
    const ws = workspace();
    const blob = path.join(ws.project, '.ai/tools/blob.py');
    const T = 1_700_000_000; // a fixed mtime, so content can change under an unchanged mtime
    ws.write('project', { 'tools/a.py': pyTool({ description: 'apple' }), 'tools/blob.py': Buffer.alloc(20) });
    fs.utimesSync(blob, T, T);
    const first = await open(ws);
    assert.deepEqual([first.lastReport.added, first.lastReport.items], [1, 1]);
    const metaFiles = () =>
      fs.readdirSync(ws.cache, { recursive: true }).filter((f) => path.basename(String(f)) === 'meta.json');
    const metaStamp = () =>
      metaFiles()
        .map((f) => fs.statSync(path.join(ws.cache, String(f))).mtimeMs)
        .join();
    assert.equal(metaFiles().length, 1);
    const before = metaStamp();
    // Unchanged: the skip is trusted like an indexed file's stat, in this process and in the next
    // (the state file keeps it), so the file is not read again and nothing is committed.
    for (const report of [await first.refresh(), (await open(ws)).lastReport]) {
      assert.deepEqual([report.added, report.updated, report.removed, report.unchanged], [0, 0, 0, 1]);
      assert.deepEqual(
        report.skipped.map((s) => [path.basename(s.path), s.reason]),
        [['blob.py', 'binary']],
      );
    }
    assert.equal(metaStamp(), before, 'a refresh with nothing to write committed');

    // Rewritten with the same size and mtime (as `cp -p` leaves it): its ctime moved, so it is
    // read again, and now indexed; unreadable again: it leaves the index, counted as removed.
    fs.writeFileSync(blob, '# walrus tool here.\n');
    fs.utimesSync(blob, T, T);
    const fixed = await first.refresh();
    assert.deepEqual([fixed.added, fixed.updated, fixed.removed, fixed.skipped.length], [1, 0, 0, 0]);
    assert.equal((await first.search({ query: 'walrus', scope: 'tool' })).total, 1);
    fs.writeFileSync(blob, Buffer.from([0x00, 0x02, 0x03]));
    const broken = await first.refresh();
    assert.deepEqual([broken.added, broken.updated, broken.removed, broken.items], [0, 0, 1, 1]);
    assert.equal((await first.search({ query: 'walrus', scope: 'tool' })).total, 0);
    ws.cleanup();
  });

  it('openIndex refuses a wrong option value with E_INVALID_ARGUMENT naming it, before anything is made', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': '# A\n\nwalrus\n' });
    const wrong = {
      projectPath: ['', 'a\0b', 5],
      userSpace: ['', 7, 'u\0'],
      cacheDir: ['', {}, 'c\0'],
      includeDefaultBundle: ['no', 1],
      refresh: ['no'],
      watch: [0],
      encode: ['yes'],
      maxFileBytes: ['abc', 0, 1.5],
      writerWaitMs: [-1, Number.POSITIVE_INFINITY, '5'],
      onProgress: ['x', {}],
    };
    for (const [name, values] of Object.entries(wrong)) {
      for (const value of values) {
        await assert.rejects(
          open(ws, { [name]: value }),
          (err) => err.code === 'E_INVALID_ARGUMENT' && err.message.startsWith(`${name} must be`) && !!err.hint,
          `${name}: ${String(value)}`,
        );
      }
    }
    await assert.rejects(openIndex('x'), (err) => err.code === 'E_INVALID_ARGUMENT');
    // A misspelt name must not look applied: `project` opened an index without the project.
    for (const name of ['project', 'projectpath', 'cache', 'bundles']) {
      await assert.rejects(
        open(ws, { [name]: ws.project }),
        (err) =>
          err.code === 'E_INVALID_ARGUMENT' &&
          err.message === `unknown openIndex option "${name}"` &&
          err.hint.includes('projectPath'),
        name,
      );
    }
    assert.equal(fs.existsSync(ws.cache), false, 'nothing made for a wrong option');
    ws.cleanup();
  });

  it('every options object of the API refuses a name it does not know, naming it, before doing anything', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': '# A\n\nwalrus\n' });
    const index = await open(ws, { watch: false });
    const memory = createMemoryIndex();
    const unknown = (what, name) => (err) =>
      err.code === 'E_INVALID_ARGUMENT' &&
      err.message === `unknown ${what} option "${name}"` &&
      err.hint.startsWith('use ');
    try {
      // Each misspelling ran as if the option were not given: the fetch without its type, ready
      // at once, the stream at its default batch.
      await assert.rejects(index.search({ query: 'walrus', limt: 1 }), unknown('search', 'limt'));
      await assert.rejects(
        index.fetch({ item_id: 'knowledge:a', itemtype: 'knowledge' }),
        unknown('fetch', 'itemtype'),
      );
      await assert.rejects(index.fetch({ itemId: 'knowledge:a' }), unknown('fetch', 'itemId'));
      await assert.rejects(
        index.fetchMany({ item_ids: ['knowledge:a'], item_id: 'x' }),
        unknown('fetchMany', 'item_id'),
      );
      await assert.rejects(index.ready({ semantics: 'full' }), unknown('ready', 'semantics'));
      await assert.rejects(memory.ready({ semantic: 'full', timeout: 5 }), unknown('ready', 'timeout'));
      // A stream checks its options when it is made, as it checks its batch.
      assert.throws(
        () => index.searchStream([{ query: 'walrus' }], { batchSize: 5 }),
        unknown('searchStream', 'batchSize'),
      );
      assert.throws(() => memory.searchStream([], { size: 5 }), unknown('searchStream', 'size'));
      await assert.rejects(
        index.refresh({ force: true }),
        (err) => err.code === 'E_INVALID_ARGUMENT' && /progress callback/.test(err.message),
      );
      // The names they do know still work.
      // (An unsigned item is refused by fetch's integrity rule: past the options.)
      await assert.rejects(index.fetch({ item_id: 'a', item_type: 'knowledge', source: 'project' }), {
        code: 'E_INTEGRITY',
      });
      assert.equal((await index.search({ query: 'walrus', limit: 1 })).total, 1);
    } finally {
      await index.close();
      await memory.close();
      ws.cleanup();
    }
  });

  it('handles with two size caps keep their own index: neither removes what the other indexes', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/big.md': `# Big\n\nwalrus ${'x '.repeat(3000)}\n` });
    const small = await open(ws, { maxFileBytes: 1024 });
    const large = await open(ws, { maxFileBytes: 100_000 });
    for (let round = 0; round < 2; round++) {
      const [s, l] = [await small.refresh(), await large.refresh()];
      assert.deepEqual([s.added, s.removed, l.added, l.removed], [0, 0, 0, 0], `round ${round}`);
      assert.equal((await small.search({ query: 'walrus', scope: 'knowledge' })).total, 0);
      assert.equal((await large.search({ query: 'walrus', scope: 'knowledge' })).total, 1);
    }
    for (const maxFileBytes of ['abc', -1, 0, 1.5, Number.NaN, 2 ** 40]) {
      await assert.rejects(open(ws, { maxFileBytes }), (err) => err.code === 'E_INVALID_ARGUMENT' && !!err.hint);
    }
    await small.close();
    await large.close();
    ws.cleanup();
  });

  it("two handles on one project: the second sees the first one's commits after refresh", async () => {
    const ws = workspace();
    ws.write('project', { 'tools/a.py': pyTool({ description: 'apple' }) });
    const a = await open(ws);
    const b = await open(ws);
    ws.write('project', { 'tools/z.py': pyTool({ description: 'zucchini' }) });
    await a.refresh();
    await b.refresh();
    assert.equal((await b.search({ query: 'zucchini', scope: 'tool' })).total, 1);
    ws.cleanup();
  });

  it('searchMany answers each query in order, with errors in place', async () => {
    const ws = workspace();
    ws.write('project', {
      'tools/a.py': pyTool({ description: 'apple pie' }),
      'tools/b.py': pyTool({ description: 'banana' }),
    });
    const index = await open(ws);
    const queries = Array.from({ length: 200 }, (_, i) => ({
      query: ['apple', 'banana', 'pie AND', '*'][i % 4],
      scope: i === 7 ? 'nope' : 'tool',
    }));
    const many = await index.searchMany(queries);
    assert.equal(many.length, 200);
    for (const [i, r] of many.entries()) {
      if (i === 7) assert.equal(r.error.code, 'E_INVALID_SCOPE');
      else if (i % 4 === 2) assert.equal(r.error.code, 'E_QUERY_SYNTAX');
      else assert.equal(r.total, (await index.search(queries[i])).total, `query ${i}`);
    }
    ws.cleanup();
  });
});
