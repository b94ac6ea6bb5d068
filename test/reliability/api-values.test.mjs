// Every call of the Node API, and every option of each, given values of every JavaScript type a
// caller can hold (symbols, BigInts, functions, objects whose toString or getters throw, proxies,
// sparse arrays, NaN, huge numbers, NUL, long text): each answers, or refuses with a stable code
// and a hint — never a bare TypeError from deep inside (before, several did: a symbol batch size,
// an unknown kind that could not be made text, a number among fetchMany's ids, `ready(null)`, a
// hole in a sparse array of documents).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../../dist/index.js';
import { FETCH_OPTION_NAMES } from '../../dist/fetch.js';
import { OPTION_NAMES } from '../../dist/search-options.js';
import { knowledge, workspace, wsOptions } from '../helpers.mjs';

const throwing = (what) => () => {
  throw new Error(what);
};
const hostileObject = { toString: throwing('toString'), valueOf: throwing('valueOf') };
const VALUES = [
  Symbol('s'),
  10n,
  () => 1,
  hostileObject,
  new Proxy({}, { get: throwing('get'), ownKeys: throwing('ownKeys'), has: throwing('has') }),
  [hostileObject],
  [Symbol('q')],
  Object.create(null),
  Number.NaN,
  -0,
  1e308,
  -1,
  2 ** 53,
  '',
  '\0',
  'x'.repeat(100_000),
  [],
  [[]],
  { a: { b: 1 } },
  new Date(Number.NaN),
  /re/,
  null,
  true,
  new Array(3),
  // Costs its maker nothing: copied whole, it exhausted the heap and aborted the process.
  new Array(1e9),
];
const DOCUMENT_FIELDS = [
  'id',
  'kind',
  'title',
  'name',
  'description',
  'category',
  'content',
  'version',
  'date',
  'tags',
];
const OPEN_OPTIONS = ['projectPath', 'userSpace', 'cacheDir', 'includeDefaultBundle', 'maxFileBytes', 'refresh'];

const MAX_REFUSAL_CHARS = 1500;

/** Runs `call`; an exception must be a coded error with a hint. Returns what it answered. */
async function answersOrRefuses(what, call, failures) {
  try {
    return await call();
  } catch (err) {
    if (!(typeof err?.code === 'string' && err.code.startsWith('E_') && err.hint))
      failures.push(`${what}: ${err?.constructor?.name} ${String(err?.message).slice(0, 100)}`);
    // A refused value is named by its start: a message never grows with what it refuses.
    else if (err.message.length + err.hint.length > MAX_REFUSAL_CHARS)
      failures.push(`${what}: ${err.message.length + err.hint.length} characters`);
  }
}

/** Runs `call` with the default user space and cache in `ws`. */
async function inWorkspace(ws, call) {
  const saved = { USER_SPACE: process.env.USER_SPACE, RYE_SEARCH_CACHE_DIR: process.env.RYE_SEARCH_CACHE_DIR };
  process.env.USER_SPACE = ws.user;
  process.env.RYE_SEARCH_CACHE_DIR = ws.cache;
  try {
    return await call();
  } finally {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

describe('every call given values of every type', () => {
  const ws = workspace();
  after(() => ws.cleanup());

  it('answers or refuses with a code, through both facades', async () => {
    ws.write('project', { 'knowledge/walrus.md': knowledge({ id: 'walrus', title: 'Walrus facts' }, 'tusks') });
    const memory = createMemoryIndex();
    await memory.add([{ id: 'walrus', title: 'Walrus facts', content: 'tusks' }]);
    const index = await openIndex(wsOptions(ws, { watch: false }));
    const failures = [];
    const check = (what, call) => answersOrRefuses(what, call, failures);
    try {
      for (const [facade, target] of [
        ['memory', memory],
        ['index', index],
      ]) {
        for (const [n, value] of VALUES.entries()) {
          const v = `value #${n}`;
          for (const key of OPTION_NAMES) {
            await check(`${facade}.search ${key}: ${v}`, () => target.search({ query: 'walrus', [key]: value }));
            const [answer] = (await check(`${facade}.searchMany ${key}: ${v}`, () =>
              target.searchMany([{ query: 'walrus', [key]: value }]),
            )) ?? [{}];
            if (answer.error && !answer.error.code) failures.push(`${facade}.searchMany ${key}: ${v}: uncoded entry`);
          }
          await check(`${facade}.search(${v})`, () => target.search(value));
          await check(`${facade}.searchMany(${v})`, () => target.searchMany(value));
          await check(`${facade}.ready(${v})`, () => target.ready(value));
          await check(`${facade}.ready semantic: ${v}`, () => target.ready({ semantic: value }));
          await check(`${facade}.ready timeoutMs: ${v}`, () => target.ready({ timeoutMs: value }));
          // A stream answers any number of entries (a billion holes, a billion refusals): the first few are read.
          const firstFew = async (stream) => {
            let n = 0;
            for await (const _ of stream) if (++n === 3) break;
          };
          await check(`${facade}.searchStream(${v})`, () => firstFew(target.searchStream(value)));
          await check(`${facade}.searchStream batch: ${v}`, () =>
            firstFew(target.searchStream([{ query: 'walrus' }], { batch: value })),
          );
        }
      }
      const alone = await index.fetchMany({ item_ids: ['walrus'] });
      for (const [n, value] of VALUES.entries()) {
        const v = `value #${n}`;
        for (const key of FETCH_OPTION_NAMES)
          await check(`fetch ${key}: ${v}`, () => index.fetch({ item_id: 'walrus', [key]: value }));
        await check(`fetch(${v})`, () => index.fetch(value));
        await check(`fetchMany(${v})`, () => index.fetchMany(value));
        await check(`fetchMany item_ids: ${v}`, () => index.fetchMany({ item_ids: value }));
        const listed = await check(`fetchMany item_ids: [${v}, walrus]`, () =>
          index.fetchMany({ item_ids: [value, 'walrus'] }),
        );
        // A bad id in a list fails in its place, and the next is answered as it is alone.
        if (listed) assert.deepEqual(listed.items[1], alone.items[0], `fetchMany [${v}, walrus]`);
        await check(`verify(${v})`, () => index.verify(value));
        await check(`add(${v})`, () => memory.add(value));
        await check(`add([${v}])`, () => memory.add([value]));
        for (const key of DOCUMENT_FIELDS)
          await check(`add ${key}: ${v}`, () => memory.add([{ id: 'z', [key]: value }]));
        await check(`add metadata: ${v}`, () => memory.add([{ id: 'z', metadata: { key: value } }]));
        await check(`remove(${v})`, () => memory.remove(value));
        await check(`remove([${v}])`, () => memory.remove([value]));
        await check(`remove kind ${v}`, () => memory.remove(['z'], value));
        // Options with no keys of their own (a Date, a RegExp) open the default spaces: kept in the workspace.
        await check(`openIndex(${v})`, () => inWorkspace(ws, async () => (await openIndex(value)).close()));
        for (const key of [...OPEN_OPTIONS, 'systemBundles'])
          await check(`openIndex ${key}: ${v}`, async () =>
            (await openIndex({ ...wsOptions(ws, { watch: false, refresh: false }), [key]: value })).close(),
          );
      }
      // Both still answer.
      assert.deepEqual(
        (await memory.search({ query: 'walrus' })).results.map((r) => r.id),
        ['walrus'],
      );
      assert.deepEqual(
        (await index.search({ query: 'walrus' })).results.map((r) => r.id),
        ['walrus'],
      );
    } finally {
      await index.close();
    }
    assert.deepEqual(failures, []);
  });
});
