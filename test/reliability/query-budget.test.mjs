// One query's wildcard and fuzzy expansion shares one budget across all its clauses: repeated
// wildcards answer in bounded time (they cost N² before), and past the cap the query fails with
// E_LIMIT and a hint instead of running for minutes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex, RyeSearchError } from '../../dist/index.js';

describe('query budget', () => {
  it('*e* OR *e* OR … is *e*, answered within the budget; past 32 distinct expanding terms it is E_LIMIT', async () => {
    const index = createMemoryIndex();
    const words = Array.from({ length: 3000 }, (_, i) => `e${i.toString(36)}x w${i}e`);
    await index.add(
      Array.from({ length: 3000 }, (_, i) => ({
        id: `d${i}`,
        title: words[i],
        content: `${words[(i * 7) % 3000]} ${words[(i * 13) % 3000]} plain shared`,
      })),
    );
    const started = performance.now();
    const res = await index.search({
      query: Array(16).fill('*e*').join(' OR '),
      fields: { content: 'sha*' },
      limit: 5,
    });
    assert.ok(performance.now() - started < 20_000);
    assert.equal(res.total, 3000);
    assert.ok(
      res.warnings.some((w) => /the \d+ most frequent were used/.test(w)),
      res.warnings.join('; '),
    );
    // The same wildcard OR-ed is one condition: its total is that of one copy.
    // (In titles: thousands of words hold an e, more than the budget keeps.)
    const once = await index.search({ query: '*', fields: { title: '*e*' }, limit: 0 });
    const copies = await index.search({ query: '*', fields: { title: Array(32).fill('*e*').join(' OR ') }, limit: 0 });
    assert.ok(once.total > 0);
    assert.equal(copies.total, once.total);
    await assert.rejects(
      index.search({ query: Array.from({ length: 40 }, (_, i) => `*e${i}*`).join(' OR ') }),
      (err) =>
        err instanceof RyeSearchError &&
        err.code === 'E_LIMIT' &&
        /32 wildcard and fuzzy terms/.test(err.message) &&
        err.hint.length > 0,
    );
    // Fuzzy words past the cap are matched exactly, with a warning, not refused.
    const fuzzy = await index.search({
      query: Array(40).fill('plain').join(' '),
      fuzzy: { enabled: true, max_distance: 1 },
    });
    assert.equal(fuzzy.total, 3000);
    assert.ok(fuzzy.warnings.some((w) => /matched exactly/.test(w)));
  });
  it('filters of more than 1,024 values in all are E_LIMIT at once; up to that they run', async () => {
    const index = createMemoryIndex();
    await index.add(Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, title: 'alpha', tags: [`t${i}`] })));
    const tags = (n) => Array.from({ length: n }, (_, i) => `t${i}`);
    assert.equal((await index.search({ query: 'alpha', filters: { tags: tags(1024) } })).total, 50);
    for (const filters of [{ tags: tags(100_000) }, { tags: tags(600), category: tags(600).map((t) => `!${t}`) }]) {
      await assert.rejects(
        index.search({ query: 'alpha', filters }),
        (err) => err.code === 'E_LIMIT' && /the limit is 1024/.test(err.message) && err.hint.length > 0,
      );
    }
    const [answer] = await index.searchMany([{ query: 'alpha', filters: { tags: tags(2000) } }]);
    assert.equal(answer.error.code, 'E_LIMIT');
  });

  it('a query too long is refused at once, whatever its characters (ranges were looked for first, in quadratic time)', async () => {
    const index = createMemoryIndex();
    await index.add([{ id: 'd', title: 'alpha', content: 'alpha [2020 TO 2024] beta' }]);
    // 200,000 `[` took 55 s on the JS thread before the length was refused.
    for (const unit of ['[', '{', '[ ', '{a ', '[TO ', '[ TO ', '~1', '^2', 'a~', '"a"^']) {
      const query = unit.repeat(Math.ceil(200_000 / unit.length));
      for (const opts of [{ query }, { query: 'alpha', fields: { content: query } }]) {
        const started = performance.now();
        await assert.rejects(index.search(opts), (err) => err.code === 'E_LIMIT' && err.hint.length > 0);
        const ms = performance.now() - started;
        assert.ok(ms < 2_000, `${JSON.stringify(unit)} × ${query.length / unit.length}: ${Math.round(ms)} ms`);
      }
    }
    // Within the limit the warning is found as before, and in bounded time.
    const within = `alpha [2020${' '.repeat(3000)}TO 2024]`;
    const started = performance.now();
    const res = await index.search({ query: within });
    assert.ok(performance.now() - started < 2_000);
    assert.ok(
      res.warnings.some((w) => w.includes('[a TO b]')),
      res.warnings.join('; '),
    );
  });

  it('a version filter of any length is read in linear time', async () => {
    const index = createMemoryIndex();
    await index.add([{ id: 'd', title: 'alpha', version: '1.2.0' }]);
    // Tabs, then a line break after the version: its pattern tried every split of the tabs
    // (40,000: 1.8 s; these 200,000: most of a minute).
    for (const version of [`<${'\t'.repeat(200_000)}2.0\nx`, `>=${' '.repeat(200_000)}1\u2028`]) {
      const started = performance.now();
      await index.search({ query: 'alpha', filters: { version } }).catch((err) => assert.ok(err.code, err));
      assert.ok(performance.now() - started < 2_000);
    }
    assert.equal((await index.search({ query: 'alpha', filters: { version: '< 2.0' } })).total, 1);
  });

  it('a word of thousands of characters: no typos looked for, bounded memory, the event loop free', async () => {
    const index = createMemoryIndex();
    await index.add(
      Array.from({ length: 3000 }, (_, i) => ({
        id: `d${i}`,
        title: `item ${i}`,
        content: `alpha beta${i % 10 === 0 ? ' 中文中文資料' : ''}`,
      })),
    );
    // A run of 4,000 CJK characters is one word: its Levenshtein automaton (the retry with typos,
    // "did you mean") took ~500 MB and 3 s on the JS thread.
    const before = process.resourceUsage().maxRSS;
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const res = await index.search({ query: '中文'.repeat(2000) });
    spinning = false;
    assert.equal(res.total, 0);
    const grew = (process.resourceUsage().maxRSS - before) / 1024;
    assert.ok(grew < 200, `peak RSS grew ${Math.round(grew)} MB`);
    assert.ok(turns > 0, 'the search held the event loop');
    // Asked for typos, a word past 64 characters (no token that long is indexed) is matched as
    // written, and says so; shorter words still find their typos.
    const fuzzy = await index.search({ query: 'x'.repeat(100), fuzzy: { enabled: true, max_distance: 2 } });
    assert.equal(fuzzy.total, 0);
    assert.ok(
      fuzzy.warnings?.some((w) => /typos are looked for in words of up to 64/.test(w)),
      String(fuzzy.warnings),
    );
    assert.equal(
      (await index.search({ query: 'alphx', fuzzy: { enabled: true, max_distance: 1 }, limit: 0 })).total,
      3000,
    );
  });
});
