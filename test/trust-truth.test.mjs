// Trust and shadows say only what is true, through the Node API, the CLI and MCP:
// shadows only among the searched spaces; signed key documents must verify; the raw key in a
// `pem` slot is a key; ignored trust files are listed; fetch failures have one shape.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { openIndex, rawPublicKey, signText, trustFile } from '../dist/index.js';
import { pyTool, runCli, workspace, connectMcp, wsArgs } from './helpers.mjs';

const author = generateKeyPairSync('ed25519').privateKey;
const other = generateKeyPairSync('ed25519').privateKey;
const nobody = generateKeyPairSync('ed25519').privateKey;

function setup() {
  const ws = workspace();
  const trust = trustFile(author, 'author');
  ws.write('project', {
    [`config/keys/trusted/${trust.name}`]: trust.text,
    'tools/shared/read.py': signText(pyTool({ description: 'read files, project copy' }), 'tool', '.py', author),
    'tools/edited.py': signText(pyTool({ description: 'edited after signing' }), 'tool', '.py', author).replace(
      'edited after',
      'EDITED after',
    ),
  });
  ws.write('core', {
    'tools/shared/read.py': signText(pyTool({ description: 'read files, system copy' }), 'tool', '.py', author),
  });
  return ws;
}

const common = (ws) => [...wsArgs(ws), '--bundle', `core=${ws.bundle('core')}`];

describe('shadows among the searched spaces', () => {
  let ws;
  let index;
  before(async () => {
    ws = setup();
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      systemBundles: [{ id: 'core', root: ws.bundle('core') }],
    });
  });
  after(async () => {
    await index.close();
    ws.cleanup();
  });

  it('Node API: one space searched has nothing to shadow; all spaces keep the annotations', async () => {
    const project = await index.search({ query: 'read', scope: 'tool', space: 'project' });
    assert.equal(project.results.length, 1);
    assert.equal(project.results[0].shadows, undefined);
    const system = await index.search({ query: 'read', scope: 'tool', space: 'system' });
    assert.equal(system.results[0].shadowed_by, undefined);
    const all = await index.search({ query: 'read', scope: 'tool', space: 'all' });
    assert.deepEqual(all.results.find((r) => r.source === 'project').shadows, [{ space: 'system:core' }]);
    assert.equal(all.results.find((r) => r.source === 'system').shadowed_by, 'project');
    // Over all items of the searched spaces, not only the matches: a page of one still says it.
    const one = await index.search({ query: 'project copy', scope: 'tool', space: 'all' });
    assert.deepEqual(one.results[0].shadows, [{ space: 'system:core' }]);
    const [many] = await index.searchMany([{ query: 'read', scope: 'tool', space: 'project' }]);
    assert.equal(many.results[0].shadows, undefined);
  });

  it('CLI: --space project shows no shadows', () => {
    const res = runCli(['search', 'read', '--scope', 'tool', '--space', 'project', '--json', ...common(ws)]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).results[0].shadows, undefined);
  });

  it('signed is true exactly when verified; CLI fetch --json fails with the rye_fetch document', () => {
    const res = runCli(['fetch', 'tool:edited', '--json', ...common(ws)]);
    assert.equal(res.status, 2);
    const body = JSON.parse(res.stdout);
    assert.equal(body.status, 'error');
    assert.equal(body.error_type, 'integrity');
    assert.equal(body.code, 'E_INTEGRITY');
    assert.equal(body.item_id, 'tool:edited');
    assert.match(body.error, /modified/);
    assert.ok(body.hint);
    const missing = runCli(['fetch', 'tool:nope', '--json', ...common(ws)]);
    assert.equal(missing.status, 1);
    assert.deepEqual(Object.keys(JSON.parse(missing.stdout)).sort(), ['code', 'error', 'hint', 'item_id', 'status']);
  });

  it('MCP: rye_fetch query mode with space project has no shadows; its integrity failure has the same fields as the CLI', async () => {
    const { client } = await connectMcp([...common(ws)], { name: 'trust-test' });
    const search = await client.callTool({
      name: 'rye_search',
      arguments: { query: 'read', scope: 'tool', space: 'project' },
    });
    assert.equal(search.structuredContent.results[0].shadows, undefined);
    const query = await client.callTool({
      name: 'rye_fetch',
      arguments: { query: 'read', scope: 'tool', source: 'project' },
    });
    assert.equal(query.structuredContent.results[0].shadows, undefined);
    const refused = await client.callTool({ name: 'rye_fetch', arguments: { item_id: 'tool:edited' } });
    const cli = JSON.parse(runCli(['fetch', 'tool:edited', '--json', ...common(ws)]).stdout);
    assert.deepEqual(Object.keys(JSON.parse(refused.content[0].text)).sort(), Object.keys(cli).sort());
    await client.close();
  });
});

describe('trust documents', () => {
  it('a signed key document must verify: edited, signed by another or an untrusted key, it confers no trust', async () => {
    const ws = workspace();
    const trusted = 'config/keys/trusted';
    const ok = trustFile(author, 'author');
    const signedSelf = trustFile(other, 'other');
    const edited = trustFile(generateKeyPairSync('ed25519').privateKey, 'edited');
    const editedKey = edited.text;
    const foreign = trustFile(generateKeyPairSync('ed25519').privateKey, 'foreign');
    ws.write('project', {
      [`${trusted}/${ok.name}`]: ok.text, // unsigned: trusted, as the user put it there
      [`${trusted}/${signedSelf.name}`]: signText(signedSelf.text, 'config', '.toml', other), // self-signed: trusted
      [`${trusted}/${edited.name}`]: signText(editedKey, 'config', '.toml', author).replace(
        'owner = "edited"',
        'owner = "mallory"',
      ),
      [`${trusted}/${foreign.name}`]: signText(foreign.text, 'config', '.toml', nobody), // signed by a key nobody trusts
      'tools/a.py': signText(pyTool({ description: 'by author' }), 'tool', '.py', author),
      'tools/b.py': signText(pyTool({ description: 'by other' }), 'tool', '.py', other),
    });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const report = await index.verify();
    assert.equal(report.counts.verified, 2);
    const ignored = Object.fromEntries(report.ignoredTrustFiles.map((i) => [path.basename(i.file), i.reason]));
    assert.deepEqual(Object.keys(ignored).sort(), [edited.name, foreign.name].sort());
    assert.match(ignored[edited.name], /modified/);
    assert.match(ignored[foreign.name], /not trusted/);
    const cli = runCli(['verify', ...wsArgs(ws)]);
    assert.match(cli.stdout, /2 trust files ignored/);
    const json = JSON.parse(runCli(['verify', '--json', ...wsArgs(ws)]).stdout);
    assert.equal(json.ignoredTrustFiles.length, 2);
    await index.close();
    ws.cleanup();
  });

  it('accepts [public_key] pem = "ed25519:<base64>", and lists unreadable trust files', async () => {
    const ws = workspace();
    const raw = rawPublicKey(author).toString('base64');
    ws.write('project', {
      'config/keys/trusted/raw-pem.toml': `owner = "author"\n\n[public_key]\npem = "ed25519:${raw}"\n`,
      'config/keys/trusted/nokey.toml': 'owner = "nobody"\n',
      'config/keys/trusted/broken.toml': '[public_key]\npem = """\n',
      'tools/a.py': signText(pyTool({ description: 'by author' }), 'tool', '.py', author),
    });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const res = await index.search({ query: 'author', scope: 'tool' });
    assert.equal(res.results[0].integrity, 'verified');
    const report = await index.verify();
    assert.deepEqual(report.ignoredTrustFiles.map((i) => path.basename(i.file)).sort(), ['broken.toml', 'nokey.toml']);
    // A file TOML cannot read is named with the parser's reason and place, on one line.
    const broken = report.ignoredTrustFiles.find((i) => i.file.endsWith('broken.toml'));
    assert.match(broken.reason, /^[^\n]*unfinished string[^\n]* \(line 2, column \d+\)$/);
    await index.close();
    ws.cleanup();
  });
});

describe('a file rewritten with its old size and mtime', () => {
  it('is read again: its new content and its failed signature show at once (Node API, CLI)', async () => {
    const ws = workspace();
    const trust = trustFile(author, 'author');
    const signed = signText(pyTool({ description: 'reads alpha files' }), 'tool', '.py', author);
    ws.write('project', { [`config/keys/trusted/${trust.name}`]: trust.text, 'tools/read.py': signed });
    const file = path.join(ws.project, '.ai', 'tools', 'read.py');
    // A whole second, which every later utimes sets exactly.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    fs.utimesSync(file, mtime, mtime);
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const before = await index.search({ query: 'alpha', scope: 'tool' });
    assert.equal(before.results[0]?.integrity, 'verified');
    // Same length, mtime set back (as `cp -p`, `rsync -a`, `tar` or `touch -r` leave it).
    const { size } = fs.statSync(file);
    fs.writeFileSync(file, signed.replace('alpha', 'zebra'));
    fs.utimesSync(file, mtime, mtime);
    assert.equal(fs.statSync(file).size, size);
    assert.equal(fs.statSync(file).mtimeMs, mtime.getTime());
    await index.refresh();
    assert.equal((await index.search({ query: 'alpha', scope: 'tool' })).total, 0);
    const tampered = await index.search({ query: 'zebra', scope: 'tool' });
    assert.equal(tampered.results[0]?.integrity, 'modified');
    await index.close();
    // A new process, which may trust the stored scan: the same.
    fs.writeFileSync(file, signed.replace('alpha', 'koala'));
    fs.utimesSync(file, mtime, mtime);
    const cli = runCli(['search', 'koala', '--scope', 'tool', ...wsArgs(ws), '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).results[0]?.integrity, 'modified');
    ws.cleanup();
  });
});
