// Which searches leave the event loop: only those that may take long (dictionary scans,
// big pages, expansions on large indexes); cheap ones answer in place.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mayBeSlow } from '../dist/search.js';

const req = (query, extra = {}) => ({ query, fields: {}, fuzzy: 0, limit: 10, offset: 0, ...extra });

test('leading wildcards and big pages go to the thread pool at any size', () => {
  for (const q of ['*ing', 'a ?ar', '"x" *ing', 'x -*y', '(*ab)']) assert.equal(mayBeSlow(req(q), 10), true, q);
  assert.equal(mayBeSlow(req('foo', { limit: 100, offset: 1 }), 10), true);
  assert.equal(mayBeSlow(req('*', { fields: { name: '*sh' } }), 10), true);
});

test('match-all, prefixes and fuzzy terms answer in place on small indexes, not on large ones', () => {
  for (const [q, extra] of [['*'], ['foo*'], ['foo', { fuzzy: 2 }], ['plain words']]) {
    assert.equal(mayBeSlow(req(q, extra), 60_000), false, q);
  }
  assert.equal(mayBeSlow(req('foo*'), 1_000_000), true);
  assert.equal(mayBeSlow(req('foo', { fuzzy: 1 }), 1_000_000), true);
  assert.equal(mayBeSlow(req('plain words'), 1_000_000), false);
});
