#!/usr/bin/env node
// Runs a cargo command (`test` or `clippy`) for the host triple in release mode: the same target
// directory and flags as `napi build --release` (which always passes --target), so Tantivy is
// compiled only once. Only the core has tests: compiling the binding crate's empty test harness
// cost a minute and more; clippy checks the whole workspace.
import { execFileSync, spawnSync } from 'node:child_process';

const [command, ...rest] = process.argv.slice(2);
if (command !== 'test' && command !== 'clippy')
  throw new Error('usage: node scripts/cargo.js test|clippy [cargo arguments]');
const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
if (!host) throw new Error('cannot read the host triple from `rustc -vV`');
const crates = command === 'test' ? ['-p', 'rye-search-core'] : ['--workspace'];
const result = spawnSync('cargo', [command, '--release', ...crates, '--target', host, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
