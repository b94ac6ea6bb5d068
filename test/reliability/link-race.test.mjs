// A file or folder of a space swapped for a link to an outside file while refreshes run: the
// outside text is never indexed, shown in a preview or served by fetch. The check is made on
// what was opened, not on the path before opening (188 of 10,189 refreshes leaked it before).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openIndex } from '../../dist/index.js';
import { knowledge, workspace, wsOptions } from '../helpers.mjs';

const REFRESHES = Math.max(300, Math.floor(Number(process.env.RYE_FUZZ_CASES ?? 3000) / 5));

/** Swaps `file` (and the folder `dir`) between their own content and links leading outside, until killed. */
const SWAPPER = `
const fs = require('node:fs');
const [file, dir, outsideFile, outsideDir, own] = process.argv.slice(1);
const stop = Date.now() + 120000;
let n = 0;
while (Date.now() < stop) {
  const tmp = file + '.' + (n++ % 2) + '.tmp';
  try {
    if (n % 2) { fs.writeFileSync(tmp, own); } else { fs.rmSync(tmp, { force: true }); fs.symlinkSync(outsideFile, tmp); }
    fs.renameSync(tmp, file);
    fs.rmSync(dir, { recursive: true, force: true });
    if (n % 2) { fs.mkdirSync(dir); fs.writeFileSync(dir + '/inner.md', own); } else { fs.symlinkSync(outsideDir, dir); }
  } catch {}
}
`;

describe('link swapped in during a refresh', () => {
  it('outside text never reaches the index, a preview or fetch', async () => {
    const ws = workspace();
    const own = knowledge({ name: 'note', title: 'alpha note', description: 'alpha inside the space' });
    ws.write('project', { 'knowledge/note.md': own, 'knowledge/other.md': own });
    const outside = path.join(ws.root, 'outside');
    fs.mkdirSync(outside);
    const secret = knowledge({ name: 'note', title: 'alpha zebrasecret', description: 'zebrasecret outside' });
    fs.writeFileSync(path.join(outside, 'secret.md'), secret);
    fs.writeFileSync(path.join(outside, 'inner.md'), secret);
    const knowledgeDir = path.join(ws.project, '.ai', 'knowledge');
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        SWAPPER,
        path.join(knowledgeDir, 'note.md'),
        path.join(knowledgeDir, 'sub'),
        path.join(outside, 'secret.md'),
        outside,
        own,
      ],
      { stdio: 'ignore' },
    );
    // Fetch serves the unsigned note only in development mode.
    process.env.RYE_DEV_MODE = '1';
    const index = await openIndex(wsOptions(ws));
    let leaks = 0;
    try {
      for (let i = 0; i < REFRESHES; i++) {
        await index.refresh();
        const res = await index.search({ query: 'zebrasecret OR alpha', mode: 'keyword', limit: 20 });
        const fetched = await index.fetch({ item_id: 'knowledge:note' }).catch((err) => err.message);
        if (/zebrasecret/.test(JSON.stringify([res.results, fetched]))) leaks++;
      }
    } finally {
      swapper.kill();
      delete process.env.RYE_DEV_MODE;
      await index.close();
    }
    assert.equal(leaks, 0, `outside text shown after ${leaks} of ${REFRESHES} refreshes`);
    ws.cleanup();
  });
});
