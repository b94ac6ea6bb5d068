// `npm install` on the Node the README names prints no EBADENGINE warning: every package the
// lock installs on this platform accepts this Node. A build dependency that wanted Node 22 was
// the first thing a newcomer saw.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

import semver from 'semver';

import { ROOT } from './helpers.mjs';

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** Whether npm installs this package here: other platforms' optional binaries it skips. */
const installedHere = (meta) =>
  !(meta.os && !meta.os.includes(process.platform)) && !(meta.cpu && !meta.cpu.includes(process.arch));

it('every package the lock installs accepts this Node, and the oldest the package supports', () => {
  const oldest = semver.minVersion(pkg.engines.node).version;
  const refused = [];
  for (const [where, meta] of Object.entries(lock.packages)) {
    if (!where || !meta.engines?.node || !installedHere(meta)) continue;
    for (const node of [process.version, oldest])
      if (!semver.satisfies(node, meta.engines.node, { includePrerelease: true }))
        refused.push(`${where} wants node ${meta.engines.node}, not ${node}`);
  }
  assert.deepEqual(refused, []);
});
