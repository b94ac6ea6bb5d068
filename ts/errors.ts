/**
 * Typed errors with stable `code`s. Codes are the contract; classes are a convenience.
 */

export type ErrorCode =
  | 'E_QUERY_SYNTAX'
  | 'E_LIMIT'
  | 'E_INVALID_ARGUMENT'
  | 'E_INVALID_SCOPE'
  | 'E_INDEX_LOCKED'
  | 'E_INDEX'
  | 'E_IO'
  | 'E_NOT_FOUND'
  | 'E_AMBIGUOUS'
  | 'E_INVALID_ID'
  | 'E_INTEGRITY'
  | 'E_EXISTS'
  | 'E_INDEX_CORRUPT'
  | 'E_INTERNAL'
  | 'E_NATIVE_UNAVAILABLE'
  | 'E_TIMEOUT';

/**
 * The longest id an item can have, in UTF-8 bytes: the core's `MAX_ID_BYTES` (held to it by
 * `crates/rye-search-core/tests/wire_keys.rs`). A longer one names no item: a failure echoes it
 * by its start.
 */
export const MAX_ID_BYTES = 4096;

/** Longest echo of a refused value in an error message: a huge or deep value is named by its start. */
const MAX_ECHO_CHARS = 200;

/**
 * A refused value as an error message shows it: JSON where it has one, else its text or type.
 * Never throws (a BigInt, a cycle, a throwing `toString` or getter), so validation always ends
 * in its own clear error.
 */
export function shown(value: unknown): string {
  let text: string | undefined;
  try {
    // NaN and the infinities have no JSON form of their own (they would show as null).
    text = typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
  } catch {
    // No JSON form: its text below.
  }
  if (text === undefined) {
    try {
      text = typeof value === 'bigint' ? `${value}n` : String(value);
    } catch {
      text = aValueOf(value);
    }
  }
  return echo(text);
}

/** A value named by its type alone, when it has no text of its own (`an object`, `a symbol`). */
function aValueOf(value: unknown): string {
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

/**
 * Why a parser refused a file, on one line: a TOML or YAML parser's message goes on with a
 * picture of the lines around the fault, which reports of one line per file showed as escaped
 * newlines. The place, where the parser gives one, follows.
 */
export function parseFailure(err: unknown): string {
  const { message, line, column } = (err ?? {}) as { message?: unknown; line?: unknown; column?: unknown };
  const first = String(message ?? err)
    .split('\n')[0]!
    .trim()
    .replace(/:$/, '');
  // smol-toml gives the place as `line` and `column`.
  return typeof line === 'number' && typeof column === 'number' ? `${first} (line ${line}, column ${column})` : first;
}

/** Text a message repeats (an id, a name), cut with an ellipsis past `MAX_ECHO_CHARS`. */
export function echo(text: string): string {
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
}

export interface ErrorDetails {
  hint?: string;
  position?: number;
  cause?: unknown;
}

export class RyeSearchError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = details.hint ?? '';
  }
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, hint: this.hint };
  }
}

export class QuerySyntaxError extends RyeSearchError {
  /** 0-based character offset in the query where the problem is. */
  readonly position: number;
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_QUERY_SYNTAX', message, details);
    this.position = details.position ?? 0;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), position: this.position };
  }
}

export class LimitError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_LIMIT', message, details);
  }
}

export class InvalidArgumentError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_INVALID_ARGUMENT', message, details);
  }
}

/**
 * Runs `read` over the caller's own objects (`what` names them): what their getters or proxies
 * throw is refused as E_INVALID_ARGUMENT, as any other bad input is; this package's own errors
 * pass as they are.
 */
export function readingTheirs<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw theirFailure(what, err);
  }
}

/** What `readingTheirs` makes of an exception thrown while reading `what`. */
export function theirFailure(what: string, err: unknown): RyeSearchError {
  if (err instanceof RyeSearchError) return err;
  let why: string;
  try {
    why = String((err as { message?: unknown } | null)?.message ?? err);
  } catch {
    why = aValueOf(err);
  }
  return new InvalidArgumentError(`reading ${what} threw: ${echo(why)}`, { hint: `pass plain objects as ${what}` });
}

/** What every search and write of a closed index throws; `again` says how to get an open one. */
export function closedIndexError(again: string): InvalidArgumentError {
  return new InvalidArgumentError('this index is closed', { hint: again });
}

export class InvalidScopeError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_INVALID_SCOPE', message, details);
  }
}

export class IndexLockedError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_INDEX_LOCKED', message, details);
  }
}

export class NotFoundError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_NOT_FOUND', message, details);
  }
}

export class IntegrityError extends RyeSearchError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('E_INTEGRITY', message, details);
  }
}

const NATIVE_MARKER = 'RYE_ERROR:';

interface NativePayload {
  code: ErrorCode;
  message: string;
  hint: string;
  position: number | null;
}

/** Builds the typed error for a payload coming from the Rust core. */
export function fromPayload(p: NativePayload, cause?: unknown): RyeSearchError {
  const details = { hint: p.hint, position: p.position ?? undefined, cause };
  switch (p.code) {
    case 'E_QUERY_SYNTAX':
      return new QuerySyntaxError(p.message, details);
    case 'E_LIMIT':
      return new LimitError(p.message, details);
    case 'E_INVALID_ARGUMENT':
      return new InvalidArgumentError(p.message, details);
    case 'E_INDEX_LOCKED':
      return new IndexLockedError(p.message, details);
    case 'E_NOT_FOUND':
      return new NotFoundError(p.message, details);
    default:
      return new RyeSearchError(p.code, p.message, details);
  }
}

/** Turns an error thrown by the native binding into a typed error (others pass through). */
export function fromNative(err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const at = message.indexOf(NATIVE_MARKER);
  if (at < 0) return err;
  try {
    return fromPayload(JSON.parse(message.slice(at + NATIVE_MARKER.length)) as NativePayload, err);
  } catch {
    return err;
  }
}

/** The `{code, message, hint}` of any error: a system call refused is `E_IO`; another untyped one is a bug, `E_INTERNAL`. */
export function errorPayload(err: unknown): { code: string; message: string; hint: string; position?: number } {
  if (err instanceof RyeSearchError) return err.toJSON() as { code: string; message: string; hint: string };
  // The system refused a call (a path too long, a full disk, a read-only or vanished folder, no
  // descriptors left): not a bug here, and the caller can act on it.
  const sys = err as NodeJS.ErrnoException;
  if (typeof sys?.syscall === 'string' && typeof sys.code === 'string' && /^E[A-Z]+$/.test(sys.code)) {
    return {
      code: 'E_IO',
      message: String(sys.message),
      hint: `the system refused ${sys.syscall} (${sys.code}): check the path, its permissions, free space and the process's limits`,
    };
  }
  return {
    code: 'E_INTERNAL',
    message: String((err as Error)?.message ?? err),
    hint: 'this is a bug in rye-search; please report it',
  };
}

/** How a fetch fails, in every surface (the `rye_fetch` tool, `rye-search fetch --json`). */
export interface FetchFailure {
  status: 'error';
  /** The message. */
  error: string;
  code: string;
  hint: string;
  /** `integrity` when the item exists but is not verified. */
  error_type?: 'integrity';
  item_id?: string;
  item_type?: string;
}

export function fetchFailure(err: unknown, itemId?: unknown, itemType?: unknown): FetchFailure {
  const e = errorPayload(err);
  const body: FetchFailure = { status: 'error', error: e.message, code: e.code, hint: e.hint };
  if (e.code === 'E_INTEGRITY') body.error_type = 'integrity';
  // Echoed so that a failure in a list can be told apart; one longer than any id, by its start.
  // An id that is not text (refused as such) is shown as `shown` shows any value.
  if (itemId !== undefined)
    body.item_id =
      typeof itemId !== 'string' ? shown(itemId) : Buffer.byteLength(itemId) > MAX_ID_BYTES ? echo(itemId) : itemId;
  if (itemType) body.item_type = typeof itemType === 'string' ? echo(itemType) : shown(itemType);
  return body;
}

/** Error codes that say the process is short of resources, not that a file or folder is bad. */
export const EXHAUSTED = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN']);

/** `err` as the coded error of a process out of descriptors or memory, or undefined. */
export function exhaustedError(err: unknown, what: string): RyeSearchError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!code || !EXHAUSTED.has(code)) return undefined;
  return new RyeSearchError('E_IO', `${what}: ${(err as Error).message}`, {
    hint: 'the process ran out of file descriptors or memory: raise the limit (ulimit -n) and try again',
  });
}
