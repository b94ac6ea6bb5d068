/**
 * Checks shared by the option and document validators: input the native side cannot take gets
 * a clear error here, not a JSON error from deep inside.
 */
import { InvalidArgumentError, LimitError, readingTheirs, shown } from './errors.js';

/**
 * Refuses a name `opts` holds that `names` lacks: a misspelt option (`limt`, `project`,
 * `itemtype`, `semantics`) must not look applied. `what` names the options (`search`,
 * `openIndex`…), the hint the names there are. Anything but an object is left to the caller's
 * own check.
 */
export function onlyKnown(opts: unknown, names: ReadonlySet<string>, what: string): void {
  if (opts === null || typeof opts !== 'object') return;
  for (const key in opts)
    if (!names.has(key))
      throw new InvalidArgumentError(`unknown ${what} option ${shown(key)}`, { hint: `use ${[...names].join(', ')}` });
}

/**
 * Options as given, each read once: every key `for…in` finds (the keys `onlyKnown` checks) is
 * copied, so a getter runs once and what the caller's getters or proxy throw is refused with a
 * code (`readingTheirs`, naming `what`). Lists and plain objects among the values (scope lists,
 * `include_fields`, `filters`, `fields`, `systemBundles`) are copied too, one level down, each
 * list bounded (`MAX_LIST_ENTRIES`) before it is read. Anything but a plain object is returned
 * as it is, for the caller's own check.
 */
export function optionsAsGiven<T>(opts: T, what: string): T {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) return opts;
  return readingTheirs(what, () => {
    const copy: Record<string, unknown> = {};
    for (const key in opts) {
      const value = (opts as Record<string, unknown>)[key];
      // A list or object among them is named by its key when reading it throws.
      put(
        copy,
        key,
        value !== null && typeof value === 'object'
          ? readingTheirs(`${what}' ${key}`, () => inner(value, `${what}' ${key}`, 1))
          : value,
      );
    }
    return copy as T;
  });
}

/**
 * Entries one list of the caller's may hold: every list is copied, and so read whole, on the JS
 * thread before it is checked. `new Array(1e9)` costs its maker nothing; spread into a copy it
 * exhausted the heap and aborted the process (ids to remove, tags, fetchMany's ids, bundles), and
 * checked entry by entry it held the thread for minutes (include_fields). Every list the API
 * takes is far shorter (documents, 2,000,000, and searches, 100,000, are bounded by their own).
 */
export const MAX_LIST_ENTRIES = 1_000_000;

/** A list as given, read once (see `optionsAsGiven`), at most `max` entries; anything but an array as it is. */
export function listAsGiven<T>(list: T, what: string, max = MAX_LIST_ENTRIES): T {
  return readingTheirs(what, () => copiedList(list, what, max));
}

/** `listAsGiven` for a caller already reading under a name of its own: what a getter throws is left to it. */
export function copiedList<T>(list: T, what: string, max = MAX_LIST_ENTRIES): T {
  return Array.isArray(list) ? (boundedCopy(list, what, max, 0) as T) : list;
}

/** A value of the caller's, copied `depth` levels below the options: lists and plain objects one more level. */
function inner(value: unknown, what: string, depth: number): unknown {
  if (depth > 2 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return boundedCopy(value, what, MAX_LIST_ENTRIES, depth);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) put(copy, key, inner((value as Record<string, unknown>)[key], what, depth + 1));
  return copy;
}

function boundedCopy(list: unknown[], what: string, max: number, depth: number): unknown[] {
  const count = list.length;
  if (count > max)
    throw new LimitError(`${what} hold ${count} entries; the limit is ${max}`, { hint: 'pass fewer at once' });
  const copy: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) copy[i] = depth ? inner(list[i], what, depth + 1) : list[i];
  return copy;
}

/** Assigned (a definition costs ~2 µs a search), but a key named `__proto__` is defined, so that it stays a key (and is refused as unknown) instead of setting the copy's prototype. */
function put(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else copy[key] = value;
}

/** Longest path taken: Linux's PATH_MAX (a longer one names no file, and would be echoed whole in the system's refusal). */
const MAX_PATH_CHARS = 4096;

/** A path the file system can be asked about: a non-empty string without NUL, at most `MAX_PATH_CHARS` long. */
export function isPath(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && v.length <= MAX_PATH_CHARS && !v.includes('\0');
}

export const PATH_RULE = `a path (a non-empty string without NUL, at most ${MAX_PATH_CHARS} characters)`;

/** A UTF-16 surrogate without its pair: JSON cannot carry it to the native side as text. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Where `text` has a UTF-16 surrogate without its pair, or -1. */
export function loneSurrogateAt(text: string): number {
  return LONE_SURROGATE.exec(text)?.index ?? -1;
}

export const WELL_FORMED_HINT =
  'pass valid Unicode text (String.prototype.toWellFormed() replaces unpaired surrogates)';

/** Returns `text` when it is well-formed UTF-16, else throws naming `what` and the position. */
export function wellFormed(text: string, what: string): string {
  const at = loneSurrogateAt(text);
  if (at >= 0)
    throw new InvalidArgumentError(`${what} has an unpaired UTF-16 surrogate at position ${at}`, {
      hint: WELL_FORMED_HINT,
    });
  return text;
}

/**
 * `text` as epoch milliseconds (`Date.parse`), NaN when it is no date, or a bare day the month
 * lacks: `Date.parse` rolls `2026-02-30` over to March 2.
 */
export function parseDate(text: string): number {
  const t = Date.parse(text);
  const day = text.trim();
  if (/^\d{4}-\d\d-\d\d$/.test(day) && Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) !== day)
    return Number.NaN;
  return t;
}
