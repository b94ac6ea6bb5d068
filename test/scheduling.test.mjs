// Which searches leave the event loop: only those that may take long (dictionary scans,
// big pages, expansions on large indexes); cheap ones answer in place.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mayBeSlow } from '../dist/search-runner.js';

const req = (query, extra = {}) => ({ query, fields: {}, fuzzy: 0, limit: 10, offset: 0, ...extra });
const size = (n) => () => n;
const staticTier = () => false;

test('leading wildcards and big pages go to the thread pool at any size', () => {
  for (const q of ['*ing', 'a ?ar', '"x" *ing', 'x -*y', '(*ab)'])
    assert.equal(mayBeSlow(req(q), size(10), staticTier), true, q);
  assert.equal(mayBeSlow(req('foo', { limit: 100, offset: 1 }), size(10), staticTier), true);
  assert.equal(mayBeSlow(req('*', { fields: { name: '*sh' } }), size(10), staticTier), true);
});

test('match-all, prefixes and fuzzy terms answer in place on small indexes, not on large ones', () => {
  for (const [q, extra] of [['*'], ['foo*'], ['foo', { fuzzy: 2 }], ['plain words']]) {
    assert.equal(mayBeSlow(req(q, extra), size(60_000), staticTier), false, q);
  }
  assert.equal(mayBeSlow(req('foo*'), size(1_000_000), staticTier), true);
  assert.equal(mayBeSlow(req('foo', { fuzzy: 1 }), size(1_000_000), staticTier), true);
  assert.equal(mayBeSlow(req('plain words'), size(1_000_000), staticTier), false);
  assert.equal(mayBeSlow(req('*', { fields: { name: 'ba?h' } }), size(1_000_000), staticTier), true);
});

test('a question goes to the thread pool once the sentence encoder answers (milliseconds to embed)', () => {
  const encoder = () => true;
  assert.equal(mayBeSlow(req('plain words', { mode: 'auto' }), size(10), encoder), true);
  assert.equal(mayBeSlow(req('plain words', { mode: 'auto' }), size(10), staticTier), false);
  assert.equal(mayBeSlow(req('plain words', { mode: 'keyword' }), size(10), encoder), false);
  assert.equal(mayBeSlow(req('oneword', { mode: 'auto' }), size(10), encoder), false);
});

test('a plain search does not ask the index its size (a native call per search)', () => {
  const never = () => assert.fail('numDocs was called');
  for (const q of ['plain words', '"a phrase"', 'a OR b', '*'])
    assert.equal(mayBeSlow(req(q), never, staticTier), false, q);
});
