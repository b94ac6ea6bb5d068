#!/usr/bin/env node
// Runs `cargo test` for the host triple in release mode: the same target directory and flags as
// `napi build --release` (which always passes --target), so Tantivy is compiled only once. Only
// the core has tests: compiling the binding crate's empty test harness cost a minute and more.
import { execFileSync, spawnSync } from 'node:child_process';

const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
if (!host) throw new Error('cannot read the host triple from `rustc -vV`');
const args = ['test', '--release', '-p', 'rye-search-core', '--target', host, ...process.argv.slice(2)];
const result = spawnSync('cargo', args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
