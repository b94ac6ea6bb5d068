// `process.exit()` while native work runs: the process ends at once, whatever is in flight.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

import { ROOT } from '../helpers.mjs';

/** Starts a batch of costly searches (every item matches every word) and exits 300 ms later. */
const CHILD = `
const { createMemoryIndex } = await import(${JSON.stringify(`${ROOT}/dist/index.js`)});
const index = createMemoryIndex();
for (let part = 0; part < 6; part++) {
  await index.add(Array.from({ length: 5000 }, (_, i) => ({
    id: 'k/item' + part + '_' + i,
    title: 'item ' + i + ' fuzzy',
    content: 'text about fuzzy things '.repeat(5),
  })));
}
index.searchMany(Array.from({ length: 20000 }, () => ({ query: 'fuzzy things', mode: 'hybrid' })));
setTimeout(() => process.exit(0), 300);
`;

describe('process.exit() while native work runs', () => {
  it('a batch of costly searches in flight: the process ends at once', () => {
    // The two chunks in flight (4,096 searches) took ~200 s on two cores: the exit waited for
    // them all. Now the searches not yet begun are skipped.
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
      encoding: 'utf8',
      env: { ...process.env, RYE_SEARCH_ENCODER: 'off' },
      timeout: 45_000,
    });
    assert.equal(run.signal, null, `still running after 45 s: ${run.stderr.slice(-1000)}`);
    assert.equal(run.status, 0, run.stderr.slice(-1000));
  });
});
