// What one `search()` costs in instructions, not seconds (issue #64: the facade around the native
// search): the same loop as `facade-overhead.js` (a one-item memory index, a plain query answered
// on the JS thread) under `valgrind --tool=callgrind`, which counts instructions whatever else
// the machine is doing. Two runs, of FEW and MANY calls: their difference over MANY − FEW calls
// is one call's, without the start-up both share. V8 runs on one thread (`--single-threaded`):
// with its compilers and collector on threads of their own, when each finished changed a count
// by ±15% from one run to the next; so, runs repeat within 0.2%. Compare two builds by running it
// on each.
//   node bench/probes/facade-instructions.js
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FEW = 4_000;
const MANY = 24_000;

if (process.argv[2] === '--child') {
  const { createMemoryIndex } = await import('../../dist/index.js');
  const index = createMemoryIndex();
  await index.add([{ id: 'notes/needle', title: 'needle thing', content: 'a needle in the content' }]);
  const options = { query: 'needle', scope: 'knowledge', limit: 10 };
  for (let i = 0; i < Number(process.argv[3]); i++) await index.search(options);
  await index.close();
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-facade-instructions-'));
// Neither model: nothing runs beside the loop, and the start-up is shorter.
const env = { ...process.env, RYE_SEARCH_MODEL: 'off', RYE_SEARCH_ENCODER: 'off' };
const instructions = (calls) => {
  const out = path.join(dir, `callgrind.${calls}`);
  execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, '--single-threaded', self, '--child', String(calls)], {
    env,
    stdio: 'ignore',
  });
  const summary = /^summary: (\d+)/m.exec(fs.readFileSync(out, 'utf8'));
  return Number(summary[1]);
};
const few = instructions(FEW);
const many = instructions(MANY);
fs.rmSync(dir, { recursive: true, force: true });
const perCall = Math.round((many - few) / (MANY - FEW));
console.log(`search() on a one-item memory index: ${perCall.toLocaleString('en')} instructions a call (callgrind, ${FEW} and ${MANY} calls)`);
