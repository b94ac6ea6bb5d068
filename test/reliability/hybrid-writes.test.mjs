// Searches by meaning while the index changes: hybrid, `auto`, semantic and `like` searches (single
// and `searchMany`) run while writes (one-item adds, bulk batches that merge, removals) land, not
// awaited one by one. Every operation settles in bounded time, with an answer or a coded refusal;
// once the writes settle, every kind of search sees exactly the items that remain. The first scans
// of each new segment build its sign codes while other scans run (a build awaited on the thread
// pool once hung the first hybrid searches).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../../dist/index.js';
import { rng } from './fixtures/unicode-cases.mjs';

const SEED = Number(process.env.RYE_HYBRID_WRITES_SEED || 20261126);
const ROUNDS = Number(process.env.RYE_HYBRID_WRITES_ROUNDS || 120);
/** No operation may take longer: a hang fails the test instead of stalling the run. */
const DEADLINE_MS = 30_000;

/** A seeded integer below `n`, from the fuzzers' generator. */
function random(seed) {
  const r = rng(seed);
  return (n) => Math.floor(r() * n);
}

const TOPICS = [
  ['parse', 'json', 'files', 'schema', 'validate'],
  ['render', 'image', 'pixels', 'colour', 'draw'],
  ['network', 'socket', 'server', 'request', 'latency'],
  ['database', 'query', 'index', 'table', 'transaction'],
  ['audio', 'sound', 'music', 'volume', 'codec'],
  ['compress', 'archive', 'zip', 'bytes', 'stream'],
  ['ключ', 'поиск', 'данные', 'файл', 'текст'],
  ['検索', '索引', '文書', '単語', '結果'],
];
const QUESTIONS = [
  'how do I check that a json file matches its schema',
  'draw a picture with colours',
  'a server that answers requests quickly',
  'store records in tables and query them',
  'play music files',
  'make archives smaller',
  'поиск текста в файлах',
  '文書を検索する',
];

/** Item `n` in version `v`: words of one topic, so each has neighbours by meaning. */
function item(rnd, n, v) {
  const topic = TOPICS[n % TOPICS.length];
  const words = Array.from({ length: 6 + rnd(10) }, () => topic[rnd(topic.length)]);
  return { id: `w/i${n}`, title: `${topic[n % 5]} ${topic[(n + 1) % 5]} ${v}`, content: words.join(' ') };
}

const tally = { answered: 0, refused: 0 };

/** Settles `op` or fails the test once the deadline passes. */
async function bounded(what, op) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle in ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    const out = await Promise.race([op(), deadline]);
    tally.answered++;
    return out;
  } catch (err) {
    // A refusal is an answer; anything without a code is a failure.
    if (err?.code) {
      tally.refused++;
      return err;
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

describe('searches by meaning while writes land', () => {
  it('every search and write settles, and afterwards every mode sees exactly the remaining items', async (t) => {
    const rnd = random(SEED);
    const index = createMemoryIndex();
    const model = new Map();
    let version = 0;
    const live = () => [...model.keys()];
    const initial = Array.from({ length: 1500 }, (_, n) => item(rnd, n, 'v0'));
    await index.add(initial);
    for (const d of initial) model.set(d.id, d);

    const search = () => {
      const opts = { query: QUESTIONS[rnd(QUESTIONS.length)], mode: ['auto', 'hybrid', 'semantic'][rnd(3)] };
      opts.limit = 1 + rnd(20);
      if (rnd(3) === 0) opts.offset = rnd(60);
      if (rnd(4) === 0) opts.facets = true;
      if (rnd(5) === 0) opts.min_score = rnd(10) / 10;
      if (rnd(6) === 0) {
        const ids = live();
        delete opts.query;
        opts.like = `knowledge:${ids[rnd(ids.length)]}`;
      }
      return opts;
    };
    const write = () => {
      const v = `v${++version}`;
      const kind = rnd(6);
      if (kind < 3) {
        const batch = Array.from({ length: 1 + rnd(3) }, () => item(rnd, rnd(2500), v));
        for (const d of batch) model.set(d.id, d);
        return index.add(batch);
      }
      if (kind < 4) {
        // Over 256 items: the bulk path, whose segments merge.
        const from = rnd(2000);
        const batch = Array.from({ length: 300 + rnd(200) }, (_, k) => item(rnd, from + k, v));
        for (const d of batch) model.set(d.id, d);
        return index.add(batch);
      }
      const ids = Array.from({ length: 1 + rnd(20) }, () => `w/i${rnd(2500)}`);
      for (const id of ids) model.delete(id);
      return index.remove(ids);
    };

    for (let round = 0; round < ROUNDS; round++) {
      const ops = [];
      for (let k = 0; k < 6; k++) {
        const pick = rnd(4);
        if (pick === 0) ops.push(bounded('write', write));
        else if (pick === 1) {
          const list = Array.from({ length: 10 + rnd(30) }, search);
          ops.push(
            bounded('searchMany', async () => {
              const answers = await index.searchMany(list);
              assert.equal(answers.length, list.length);
              answers.forEach((a, i) => {
                if ('error' in a) assert.ok(a.error.code, `entry ${i}: ${JSON.stringify(a)}`);
                else assert.ok(a.results.length <= list[i].limit);
              });
            }),
          );
        } else {
          const opts = search();
          ops.push(
            bounded('search', async () => {
              const res = await index.search(opts);
              assert.ok(res.results.length <= opts.limit, JSON.stringify(opts));
            }),
          );
        }
      }
      await Promise.all(ops);
    }

    t.diagnostic(
      `hybrid writes: ${tally.answered} answered, ${tally.refused} refused with a code, ${model.size} items left`,
    );
    // Settled: the index holds the model's items, each once, and every mode finds only those.
    const all = await index.search({ query: '*', limit: 0, mode: 'keyword' });
    assert.equal(all.total, model.size);
    for (const question of QUESTIONS) {
      for (const mode of ['auto', 'hybrid', 'semantic']) {
        const res = await index.search({ query: question, mode, limit: 50, preview_chars: 0 });
        for (const r of res.results) assert.ok(model.has(r.id), `${mode} "${question}" found removed ${r.id}`);
        const ids = res.results.map((r) => r.id);
        assert.equal(new Set(ids).size, ids.length, `${mode} "${question}": an item twice`);
      }
    }
    const ids = live();
    for (let k = 0; k < 10; k++) {
      const id = ids[rnd(ids.length)];
      const res = await index.search({ like: `knowledge:${id}`, limit: 20 });
      assert.ok(res.results.length > 0, `like ${id}`);
      for (const r of res.results) {
        assert.notEqual(r.id, id, 'an item is never like itself');
        assert.ok(model.has(r.id), `like ${id} found removed ${r.id}`);
      }
    }
  });
});
