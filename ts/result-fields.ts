/** A search result: its fields, and which of them `include_fields` narrows an answer to. */
import type { SOURCES } from './items.js';
import type { Kind } from './scope.js';
import type { Integrity } from './trust/trust.js';
import type { Contribution, MatchKind } from './wire.js';

/** Where a result comes from: its space's kind (a bundle's id is in `bundle`). */
export type Source = (typeof SOURCES)[number];

export interface ShadowEntry {
  space: string;
}

export interface SearchResult {
  id: string;
  name: string;
  title: string;
  description: string;
  category: string;
  score: number;
  type: Kind;
  source: Source;
  preview: string;
  path: string;
  /** True exactly when `integrity` is `verified`. */
  signed: boolean;
  integrity: Integrity;
  /** The item's date as an ISO string: its metadata date, else its file's modification time. */
  date?: string;
  /** About how many tokens loading the whole item costs (its size / 4). */
  tokens?: number;
  /** The bundle id, for items from a system bundle. */
  bundle?: string;
  metadata?: Record<string, unknown>;
  shadows?: ShadowEntry[];
  shadowed_by?: string;
  /** How it was found, in hybrid and semantic searches: by its words, by meaning, or both. */
  match?: MatchKind;
  /** The matched words in `preview`: `[start, end)` JavaScript string indices (with a preview). */
  highlights?: [number, number][];
  /** With `explain`: what each query term gave this result, largest first. */
  explain?: Contribution[];
}

/** The fields of a search result, which `include_fields` narrows an answer to. */
export const RESULT_FIELDS = [
  'id',
  'type',
  'name',
  'title',
  'description',
  'category',
  'score',
  'source',
  'preview',
  'path',
  'signed',
  'integrity',
  'date',
  'tokens',
  'bundle',
  'metadata',
  'shadows',
  'shadowed_by',
  'match',
  'highlights',
  'explain',
] as const;
export type ResultField = (typeof RESULT_FIELDS)[number];

/** Result fields read from the hit itself; every other field comes from the stored item. */
export const HIT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'score',
  'preview',
  'match',
  'highlights',
  'explain',
]);
