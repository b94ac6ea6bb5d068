// A damaged index cache (truncated or flipped files, garbage metadata) never aborts the process:
// the next command rebuilds it from the files and answers as before. An index whose files are
// removed while it is open (a cache cleared by hand or pruned by another process) is made again
// at the next refresh: the Node API and a long-lived MCP server go on answering in full.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { rng } from './fixtures/unicode-cases.mjs';
import { openIndex } from '../../dist/index.js';
import { connectMcp, runCli, workspace, wsArgs, wsOptions } from '../helpers.mjs';

const ITEMS = 300;
const FULL_DISK_CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'full-disk-child.mjs');

describe('corrupt index cache', () => {
  it('truncated, flipped and garbage files are detected and rebuilt, by every command', () => {
    const ws = workspace();
    ws.write(
      'project',
      Object.fromEntries(
        Array.from({ length: ITEMS }, (_, i) => [
          `knowledge/k${i}.md`,
          `alpha item ${i} Café ${'word '.repeat(i % 50)}\n`,
        ]),
      ),
    );
    const args = [...wsArgs(ws), '--json'];
    const search = () => runCli(['search', 'cafe', '--scope', 'knowledge', '--limit', '3', ...args]);
    const first = search();
    assert.equal(first.status, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).total, ITEMS);
    const [dir] = fs.readdirSync(ws.cache).map((d) => path.join(ws.cache, d));
    const pristine = Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f))]));
    const r = rng(240);
    const outcomes = [];
    for (const file of Object.keys(pristine).filter((f) => !f.endsWith('.lock'))) {
      for (const damage of ['truncate', 'flip', 'garbage']) {
        // Back to the committed state, then damage one file.
        for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { force: true });
        for (const [f, bytes] of Object.entries(pristine)) fs.writeFileSync(path.join(dir, f), bytes);
        const bytes = Buffer.from(pristine[file]);
        const damaged =
          damage === 'truncate'
            ? bytes.subarray(0, Math.min(5, bytes.length))
            : damage === 'garbage'
              ? Buffer.from('{"not": "an index"')
              : bytes;
        if (damage === 'flip')
          for (let k = 0; k < 8 && bytes.length; k++) bytes[Math.floor(r() * bytes.length)] ^= 0xff;
        fs.writeFileSync(path.join(dir, file), damaged);
        const command =
          outcomes.length % 3 === 0 ? ['index', ...args] : outcomes.length % 3 === 1 ? ['verify', ...args] : null;
        if (command) {
          const res = runCli(command);
          assert.ok(
            [0, 1].includes(res.status),
            `${command[0]} after ${damage} ${file}: exit ${res.status} ${res.stderr.slice(-400)}`,
          );
        }
        const res = search();
        assert.equal(res.status, 0, `search after ${damage} ${file}: exit ${res.status} ${res.stderr.slice(-400)}`);
        assert.equal(JSON.parse(res.stdout).total, ITEMS, `${damage} ${file}`);
        outcomes.push(`${damage}:${file.replace(/^[0-9a-f]{32}/, '<segment>')}`);
      }
    }
    assert.ok(outcomes.length >= 24, outcomes.join(' '));
    ws.cleanup();
  });

  it('an open index whose files were removed is made again at the next refresh (Node API)', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'zebra one\n' });
    const index = await openIndex(wsOptions(ws));
    assert.equal((await index.search({ query: 'zebra', scope: 'knowledge' })).total, 1);
    fs.rmSync(ws.cache, { recursive: true, force: true });
    ws.write('project', { 'knowledge/b.md': 'zebra two\n' });
    const report = await index.refresh();
    assert.equal(report.items, 2);
    assert.equal((await index.search({ query: 'zebra', scope: 'knowledge' })).total, 2);
    ws.write('project', { 'knowledge/c.md': 'zebra three\n' });
    await index.refresh();
    assert.equal((await index.search({ query: 'zebra', scope: 'knowledge' })).total, 3);
    await index.close();
    ws.cleanup();
  });

  it('an MCP server whose cache was cleared between two calls answers the second in full (MCP SDK client)', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'zebra one\n' });
    const { client } = await connectMcp(wsArgs(ws));
    const total = async () => {
      const res = await client.callTool({ name: 'rye_search', arguments: { query: 'zebra', scope: 'knowledge' } });
      assert.ok(!res.isError, res.content?.[0]?.text);
      return res.structuredContent.total;
    };
    assert.equal(await total(), 1);
    fs.rmSync(ws.cache, { recursive: true, force: true });
    ws.write('project', { 'knowledge/b.md': 'zebra two\n' });
    assert.equal(await total(), 2);
    assert.equal(await total(), 2);
    await client.close();
    ws.cleanup();
  });

  it('a full disk: the refresh says so and searches answer from the last commit; what the failed write left goes; then it writes again; read-only is E_IO saying so (Node API, CLI)', () => {
    const ws = workspace();
    const cache = path.join(ws.root, 'tmpfs');
    fs.mkdirSync(cache);
    // A 2 MB tmpfs in a mount namespace of the child's own (root: unshare -m; others: -rm).
    const unshare = process.getuid?.() === 0 ? ['-m'] : ['-rm'];
    const script = `mount -t tmpfs -o size=2M tmpfs "$1" && exec "$2" "$3" "$1" "$4"`;
    const run = spawnSync(
      'unshare',
      [...unshare, 'sh', '-c', script, 'sh', cache, process.execPath, FULL_DISK_CHILD, path.join(ws.root, 'project')],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, `${run.error ?? ''} ${run.stderr}`);
    const seen = JSON.parse(run.stdout.trim().split('\n').at(-1));
    assert.equal(seen.first, 20);
    assert.equal(seen.full.readOnly, true);
    assert.match(seen.full.reason, /could not be written.*(No space left|os error 28)/);
    assert.equal(seen.full.items, 20);
    assert.equal(seen.full.added, 0);
    assert.equal(seen.stale.total, 20);
    assert.match(seen.stale.warnings.join(' '), /No space left.*last committed/);
    assert.ok(
      seen.freeAfterFailedWrite > 1_500_000,
      `the failed write's files stayed: ${seen.freeAfterFailedWrite} bytes free`,
    );
    assert.deepEqual(seen.cliIndex, { status: 1, readOnly: true });
    assert.equal(seen.cliSearch.status, 0);
    assert.equal(seen.cliSearch.total, 20);
    assert.match(seen.cliSearch.warnings.join(' '), /No space left/);
    assert.ok(seen.freeAfterCli > 1_500_000, `${seen.freeAfterCli} bytes free after the CLI`);
    assert.deepEqual(seen.again, { readOnly: false, total: 21 });
    assert.equal(seen.readOnly.code, 'E_IO', JSON.stringify(seen.readOnly));
    assert.match(seen.readOnly.hint, /read-only file system/);
    assert.equal(seen.readOnlySearch, 21);
    ws.cleanup();
  });
});
