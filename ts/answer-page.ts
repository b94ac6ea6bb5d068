/**
 * Reads the answers the native side hands over as a page (its layout is described in
 * crates/rye-search-core/src/wire/page.rs): each answer's fields are slices of its one text and
 * numbers of the page's table. Only an answer's rare parts (warnings, facet counts), a hit's
 * metadata and `explain` are JSON. Shaping what is read into results is `search-results.ts`'s job.
 */
import { arrayOf, NOTHING, pair, plainObjects } from './untenured.js';
import {
  type Contribution,
  type Counts,
  MATCH_KINDS,
  type MatchKind,
  SEARCH_TYPES,
  type SearchType,
  VECTOR_TIERS,
  type VectorTier,
} from './wire.js';

/** Answers as the binding returns them: a text each, and one table of numbers for all. */
export interface NativePage {
  texts: string[];
  table: Float64Array;
  /** Its table is written over by the next search (`SearchRunner.searchHere`): read it whole, now. */
  transient?: boolean;
}

/** One answer's text and its page's table: where its hits' fields lie. */
export interface AnswerSource {
  table: Float64Array;
  text: string;
  /** The table is written over by the next search: nothing is left to read from it later. */
  transient: boolean;
}

/** An `AnswerSource` made without an allocation site (see `untenured.ts`). */
const Source = plainObjects(function (this: AnswerSource, table: Float64Array, text: string, transient: boolean) {
  this.table = table;
  this.text = text;
  this.transient = transient;
});

export const STATUS_ERROR = 1;
/** How a hit's item is written: its fields, its kind alone (itemless), or its stored JSON. */
export const FORM_ITEM = 0;
export const FORM_KIND = 1;
export const FORM_RAW = 2;
/** Codes of the table: an index in these lists (0: the entry is absent, where it may be). */
const TOTAL_RELATIONS = [undefined, 'eq', 'gte'] as const;
const VECTORS = [undefined, ...VECTOR_TIERS] as const;
const MATCHED = [undefined, ...MATCH_KINDS] as const;

/** One answer's envelope, as read; its hits follow, read one at a time by `PageReader.hit`. */
export interface AnswerRead {
  total: number;
  hits: number;
  searchType: SearchType;
  vectors?: VectorTier;
  totalRelation?: 'eq' | 'gte';
  relaxed: boolean;
  warnings: readonly string[];
  counts?: Counts;
}

/** An `AnswerRead` made without an allocation site (see `untenured.ts`). */
const Answer = plainObjects(function (
  this: AnswerRead,
  total: number,
  hits: number,
  searchType: SearchType,
  relaxed: boolean,
  warnings: readonly string[],
) {
  this.total = total;
  this.hits = hits;
  this.searchType = searchType;
  this.relaxed = relaxed;
  this.warnings = warnings;
});

/**
 * One hit, as read. Items of the page's usual form give `signed` and `integrity` as stored;
 * an item stored in another shape gives whatever it holds, and shaping applies the same rules.
 */
export interface HitRead {
  id: string;
  score: number;
  preview: string;
  matched: MatchKind | undefined;
  /** `[start, end)` pairs with a preview, else undefined; undefined too when `highlightsDeferred`. */
  highlights: [number, number][] | undefined;
  /** The hit has highlights to read with `highlightsAt` when asked for. */
  highlightsDeferred: boolean;
  explain: Contribution[] | undefined;
  kind: string;
  /** Undefined for an itemless hit (only `kind` was asked for). */
  space: string | undefined;
  name: string;
  title: string;
  description: string;
  category: string;
  path: string;
  /** Epoch milliseconds, or NaN/null: none. */
  date: unknown;
  signed: unknown;
  integrity: unknown;
  /** Parsed, unless `metadataDeferred`. */
  metadata: unknown;
  /** The hit has an object or a list as metadata, to read with `metadataAt` when asked for. */
  metadataDeferred: boolean;
  tokens: unknown;
  /** Where the hit was read from: its answer, and where it starts in the page's table. */
  source: AnswerSource;
  at: number;
  /** Where its item's entries start in the table (-1: it has none of the usual form). */
  itemAt: number;
}

const NO_SOURCE: AnswerSource = { table: new Float64Array(0), text: '', transient: true };

/** A `HitRead` to fill. */
export function emptyHit(): HitRead {
  return {
    id: '',
    score: 0,
    preview: '',
    matched: undefined,
    highlights: undefined,
    highlightsDeferred: false,
    explain: undefined,
    kind: '',
    space: undefined,
    name: '',
    title: '',
    description: '',
    category: '',
    path: '',
    date: null,
    signed: false,
    integrity: undefined,
    metadata: undefined,
    metadataDeferred: false,
    tokens: undefined,
    source: NO_SOURCE,
    at: 0,
    itemAt: -1,
  };
}

/** Reads a page's answers in order. The same `HitRead` is refilled for each hit: nothing is kept. */
export class PageReader {
  private at = 0;
  /** The current answer's text, and the page's table. */
  source: AnswerSource = NO_SOURCE;
  readonly hit: HitRead = emptyHit();

  constructor(readonly page: NativePage) {}

  /** Answer `k` (the next one): its envelope, or the error payload of a failed search. */
  answer(k: number): AnswerRead | { error: { code: string; message: string; hint: string; position?: number } } {
    const t = this.page.table;
    const at = this.at;
    const text = this.page.texts[k]!;
    this.source = new Source(t, text, this.page.transient === true);
    if (t[at] === STATUS_ERROR) {
      this.at = at + 1;
      return { error: JSON.parse(text) };
    }
    const restStart = t[at + 7]!;
    const restEnd = t[at + 8]!;
    const rest =
      restEnd > restStart
        ? (JSON.parse(text.slice(restStart, restEnd)) as { warnings: string[]; counts: Counts | null })
        : undefined;
    this.at = at + 9;
    const read = new Answer(
      t[at + 1]!,
      t[at + 2]!,
      SEARCH_TYPES[t[at + 3]!]!,
      t[at + 6] === 1,
      rest?.warnings ?? NOTHING,
    );
    const vectors = VECTORS[t[at + 4]!];
    if (vectors) read.vectors = vectors;
    const relation = TOTAL_RELATIONS[t[at + 5]!];
    if (relation) read.totalRelation = relation;
    if (rest?.counts) read.counts = rest.counts;
    return read;
  }

  /** The next hit of the current answer, in `this.hit`. */
  next(): HitRead {
    this.at = readHit(this.source, this.at, this.hit);
    return this.hit;
  }

  /** Steps over the next hit of the current answer unread; where it starts in the table. */
  skip(): number {
    const at = this.at;
    this.at = hitEnd(this.page.table, at);
    return at;
  }
}

/** Where the hit at `at` of a page's table ends (where the next entry starts). */
function hitEnd(t: Float64Array, at: number): number {
  return itemAt(t, at) + (t[at] === FORM_ITEM ? ITEM_ENTRIES : 2);
}

/** Where the item's entries of the hit at `at` start (after its highlights). */
function itemAt(t: Float64Array, at: number): number {
  return at + 10 + Math.max(t[at + 9]!, 0);
}

/** Whether the item entries at `at` have text `k` in the span the ones at `before` have it in (`before` -1: no). */
function samePlace(t: Float64Array, before: number, at: number, k: number): boolean {
  return before >= 0 && t[before + k] === t[at + k] && t[before + k + 1] === t[at + k + 1];
}

/** Table entries of an item of the usual form (see `readHit`). */
const ITEM_ENTRIES = 21;

/** Reads the hit at `at` of its answer `source` into `h`; where it ends. */
export function readHit(source: AnswerSource, at: number, h: HitRead): number {
  const { table: t, text: s } = source;
  // The hit before, read into `h` from the same answer: a text in the same span is the same string.
  const before = h.source === source ? h.itemAt : -1;
  h.source = source;
  h.at = at;
  h.itemAt = -1;
  const hit = at;
  const form = t[at]!;
  h.id = s.slice(t[at + 1], t[at + 2]);
  h.score = t[at + 3]!;
  h.preview = s.slice(t[at + 4], t[at + 5]);
  h.matched = MATCHED[t[at + 6]!];
  const explainStart = t[at + 7]!;
  const explainEnd = t[at + 8]!;
  h.explain = explainEnd > explainStart ? JSON.parse(s.slice(explainStart, explainEnd)) : undefined;
  const marks = t[at + 9]!;
  at += 10;
  // None without a preview, none found, or some: paired when read, or now from a transient table.
  h.highlightsDeferred = marks > 0 && !source.transient;
  h.highlights = marks < 0 || h.highlightsDeferred ? undefined : highlightsAt(source, hit);
  if (marks > 0) at += marks;
  if (form === FORM_ITEM) {
    // A text written once for this hit and the one before (see `wire/page.rs`) is one string.
    h.itemAt = at;
    if (!samePlace(t, before, at, 0)) h.kind = s.slice(t[at], t[at + 1]);
    if (!samePlace(t, before, at, 2)) h.space = s.slice(t[at + 2], t[at + 3]);
    if (!samePlace(t, before, at, 4)) h.name = s.slice(t[at + 4], t[at + 5]);
    // A title equal to the name has the name's span.
    if (t[at + 6] === t[at + 4] && t[at + 7] === t[at + 5]) h.title = h.name;
    else if (!samePlace(t, before, at, 6)) h.title = s.slice(t[at + 6], t[at + 7]);
    if (!samePlace(t, before, at, 8)) h.description = s.slice(t[at + 8], t[at + 9]);
    if (!samePlace(t, before, at, 10)) h.category = s.slice(t[at + 10], t[at + 11]);
    if (!samePlace(t, before, at, 12)) h.path = s.slice(t[at + 12], t[at + 13]);
    h.date = t[at + 14];
    h.signed = t[at + 15] === 1;
    h.integrity = t[at + 16]! >= 0 ? s.slice(t[at + 16], t[at + 17]) : undefined;
    readMetadata(h, source, t[at + 18]!, t[at + 19]!);
    const tokens = t[at + 20]!;
    h.tokens = Number.isNaN(tokens) ? undefined : tokens;
    return at + ITEM_ENTRIES;
  }
  h.metadataDeferred = false;
  if (form === FORM_KIND) {
    h.kind = s.slice(t[at], t[at + 1]);
    h.space = undefined;
  } else readItem(h, JSON.parse(s.slice(t[at], t[at + 1])) as unknown[]);
  return at + 2;
}

/**
 * A hit's metadata JSON at `[start, end)` of its answer's text (start -1: none). An object or a
 * list is left for `metadataAt` (a result parses it when read: `deferred-field.ts`), unless the
 * table is transient; anything else (an index written by other code) is parsed now, so that
 * shaping can leave a falsy one out as before.
 */
function readMetadata(h: HitRead, source: AnswerSource, start: number, end: number): void {
  const s = source.text;
  const first = start >= 0 ? s.charCodeAt(start) : -1;
  h.metadataDeferred = (first === 0x7b || first === 0x5b) && !source.transient;
  h.metadata = start < 0 || h.metadataDeferred ? undefined : JSON.parse(s.slice(start, end));
}

/** The metadata of the hit at `at` of `source`, parsed (a hit with `metadataDeferred`). */
export function metadataAt(source: AnswerSource, at: number): unknown {
  const { table: t, text } = source;
  const item = itemAt(t, at);
  return JSON.parse(text.slice(t[item + 18], t[item + 19]));
}

/** The highlights of the hit at `at` of `source`, as `[start, end)` pairs (none: an empty list). */
export function highlightsAt(source: AnswerSource, at: number): [number, number][] {
  const t = source.table;
  const marks = t[at + 9]!;
  const pairs = arrayOf<[number, number]>(marks / 2);
  for (let i = 0; i < marks; i += 2) pairs[i / 2] = pair(t[at + 10 + i]!, t[at + 11 + i]!);
  return pairs;
}

/** An item stored in another shape, read as the JSON it is (`NativeItem`, or `[kind]`): a text field that is not text reads as empty. */
function readItem(h: HitRead, item: unknown[]): void {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  h.kind = text(item[0]);
  if (item.length === 1) {
    h.space = undefined;
    return;
  }
  h.space = text(item[1]);
  h.name = text(item[2]);
  h.title = text(item[3]);
  h.description = text(item[4]);
  h.category = text(item[5]);
  h.path = text(item[6]);
  h.date = item[7];
  const extra = Array.isArray(item[8]) ? (item[8] as unknown[]) : undefined;
  h.signed = extra?.[0];
  h.integrity = extra?.[1];
  h.metadata = extra?.[2];
  h.tokens = extra?.[3];
}
