#!/usr/bin/env node
// Fails when a file the build or `npm install` writes differs from the committed one: the napi
// binding files (commit the output of `npm run build:native`), and the lock file (a fresh
// clone's `npm install` must leave it as it is: record every platform's optional packages).
import { execFileSync } from 'node:child_process';

const checks = [
  { files: ['native/binding.cjs', 'native/binding.d.cts'], stale: 'commit the output of `npm run build:native`' },
  { files: ['package-lock.json'], stale: '`npm install` rewrote it: commit the lock it writes' },
];
for (const { files, stale } of checks) {
  try {
    execFileSync('git', ['diff', '--exit-code', '--', ...files], { stdio: 'inherit' });
    console.log(`up to date: ${files.join(', ')}`);
  } catch (err) {
    if (err.status === 1) {
      console.error(`${files.join(', ')} differ from the committed files: ${stale}`);
      process.exit(1);
    }
    console.log('not a git checkout: skipping the generated-file check');
    break;
  }
}
