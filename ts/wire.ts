/**
 * The shapes that cross N-API, one type each (the Rust side rejects unknown keys): the request
 * (`SearchRequest` in crates/rye-search-core/src/request.rs), the document (`ItemDoc` in
 * document.rs), and the names an answer page codes by number (`answer-page.ts` reads the page).
 * Requests and documents go as JSON text, one buffer per call.
 */
import type { Kind } from './scope.js';

/** Orders a page can be sorted in (see `SortBy` in request.rs). */
export const SORT_ORDERS = ['score', 'name', 'date'] as const;
export type SortBy = (typeof SORT_ORDERS)[number];

/** How a search runs (see `Mode` in request.rs). */
export const SEARCH_MODES = ['auto', 'keyword', 'semantic', 'hybrid'] as const;
/** How exact `total` must be (the core's `Count`): counting every match is half a common term's cost. */
export const TOTAL_COUNTS = ['exact', 'lower_bound', 'none'] as const;
export type TotalCount = (typeof TOTAL_COUNTS)[number];
export type SearchMode = (typeof SEARCH_MODES)[number];

/** How a hit matched, in hybrid and semantic searches. */
export const MATCH_KINDS = ['keyword', 'semantic', 'both'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

/** What ran: the search a mode came to. */
export const SEARCH_TYPES = ['keyword', 'hybrid', 'semantic'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** Which vectors ranked by meaning: the static model's (at once) or the sentence encoder's (once settled). */
export const VECTOR_TIERS = ['static', 'encoder'] as const;
export type VectorTier = (typeof VECTOR_TIERS)[number];

export interface NativeFilter {
  type: 'anyOf' | 'noneOf' | 'version' | 'date';
  [k: string]: unknown;
}

export interface NativeScope {
  kind?: string;
  idPattern?: string;
  namespace?: string;
  namespaceExact: boolean;
}

export interface NativeRequest {
  query: string;
  /** Items in any of these scopes; empty = every item. */
  scopes: NativeScope[];
  spaces: string[];
  fields: Record<string, string>;
  filters: NativeFilter[];
  fuzzy: number;
  /** No typo rescue (the caller chose `fuzzy`): a plain query that finds nothing is not tried again with typos allowed. */
  exactOnly: boolean;
  proximity?: number;
  sortBy: SortBy;
  limit: number;
  offset: number;
  previewChars: number;
  /** Only hits scoring at least this (0–1, relative to the best); 0 = every match. */
  minScore: number;
  /** Count the whole match set by type, space, category and integrity. */
  facets: boolean;
  /** Favour recent items: the age in ms at which the boost halves. */
  recencyHalfLife?: number;
  /** Rank the items most like this one (a bare id may be of any kind). */
  like?: { id: string; kinds: string[] };
  explain: boolean;
  /** Hits carry only the item's kind (`[kind]`): the answer needs no other item field. */
  itemless: boolean;
  mode: SearchMode;
  count: TotalCount;
}

/**
 * What the core takes for a request key left out (`SearchRequest::default()`; tests/wire_keys.rs
 * holds the two equal). A key at its default is not sent, nor an empty list or map: a default
 * request's JSON was 287 characters for a single term, and parsing them was ~1.8 µs of a rare
 * term's 14.5 µs native search (`bench/probes/request-wire.js`).
 */
export const REQUEST_DEFAULTS = {
  fuzzy: 0,
  exactOnly: false,
  sortBy: 'score',
  limit: 10,
  offset: 0,
  previewChars: 200,
  mode: 'auto',
  minScore: 0,
  facets: false,
  explain: false,
  itemless: false,
  count: 'exact',
} as const;

/** `req` as the core reads it, without what it would take anyway (see `REQUEST_DEFAULTS`). */
export function requestJson(req: NativeRequest): string {
  return JSON.stringify(sentKeys(req));
}

/** Requests of one batch as the core reads them: a JSON array of `requestJson`'s. */
export function requestsJson(reqs: readonly NativeRequest[]): string {
  return JSON.stringify(reqs.map(sentKeys));
}

const DEFAULTS: Readonly<Record<string, unknown>> = REQUEST_DEFAULTS;

function sentKeys(req: NativeRequest): Partial<NativeRequest> {
  // An empty `{}` filled in order: the same keys in the same order share one hidden class.
  const out: Record<string, unknown> = {};
  // Own keys only, as JSON.stringify reads them: a name someone added to Object.prototype is
  // no request key (the core refuses unknown keys).
  for (const key of Object.keys(req)) {
    const value = (req as unknown as Record<string, unknown>)[key];
    if (value === undefined || value === DEFAULTS[key] || isEmpty(value)) continue;
    out[key] = value;
  }
  return out as Partial<NativeRequest>;
}

/** An empty list, or an empty map (`fields`): what the core takes for either left out. */
function isEmpty(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.length === 0;
  return Object.keys(value).length === 0;
}

/**
 * What a hit shows of the facade's own data: `[signed, integrity, metadata, tokens]` (see
 * document.ts). An array, not an object: `JSON.parse` of a ten-hit answer took twice as long
 * with objects in it.
 */
export type StoredExtra = [
  signed: boolean,
  integrity: string,
  metadata: Record<string, unknown> | null,
  tokens: number,
];

/** One searchable item, as the core indexes it. */
export interface NativeDocument {
  /** Unique key (space label + path for files; kind + id in memory): an upsert replaces by key. */
  key: string;
  id: string;
  kind: Kind;
  /** Space label: `project`, `user`, `system:<bundle id>`. */
  space: string;
  /** 0 project, 1 user, 2 system: the coarse tie-break. */
  spaceRank: number;
  title: string;
  name: string;
  description: string;
  category: string;
  content: string;
  path: string;
  version: string | null;
  /** Epoch milliseconds. */
  date: number | null;
  /** Exact-match facets for filters: key → values. */
  meta: Record<string, string[]>;
  mtime?: number;
  size?: number;
  extra: StoredExtra;
}

/**
 * What a hit shows besides id, score and preview, written at index time. Arrays, not objects:
 * `JSON.parse` builds them several times faster, and every search parses ten of them.
 */
export type NativeItem = [
  kind: Kind,
  space: string,
  name: string,
  title: string,
  description: string,
  category: string,
  path: string,
  date: number | null,
  extra: StoredExtra | null,
];

/** What one query term gave a hit (`explain`). */
export interface Contribution {
  field: string;
  term: string;
  how: 'exact' | 'word form' | 'phrase' | 'typo' | 'wildcard';
  weight: number;
  bm25: number;
}

/** Facet → value → number of matches. */
export type Counts = Record<'type' | 'space' | 'category' | 'integrity', Record<string, number>>;
