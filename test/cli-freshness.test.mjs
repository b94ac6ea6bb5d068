// Each CLI command is a new process. It skips the walk of the spaces when the stored scan of the
// last one (rye-scan.bin beside the index) still matches every time and size, and must still
// see every change made a moment before: an edit, a new file or folder, a removal, a rename, a
// new kind folder, a new copy that shadows another, a change of trust, a damaged snapshot.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { signText, trustFile } from '../dist/index.js';
import { knowledge, pyTool, runCli, workspace, wsArgs } from './helpers.mjs';

/** Folders changed less than this before a scan began are not vouched for by their times. */
const RACY_MS = 2000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CLI: a stored scan spares the walk and misses no change', () => {
  const ws = workspace();
  let args;
  const snapshot = () => {
    const [dir] = fs.readdirSync(ws.cache).filter((d) => fs.existsSync(path.join(ws.cache, d, 'rye-state.json')));
    return path.join(ws.cache, dir, 'rye-scan.bin');
  };
  /** The snapshot's identity: the same after a command that used it, new after one that walked. */
  const stamp = () => {
    const st = fs.statSync(snapshot(), { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.mtimeMs}` : 'none';
  };
  const ids = (query, extra = []) => {
    const res = runCli(['search', query, '--json', '--limit', '50', ...args, ...extra]);
    assert.ok(res.status === 0 || res.status === 1, res.stdout + res.stderr);
    return JSON.parse(res.stdout)
      .results.map((r) => `${r.source}:${r.id}`)
      .sort();
  };
  /** Waits out the racy window, then searches twice: the first walks, the second must not. */
  const settle = async () => {
    await sleep(RACY_MS + 200);
    runCli(['search', 'anything', ...args]);
    const walked = stamp();
    assert.notEqual(walked, 'none', 'a scan of folders older than the racy window is stored');
    runCli(['search', 'anything', ...args]);
    assert.equal(stamp(), walked, 'nothing changed: the stored scan was used, not written again');
  };

  before(async () => {
    const files = {};
    for (let i = 0; i < 60; i++)
      files[`knowledge/group${i % 6}/note${i}.md`] = knowledge({ name: `note${i}`, title: `Note ${i} about lanterns` });
    ws.write('project', files);
    ws.write('user', { 'knowledge/user/own.md': knowledge({ name: 'own', title: 'User note about kites' }) });
    args = wsArgs(ws);
    await settle();
  });
  after(() => ws.cleanup());

  it('sees an edit made a moment before (same folder times)', async () => {
    assert.deepEqual(ids('zeppelin'), []);
    const file = path.join(ws.project, '.ai', 'knowledge', 'group1', 'note7.md');
    fs.appendFileSync(file, '\nzeppelin\n');
    assert.deepEqual(ids('zeppelin'), ['project:group1/note7']);
    await settle();
    assert.deepEqual(ids('zeppelin'), ['project:group1/note7']);
    // The same size: only the times tell.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('zeppelin', 'dirigibl'));
    assert.deepEqual(ids('dirigibl'), ['project:group1/note7']);
  });

  it('sees a new file, a new folder and a new kind folder', async () => {
    ws.write('project', {
      'knowledge/group2/fresh.md': knowledge({ name: 'fresh', title: 'Fresh quokka' }),
      'knowledge/deep/er/nested.md': knowledge({ name: 'nested', title: 'Nested quokka' }),
      'tools/quokka_tool.py': pyTool({ description: 'Quokka tool' }),
    });
    assert.deepEqual(ids('quokka'), ['project:deep/er/nested', 'project:group2/fresh', 'project:quokka_tool']);
    await settle();
    assert.deepEqual(ids('quokka'), ['project:deep/er/nested', 'project:group2/fresh', 'project:quokka_tool']);
  });

  it('sees a removal and a rename', async () => {
    const dir = path.join(ws.project, '.ai', 'knowledge', 'group3');
    fs.rmSync(path.join(dir, 'note9.md'));
    fs.renameSync(path.join(dir, 'note15.md'), path.join(dir, 'renamed15.md'));
    const found = ids('lanterns');
    assert.ok(!found.includes('project:group3/note9'));
    assert.ok(!found.includes('project:group3/note15'));
    assert.ok(found.includes('project:group3/renamed15'));
    await settle();
    assert.deepEqual(ids('lanterns'), found);
  });

  it('sees a user space that appears, and keeps shadows after a stored scan', async () => {
    ws.write('user', { 'knowledge/group4/note4.md': knowledge({ name: 'note4', title: 'User copy of lanterns' }) });
    await settle();
    const res = runCli(['search', 'lanterns', '--json', '--limit', '100', ...args]);
    const env = JSON.parse(res.stdout);
    const copy = env.results.find((r) => r.id === 'group4/note4' && r.source === 'project');
    assert.deepEqual(copy?.shadows, [{ space: 'user' }]);
    // fetch finds the item's file from the stored scan too
    const fetched = runCli(['fetch', 'knowledge:group4/note4', '--json', ...args], { env: { RYE_DEV_MODE: '1' } });
    assert.equal(fetched.status, 0, fetched.stdout + fetched.stderr);
    assert.equal(JSON.parse(fetched.stdout).source, 'project');
  });

  it('a space whose folder did not exist is seen when it appears', async () => {
    fs.rmSync(ws.user, { recursive: true, force: true });
    await settle();
    assert.deepEqual(ids('kites'), []);
    ws.write('user', { 'knowledge/kites.md': knowledge({ name: 'kites', title: 'Kites again' }) });
    assert.deepEqual(ids('kites'), ['user:kites']);
  });

  it('a damaged, foreign or special snapshot is ignored, and a stale one is refused by its commit', async () => {
    await settle();
    const good = fs.readFileSync(snapshot());
    const expected = ids('lanterns');
    const damaged = [
      Buffer.alloc(0),
      Buffer.from('RYESCAN1'),
      Buffer.concat([good.subarray(0, good.length >> 1)]),
      Buffer.from(good).fill(0xff, 16, 64),
      Buffer.from(good).fill(0x01, good.length - 4000),
    ];
    for (const bytes of damaged) {
      fs.writeFileSync(snapshot(), bytes);
      assert.deepEqual(ids('lanterns'), expected);
    }
    // A folder, and a FIFO that would block a reader forever.
    fs.rmSync(snapshot(), { force: true });
    fs.mkdirSync(snapshot());
    assert.deepEqual(ids('lanterns'), expected);
    fs.rmSync(snapshot(), { recursive: true });
    execFileSync('mkfifo', [snapshot()]);
    assert.deepEqual(ids('lanterns'), expected);
    fs.rmSync(snapshot());
    // A snapshot of an earlier commit: the files it lists are as they were, the index is not.
    await settle();
    const old = fs.readFileSync(snapshot());
    const file = path.join(ws.project, '.ai', 'knowledge', 'group0', 'note0.md');
    const before = fs.statSync(file);
    fs.writeFileSync(file, knowledge({ name: 'note0', title: 'Note 0 about walruses!' }).padEnd(before.size, ' '));
    assert.deepEqual(ids('walruses'), ['project:group0/note0']);
    // Put back the old text, size and modification time, and the old snapshot: the change time
    // (and the commit) still tell them apart.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('walruses!', 'lanterns!'));
    fs.utimesSync(file, before.atime, before.mtime);
    fs.writeFileSync(snapshot(), old);
    assert.deepEqual(ids('walruses'), []);
  });

  it('a key trusted since the stored scan verifies the items again', async () => {
    const author = generateKeyPairSync('ed25519').privateKey;
    const text = knowledge({ name: 'signed', title: 'Signed platypus' });
    ws.write('project', { 'knowledge/signed.md': signText(text, 'knowledge', '.md', author) });
    await settle();
    const integrity = () =>
      JSON.parse(runCli(['search', 'platypus', '--json', ...args]).stdout).results.map((r) => r.integrity);
    assert.deepEqual(integrity(), ['untrusted']);
    const trusted = trustFile(author, 'tester');
    // The trust store, not the folders of items, tells this change.
    ws.write('user', { [`config/keys/trusted/${trusted.name}`]: trusted.text });
    assert.deepEqual(integrity(), ['verified']);
  });
});
