/**
 * An answer read from the native page → the `rye_search` envelope: results with their space,
 * trust and shadows.
 */
import type { Kind } from './scope.js';
import { deferredFields } from './deferred-field.js';
import { sourceOf } from './spaces.js';
import type { BuiltRequest } from './search-request.js';
import type { Integrity } from './trust/trust.js';
import {
  type AnswerRead,
  type AnswerSource,
  type HitRead,
  highlightsAt,
  metadataAt,
  type PageReader,
} from './answer-page.js';
import type { SearchResult, Source } from './result-fields.js';
import { ResultView, type ViewShape } from './result-view.js';
import { arrayOf, plainObjects } from './untenured.js';
import type { Counts, SearchType, VectorTier } from './wire.js';

export interface SearchResponse {
  results: SearchResult[];
  total: number;
  query: string;
  scope: string;
  space: string;
  limit: number;
  offset: number;
  /** What ran: `keyword`, `hybrid` (keyword and semantic, fused) or `semantic`. */
  search_type: SearchType;
  /**
   * Which vectors ranked by meaning, when meaning ranked: `static` (the small model, from the
   * first answer) or `encoder` (the sentence encoder, once every item has its vector).
   */
  vectors?: VectorTier;
  /**
   * With `count: 'lower_bound'` or `'none'`: `eq` when `total` is exact anyway, `gte` when it is
   * a lower bound (top-k skipped matches that could not reach the page, uncounted).
   */
  total_relation?: 'eq' | 'gte';
  /** More results follow this page: ask again with `offset: next_offset`. */
  has_more: boolean;
  next_offset?: number;
  /**
   * True when a plain question found nothing with every word and was answered without the
   * words that matched least (they are named in `warnings`).
   */
  relaxed?: boolean;
  /** With `facets: true`: matches by type, space, category and integrity, over the whole match set. */
  counts?: Counts;
  warnings?: string[];
}

/** An answer of `lazy: true` (`searchMany`, `searchStream`): its results are views (`result-view.ts`). */
export interface LazySearchResponse extends SearchResponse {
  results: ResultView[];
}

/** A request ready to run, with what shaping its answer needs. */
export interface Prepared extends BuiltRequest {
  /** The space named in the envelope. */
  space: string;
  warnings: readonly string[];
  shadows?: ShadowLookup;
  /**
   * The same search over every space, run when this one (which leaves the package's own
   * documentation aside) finds nothing.
   */
  widened?: Prepared;
}

/** Shadow lookup: refs of one kind+id across spaces, in precedence order. */
export type ShadowLookup = (kind: Kind, id: string) => { label: string; path: string }[] | undefined;

/** The lookup seen by a search over some spaces: an item can only shadow what was searched. */
export function shadowsAmong(lookup: ShadowLookup, searched: readonly { label: string }[]): ShadowLookup {
  const labels = new Set(searched.map((s) => s.label));
  return (kind, id) => lookup(kind, id)?.filter((r) => labels.has(r.label));
}

/** A result's fields every result has, made without an allocation site (see `untenured.ts`). */
const Result = plainObjects(function (this: SearchResult, hit: HitRead, space: string) {
  this.id = hit.id;
  this.name = hit.name;
  this.title = hit.title;
  this.description = hit.description;
  this.category = hit.category;
  this.score = hit.score;
  this.type = hit.kind as Kind;
  this.source = sourceOf(space) as Source;
  this.preview = hit.preview;
  this.path = hit.path;
  this.signed = (hit.signed ?? false) as boolean;
  this.integrity = (hit.integrity ?? 'unsigned') as Integrity;
});

// What a kept answer would hold most of its objects for, made when a caller reads it.
const deferred = deferredFields<AnswerSource>({ metadata: metadataAt, highlights: highlightsAt });

/** Stamps `result` with where its hit lies if any of its fields is to be read later. */
function stampIfDeferred(result: object, hit: HitRead): void {
  if (hit.metadataDeferred || hit.highlightsDeferred) deferred.stamp(result, hit.source, hit.at);
}

function setHighlights(result: object, hit: HitRead): void {
  if (hit.highlightsDeferred) deferred.defer(result, 'highlights');
  else if (hit.highlights) (result as SearchResult).highlights = hit.highlights;
}

function shapeResult(hit: HitRead, shadows?: ShadowLookup): SearchResult {
  const { id, kind, path } = hit;
  // A stored item of its kind alone (another shape than this code writes) has no space.
  const space = hit.space ?? '';
  const result = new Result(hit, space);
  // A date JavaScript cannot hold (an index written by older code) is left out, never thrown.
  const date = hit.date;
  if (date !== null && date !== undefined && !Number.isNaN(date)) {
    const when = new Date(date as number);
    if (Number.isFinite(when.getTime())) result.date = when.toISOString();
  }
  if (typeof hit.tokens === 'number') result.tokens = hit.tokens;
  if (space.startsWith('system:')) result.bundle = space.slice('system:'.length);
  stampIfDeferred(result, hit);
  if (hit.metadataDeferred) deferred.defer(result, 'metadata');
  else if (hit.metadata) result.metadata = hit.metadata as Record<string, unknown>;
  if (hit.matched) result.match = hit.matched;
  setHighlights(result, hit);
  if (hit.explain) result.explain = hit.explain;
  const copies = shadows?.(kind as Kind, id);
  if (copies && copies.length > 1) {
    const [winner, ...rest] = copies;
    if (winner!.path === path && winner!.label === space) result.shadows = rest.map((r) => ({ space: r.label }));
    else result.shadowed_by = winner!.label;
  }
  return result;
}

/** One hit of an answer to `p`, shaped as `p` asks (its fields, its shadows). */
export function shapeHit(p: Prepared, hit: HitRead): SearchResult {
  const { req, keep, shadows } = p;
  if (!keep) return shapeResult(hit, shadows);
  if (req.itemless) return shapeItemless(hit, keep);
  const shadowsShown = keep.has('shadows') || keep.has('shadowed_by') ? shadows : undefined;
  return only(shapeResult(hit, shadowsShown), keep);
}

/** An envelope's fields every envelope has, made without an allocation site (see `untenured.ts`). */
const Envelope = plainObjects(function (
  this: SearchResponse,
  p: Prepared,
  res: AnswerRead,
  results: SearchResult[],
  hasMore: boolean,
) {
  this.results = results;
  this.total = res.total;
  this.query = p.query;
  this.scope = p.scope;
  this.space = p.space;
  this.limit = p.req.limit;
  this.offset = p.req.offset;
  this.search_type = res.searchType;
  this.has_more = hasMore;
});

/** How an answer's views are shaped, made without an allocation site (see `untenured.ts`). */
const ShapeOfViews = plainObjects(function (this: ViewShape, p: Prepared) {
  this.shape = (hit) => shapeHit(p, hit);
  this.scoreShown = !p.keep || p.keep.has('score');
});

/**
 * The envelope of the answer `reader` stands at, its results shaped for `p`; with `lazy`, each
 * result a view that reads its fields from the page when first asked (`result-view.ts`).
 */
export function envelope(p: Prepared, res: AnswerRead, reader: PageReader, lazy = false): SearchResponse {
  const { req } = p;
  const results = arrayOf<SearchResult>(res.hits);
  if (lazy) {
    const how = new ShapeOfViews(p);
    for (let k = 0; k < res.hits; k++) results[k] = new ResultView(reader.source, reader.skip(), how);
  } else for (let k = 0; k < res.hits; k++) results[k] = shapeHit(p, reader.next());
  const after = req.offset + results.length;
  // A lower bound means matches were skipped: there are more than it counts.
  const out = new Envelope(p, res, results, after < res.total || res.totalRelation === 'gte');
  if (res.vectors) out.vectors = res.vectors;
  if (res.totalRelation) out.total_relation = res.totalRelation;
  // Only a page that moved on has a next one (with `limit: 0`, the same offset would loop forever).
  if (out.has_more && after > req.offset) out.next_offset = after;
  if (res.relaxed) out.relaxed = true;
  if (res.counts) out.counts = res.counts;
  if (p.warnings.length || res.warnings.length) out.warnings = p.warnings.concat(res.warnings);
  return out;
}

/** A result narrowed to the fields asked for (`id` and `type` always). */
function only(r: SearchResult, keep: Set<string>): SearchResult {
  const out: Record<string, unknown> = {};
  for (const k of keep) {
    const v = (r as unknown as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as unknown as SearchResult;
}

/** A hit of an itemless answer (its kind alone), narrowed to `keep`. */
function shapeItemless(hit: HitRead, keep: Set<string>): SearchResult {
  const out: Record<string, unknown> = {};
  out.id = hit.id;
  out.type = hit.kind;
  if (keep.has('score')) out.score = hit.score;
  if (keep.has('preview') && hit.preview) out.preview = hit.preview;
  if (keep.has('match') && hit.matched) out.match = hit.matched;
  // An itemless hit has no metadata: only its highlights can be deferred.
  if (keep.has('highlights')) {
    stampIfDeferred(out, hit);
    setHighlights(out, hit);
  }
  if (keep.has('explain') && hit.explain) out.explain = hit.explain;
  return out as unknown as SearchResult;
}
