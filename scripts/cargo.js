#!/usr/bin/env node
// Runs a cargo command (`test` or `clippy`) for the host triple in release mode: the same target
// directory and flags as `napi build --release` (which always passes --target), so Tantivy is
// compiled only once. Both crates' tests run (the binding's own harness compiles in ~15 s: it
// reuses the core and N-API builds); clippy checks the whole workspace.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [command, ...rest] = process.argv.slice(2);
if (command !== 'test' && command !== 'clippy')
  throw new Error('usage: node scripts/cargo.js test|clippy [cargo arguments]');
const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
if (!host) throw new Error('cannot read the host triple from `rustc -vV`');
// `napi build` hands the binding's build script NAPI_TYPE_DEF_TMP_FOLDER, which cargo fingerprints:
// without the same value here, each switch between `npm run build` and this recompiled the
// binding (30 s, then 7 s back).
const env = { ...process.env };
const typeDefs = path.resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'napi-rs');
const folders = fs.existsSync(typeDefs) ? fs.readdirSync(typeDefs).filter((n) => n.startsWith('rye-search-node-')) : [];
if (folders.length === 1 && !env.NAPI_TYPE_DEF_TMP_FOLDER)
  env.NAPI_TYPE_DEF_TMP_FOLDER = path.join(typeDefs, folders[0]);
const result = spawnSync('cargo', [command, '--release', '--workspace', '--target', host, ...rest], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
