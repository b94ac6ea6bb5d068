#!/usr/bin/env node
// Fails when the committed napi binding files differ from what the build just generated.
import { execFileSync } from 'node:child_process';

const files = ['native/binding.cjs', 'native/binding.d.cts'];
try {
  execFileSync('git', ['diff', '--exit-code', '--', ...files], { stdio: 'inherit' });
  console.log(`generated binding files are up to date (${files.join(', ')})`);
} catch (err) {
  if (err.status === 1) {
    console.error('the generated binding files are stale: commit the output of `npm run build:native`');
    process.exit(1);
  }
  console.log('not a git checkout: skipping the generated-file check');
}
