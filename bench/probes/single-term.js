// What the single-term probes share (`single-latency.js`, `cold-term.js`): a tier in a memory
// index added in batches of 5,000 (merged), the same documents in MiniSearch with the bench's
// field boosts, each kind's terms, and how times are reported.
import { createRequire } from 'node:module';

import { createMemoryIndex } from '../../dist/index.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';

const require = createRequire(import.meta.url);
const MiniSearch = require('minisearch');

export const KINDS = ['single-rare', 'single-mid', 'single-common'];

/** The tier in both engines: `{ index, mini }`. */
export async function bothEngines(name) {
  const docs = tier(name);
  const index = createMemoryIndex();
  for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
  await index.ready();
  const mini = new MiniSearch({
    fields: ['title', 'name', 'description', 'category', 'content'],
    storeFields: ['category', 'title', 'name', 'description'],
    searchOptions: { boost: { title: 3, name: 3, description: 2, category: 1.5, content: 1 } },
  });
  mini.addAll(docs);
  return { index, mini };
}

/** The bench's terms of one kind, in order. */
export const termsOf = (kind) =>
  queryMix()
    .queries.filter((q) => q.kind === kind)
    .map((q) => q.terms[0]);

/** A search of one term as both probes ask it. */
export const optionsFor = (term) => ({ query: term, scope: 'knowledge', limit: 10 });

export const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
export const us = (ms) => +(ms * 1000).toFixed(1);
