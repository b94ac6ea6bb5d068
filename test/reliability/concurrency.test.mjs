// Searches while refreshes commit — in-process and from a second process — always succeed and
// never see half a refresh; searchMany of 10k queries while files change.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { openIndex } from '../../dist/index.js';
import { workspace } from '../helpers.mjs';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'index-child.mjs');
const files = (from, n, word) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`knowledge/c/f${from + i}.md`, `${word} ${from + i}\n`]));

describe('concurrency', () => {
  it('searches during an in-process refresh see the old or the new state, never half', async () => {
    const ws = workspace();
    ws.write('project', files(0, 2000, 'alpha'));
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    ws.write('project', files(2000, 2000, 'alpha'));
    const totals = new Set();
    let done = false;
    const refreshing = index.refresh().finally(() => (done = true));
    const searching = (async () => {
      let n = 0;
      let afterCommit = 0;
      while (!done || afterCommit++ < 5) {
        const res = await index.search({ query: 'alpha', scope: 'knowledge', limit: 5 });
        totals.add(res.total);
        n++;
        await new Promise((r) => setImmediate(r));
      }
      return n;
    })();
    const [report, n] = await Promise.all([refreshing, searching]);
    assert.equal(report.added, 2000);
    assert.ok(
      [...totals].every((t) => t === 2000 || t === 4000),
      `saw totals ${[...totals]}`,
    );
    assert.ok(totals.has(4000), `saw totals ${[...totals]}`);
    console.log(`in-process: ${n} searches during a 2000-file refresh saw totals ${[...totals].join(', ')}`);
    ws.cleanup();
  });

  it('a second process refreshing while we search and refresh: all succeed, final state complete', async () => {
    const ws = workspace();
    ws.write('project', { ...files(0, 500, 'alpha'), 'knowledge/child/.keep.md': '' });
    const opts = {
      projectPath: ws.project,
      cacheDir: ws.cache,
      userSpace: path.join(ws.cache, 'no-user'),
      includeDefaultBundle: false,
    };
    const index = await openIndex(opts);
    const other = spawn(process.execPath, [CHILD, 'loop', ws.project, ws.cache, '25'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    other.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((r) => other.on('exit', r));
    let searches = 0;
    let readOnly = 0;
    let finished = false;
    exited.then(() => (finished = true));
    while (!finished) {
      const report = await index.refresh();
      if (report.readOnly) readOnly++;
      const res = await index.search({ query: 'alpha OR gamma', scope: 'knowledge', limit: 3 });
      assert.ok(res.total >= 500);
      searches++;
    }
    assert.equal(await exited, 0, stderr);
    const final = await index.refresh();
    assert.equal((await index.search({ query: 'gamma', scope: 'knowledge', limit: 0 })).total, 25);
    assert.equal(final.items, 525);
    console.log(
      `two processes: ${searches} refresh+search rounds here (${readOnly} found the writer busy) while the other process committed 25 refreshes`,
    );
    await index.close();
    ws.cleanup();
  });

  it('searchMany with 10k queries while files change', async () => {
    const ws = workspace();
    ws.write('project', files(0, 1000, 'alpha beta'));
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const queries = Array.from({ length: 10_000 }, (_, i) => ({
      query: ['alpha', 'beta', 'alpha OR delta', 'f1*'][i % 4],
      scope: 'knowledge',
      limit: 3,
    }));
    const changing = (async () => {
      for (let round = 0; round < 5; round++) {
        ws.write('project', files(1000 + round * 100, 100, 'delta'));
        fs.rmSync(path.join(ws.project, '.ai', 'knowledge', 'c', `f${round}.md`));
        await index.refresh();
      }
    })();
    const [results] = await Promise.all([index.searchMany(queries), changing]);
    assert.equal(results.length, 10_000);
    assert.ok(
      results.every((r) => !r.error && Array.isArray(r.results)),
      'every query answered',
    );
    ws.cleanup();
  });
});
