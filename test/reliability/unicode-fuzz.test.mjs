// Seeded Unicode fuzzer through the public Node API, previews on: documents in many scripts and
// forms × queries drawn from their words. Each batch runs in a child process, so an abort (a
// native panic that escaped) fails the test and leaves the case that caused it in a file.
// RYE_FUZZ_CASES raises the number of cases (default 3000).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { tmpdir } from '../helpers.mjs';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'unicode-child.mjs');
const CASES = Number(process.env.RYE_FUZZ_CASES || 3000);
const BATCH = 500;

function runBatch(from, to, progress) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, String(from), String(to), progress], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    });
  });
}

describe('Unicode fuzzer', () => {
  it(`${CASES} seeded cases of many scripts and forms, previews on: no abort, typed errors, words found`, async () => {
    const dir = tmpdir('rye-fuzz-');
    const totals = { cases: 0, searches: 0, answered: 0, refused: 0 };
    for (let from = 0; from < CASES; from += BATCH) {
      const progress = path.join(dir, `case-${from}.json`);
      const r = await runBatch(from, Math.min(CASES, from + BATCH), progress);
      const last = fs.existsSync(progress) ? fs.readFileSync(progress, 'utf8') : '(none)';
      assert.equal(
        r.code,
        0,
        `batch ${from} died (${r.signal ?? r.code}); case saved in ${progress}: ${last.slice(0, 400)}\n${r.err.slice(-800)}`,
      );
      const summary = JSON.parse(r.out.trim().split('\n').pop());
      assert.deepEqual(summary.problems.slice(0, 5), [], `${summary.problems.length} problems`);
      for (const k of Object.keys(totals)) totals[k] += summary[k];
    }
    assert.equal(totals.cases, CASES);
    assert.ok(totals.answered > totals.searches / 2, JSON.stringify(totals));
    console.log(`unicode fuzz: ${JSON.stringify(totals)}`);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
