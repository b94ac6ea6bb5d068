// One adapter per engine: build(docs), run(query) → ids (null = unsupported), known(text) → ids.
// Same field weights where the engine allows: title 3, name 3, description 2, category 1.5, content 1.
//
// Two profiles:
// - `default`: what a user gets. rye-search with its default options (previews on, mode auto),
//   documents added in batches of 5,000 (`rye-1add`: in one `add`, as the README's example does);
//   FTS5 in memory with its `snippet()` and the fields; MiniSearch with stored fields (it has no
//   snippets); the same batches for every engine.
// - `ids`: ids only, one add (one transaction, then FTS5's `optimize`), previews off.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const WEIGHTS = { title: 3, name: 3, description: 2, category: 1.5, content: 1 };
/** Documents per add in the default profile. */
export const ADD_BATCH = 5000;
/** `docs` in slices of `size` (all of them in one when size is Infinity). */
const batches = (docs, size) => {
  const out = [];
  for (let i = 0; i < docs.length; i += Math.min(size, docs.length)) out.push(docs.slice(i, i + size));
  return out;
};

/** What a lean search asks for: ids and scores, no preview, the total as a lower bound. */
const LEAN = { previewChars: 0, includeFields: ['id', 'score'], count: 'lower_bound' };

export const ENGINES = {
  async rye(_dir, profile, addBatch = ADD_BATCH) {
    const { createMemoryIndex } = await import('../dist/index.js');
    const index = createMemoryIndex();
    const ids = profile === 'ids';
    const opts = (q, extra = {}) => {
      const base = { scope: 'knowledge', limit: 10, ...(ids ? { previewChars: 0 } : {}), ...extra };
      const t = q.terms ?? [];
      switch (q.kind) {
        case 'and2':
          return { ...base, query: `${t[0]} AND ${t[1]}` };
        case 'words2':
          return { ...base, query: `${t[0]} ${t[1]}` };
        case 'or2':
          return { ...base, query: `${t[0]} OR ${t[1]}` };
        case 'phrase':
          return { ...base, query: `"${t[0]} ${t[1]}"` };
        case 'prefix':
          return { ...base, query: `${q.prefix}*` };
        case 'fuzzy':
          return { ...base, query: t[0], fuzzy: { enabled: true, max_distance: q.distance } };
        case 'slop':
          return { ...base, query: `${t[0]} ${t[1]}`, proximity: { enabled: true, max_distance: q.slop } };
        case 'field':
          return { ...base, query: '*', fields: { [q.field]: t[0] } };
        case 'namespace':
          return { ...base, query: t[0], scope: `knowledge.${q.namespace.replace(/\//g, '.')}.*` };
        case 'not':
          return { ...base, query: `${t[0]} NOT ${q.not}` };
        case 'wildcard':
          return { ...base, query: `*${q.suffix}` };
        default:
          return { ...base, query: t[0] };
      }
    };
    const idsOf = (res) => res.results.map((r) => r.id);
    const idsAndScores = (answers) =>
      answers.reduce((n, a) => n + a.results.reduce((m, r) => m + r.score + r.id.length, 0), 0);
    return {
      async build(docs) {
        // ids: one add, as FTS5 gets one transaction (a batch becomes one segment); default: in
        // batches, as users add (kind defaults to knowledge).
        for (const part of batches(docs, ids ? docs.length : addBatch)) await index.add(part);
      },
      // The adds return once searchable; their merges run when they pause, or here, at once.
      settle: () => index.ready(),
      run: async (q) => idsOf(await index.search(opts(q))),
      // The same query without a preview: what a preview costs (default profile only).
      bare: ids ? undefined : async (q) => idsOf(await index.search(opts(q, { previewChars: 0 }))),
      known: async (text) => idsOf(await index.search(opts({ kind: 'known', terms: [text] }))),
      // A caller ranking the answers reads each result's id and score (a lazy one reads no more).
      batch: async (qs) => idsAndScores(await index.searchMany(qs.map((q) => opts(q)))),
      batchLazy: async (qs) =>
        idsAndScores(
          await index.searchMany(
            qs.map((q) => opts(q)),
            { lazy: true },
          ),
        ),
      // Lean answers (issue #64's "≥ 100,000 lean"): ids and scores only, no preview, a
      // lower-bound count.
      batchLean: async (qs) => idsAndScores(await index.searchMany(qs.map((q) => opts(q, LEAN)))),
      // `count` searches with default options, cycling over `qs`, handed over as they are
      // answered (`searchStream`): nothing but the stream's own batches is held.
      stream: (qs, count) => {
        function* searches() {
          for (let i = 0; i < count; i++) yield opts(qs[i % qs.length]);
        }
        return index.searchStream(searches());
      },
      addOne: async (doc) => index.add([doc]),
    };
  },

  /** rye-search with default options, all documents in one add (the README's example). */
  async 'rye-1add'(dir, profile) {
    const engine = await ENGINES.rye(dir, profile, Number.POSITIVE_INFINITY);
    // Its column is about the build: a long stream would repeat rye's for minutes.
    delete engine.stream;
    return engine;
  },

  async fts5(dir, profile) {
    const Database = require('better-sqlite3');
    const ids = profile === 'ids';
    // Default profile: in memory, as a user embedding SQLite for search would start.
    const file = ids ? path.join(dir, 'fts5.db') : ':memory:';
    let db = new Database(file);
    const quote = (t) => `"${t.replace(/"/g, '""')}"`;
    const rank = 'ORDER BY bm25(docs, 0, 3, 3, 2, 1.5, 1) LIMIT 10';
    // A snippet of about 200 characters (32 tokens) from the best column, as rye-search's preview.
    const sql = ids
      ? `SELECT id FROM docs WHERE docs MATCH ? ${rank}`
      : `SELECT id, title, name, description, category, snippet(docs, -1, '', '', '…', 32) AS preview FROM docs WHERE docs MATCH ? ${rank}`;
    let stmt;
    let insert;
    const match = (q) => {
      const t = (q.terms ?? []).map(quote);
      switch (q.kind) {
        case 'and2':
        case 'words2':
          return `${t[0]} AND ${t[1]}`;
        case 'or2':
          return `${t[0]} OR ${t[1]}`;
        case 'phrase':
          return quote(q.terms.join(' '));
        case 'prefix':
          return `${quote(q.prefix)}*`;
        case 'slop':
          return `NEAR(${t[0]} ${t[1]}, ${q.slop})`;
        case 'field':
          return `${q.field}:${t[0]}`;
        case 'namespace':
          return `category:${quote(q.namespace)} AND ${t[0]}`;
        case 'not':
          return `${t[0]} NOT ${quote(q.not)}`;
        case 'fuzzy':
        case 'wildcard':
          return null;
        default:
          return t[0];
      }
    };
    return {
      async build(docs) {
        db.pragma('journal_mode = OFF');
        db.pragma('synchronous = OFF');
        db.exec(
          "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, name, description, category, content, tokenize='unicode61')",
        );
        insert = db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?)');
        const add = db.transaction((part) => {
          for (const d of part) insert.run(d.id, d.title, d.name, d.description, d.category, d.content);
        });
        for (const part of batches(docs, ids ? docs.length : ADD_BATCH)) add(part);
        if (ids) db.exec("INSERT INTO docs(docs) VALUES('optimize')");
        stmt = db.prepare(sql);
      },
      run: async (q) => {
        const m = match(q);
        return m === null ? null : stmt.all(m).map((r) => r.id);
      },
      known: async (text) => stmt.all(text.split(' ').map(quote).join(' ')).map((r) => r.id),
      // One row, committed on its own (autocommit), as an application adds an item.
      addOne: async (d) => insert.run(d.id, d.title, d.name, d.description, d.category, d.content),
      diskBytes: ids ? () => fs.statSync(file).size : undefined,
      reopen: ids
        ? async (first) => {
            db.close();
            const t0 = performance.now();
            db = new Database(file, { readonly: true });
            stmt = db.prepare(sql);
            stmt.all(quote(first));
            return performance.now() - t0;
          }
        : undefined,
    };
  },

  async minisearch(_dir, profile) {
    const MiniSearch = require('minisearch');
    const ids = profile === 'ids';
    const options = {
      fields: ['title', 'name', 'description', 'category', 'content'],
      // Default profile: results carry the fields a user shows (MiniSearch makes no snippets).
      storeFields: ids ? ['category'] : ['category', 'title', 'name', 'description'],
      searchOptions: { boost: WEIGHTS },
    };
    let ms = new MiniSearch(options);
    const top = (r) => r.slice(0, 10).map((x) => x.id);
    return {
      async build(docs) {
        for (const part of batches(docs, ids ? docs.length : ADD_BATCH)) ms.addAll(part);
      },
      run: async (q) => {
        const t = q.terms ?? [];
        switch (q.kind) {
          case 'and2':
          case 'words2':
            return top(ms.search(`${t[0]} ${t[1]}`, { combineWith: 'AND' }));
          case 'or2':
            return top(ms.search(`${t[0]} ${t[1]}`, { combineWith: 'OR' }));
          case 'prefix':
            return top(ms.search(q.prefix, { prefix: true }));
          case 'fuzzy':
            return top(ms.search(t[0], { fuzzy: q.distance }));
          case 'field':
            return top(ms.search(t[0], { fields: [q.field] }));
          case 'namespace':
            return top(ms.search(t[0], { filter: (r) => r.category === q.namespace }));
          case 'not':
            return top(ms.search({ combineWith: 'AND_NOT', queries: [t[0], q.not] }));
          case 'phrase':
          case 'slop':
          case 'wildcard':
            return null;
          default:
            return top(ms.search(t[0]));
        }
      },
      known: async (text) => top(ms.search(text, { combineWith: 'AND' })),
      addOne: async (d) => ms.add(d),
      diskBytes: () => Buffer.byteLength(JSON.stringify(ms)),
      async reopen(first) {
        const json = JSON.stringify(ms);
        const t0 = performance.now();
        ms = MiniSearch.loadJSON(json, options);
        ms.search(first);
        return performance.now() - t0;
      },
    };
  },

  async flexsearch() {
    const FlexSearch = require('flexsearch');
    const index = new FlexSearch.Document({
      document: { id: 'id', index: ['title', 'description', 'content'] },
      tokenize: 'forward',
    });
    const ids = (res, fields) => {
      const seen = [];
      for (const f of res)
        if (!fields || fields.includes(f.field)) for (const id of f.result) if (!seen.includes(id)) seen.push(id);
      return seen.slice(0, 10);
    };
    return {
      async build(docs) {
        for (const d of docs) index.add(d);
      },
      run: async (q) => {
        const t = q.terms ?? [];
        switch (q.kind) {
          case 'and2':
          case 'words2':
            return ids(index.search(`${t[0]} ${t[1]}`, { limit: 10 }));
          case 'prefix':
            return ids(index.search(q.prefix, { limit: 10 }));
          case 'field':
            return ids(index.search(t[0], { limit: 10, index: [q.field] }));
          case 'single-rare':
          case 'single-mid':
          case 'single-common':
            return ids(index.search(t[0], { limit: 10 }));
          default:
            return null;
        }
      },
      known: async (text) => ids(index.search(text, { limit: 10 })),
    };
  },

  async orama() {
    const { create, insertMultiple, search } = await import('@orama/orama');
    const db = create({
      schema: { title: 'string', name: 'string', description: 'string', category: 'enum', content: 'string' },
    });
    const props = ['title', 'name', 'description', 'content'];
    const boost = { title: 3, name: 3, description: 2, content: 1 };
    const ids = (r) => r.hits.map((h) => h.id);
    const go = async (params) => ids(await search(db, { properties: props, boost, limit: 10, ...params }));
    return {
      async build(docs) {
        await insertMultiple(
          db,
          docs.map((d) => ({
            id: d.id,
            title: d.title,
            name: d.name,
            description: d.description,
            category: d.category,
            content: d.content,
          })),
          2000,
        );
      },
      run: async (q) => {
        const t = q.terms ?? [];
        switch (q.kind) {
          case 'and2':
          case 'words2':
            return go({ term: `${t[0]} ${t[1]}`, threshold: 0, exact: true });
          case 'or2':
            return go({ term: `${t[0]} ${t[1]}`, threshold: 1, exact: true });
          case 'prefix':
            return go({ term: q.prefix });
          case 'fuzzy':
            return go({ term: t[0], tolerance: q.distance });
          case 'field':
            return go({ term: t[0], properties: [q.field], exact: true });
          case 'namespace':
            return go({ term: t[0], exact: true, where: { category: { eq: q.namespace } } });
          case 'phrase':
          case 'slop':
          case 'not':
          case 'wildcard':
            return null;
          default:
            return go({ term: t[0], exact: true });
        }
      },
      known: async (text) => go({ term: text, threshold: 0, exact: true }),
    };
  },
};
