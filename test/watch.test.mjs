// Watched refresh: an open index re-reads only directories whose watcher saw a change, and still
// sees every kind of change a user makes on disk.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openIndex } from '../dist/index.js';
import { scanSpaces } from '../dist/discovery.js';
import { knowledge, workspace } from './helpers.mjs';

const open = (ws, extra = {}) =>
  openIndex({ projectPath: ws.project, userSpace: ws.user, cacheDir: ws.cache, includeDefaultBundle: false, ...extra });
const ids = async (index, query) =>
  (await index.search({ query, scope: 'knowledge', limit: 50 })).results.map((r) => r.id).sort();

/** An open index over a project holding `files`; `setup(ai)` runs before the index is opened. */
async function withIndex(files, setup, body) {
  const ws = workspace();
  ws.write('project', files);
  const ai = path.join(ws.project, '.ai');
  setup(ai);
  const index = await open(ws);
  try {
    await body(index, ai, ws);
  } finally {
    await index.close();
    ws.cleanup();
  }
}

describe('watched refresh', () => {
  it('sees edits, new files in new directories, renames and deletions', async () => {
    const files = {
      'knowledge/a/one.md': knowledge({ title: 'One', description: 'first alpha' }),
      'knowledge/a/two.md': knowledge({ title: 'Two', description: 'second alpha' }),
      'knowledge/b/deep/three.md': knowledge({ title: 'Three', description: 'third alpha' }),
    };
    await withIndex(
      files,
      () => {},
      async (index, ai, ws) => {
        const kdir = path.join(ai, 'knowledge');
        assert.deepEqual(await ids(index, 'alpha'), ['a/one', 'a/two', 'b/deep/three']);

        fs.appendFileSync(path.join(kdir, 'a', 'one.md'), '\nquokka\n');
        let report = await index.refresh();
        assert.equal(report.updated, 1);
        assert.deepEqual(await ids(index, 'quokka'), ['a/one']);

        ws.write('project', { 'knowledge/c/new/four.md': knowledge({ title: 'Four', description: 'fourth alpha' }) });
        report = await index.refresh();
        assert.equal(report.added, 1);
        assert.deepEqual(await ids(index, 'fourth'), ['c/new/four']);

        fs.renameSync(path.join(kdir, 'a', 'two.md'), path.join(kdir, 'a', 'renamed.md'));
        report = await index.refresh();
        assert.equal(report.added, 1);
        assert.equal(report.removed, 1);
        assert.deepEqual(await ids(index, 'second'), ['a/renamed']);

        fs.renameSync(path.join(kdir, 'b'), path.join(kdir, 'moved'));
        report = await index.refresh();
        assert.deepEqual(await ids(index, 'third'), ['moved/deep/three']);

        fs.rmSync(path.join(kdir, 'c'), { recursive: true });
        report = await index.refresh();
        assert.equal(report.removed, 1);
        assert.deepEqual(await ids(index, 'fourth'), []);

        // A deep edit after the moves: the watchers follow the new layout.
        fs.appendFileSync(path.join(kdir, 'moved', 'deep', 'three.md'), '\nwombat\n');
        await index.refresh();
        assert.deepEqual(await ids(index, 'wombat'), ['moved/deep/three']);

        report = await index.refresh();
        assert.equal(report.added + report.updated + report.removed, 0);
        assert.equal(report.unchanged, 3);
      },
    );
  });

  it('sees folders replaced under and above its watchers: .ai made again, a folder renamed or moved in, the project moved away and made again', async () => {
    const item = (title) => knowledge({ title, description: `${title} zebra` });
    await withIndex(
      { 'knowledge/sub/a.md': item('a') },
      () => {},
      async (index, ai, ws) => {
        const knowledgeDir = path.join(ai, 'knowledge');
        const write = (rel, title) => {
          fs.mkdirSync(path.dirname(path.join(knowledgeDir, rel)), { recursive: true });
          fs.writeFileSync(path.join(knowledgeDir, rel), item(title));
        };
        const seen = async () => {
          await index.refresh();
          return ids(index, 'zebra');
        };
        assert.deepEqual(await seen(), ['sub/a']);
        // Every watcher's directory removed, the same paths made again.
        fs.rmSync(ai, { recursive: true });
        write('sub/b.md', 'b');
        assert.deepEqual(await seen(), ['sub/b']);
        // Then changes inside the new folders, which only new watchers see.
        fs.renameSync(path.join(knowledgeDir, 'sub'), path.join(knowledgeDir, 'moved'));
        assert.deepEqual(await seen(), ['moved/b']);
        const outside = path.join(ws.root, 'outside');
        fs.mkdirSync(path.join(outside, 'deep'), { recursive: true });
        fs.writeFileSync(path.join(outside, 'deep', 'c.md'), item('c'));
        fs.renameSync(outside, path.join(knowledgeDir, 'outside'));
        assert.deepEqual(await seen(), ['moved/b', 'outside/deep/c']);
        // A folder above the space replaced: no watcher of ours hears of it.
        fs.renameSync(ws.project, `${ws.project}-old`);
        write('d.md', 'd');
        assert.deepEqual(await seen(), ['d']);
        write('e/e.md', 'e');
        assert.deepEqual(await seen(), ['d', 'e/e']);
      },
    );
  });

  it('re-reads a linked file on every refresh: its edits raise no event where the link is', async () => {
    const files = {
      'shared/target.md': knowledge({ title: 'Target', description: 'linked item' }),
      'knowledge/plain.md': knowledge({ title: 'Plain', description: 'plain item' }),
    };
    const link = (ai) => fs.symlinkSync(path.join(ai, 'shared', 'target.md'), path.join(ai, 'knowledge', 'linked.md'));
    await withIndex(files, link, async (index, ai) => {
      assert.deepEqual(await ids(index, 'item'), ['linked', 'plain']);
      fs.appendFileSync(path.join(ai, 'shared', 'target.md'), '\nplatypus\n');
      const report = await index.refresh();
      assert.equal(report.updated, 1);
      assert.deepEqual(await ids(index, 'platypus'), ['linked']);
    });
  });

  it('follows a directory link that is pointed elsewhere', async () => {
    const files = {
      'shared/one/a.md': knowledge({ title: 'A', description: 'from one' }),
      'shared/two/b.md': knowledge({ title: 'B', description: 'from two' }),
      'knowledge/keep.md': knowledge({ title: 'Keep', description: 'stays' }),
    };
    const linkTo = (ai, target) =>
      fs.symlinkSync(path.join(ai, 'shared', target), path.join(ai, 'knowledge', 'linked'));
    await withIndex(
      files,
      (ai) => linkTo(ai, 'one'),
      async (index, ai) => {
        assert.deepEqual(await ids(index, 'from'), ['linked/a']);
        fs.unlinkSync(path.join(ai, 'knowledge', 'linked'));
        linkTo(ai, 'two');
        await index.refresh();
        assert.deepEqual(await ids(index, 'from'), ['linked/b']);
        fs.appendFileSync(path.join(ai, 'shared', 'two', 'b.md'), '\nnarwhal\n');
        await index.refresh();
        assert.deepEqual(await ids(index, 'narwhal'), ['linked/b']);
      },
    );
  });

  it('gives the same results with and without watching', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/x/a.md': knowledge({ title: 'A', description: 'same words' }) });
    const watched = await open(ws);
    ws.write('project', {
      'knowledge/x/b.md': knowledge({ title: 'B', description: 'same words' }),
      'knowledge/x/skip.txt': 'not an item',
    });
    const a = await watched.refresh();
    await watched.close();
    const plain = await open(ws, { watch: false });
    const b = plain.lastReport;
    assert.equal(a.items, b.items);
    assert.deepEqual(a.skipped, b.skipped);
    assert.deepEqual(await ids(plain, 'same'), ['x/a', 'x/b']);
    await plain.close();
    ws.cleanup();
  });
});

describe('watch option', () => {
  it('rejects a value that is not a boolean, with a code and a hint', async () => {
    const ws = workspace();
    await assert.rejects(
      open(ws, { watch: 'yes' }),
      (err) => err.code === 'E_INVALID_ARGUMENT' && /watch/.test(err.message) && Boolean(err.hint),
    );
    ws.cleanup();
  });
});

describe('scan cache', () => {
  // A cache that keeps every listing: shows that a clean listing is reused as it is, so the
  // watcher (not a stat) is what tells a refresh that a directory changed.
  const keepAll = () => {
    const listings = new Map();
    return {
      listing: (k) => listings.get(k),
      watch() {},
      remember: (k, l) => listings.set(k, l),
      forget: (k) => listings.delete(k),
      keepOnly() {},
      root() {},
      drop: () => listings.clear(),
    };
  };

  it('reuses clean listings and reads a directory again once its listing is dropped', () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': knowledge({ title: 'A' }) });
    const spaces = [{ label: 'project', aiDir: path.join(ws.project, '.ai') }];
    const cache = keepAll();
    assert.equal(scanSpaces(spaces, 1 << 20, cache).candidates.length, 1);
    ws.write('project', { 'knowledge/b.md': knowledge({ title: 'B' }) });
    assert.equal(scanSpaces(spaces, 1 << 20, cache).candidates.length, 1, 'no event: the old listing stands');
    cache.drop();
    assert.deepEqual(
      scanSpaces(spaces, 1 << 20, cache).candidates.map((c) => c.id),
      ['a', 'b'],
    );
    ws.cleanup();
  });
});
