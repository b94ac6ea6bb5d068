// A damaged index cache (truncated or flipped files, garbage metadata) never aborts the process:
// the next command rebuilds it from the files and answers as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { rng } from './fixtures/unicode-cases.mjs';
import { runCli, workspace, wsArgs } from '../helpers.mjs';

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
});
