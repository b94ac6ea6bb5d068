// Streaming batches (issue #64): searchStream answers any iterable of searches in order, a batch
// at a time, holding two batches of answers at most — a million queries need not be held, and
// neither need their answers. Node API, both facades.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { pyTool, workspace, wsOptions } from './helpers.mjs';

// A collection before each heap reading, however the test runner started node: without it the
// heap holds whatever garbage the last cycle left, and a loaded machine collects later.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'nothing-matches-this'];

async function memIndex() {
  const mem = createMemoryIndex();
  await mem.add(Array.from({ length: 500 }, (_, i) => ({ id: `d${i}`, title: `${WORDS[i % 4]} item ${i}` })));
  return mem;
}

describe('searchStream', () => {
  it('answers in order what searchMany answers, errors in place, from arrays, generators and async iterables', async () => {
    const mem = await memIndex();
    const list = Array.from({ length: 1000 }, (_, i) =>
      i % 97 === 5 ? { query: '(' } : { query: WORDS[i % 5], limit: 3 },
    );
    const many = await mem.searchMany(list);
    async function* slowly() {
      for (const q of list) {
        await Promise.resolve();
        yield q;
      }
    }
    for (const [source, batch] of [
      [list, undefined],
      [list.values(), 7],
      [slowly(), 100],
      [list, 1],
    ]) {
      const got = [];
      for await (const answer of mem.searchStream(source, batch === undefined ? undefined : { batch }))
        got.push(answer);
      assert.equal(got.length, list.length);
      assert.deepEqual(
        got.map((a) => ('error' in a ? a.error.code : a.results.map((r) => r.id).join())),
        many.map((a) => ('error' in a ? a.error.code : a.results.map((r) => r.id).join())),
      );
    }
    // A consumer may stop early; the stream ends quietly.
    let taken = 0;
    for await (const _ of mem.searchStream(list, { batch: 10 })) if (++taken === 15) break;
    assert.equal(taken, 15);
  });

  it('checks its arguments with coded errors', async () => {
    const mem = await memIndex();
    for (const bad of [undefined, 42, 'alpha', { query: 'x' }])
      assert.throws(() => mem.searchStream(bad), { code: 'E_INVALID_ARGUMENT' });
    for (const batch of [0, -1, 1.5, 10_001, 'many'])
      assert.throws(() => mem.searchStream([], { batch }), { code: 'E_INVALID_ARGUMENT' });
    const out = [];
    for await (const a of mem.searchStream([])) out.push(a);
    assert.deepEqual(out, []);
  });

  it("an entry whose options throw when read is that entry's E_INVALID_ARGUMENT (it was E_INTERNAL, 'a bug')", async () => {
    const mem = await memIndex();
    const throwing = {
      get query() {
        throw new Error('a getter of the caller');
      },
    };
    const [bad, good] = await mem.searchMany([throwing, { query: 'alpha' }]);
    assert.equal(bad.error.code, 'E_INVALID_ARGUMENT');
    assert.match(bad.error.message, /a getter of the caller/);
    assert.ok(good.total > 0);
    await mem.close();
  });

  it('searches each entry as it was when the source gave it: a source that fills one object again for each search gets an answer to each', async () => {
    const mem = await memIndex();
    // Each entry was read when its batch started, so a batch answered its last contents, every time.
    function* reused() {
      const opts = { query: '', limit: 1 };
      for (let i = 0; i < 130; i++) {
        opts.query = WORDS[i % 4];
        opts.offset = i;
        yield opts;
      }
    }
    let i = 0;
    for await (const res of mem.searchStream(reused(), { batch: 64 })) {
      assert.deepEqual([res.query, res.offset], [WORDS[i % 4], i]);
      i += 1;
    }
    assert.equal(i, 130);
    // An entry whose options throw as it is read is that entry's error, in its place.
    async function* throwing() {
      yield { query: 'alpha' };
      yield {
        get query() {
          throw new Error('a getter of the caller');
        },
      };
      yield { query: 'beta' };
    }
    const answers = [];
    for await (const res of mem.searchStream(throwing())) answers.push(res.error?.code ?? res.query);
    assert.deepEqual(answers, ['alpha', 'E_INVALID_ARGUMENT', 'beta']);
    await mem.close();
  });

  it('searchMany refuses a call whose answers it could not hold (it exhausted the heap and aborted); a stream batch too', async () => {
    const mem = await memIndex();
    // 1,001 searches of up to 1,000 results: more than the million results one call keeps.
    const many = Array.from({ length: 1001 }, () => ({ query: 'alpha', limit: 1000 }));
    await assert.rejects(mem.searchMany(many), { code: 'E_LIMIT', hint: /searchStream/ });
    const stream = mem.searchStream(many, { batch: 1001 });
    await assert.rejects(
      (async () => {
        for await (const _ of stream);
      })(),
      { code: 'E_LIMIT' },
    );
    // The same searches in smaller calls are answered, and the index serves on.
    const half = await mem.searchMany(many.slice(0, 500));
    assert.equal(half.length, 500);
    assert.ok(half.every((r) => r.total > 0));
    let streamed = 0;
    for await (const r of mem.searchStream(many, { batch: 500 })) streamed += 'total' in r ? 1 : 0;
    assert.equal(streamed, 1001);
    await mem.close();
  });

  it('searchMany refuses more than 100,000 searches at once, before reading any: the JS thread is never held for long', async () => {
    const mem = await memIndex();
    // Before: 12 million holes of a sparse array held the event loop for 90 s, each read and
    // refused in turn; a proxy claiming a billion entries would have held it for hours.
    const started = performance.now();
    await assert.rejects(mem.searchMany(new Array(12_000_000)), {
      code: 'E_LIMIT',
      message: /12000000 searches in one call; the limit is 100000/,
      hint: /searchStream/,
    });
    const endless = new Proxy([], { get: (target, key) => (key === 'length' ? 1e9 : target[key]) });
    await assert.rejects(mem.searchMany(endless), { code: 'E_LIMIT' });
    const lying = new Proxy([], { get: (target, key) => (key === 'length' ? -1 : target[key]) });
    await assert.rejects(mem.searchMany(lying), { code: 'E_INVALID_ARGUMENT' });
    assert.ok(performance.now() - started < 1000, 'refused at once');
    // At the limit, every search is answered; past it, a stream takes them all.
    const queries = Array.from({ length: 100_000 }, (_, i) => ({ query: i % 2 ? 'alpha' : 'beta', limit: 1 }));
    assert.equal((await mem.searchMany(queries)).length, 100_000);
    let streamed = 0;
    for await (const _ of mem.searchStream([...queries, { query: 'alpha', limit: 1 }])) streamed += 1;
    assert.equal(streamed, 100_001);
    await mem.close();
  });

  it('memory stays flat over 200,000 streamed queries, lazy or not (no answer is kept past its batch)', async () => {
    const mem = await memIndex();
    function* queries(n) {
      for (let i = 0; i < n; i++) yield { query: WORDS[i % 4], limit: 10, previewChars: 0 };
    }
    // Each answer's first result read (a lazy one's id and score come from its batch's page).
    const heapAfter = async (n, lazy) => {
      let count = 0;
      for await (const a of mem.searchStream(queries(n), { batch: 500, lazy }))
        count += a.results.length > 0 && a.results[0].id.length > 0 && a.results[0].score > 0;
      assert.equal(count, n);
      gc();
      return process.memoryUsage().heapUsed;
    };
    for (const lazy of [false, true]) {
      await heapAfter(20_000, lazy);
      const small = await heapAfter(20_000, lazy);
      const large = await heapAfter(200_000, lazy);
      // Holding 180,000 more answers would take hundreds of MB; a flat stream stays within noise.
      assert.ok(large - small < 40 * 1024 * 1024, `lazy: ${lazy}: heap grew ${(large - small) / 1e6} MB`);
    }
  });

  it('a persistent index streams too, and closing it ends an endless stream with a coded error', async () => {
    const ws = workspace();
    ws.write('project', { 'tools/a/read.py': pyTool({ description: 'Read a file' }) });
    const index = await openIndex(wsOptions(ws));
    const got = [];
    for await (const a of index.searchStream([{ query: 'read' }, { query: 'file' }])) got.push(a.total);
    assert.deepEqual(got, [1, 1]);
    const stream = index.searchStream(
      (function* () {
        for (;;) yield { query: 'read' };
      })(),
      { batch: 4 },
    );
    await stream.next();
    await index.close();
    await assert.rejects(
      (async () => {
        for await (const _ of stream);
      })(),
      { code: 'E_INVALID_ARGUMENT', message: /closed/ },
    );
    ws.cleanup();
  });
});
