#!/usr/bin/env node
// Runs a cargo command (`test` or `clippy`) for the host triple in release mode: the same target
// directory and flags as `napi build --release` (which always passes --target), so Tantivy is
// compiled only once. Both crates' tests run (the binding's own harness compiles in ~15 s: it
// reuses the core and N-API builds); clippy checks the whole workspace.
import { execFileSync, spawnSync } from 'node:child_process';

const [command, ...rest] = process.argv.slice(2);
if (command !== 'test' && command !== 'clippy')
  throw new Error('usage: node scripts/cargo.js test|clippy [cargo arguments]');
const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
if (!host) throw new Error('cannot read the host triple from `rustc -vV`');
const result = spawnSync('cargo', [command, '--release', '--workspace', '--target', host, ...rest], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
