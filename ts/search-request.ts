/**
 * Search options → the native request. Every option is validated here with a clear error;
 * nothing is silently ignored.
 */
import { InvalidArgumentError, LimitError, shown } from './errors.js';
import { INTEGRITIES } from './items.js';
import { isKind, type Kind, KINDS, parseScopes, type Scope } from './scope.js';
import type { Space } from './spaces.js';
import { onlyKnown, parseDate, wellFormed } from './validate.js';
import {
  type DistanceOption,
  MAX_FILTER_VALUES,
  OPTION_NAMES,
  type OptionName,
  type OptionSpec,
  optionValue,
  SEARCH_OPTIONS,
  type SearchOptions,
  snakeNames,
  TEXT_FIELD_NAMES,
} from './search-options.js';
import { HIT_FIELDS, RESULT_FIELDS } from './result-fields.js';
import { arrayOf, plainObjects } from './untenured.js';
import type { NativeFilter, NativeRequest, NativeScope, SortBy } from './wire.js';

export type { DistanceOption, SearchOptions } from './search-options.js';
export type { SortBy };

// The engine's limits (largest page and offset, preview length, fuzzy distance, proximity) belong
// to the core, which reports them as E_LIMIT (or clamps, with a warning): here only the types are
// checked. Defaults of the options the request takes as they are live in the options table.
const DEFAULT_PROXIMITY = 5;
/** The distance `fuzzy: {enabled: true}` means when none is given. */
const DEFAULT_FUZZY = 2;

function bad(message: string, hint: string): never {
  throw new InvalidArgumentError(message, { hint });
}

function integer(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value))
    bad(`${name} must be an integer, got ${shown(value)}`, `give ${name} as a whole number`);
  if (value < min || value > max)
    bad(
      `${name} ${value} is out of range`,
      max !== Number.MAX_SAFE_INTEGER
        ? `${name} must be between ${min} and ${max}`
        : value < min
          ? `${name} must be ${min} or more`
          : `${name} must be a whole number JavaScript holds exactly (at most ${max}); the engine's own bound is smaller`,
    );
  return value;
}

/** A distance option's value, checked for its type; the core bounds it (fuzzy 2, proximity 1,000). */
function distance(opt: unknown, name: string, fallback: number): number | undefined {
  if (opt === undefined || opt === null) return undefined;
  if (typeof opt !== 'object' || Array.isArray(opt))
    bad(`${name} must be an object like {"enabled": true, "max_distance": ${fallback}}`, `pass ${name} as an object`);
  const o = opt as DistanceOption & Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!['enabled', 'max_distance', 'maxDistance'].includes(k))
      bad(`unknown ${name} option "${k}"`, 'use enabled and max_distance');
  if (o.enabled !== undefined && typeof o.enabled !== 'boolean')
    bad(`${name}.enabled must be true or false`, `pass {"enabled": true}`);
  const raw = o.max_distance ?? o.maxDistance;
  if (raw !== undefined && (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0)) {
    bad(
      `${name}.max_distance must be a non-negative integer, got ${shown(raw)}`,
      `e.g. {"enabled": true, "max_distance": ${fallback}}`,
    );
  }
  const enabled = o.enabled ?? raw !== undefined;
  if (!enabled) return undefined;
  return raw ?? fallback;
}

// `\S` where the value begins: `\s*(.+)` tried every split of a run of white space (40,000 tabs,
// a value and a line break: 1.8 s).
const VERSION_OP = /^(>=|<=|>|<|=)\s*(\S.*)$/;

/** Filters over a closed set of values: any other value could never match, so it is an error. */
const CLOSED_FILTERS: Record<string, readonly string[]> = {
  integrity: INTEGRITIES,
  signed: ['true', 'false'],
};

const DURATION = /^(\d+)\s*(h|d|w|m|y)$/i;
const DURATION_MS: Record<string, number> = {
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  m: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

/** Longest duration taken: the span of JavaScript dates on either side of 1970 (~273,790 years). */
const MAX_DURATION_MS = 8.64e15;

/** `12h`, `7d`, `2w`, `3m`, `1y` in milliseconds; undefined for anything else. */
function durationMs(text: string, name: string): number | undefined {
  const d = DURATION.exec(text.trim());
  if (!d) return undefined;
  const ms = Number(d[1]) * DURATION_MS[d[2]!.toLowerCase()]!;
  if (!(ms <= MAX_DURATION_MS))
    bad(`${name} ${shown(text)} reaches past the dates there are`, 'give at most 273,000 years (e.g. "100y")');
  return ms;
}

/** `since`/`until` as epoch milliseconds: an ISO date, a `Date`, or a duration back from now. */
function timeBound(value: unknown, name: 'since' | 'until'): number | undefined {
  if (value === undefined || value === null) return undefined;
  const hint = 'an ISO date ("2026-01-31"), a Date, or a duration back from now: 12h, 7d, 2w, 3m (months), 1y';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) bad(`${name} is an invalid Date`, hint);
    return value.getTime();
  }
  if (typeof value !== 'string') bad(`${name} must be a string, got ${shown(value)}`, hint);
  const back = durationMs(value, name);
  if (back !== undefined) return Date.now() - back;
  const t = parseDate(value);
  if (!Number.isFinite(t)) bad(`${name} must be a date or a duration, got ${shown(value)}`, hint);
  // A bare day `until` includes that whole day.
  return name === 'until' && /^\d{4}-\d\d-\d\d$/.test(value.trim()) ? t + 86_399_999 : t;
}

function filterList(filters: unknown, since?: number, until?: number): NativeFilter[] {
  // An array copied, not a literal: it is held with its request (see `untenured.ts`).
  const out = arrayOf<NativeFilter>(0);
  if (filters === undefined || filters === null) {
    if (since !== undefined || until !== undefined) out.push({ type: 'date', from: since ?? null, to: until ?? null });
    return out;
  }
  if (typeof filters !== 'object' || Array.isArray(filters))
    bad('filters must be an object of key → value', 'e.g. {"category": "rye/core", "tags": ["api"]}');
  // Each key is at least one value to the core (date_from and date_to make one between them): past
  // the limit, refused before any is read.
  let values = 0;
  for (const value of Object.values(filters as Record<string, unknown>))
    values += Array.isArray(value) ? value.length : 1;
  if (values > MAX_FILTER_VALUES + 1)
    throw new LimitError(`the filters hold ${values} values; the limit is ${MAX_FILTER_VALUES}`, {
      hint: 'filter on something the items share (a category, a tag), or split the search',
    });
  let from = since;
  let to = until;
  for (const [key, value] of Object.entries(filters as Record<string, unknown>)) {
    wellFormed(key, 'a filter name');
    if (typeof value === 'string') wellFormed(value, `filter "${key}"`);
    if (key === 'date_from' || key === 'date_to') {
      const t = typeof value === 'string' ? parseDate(value) : Number.NaN;
      if (!Number.isFinite(t))
        bad(`${key} must be an ISO date, got ${shown(value)}`, 'e.g. "2026-01-31" or "2026-01-31T12:00:00Z"');
      if (key === 'date_from') from = Math.max(from ?? t, t);
      else {
        const end = /^\d{4}-\d\d-\d\d$/.test(value as string) ? t + 86_399_999 : t;
        to = Math.min(to ?? end, end);
      }
      continue;
    }
    if (key === 'version' && typeof value === 'string') {
      const m = VERSION_OP.exec(value.trim());
      if (m) {
        out.push({ type: 'version', op: m[1], value: m[2] });
        continue;
      }
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0) bad(`filter "${key}" has an empty list`, 'give at least one value');
    const any: string[] = [];
    const none: string[] = [];
    for (const v of values) {
      if (typeof v === 'string') {
        if (Array.isArray(value)) wellFormed(v, `filter "${key}"`);
        if (v.startsWith('!')) none.push(v.slice(1));
        else any.push(v);
      } else if (typeof v === 'number' || typeof v === 'boolean') {
        any.push(String(v));
      } else {
        bad(
          `filter "${key}" has an unsupported value ${shown(v)}`,
          'filter values are strings, numbers, booleans or lists of them',
        );
      }
    }
    const accepted = Object.hasOwn(CLOSED_FILTERS, key) ? CLOSED_FILTERS[key] : undefined;
    const unknown = accepted ? [...any, ...none].find((v) => !accepted.includes(v)) : undefined;
    if (unknown !== undefined) bad(`filter "${key}" cannot be ${shown(unknown)}`, `use one of ${accepted!.join(', ')}`);
    // Results say an item's kind as `type`, so filters take it by that name too (as the anchor,
    // which filters on a result's own fields first): `{"type": "tool"}` found nothing.
    const facet = key === 'type' ? 'kind' : key;
    if (any.length) out.push({ type: 'anyOf', key: facet, values: any });
    if (none.length) out.push({ type: 'noneOf', key: facet, values: none });
  }
  if (from !== undefined || to !== undefined) out.push({ type: 'date', from: from ?? null, to: to ?? null });
  return out;
}

/** The result fields a search keeps, or undefined for all; checked like every option. */
export function includedFields(opts: SearchOptions): Set<string> | undefined {
  const list = optionValue(opts, 'includeFields');
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list) || list.some((f) => !(RESULT_FIELDS as readonly string[]).includes(f))) {
    bad(`include_fields must be a list of result fields, got ${shown(list)}`, `use any of ${RESULT_FIELDS.join(', ')}`);
  }
  return new Set(['id', 'type', ...list]);
}

/** Options as a request: what the engine runs, and what the answer echoes and keeps. */
export interface BuiltRequest {
  req: NativeRequest;
  /** The query and scope as the envelope echoes them. */
  query: string;
  scope: string;
  /** The result fields kept, or undefined for all. */
  keep?: Set<string>;
}

/** Checks that search options are an object of known names (before any is read). */
export function checkOptions(opts: SearchOptions): void {
  if (!opts || typeof opts !== 'object') bad('search options must be an object', 'pass { query, scope }');
  onlyKnown(opts, OPTION_NAMES, 'search');
}

/** Validates options and builds the native request. */
export function buildRequest(opts: SearchOptions, spaces: Space[] | undefined): BuiltRequest {
  checkOptions(opts);
  const like = likeRef(opts.like);
  const query = opts.query ?? (like ? '*' : undefined);
  if (typeof query !== 'string') bad('query must be a string', 'use "*" to list everything, or like: "kind:id"');
  wellFormed(query, 'query');
  const scopes = opts.scope === undefined ? [] : parseScopes(opts.scope);
  const fields = opts.fields ?? {};
  if (typeof fields !== 'object' || Array.isArray(fields))
    bad('fields must be an object of field → query', 'e.g. {"category": "core"}');
  for (const k of Object.keys(fields)) {
    const v = (fields as Record<string, unknown>)[k];
    // Refused here, at the first, as the core would: a `fields` of 300,000 names took 1.8 s to reach it.
    if (!(TEXT_FIELD_NAMES as readonly string[]).includes(k))
      bad(`unknown field ${shown(k)} in fields`, `use one of ${TEXT_FIELD_NAMES.join(', ')}`);
    if (typeof v !== 'string') bad(`fields.${k} must be a query string`, 'e.g. {"name": "bash"}');
    wellFormed(v, `fields.${k}`);
  }
  const keep = includedFields(opts);
  const fuzzy = distance(opts.fuzzy, 'fuzzy', DEFAULT_FUZZY) ?? 0;
  const proximity = distance(opts.proximity, 'proximity', DEFAULT_PROXIMITY);
  // Built on `asGiven`'s object and by constructors, not literals: a request is held while its
  // batch runs, and a literal's allocations would be tenured (see `untenured.ts`).
  const req = asGiven(opts) as unknown as NativeRequest;
  req.query = query;
  req.scopes = scopes.map((scope) => new WireScope(scope));
  req.spaces = spaces ? spaces.map((s) => s.label) : arrayOf(0);
  req.fields = fields;
  req.filters = filterList(opts.filters, timeBound(opts.since, 'since'), timeBound(opts.until, 'until'));
  req.fuzzy = fuzzy;
  // A caller who chose `fuzzy` (even `enabled: false`) decides typos: no automatic rescue.
  req.exactOnly = opts.fuzzy !== undefined && opts.fuzzy !== null;
  req.proximity = proximity;
  req.recencyHalfLife = halfLife(optionValue(opts, 'boostRecent'));
  req.like = like;
  // Only the item's kind is read when no other item field is wanted.
  req.itemless = keep !== undefined && [...keep].every((f) => HIT_FIELDS.has(f));
  return new Built(req, opts.query ?? '*', scopeText(opts.scope), keep);
}

const WireScope = plainObjects(function (this: NativeScope, scope: Scope) {
  this.kind = scope.kind;
  this.idPattern = scope.idPattern;
  this.namespace = !scope.idPattern && scope.namespace ? scope.namespace : undefined;
  this.namespaceExact = !scope.under;
});

const Built = plainObjects(function (
  this: BuiltRequest,
  req: NativeRequest,
  query: string,
  scope: string,
  keep: Set<string> | undefined,
) {
  this.req = req;
  this.query = query;
  this.scope = scope;
  this.keep = keep;
});

/** The scope as the envelope echoes it: a list of scopes joined by `, `. */
function scopeText(scope: SearchOptions['scope']): string {
  if (scope === undefined) return '*';
  return Array.isArray(scope) ? scope.join(', ') : scope;
}

/** `kind:id` → the id and the kinds it may be (every kind for a bare id). */
function likeRef(value: unknown): { id: string; kinds: Kind[] } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    bad(`like must be an item id, got ${shown(value)}`, 'e.g. "tool:rye/core/sign" (kind:id)');
  wellFormed(value, 'like');
  const text = value.trim();
  const colon = text.indexOf(':');
  const kind = colon > 0 ? text.slice(0, colon) : '';
  if (isKind(kind) && colon < text.length - 1) return { id: text.slice(colon + 1), kinds: [kind] };
  return { id: text, kinds: [...KINDS] };
}

/** `boost_recent: true` halves the boost every 30 days. */
const DEFAULT_HALF_LIFE = '30d';

function halfLife(value: unknown): number | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const ms =
    durationMs(value === true ? DEFAULT_HALF_LIFE : typeof value === 'string' ? value : '', 'boost_recent') ?? 0;
  if (!(ms > 0))
    bad(
      `boost_recent must be true or a half-life, got ${shown(value)}`,
      'e.g. true (30 days) or "7d", "12h", "2w", "3m"',
    );
  return ms;
}

/**
 * The options the request takes as they are (a `wire` key in the options table), each checked
 * by its shape, or its default.
 */
function asGiven(opts: SearchOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, spec, wire, shownName } of WIRE_OPTIONS) {
    const value = optionValue(opts, name);
    out[wire] = value === undefined || value === null ? spec.default : checked(shownName, spec, value);
  }
  return out;
}

/** The options the request carries as given, with the names errors show: made once, read by every search. */
const WIRE_OPTIONS = (Object.entries(SEARCH_OPTIONS) as [OptionName, OptionSpec][]).flatMap(([name, spec]) =>
  spec.wire === undefined ? [] : [{ name, spec, wire: spec.wire, shownName: snakeNames(name)[0] ?? name }],
);

/** `value` if the option's shape takes it, else a coded error naming the option. */
function checked(name: string, spec: OptionSpec, value: unknown): unknown {
  const { shape } = spec;
  switch (shape.type) {
    case 'integer':
      // Upper bounds are the engine's, which the core reports (E_LIMIT).
      return integer(value, name, shape.min, Number.MAX_SAFE_INTEGER, 0);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < shape.min || value > shape.max)
        bad(
          `${name} must be a number from ${shape.min} to ${shape.max}, got ${shown(value)}`,
          spec.hint ?? `e.g. ${shape.max}`,
        );
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') bad(`${name} must be true or false, got ${shown(value)}`, `e.g. "${name}": true`);
      return value;
    case 'enum':
      if (!shape.values.includes(value as string))
        bad(`unknown ${name} ${shown(value)}`, `use ${shape.values.join(', ')}`);
      return value;
    default:
      throw new Error(`option ${name}: a ${shape.type} is not taken as it is`);
  }
}
