// A damaged index cache (truncated or flipped files, garbage metadata) never aborts the process:
// the next command rebuilds it from the files and answers as before. An index whose files are
// removed while it is open (a cache cleared by hand or pruned by another process) is made again
// at the next refresh: the Node API and a long-lived MCP server go on answering in full.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { rng } from './fixtures/unicode-cases.mjs';
import { openIndex } from '../../dist/index.js';
import { connectMcp, runCli, workspace, wsArgs, wsOptions } from '../helpers.mjs';

const ITEMS = 300;

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
});
