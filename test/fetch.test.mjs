// ID mode (fetch) and the verify report, through the Node API and the CLI.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { openIndex, signText, trustFile } from '../dist/index.js';
import { directive, knowledge, pyTool, runCli, workspace, wsArgs } from './helpers.mjs';

const author = generateKeyPairSync('ed25519').privateKey;
const sign = (text, kind, ext, generation = 2) => signText(text, kind, ext, author, { generation });

describe('fetch by id', () => {
  const ws = workspace();
  let index;
  before(async () => {
    const trust = trustFile(author, 'author', 1);
    ws.write('user', {
      [`config/keys/trusted/${trust.name}`]: trust.text,
      'tools/rye/x/t.py': sign(pyTool({ description: 'user copy', version: '2.1.0' }), 'tool', '.py'),
      'directives/shared/name.md': sign(directive('name', 'a directive'), 'directive', '.md', 1),
    });
    ws.write('core', {
      'tools/rye/x/t.py': sign(pyTool({ description: 'system copy' }), 'tool', '.py', 1),
      'directives/rye/core/init.md': sign(directive('init', 'Initialise'), 'directive', '.md', 1),
      'knowledge/shared/name.md': sign(knowledge({ title: 'same id, other kind' }), 'knowledge', '.md'),
      // A name in NFD, as macOS file systems write it.
      'knowledge/notes/cafe\u0301.md': sign(knowledge({ title: 'Café notes' }), 'knowledge', '.md'),
    });
    ws.write('project', {
      'tools/unsigned.py': pyTool({ description: 'no signature' }),
      'tools/edited.py': sign(pyTool({ description: 'signed' }), 'tool', '.py').replace('signed"', 'changed"'),
    });
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      systemBundles: [{ id: 'core', root: ws.bundle('core') }],
    });
  });
  after(() => ws.cleanup());

  it('cascades project → user → system and returns the exact file with seed metadata', async () => {
    const res = await index.fetch({ item_id: 'tool:rye/x/t' });
    assert.equal(res.status, 'success');
    assert.equal(res.source, 'user');
    const file = path.join(ws.user, '.ai', 'tools', 'rye', 'x', 't.py');
    assert.equal(res.path, file);
    assert.equal(res.content, fs.readFileSync(file, 'utf8'));
    assert.deepEqual(res.metadata, { name: 't', path: file, extension: '.py', version: '2.1.0' });
    assert.equal(res.integrity, 'verified');
  });

  it('a copy the system refuses is E_IO naming the call (it was E_INTERNAL, "a bug")', () => {
    // The user space is a file: its .ai/ cannot be made.
    const file = path.join(ws.root, 'a-file');
    fs.writeFileSync(file, 'not a folder');
    const args = [
      'fetch',
      'directive:rye/core/init',
      '--destination',
      'user',
      '--json',
      '--bundle',
      `core=${ws.bundle('core')}`,
    ];
    const where = ['--project', ws.project, '--user-space', file, '--cache-dir', ws.cache, '--no-default-bundle'];
    // (The trusted key lives in the user space this run replaces: loaded as a developer would.)
    const run = runCli([...args, ...where], { env: { RYE_DEV_MODE: '1' } });
    assert.equal(run.status, 2, run.stdout + run.stderr);
    const { error } = JSON.parse(run.stdout);
    assert.equal(error.code, 'E_IO', run.stdout);
    assert.match(error.message, /ENOTDIR/);
    assert.match(error.hint, /refused mkdir \(ENOTDIR\)/);
  });

  it('looks only in the given source', async () => {
    const res = await index.fetch({ item_id: 'rye/x/t', item_type: 'tool', source: 'system' });
    assert.equal(res.source, 'system');
    assert.equal(res.bundle, 'core');
    assert.match(res.content, /system copy/);
    await assert.rejects(index.fetch({ item_id: 'tool:rye/x/t', source: 'project' }), { code: 'E_NOT_FOUND' });
    await assert.rejects(index.fetch({ item_id: 'tool:rye/x/t', source: 'registry' }), {
      code: 'E_INVALID_ARGUMENT',
      message: /no registry/,
    });
    // An id of any length is answered, its echo in the error cut short.
    await assert.rejects(index.fetch({ item_id: `rye/${'y'.repeat(20_000)}` }), (err) => {
      return err.code === 'E_NOT_FOUND' && err.message.length < 1000 && err.hint.length < 1000;
    });
  });

  it("an item's name, or the end of its id, is not found but its ids are named (Node API, CLI, MCP)", async () => {
    const hint = async (opts) => {
      const err = await index.fetch(opts).catch((e) => e);
      assert.equal(err.code, 'E_NOT_FOUND');
      return err.hint;
    };
    assert.match(await hint({ item_id: 'init' }), /^did you mean "directive:rye\/core\/init"\? looked for/);
    assert.match(await hint({ item_id: 'core/init' }), /did you mean "directive:rye\/core\/init"/);
    assert.match(await hint({ item_id: 'name' }), /did you mean "directive:shared\/name", "knowledge:shared\/name"\?/);
    // Only the kinds and spaces asked for; a segment is whole ("nit" ends no id's segments).
    assert.doesNotMatch(await hint({ item_id: 'tool:init' }), /did you mean/);
    assert.doesNotMatch(await hint({ item_id: 'init', source: 'project' }), /did you mean/);
    assert.doesNotMatch(await hint({ item_id: 'nit' }), /did you mean/);
    const cli = runCli(['fetch', 'init', '--json', ...wsArgs(ws), '--bundle', `core=${ws.bundle('core')}`]);
    assert.match(cli.stdout + cli.stderr, /did you mean \\?"directive:rye\/core\/init/);
  });

  it('finds an item whose file name is in another Unicode form than the id asked (NFC / NFD)', async () => {
    const nfd = 'notes/cafe\u0301';
    for (const asked of [nfd, nfd.normalize('NFC'), `knowledge:${nfd.normalize('NFC')}`]) {
      const res = await index.fetch({ item_id: asked });
      assert.equal(res.status, 'success', asked);
      // The id as the file spells it, as a search returns it.
      assert.equal(res.item_id, nfd);
      assert.equal(res.metadata.name, 'cafe\u0301');
    }
    const found = await index.search({ query: 'cafe', scope: 'knowledge' });
    assert.ok(found.results.some((r) => r.id === nfd));
    // `like` finds the item by either form too (and leaves it out of its own answer).
    const like = await index.search({ like: `knowledge:${nfd.normalize('NFC')}` });
    assert.ok(like.results.every((r) => r.id !== nfd));
  });

  it('takes space as the alias of source, resolved in one place for fetch and search', async () => {
    const res = await index.fetch({ item_id: 'tool:rye/x/t', space: 'system' });
    assert.equal(res.source, 'system');
    await assert.rejects(index.fetch({ item_id: 'tool:rye/x/t', space: 'user', source: 'system' }), /disagree/);
    await assert.rejects(index.fetch({ item_id: 'tool:rye/x/t', space: 3 }), { code: 'E_INVALID_ARGUMENT' });
    await assert.rejects(index.search({ query: 't', source: 'registry' }), { message: /no registry/ });
  });

  it('a bare id under several kinds is ambiguous; item_type resolves it', async () => {
    await assert.rejects(index.fetch({ item_id: 'shared/name' }), (err) => {
      assert.equal(err.code, 'E_AMBIGUOUS');
      assert.match(err.message, /directive, knowledge/);
      return true;
    });
    assert.equal((await index.fetch({ item_id: 'shared/name', item_type: 'knowledge' })).item_type, 'knowledge');
    assert.equal((await index.fetch({ item_id: 'rye/core/init' })).item_type, 'directive');
  });

  it('refuses items that are not verified, unless RYE_DEV_MODE=1', async () => {
    for (const [id, cls] of [
      ['unsigned', 'unsigned'],
      ['edited', 'modified'],
    ]) {
      await assert.rejects(index.fetch({ item_id: `tool:${id}` }), (err) => {
        assert.equal(err.code, 'E_INTEGRITY');
        assert.match(err.message, new RegExp(cls));
        assert.match(err.hint, /RYE_DEV_MODE=1/);
        return true;
      });
    }
    process.env.RYE_DEV_MODE = '1';
    try {
      const res = await index.fetch({ item_id: 'tool:unsigned' });
      assert.equal(res.integrity, 'unsigned');
      assert.match(res.warning, /RYE_DEV_MODE/);
    } finally {
      delete process.env.RYE_DEV_MODE;
    }
    process.env.RYE_DEV_MODE = 'true';
    try {
      await assert.rejects(index.fetch({ item_id: 'tool:unsigned' }), { code: 'E_INTEGRITY' });
    } finally {
      delete process.env.RYE_DEV_MODE;
    }
  });

  it('copies to a destination keeping the nested path, and never silently overwrites', async () => {
    const res = await index.fetch({ item_id: 'directive:rye/core/init', destination: 'project' });
    const target = path.join(ws.project, '.ai', 'directives', 'rye', 'core', 'init.md');
    assert.equal(res.copied_to, 'project');
    assert.equal(res.destination_path, target);
    assert.equal(fs.readFileSync(target, 'utf8'), res.content);
    // The same bytes again: fine. Different bytes: refused unless overwrite.
    await index.fetch({ item_id: 'directive:rye/core/init', source: 'system', destination: 'project' });
    fs.writeFileSync(target, 'local edits');
    await assert.rejects(
      index.fetch({ item_id: 'directive:rye/core/init', source: 'system', destination: 'project' }),
      { code: 'E_EXISTS' },
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'local edits');
    await index.fetch({
      item_id: 'directive:rye/core/init',
      source: 'system',
      destination: 'project',
      overwrite: true,
    });
    assert.equal(fs.readFileSync(target, 'utf8'), res.content);
    // Found in the project already: no copy.
    const local = await index.fetch({ item_id: 'directive:rye/core/init', destination: 'project' });
    assert.equal(local.copied_to, undefined);
    await assert.rejects(index.fetch({ item_id: 'directive:rye/core/init', destination: 'system' }), {
      code: 'E_INVALID_ARGUMENT',
    });
  });

  it('rejects ids that could leave a space', async () => {
    const hostile = [
      '../../etc/passwd',
      'tool:../x',
      '/etc/passwd',
      'C:\\x',
      'a/../../b',
      'a\0b',
      'a%2f..%2fb',
      '..%2F..',
      'a\\..\\b',
      'tool:',
      '',
      'a//b',
      './a',
      '.hidden/x',
      '_private/x',
    ];
    for (const item_id of hostile) {
      await assert.rejects(
        index.fetch({ item_id }),
        (err) => ['E_INVALID_ID', 'E_INVALID_ARGUMENT'].includes(err.code),
        JSON.stringify(item_id),
      );
    }
  });

  it('rejects links that leave the space', async (t) => {
    const outside = path.join(ws.root, 'outside.py');
    fs.writeFileSync(outside, sign(pyTool({ description: 'outside' }), 'tool', '.py'));
    try {
      fs.symlinkSync(outside, path.join(ws.project, '.ai', 'tools', 'escape.py'));
    } catch {
      t.skip('symlinks not permitted');
      return;
    }
    await assert.rejects(index.fetch({ item_id: 'tool:escape' }), { code: 'E_INVALID_ID' });
  });

  it('verify() reports every non-verified item with a reason', async () => {
    await index.refresh();
    const report = await index.verify();
    assert.equal(report.counts.unsigned, 1);
    assert.equal(report.counts.modified, 1);
    assert.ok(report.counts.verified >= 5);
    assert.deepEqual(report.problems.map((p) => p.id).sort(), ['edited', 'unsigned']);
    assert.ok(report.problems.every((p) => p.reason.length > 0));
    // Named items only: kind:id or a bare id; an id of no item is an error, a bad id too.
    const some = await index.verify(['tool:unsigned', 'edited']);
    assert.equal(some.total, 2);
    assert.deepEqual(some.problems.map((p) => [p.id, p.integrity]).sort(), [
      ['edited', 'modified'],
      ['unsigned', 'unsigned'],
    ]);
    await assert.rejects(index.verify(['tool:nothing-here']), { code: 'E_NOT_FOUND' });
    await assert.rejects(index.verify(['../etc']), { code: 'E_INVALID_ID' });
    // What a refusal echoes is bounded, however long the value: an id past the longest an item
    // can have (4,096 bytes), an unknown kind, are named by their start.
    const long = 'é'.repeat(2049);
    await assert.rejects(index.verify([long]), (err) => err.code === 'E_NOT_FOUND' && err.message.length < 400);
    const { items } = await index.fetchMany({ item_ids: [long, 'edited'], item_type: 'k'.repeat(100_000) });
    assert.deepEqual(
      items.map((i) => [i.code, i.error.length < 400, (i.item_type ?? '').length < 400, i.item_id.length < 400]),
      [
        ['E_INVALID_ARGUMENT', true, true, true],
        ['E_INVALID_ARGUMENT', true, true, true],
      ],
    );
    const [tooLong, other] = (await index.fetchMany({ item_ids: [`tool:${'x'.repeat(100_000)}`, 'nothing/here'] }))
      .items;
    assert.deepEqual([tooLong.code, tooLong.item_id.length < 400], ['E_NOT_FOUND', true]);
    // An id that could name an item is echoed whole.
    assert.equal(other.item_id, 'nothing/here');
  });
});

describe('fetch and verify CLI', () => {
  const ws = workspace();
  let common;
  before(() => {
    const trust = trustFile(author, 'author', 2);
    ws.write('project', {
      [`config/keys/trusted/${trust.name}`]: trust.text,
      'tools/good.py': sign(pyTool({ description: 'good' }), 'tool', '.py'),
    });
    common = [...wsArgs(ws)];
  });
  after(() => ws.cleanup());

  it('fetch prints the content, --json the response; not found exits 1; integrity refusal exits 2', () => {
    const res = runCli(['fetch', 'tool:good', ...common]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stdout, fs.readFileSync(path.join(ws.project, '.ai/tools/good.py'), 'utf8'));
    assert.match(res.stderr, /verified/);
    const json = JSON.parse(runCli(['fetch', 'good', '--type', 'tool', '--json', ...common]).stdout);
    assert.equal(json.status, 'success');
    assert.equal(runCli(['fetch', 'tool:missing', ...common]).status, 1);
    ws.write('project', { 'tools/bad.py': pyTool() });
    const bad = runCli(['fetch', 'tool:bad', ...common]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /E_INTEGRITY/);
    assert.equal(runCli(['fetch', 'tool:bad', ...common], { env: { RYE_DEV_MODE: '1' } }).status, 0);
    assert.equal(runCli(['fetch', '../x', ...common]).status, 2);
  });

  it('verify summarises by class and exits 1 when something is not verified', () => {
    const res = runCli(['verify', ...common]);
    assert.equal(res.status, 1);
    assert.match(res.stdout, /1 verified, 1 unsigned/);
    assert.match(res.stdout, /unsigned\s+tool\s+project\s+bad/);
    const one = runCli(['verify', 'tool:bad', ...common]);
    assert.equal(one.status, 1);
    assert.match(one.stdout, /^1 item: 0 verified, 1 unsigned/);
    assert.equal(runCli(['verify', 'good', ...common]).status, 0);
    const missing = runCli(['verify', 'tool:missing', ...common]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /not found: tool:missing/);
    fs.rmSync(path.join(ws.project, '.ai/tools/bad.py'));
    const ok = runCli(['verify', '--json', ...common]);
    assert.equal(ok.status, 0, ok.stdout);
    assert.equal(JSON.parse(ok.stdout).counts.verified, 1);
  });
});
