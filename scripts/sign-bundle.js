#!/usr/bin/env node
// Re-signs the embedded documentation bundle with the release key and writes the key's public
// half into the bundle's trust store. The private key never enters the repository.
//
//   node scripts/sign-bundle.js --key /path/to/release-key.pem            # re-sign
//   node scripts/sign-bundle.js --key /path/to/new-key.pem --new-key      # create a key first
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { signText, trustFile } from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bundle', '.ai');
const { values } = parseArgs({
  options: { key: { type: 'string' }, 'new-key': { type: 'boolean' }, owner: { type: 'string' } },
});
if (!values.key) {
  console.error('usage: node scripts/sign-bundle.js --key PRIVATE_KEY.pem [--new-key] [--owner NAME]');
  process.exit(2);
}
const keyPath = path.resolve(values.key);
if (keyPath.startsWith(path.resolve(root, '..', '..') + path.sep)) {
  console.error('refusing to keep a private key inside the repository');
  process.exit(2);
}
if (values['new-key']) {
  if (fs.existsSync(keyPath)) {
    console.error(`${keyPath} exists; not overwriting a key`);
    process.exit(2);
  }
  const { privateKey } = generateKeyPairSync('ed25519');
  fs.mkdirSync(path.dirname(keyPath), { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  console.error(`created ${keyPath}`);
}
const key = createPrivateKey(fs.readFileSync(keyPath));

const trustedDir = path.join(root, 'config', 'keys', 'trusted');
fs.rmSync(trustedDir, { recursive: true, force: true });
fs.mkdirSync(trustedDir, { recursive: true });
const trust = trustFile(key, values.owner ?? 'rye-search-release', 2);
fs.writeFileSync(path.join(trustedDir, trust.name), trust.text);

const KINDS = { directives: 'directive', tools: 'tool', knowledge: 'knowledge' };
let signed = 0;
for (const [folder, kind] of Object.entries(KINDS)) {
  const dir = path.join(root, folder);
  if (!fs.existsSync(dir)) continue;
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile()) continue;
    fs.writeFileSync(file, signText(fs.readFileSync(file, 'utf8'), kind, path.extname(file), key, { generation: 2 }));
    signed++;
  }
}
console.error(`signed ${signed} items; trusted key ${trust.name}`);
