// Documents too large for one JSON text: adds and refreshes send them in several, and a
// document no string can hold is refused by name (one text for all of them failed with
// "Invalid string length" past 512 MB: 600 files of 1 MB).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { UPSERT_TEXT_CHARS, upsertDocuments } from '../../dist/document.js';

/** A batch that keeps what it is sent. */
function recorder() {
  const payloads = [];
  return {
    payloads,
    calls: 0,
    upsert: async function (texts) {
      this.calls++;
      payloads.push(...texts);
    },
  };
}

const doc = (i, chars) => ({ key: `k${i}`, id: `d${i}`, content: 'x'.repeat(chars) });
/** Documents sent as they are. */
const same = (d) => d;

describe('large documents', () => {
  it('are sent in texts under the limit, in order, each document once', async () => {
    const docs = Array.from({ length: 40 }, (_, i) => doc(i, (i * 37) % 300));
    const batch = recorder();
    await upsertDocuments(batch, docs, same, 1000);
    assert.ok(batch.payloads.length > 4, `${batch.payloads.length} texts`);
    for (const p of batch.payloads) {
      const sent = JSON.parse(p);
      assert.ok(p.length <= 1000 || sent.length === 1, `a text of ${p.length} characters holds ${sent.length}`);
    }
    const ids = batch.payloads.flatMap((p) => JSON.parse(p).map((d) => d.id));
    assert.deepEqual(
      ids,
      docs.map((d) => d.id),
    );
  });

  it('each document is made from its item as it is written, once, in order', async () => {
    const made = [];
    const batch = recorder();
    await upsertDocuments(batch, [3, 1, 2], (n) => {
      made.push(n);
      return doc(n, n * 10);
    });
    assert.deepEqual(made, [3, 1, 2]);
    assert.deepEqual(
      batch.payloads.flatMap((p) => JSON.parse(p).map((d) => [d.id, d.content.length])),
      [
        ['d3', 30],
        ['d1', 10],
        ['d2', 20],
      ],
    );
  });

  it('a large add goes in short texts by default, so none outlives its upsert in the old generation', async () => {
    const docs = Array.from({ length: 5000 }, (_, i) => doc(i, 100 + (i % 50)));
    const batch = recorder();
    await upsertDocuments(batch, docs, same);
    assert.ok(batch.payloads.length > 5, `${batch.payloads.length} texts`);
    assert.equal(batch.calls, 1, 'in one call: the native side indexes them all without waiting for this thread');
    for (const p of batch.payloads) assert.ok(p.length <= UPSERT_TEXT_CHARS, `a text of ${p.length} characters`);
    assert.equal(batch.payloads.flatMap((p) => JSON.parse(p)).length, docs.length);
  });

  it('a document longer than the limit goes alone; small lists go whole', async () => {
    const batch = recorder();
    await upsertDocuments(batch, [doc(0, 10), doc(1, 5000), doc(2, 10)], same, 1000);
    assert.deepEqual(
      batch.payloads.map((p) => JSON.parse(p).map((d) => d.id)),
      [['d0'], ['d1'], ['d2']],
    );
    const small = recorder();
    await upsertDocuments(small, [doc(0, 10), doc(1, 10)], same, 1000);
    assert.equal(small.payloads.length, 1);
  });

  it('a document no string can hold is refused with E_LIMIT, naming it', async () => {
    const huge = {
      ...doc(7, 1),
      toJSON: () => {
        throw new RangeError('Invalid string length');
      },
    };
    const batch = recorder();
    await assert.rejects(upsertDocuments(batch, [doc(1, 1), huge], same, 1000), (err) => {
      assert.equal(err.code, 'E_LIMIT');
      assert.match(err.message, /"d7" is too large/);
      assert.ok(err.hint);
      return true;
    });
    assert.deepEqual(
      batch.payloads.map((p) => JSON.parse(p)[0].id),
      ['d1'],
      'what came before was sent',
    );
  });
});
