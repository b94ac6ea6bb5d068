// Signature verification: vectors made with keys generated here, in both generations.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openIndex, signText, trustFile, TrustStore, verifyText } from '../dist/index.js';
import { directive, knowledge, pyTool, tmpdir, workspace, writeTree } from './helpers.mjs';

const author = generateKeyPairSync('ed25519').privateKey;
const stranger = generateKeyPairSync('ed25519').privateKey;

function storeTrusting(key, generation = 2) {
  const dir = tmpdir('rye-trust-');
  const file = trustFile(key, 'tester', generation);
  writeTree(dir, { [`.ai/config/keys/trusted/${file.name}`]: file.text });
  return TrustStore.load([{ label: 'project', kind: 'project', aiDir: path.join(dir, '.ai'), rank: 0 }]);
}

const SAMPLES = [
  ['directive', '.md', directive('deploy', 'Deploy the app', { body: 'Prose after.' })],
  ['knowledge', '.md', knowledge({ title: 'Notes', version: '1.0.0' }, 'Body of notes.')],
  ['knowledge', '.md', '---\ntitle: Front\n---\nFront matter body.\n'],
  ['knowledge', '.yaml', 'title: Plain yaml\nbody: text\n'],
  ['tool', '.py', pyTool({ description: 'tool' })],
  ['tool', '.py', `#!/usr/bin/env python3\n${pyTool({ description: 'script' })}`],
  ['tool', '.yaml', 'version: "1.0.0"\ndescription: yaml tool\n'],
  ['tool', '.js', '#!/usr/bin/env node\n// Says hi\nconsole.log("hi");\n'],
  ['tool', '.ts', 'export const x = 1;\n'],
  ['tool', '.sh', '#!/bin/sh\necho hi\n'],
  ['tool', '.toml', 'description = "toml"\n'],
];

describe('verification vectors', () => {
  for (const generation of [1, 2]) {
    const trusted = storeTrusting(author, generation);
    for (const [kind, ext, text] of SAMPLES) {
      it(`v${generation} ${kind}${ext}${text.startsWith('#!') ? ' with shebang' : ''}: verified, then tampered, swapped, moved`, () => {
        const signed = signText(text, kind, ext, author, { generation });
        const line = signed.startsWith('#!') ? signed.split('\n')[1] : signed.split('\n')[0];
        assert.match(
          line,
          ext === '.md'
            ? /^<!-- rye:signed:.* -->$/
            : ['.js', '.ts'].includes(ext)
              ? /^\/\/ rye:signed:/
              : /^# rye:signed:/,
        );
        assert.equal(line.split(':').at(-1).replace(' -->', '').length, generation === 1 ? 16 : 64);
        const ok = verifyText(signed, kind, ext, trusted);
        assert.deepEqual([ok.integrity, ok.signed, ok.generation], ['verified', true, generation], ok.reason);

        // One changed byte in what the signature covers (v1 directives cover only the XML).
        const end = signed.includes('</directive>') ? signed.lastIndexOf('</directive>') : signed.length;
        const at = signed.lastIndexOf('e', end);
        const tampered = `${signed.slice(0, at)}E${signed.slice(at + 1)}`;
        assert.equal(verifyText(tampered, kind, ext, trusted).integrity, 'modified');

        // Same content signed by a key nobody trusts.
        const foreign = signText(text, kind, ext, stranger, { generation });
        const f = verifyText(foreign, kind, ext, trusted);
        assert.equal(f.integrity, 'untrusted');
        assert.match(f.reason, /untrusted key/);

        // A signature line that is not where it belongs does not count.
        const lines = signed.split('\n');
        const sigIndex = signed.startsWith('#!') ? 1 : 0;
        const [sig] = lines.splice(sigIndex, 1);
        lines.splice(lines.length - 1, 0, sig);
        assert.equal(verifyText(lines.join('\n'), kind, ext, trusted).integrity, 'unsigned');

        assert.equal(verifyText(text, kind, ext, trusted).integrity, 'unsigned');
      });
    }
  }

  it('a bad signature over the right hash is invalid; malformed lines are invalid', () => {
    const trusted = storeTrusting(author, 2);
    const signed = signText('x = 1\n', 'tool', '.py', author);
    const parts = signed.split('\n')[0].split(':');
    const sig = Buffer.from(parts[parts.length - 2], 'base64');
    sig[0] ^= 1;
    parts[parts.length - 2] = sig.toString('base64');
    const forged = [parts.join(':'), ...signed.split('\n').slice(1)].join('\n');
    assert.equal(verifyText(forged, 'tool', '.py', trusted).integrity, 'invalid');
    for (const line of [
      '# rye:signed:garbage',
      '# rye:signed:2026-01-01T00:00:00Z:abc:def:0123456789abcdef',
      '<!-- rye:signed:x -->',
    ]) {
      const v = verifyText(`${line}\nx = 1\n`, 'tool', '.py', trusted);
      assert.equal(v.integrity, 'invalid', line);
      assert.match(v.reason, /malformed/);
    }
  });

  it('v1 signatures accept padded base64url; v1 directive prose and --- front matter are not covered', () => {
    const trusted = storeTrusting(author, 1);
    const d = signText(directive('x', 'desc', { body: 'prose' }), 'directive', '.md', author, { generation: 1 });
    assert.equal(verifyText(d.replace('prose', 'edited prose'), 'directive', '.md', trusted).integrity, 'verified');
    assert.equal(verifyText(d.replace('desc', 'DESC'), 'directive', '.md', trusted).integrity, 'modified');
    const k = signText('---\ntitle: a\n---\nbody\n', 'knowledge', '.md', author, { generation: 1 });
    assert.equal(verifyText(k.replace('title: a', 'title: b'), 'knowledge', '.md', trusted).integrity, 'verified');
    const [line, ...rest] = k.split('\n');
    const m = /:([A-Za-z0-9_-]+):([0-9a-f]{16}) -->$/.exec(line);
    const padded = line.replace(`:${m[1]}:`, `:${m[1]}==:`);
    assert.equal(verifyText([padded, ...rest].join('\n'), 'knowledge', '.md', trusted).integrity, 'verified');
  });

  it('a key trusted through either file format verifies both generations', () => {
    for (const fileGen of [1, 2]) {
      const trusted = storeTrusting(author, fileGen);
      for (const sigGen of [1, 2]) {
        assert.equal(
          verifyText(signText('a: 1\n', 'tool', '.yaml', author, { generation: sigGen }), 'tool', '.yaml', trusted)
            .integrity,
          'verified',
        );
      }
    }
  });

  it('ignores a trust file whose key does not match its fingerprint', () => {
    const dir = tmpdir('rye-trust-');
    const good = trustFile(author, 'author', 1);
    const wrong = good.text.replace(/fingerprint = "[0-9a-f]+"/, 'fingerprint = "0000000000000000"');
    writeTree(dir, { '.ai/config/keys/trusted/0000000000000000.toml': wrong });
    const store = TrustStore.load([{ label: 'project', kind: 'project', aiDir: path.join(dir, '.ai'), rank: 0 }]);
    assert.equal(store.keys.size, 0);
    assert.match(store.ignored[0].reason, /does not match its fingerprint/);
    assert.equal(
      verifyText(signText('x\n', 'tool', '.py', author, { generation: 1 }), 'tool', '.py', store).integrity,
      'untrusted',
    );
  });
});

describe('integrity in search results', () => {
  it('every result carries signed and integrity; filters select on them; trust changes re-verify', async () => {
    const ws = workspace();
    const trust = trustFile(author, 'author', 2);
    ws.write('project', {
      'tools/good.py': signText(pyTool({ description: 'widget good' }), 'tool', '.py', author),
      'tools/edited.py': signText(pyTool({ description: 'widget edited' }), 'tool', '.py', author).replace(
        'edited',
        'EDITED',
      ),
      'tools/foreign.py': signText(pyTool({ description: 'widget foreign' }), 'tool', '.py', stranger),
      'tools/plain.py': pyTool({ description: 'widget plain' }),
    });
    ws.write('user', { [`config/keys/trusted/${trust.name}`]: trust.text });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const classes = async (filters) =>
      Object.fromEntries(
        (await index.search({ query: 'widget', scope: 'tool', filters })).results.map((r) => [
          r.id,
          `${r.integrity}/${r.signed}`,
        ]),
      );
    // `signed` is true exactly when the signature is valid and trusted.
    assert.deepEqual(await classes(), {
      good: 'verified/true',
      edited: 'modified/false',
      foreign: 'untrusted/false',
      plain: 'unsigned/false',
    });
    assert.deepEqual(Object.keys(await classes({ integrity: 'verified' })), ['good']);
    assert.deepEqual(Object.keys(await classes({ signed: true })), ['good']);
    assert.deepEqual(Object.keys(await classes({ signed: false })).sort(), ['edited', 'foreign', 'plain']);
    assert.deepEqual(Object.keys(await classes({ integrity: ['modified', 'untrusted'] })).sort(), [
      'edited',
      'foreign',
    ]);

    const strangerTrust = trustFile(stranger, 'stranger', 1);
    ws.write('project', { [`config/keys/trusted/${strangerTrust.name}`]: strangerTrust.text });
    await index.refresh();
    assert.equal((await classes()).foreign, 'verified/true');
    fs.rmSync(path.join(ws.user, '.ai', 'config'), { recursive: true });
    await index.refresh();
    assert.equal((await classes()).good, 'untrusted/false');
    ws.cleanup();
  });
});
