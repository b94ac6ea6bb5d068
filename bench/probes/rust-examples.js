// What the probes that run the core without Node share: its examples built (release, for the
// host, in the addon's target directory, so only the examples compile) and a tier's documents
// written as the Node API sends them to the core.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds the core's examples `names`; the path of each, by name. */
export function buildExamples(names) {
  const host = /host: (\S+)/.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1];
  execFileSync('cargo', ['build', '--release', '--target', host, '-p', 'rye-search-core', ...names.flatMap((n) => ['--example', n])], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dir = path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), host, 'release', 'examples');
  return Object.fromEntries(names.map((n) => [n, path.join(dir, n)]));
}

/** Writes tier `name`'s documents into `dir`: as given (`plain.json`) and as sent to the core (`native.json`). */
export async function writeTier(name, dir) {
  const { tier } = await import('../corpus.js');
  const { toNative } = await import('../../dist/memory-index.js');
  const docs = tier(name).map(({ base, ...d }) => d);
  const plain = path.join(dir, 'plain.json');
  const native = path.join(dir, 'native.json');
  fs.writeFileSync(plain, JSON.stringify(docs));
  fs.writeFileSync(native, JSON.stringify(docs.map(toNative)));
  return { plain, native };
}
