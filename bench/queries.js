// A fixed-seed query mix drawn from the corpus: document-frequency bands and query shapes.
import { packages } from './corpus.js';

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (s) => s.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [];

export const KINDS = [
  'single-rare',
  'single-mid',
  'single-common',
  'and2',
  'words2',
  'or2',
  'phrase',
  'prefix',
  'fuzzy',
  'slop',
  'field',
  'namespace',
  'not',
  'wildcard',
];

/**
 * The timed queries (the same for every tier: their words come from the whole corpus) and the
 * known items, drawn from the first `knownWithin` packages: a tier's own (c10k holds the first
 * 10,000; a known item outside it could only be missed, by every engine).
 */
export function queryMix({ seed = 42, perKind = 50, knownItems = 200, knownWithin = Infinity } = {}) {
  const docs = packages();
  const rand = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const df = new Map();
  for (const d of docs)
    for (const w of new Set(words(`${d.description} ${d.content}`))) df.set(w, (df.get(w) ?? 0) + 1);
  const band = (lo, hi) =>
    [...df]
      .filter(([w, n]) => n >= lo && n <= hi && w.length >= 4)
      .map(([w]) => w)
      .sort();
  const rare = band(2, 10);
  const mid = band(50, 500);
  const common = band(2000, 20000);
  const midSet = new Set(mid);
  const q = [];
  const add = (kind, spec) => q.push({ kind, ...spec });
  for (let i = 0; i < perKind; i++) {
    add('single-rare', { terms: [pick(rare)] });
    add('single-mid', { terms: [pick(mid)] });
    add('single-common', { terms: [pick(common)] });
    // AND of two mid terms that co-occur in one document.
    let d;
    let ws;
    do {
      d = pick(docs);
      ws = [...new Set(words(`${d.description} ${d.content}`))].filter((w) => midSet.has(w));
    } while (ws.length < 2);
    add('and2', { terms: [ws[0], ws[1]] });
    // The same two words typed plainly, as a user asks: each engine's AND, but rye-search's default
    // mode takes two plain words for a question (answered by meaning too when few items hold both).
    add('words2', { terms: [ws[0], ws[1]] });
    add('or2', { terms: [pick(mid), pick(mid)] });
    let seq;
    do seq = words(pick(docs).description);
    while (seq.length < 2);
    const at = Math.floor(rand() * (seq.length - 1));
    add('phrase', { terms: [seq[at], seq[at + 1]] });
    const m = pick(mid.filter((w) => w.length >= 6));
    add('prefix', { prefix: m.slice(0, 4) });
    const f = pick(mid.filter((w) => w.length >= 6));
    const pos = 1 + Math.floor(rand() * (f.length - 2));
    add('fuzzy', { terms: [f.slice(0, pos) + (f[pos] === 'e' ? 'a' : 'e') + f.slice(pos + 1)], distance: 1 });
    let content;
    do content = words(pick(docs).content);
    while (content.length < 6);
    const s = Math.floor(rand() * (content.length - 4));
    add('slop', { terms: [content[s], content[s + 3]], slop: 3 });
    add('field', { field: 'title', terms: [pick(words(pick(docs).name).filter(Boolean).concat(['lib']))] });
    const nd = pick(docs);
    add('namespace', { namespace: nd.category, terms: [pick(words(`${nd.description}`).concat(['data']))] });
    add('not', { terms: [pick(mid)], not: pick(mid) });
    add('wildcard', { suffix: pick(mid.filter((w) => w.length >= 7)).slice(-5) });
  }
  const known = [];
  const pool = docs.slice(0, knownWithin);
  for (let i = 0; i < knownItems; i++) {
    let d;
    do d = pick(pool);
    while (words(d.description).length < 3);
    known.push({ target: d.id, text: words(d.description).join(' ') });
  }
  return { queries: q, known };
}
