/**
 * One search path for both facades (the persistent `RyeIndex` and the `MemoryIndex`): options are
 * prepared once (`prepareSearch`); a single search answers on the calling thread when it is cheap
 * (`mayBeSlow`), else on the thread pool; many searches go to the native threads in chunks.
 */
import { errorPayload, InvalidArgumentError, LimitError, readingTheirs, shown, theirFailure } from './errors.js';
import { native, nativeAsync, type NativeIndex } from './native.js';
import { buildRequest, checkOptions, type SearchOptions } from './search-request.js';
import { luceneWarnings } from './lucene-syntax.js';
import { envelope, type Prepared, type SearchResponse } from './search-results.js';
import { requestedSpace, type Space } from './spaces.js';
import { MAX_LIMIT } from './search-options.js';
import { onlyKnown, optionsAsGiven } from './validate.js';
import { type NativeRequest, requestJson, requestsJson } from './wire.js';
import { type AnswerRead, type NativePage, PageReader } from './answer-page.js';
import { arrayOf } from './untenured.js';

export interface SearchFailure {
  error: { code: string; message: string; hint: string; position?: number };
}

/** Searches per native call in `searchMany`: one chunk is read while the next ones are searched. */
const SEARCH_MANY_CHUNK = 2048;
/**
 * Results one `searchMany` call (or one batch of a stream) may hold: its answers are all kept
 * until it returns. 100,000 default answers (a million results) are ~800 MB of heap; 600,000
 * exhausted Node's heap and aborted the process after a minute.
 */
const MAX_HELD_RESULTS = 1_000_000;
/**
 * Searches one `searchMany` call takes. Each is read and checked on the JS thread before the
 * first is searched, and its answer is held until the call returns: 12 million holes of a sparse
 * array kept the event loop (every MCP session of the process with it) for 90 s before a search
 * ran, and a million count-only searches held 1.1 GB of answers. `searchStream` takes any number.
 */
export const MAX_SEARCHES_PER_CALL = 100_000;
/** Characters of answers one call may hold (long fields, metadata asked for): the same bound by size. */
const MAX_HELD_CHARS = 500_000_000;
/** Chunks searched ahead of the one being read: two keep the native threads busy while it is. */
const CHUNKS_AHEAD = 2;
/**
 * Numbers a search on the JS thread writes its answer into at first (a page of 10 hits takes a
 * few hundred), and at most: a larger answer comes in a buffer of its own.
 */
const TABLE_ENTRIES = 1024;
const TABLE_ENTRIES_MAX = 1 << 16;

/**
 * Runs many prepared searches in native calls of `SEARCH_MANY_CHUNK`, keeping each invalid one's
 * error in place. `prepare` throws for bad options; `run` gets valid requests and resolves to
 * their answers as a page, in order. While the native threads search one chunk, this thread
 * reads and shapes the one before, so reading hides behind searching.
 */
async function searchMany<P extends { req: NativeRequest }>(
  count: number,
  prepare: (i: number) => P,
  run: (reqs: NativeRequest[]) => Promise<NativePage>,
  shape: (prepared: P, res: AnswerRead, reader: PageReader) => SearchResponse,
  failure: (err: unknown) => SearchFailure,
): Promise<Array<SearchResponse | SearchFailure>> {
  // Only a proxy's length can be anything but a count.
  if (!Number.isSafeInteger(count) || count < 0)
    throw new InvalidArgumentError(`the list of searches has length ${shown(count)}`, {
      hint: 'pass an array of search options',
    });
  if (count > MAX_SEARCHES_PER_CALL)
    throw new LimitError(`${count} searches in one call; the limit is ${MAX_SEARCHES_PER_CALL}`, { hint: HELD_HINT });
  const out = arrayOf<SearchResponse | SearchFailure>(count);
  // The valid searches, and where each answer goes: two arrays, not an object a search (which
  // would be held until the call returns, see `untenured.ts`).
  const valid = arrayOf<P>(0);
  const at = arrayOf<number>(0);
  for (let i = 0; i < count; i++) {
    try {
      valid.push(prepare(i));
      at.push(i);
    } catch (err) {
      out[i] = failure(theirFailure(SEARCH_OPTIONS, err));
    }
  }
  // A count-only search still holds its envelope; one past the largest page is refused alone.
  const held = valid.reduce((n, p) => n + Math.max(1, Math.min(p.req.limit, MAX_LIMIT)), 0);
  if (held > MAX_HELD_RESULTS)
    throw new LimitError(
      `these ${valid.length} searches could hold ${held} results, more than the ${MAX_HELD_RESULTS} one call keeps until it returns`,
      { hint: HELD_HINT },
    );
  let chars = 0;
  const start = (from: number) => {
    const task = run(valid.slice(from, from + SEARCH_MANY_CHUNK).map((p) => p.req));
    task.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
    return task;
  };
  // Chunks in flight: while this thread reads one, the native threads search the next ones.
  const pending: Promise<NativePage>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < CHUNKS_AHEAD && next < valid.length) {
      pending.push(start(next));
      next += SEARCH_MANY_CHUNK;
    }
  };
  fill();
  for (let from = 0; pending.length; from += SEARCH_MANY_CHUNK) {
    const page = await pending.shift()!;
    for (const text of page.texts) chars += text.length;
    // (Chunks still in flight finish unread: `start` keeps their failures handled.)
    if (chars > MAX_HELD_CHARS)
      throw new LimitError(`these searches' answers are over ${MAX_HELD_CHARS} characters`, { hint: HELD_HINT });
    fill();
    const reader = new PageReader(page);
    for (let k = 0; k < page.texts.length; k++) {
      const r = reader.answer(k);
      out[at[from + k]!] = 'error' in r ? r : shape(valid[from + k]!, r, reader);
    }
  }
  return out;
}

/** Options of a stream whose reading threw: its answer is that failure, in its place. */
class Unreadable {
  constructor(readonly err: unknown) {}
}

/** What a getter or proxy of the caller's options that throws is named as (see `readingTheirs`). */
const SEARCH_OPTIONS = 'the search options';

const HELD_HINT =
  'ask for fewer searches at once, or fewer results (limit, preview_chars, include_fields): searchStream holds two batches of answers at most';

/** A failed entry of `searchMany`. */
function searchFailure(err: unknown): SearchFailure {
  return { error: errorPayload(err) };
}

/** A term that starts with a wildcard (`*ing`, `?ar*`) scans the whole term dictionary. */
const LEADING_WILDCARD = /(^|[\s("+\-:])[*?][^\s)"]/;
/** Above this many documents, prefix wildcards and fuzzy terms can take milliseconds too. */
const LARGE_INDEX_DOCS = 200_000;
/**
 * A query (or a field's) longer than this leaves the event loop: one word's tokens are not
 * counted as terms, so a CJK run of 4,000 characters is a phrase of 3,999 pairs (44 ms), and
 * the JS thread is an MCP server's every session.
 */
const LONG_QUERY_CHARS = 256;

/**
 * Whether a search may take long enough that it should leave the event loop for the thread
 * pool. Everything else answers faster than the hop to another thread costs (~50 µs).
 */
export function mayBeSlow(req: NativeRequest, numDocs: () => number, encoderAnswers: () => boolean): boolean {
  const { query, fields } = req;
  const anySlow = (test: (q: string) => boolean) => test(query) || Object.values(fields).some(test);
  if (req.limit + req.offset > 100 || anySlow((q) => q.length > LONG_QUERY_CHARS || LEADING_WILDCARD.test(q)))
    return true;
  // A question the sentence encoder embeds takes milliseconds (the static model's, microseconds).
  if (req.mode !== 'keyword' && /\S\s+\S/.test(query) && encoderAnswers()) return true;
  // Only a fuzzy or wildcard search asks how large the index is (a native call).
  return (req.fuzzy > 0 || anySlow((q) => /[*?]\S/.test(q) || /\S[*?]/.test(q))) && numDocs() > LARGE_INDEX_DOCS;
}

/**
 * What both facades do with search options: check them, pick the spaces the request names
 * (`select`, told whether the options named one; a memory index has none), and build the request
 * with what its answer echoes.
 */
export function prepareSearch(
  given: SearchOptions,
  select: (space: string, named: boolean) => Space[] | undefined,
): Prepared {
  // Read once: the answer echoes what was searched.
  const opts = optionsAsGiven(given, SEARCH_OPTIONS);
  const { space, prepared } = readingTheirs(SEARCH_OPTIONS, () => {
    checkOptions(opts);
    const named = requestedSpace(opts);
    const space = named ?? 'all';
    return { space, prepared: buildRequest(opts, select(space, named !== undefined)) };
  });
  const { query, fields } = prepared.req;
  const queries = [query];
  for (const name in fields) queries.push(fields[name]!);
  // The request built is this search's own: completed in place (a spread copy cost ~1 µs a search).
  const completed = prepared as Prepared;
  completed.space = space;
  completed.warnings = luceneWarnings(queries);
  return completed;
}

export class SearchRunner {
  constructor(private readonly index: NativeIndex) {}

  async search(p: Prepared): Promise<SearchResponse> {
    const res = await this.searchOnce(p);
    return res.total === 0 && p.widened ? this.searchOnce(p.widened) : res;
  }

  private async searchOnce(p: Prepared): Promise<SearchResponse> {
    const payload = requestJson(p.req);
    // Plain queries take microseconds: answering on this thread beats a thread-pool round trip.
    const encoderAnswers = () => this.index.encodingStatus()?.state === 'settled';
    const page = mayBeSlow(p.req, () => this.index.numDocs(), encoderAnswers)
      ? await nativeAsync(() => this.index.search(payload))
      : this.searchHere(payload);
    const reader = new PageReader(page);
    // A failed search throws from the binding: its page holds the one answer.
    return this.noted(envelope(p, reader.answer(0) as AnswerRead, reader));
  }

  /** Numbers of the answers searched on this thread: written over by each (see `searchHere`). */
  private table = new Float64Array(TABLE_ENTRIES);

  /**
   * A search on this thread. An answer whose numbers fit in this runner's table is written into
   * it, and only its text comes back: it is read before the next search writes over it (`lazy`
   * views, which read their table later, never come from here).
   */
  private searchHere(payload: string): NativePage {
    const got = native(() => this.index.searchSync(payload, this.table));
    if (typeof got === 'string') return { texts: [got], table: this.table, transient: true };
    const needed = got.table.length;
    // The next power of two: at most TABLE_ENTRIES_MAX, itself one.
    if (needed > this.table.length && needed <= TABLE_ENTRIES_MAX)
      this.table = new Float64Array(2 ** Math.ceil(Math.log2(needed)));
    return got;
  }

  /**
   * An answer ranked with the static model while the sentence encoder is still at work says so
   * (once per answer, only then): its ranking will improve.
   */
  private noted(res: SearchResponse): SearchResponse {
    if (res.vectors !== 'static') return res;
    const s = this.index.encodingStatus();
    if (s && (s.state === 'loading' || s.state === 'encoding')) {
      // Loading, it has not counted the items yet: "0 of 0" would read as "nothing to encode".
      const progress = s.total ? `has encoded ${s.encoded} of ${s.total} items so far` : 'is starting';
      const note = `ranked by meaning with the static model: the sentence encoder ${progress}`;
      res.warnings = [...(res.warnings ?? []), note];
    }
    return res;
  }

  /**
   * Searches handed over as they are answered (`searchStream` of both facades; `streamOptions`
   * checks its arguments), `batch` at a time off the JS thread (the next
   * batch runs while this one is consumed): memory holds two batches, however long `source` is.
   */
  async *stream(
    source: Iterable<SearchOptions> | AsyncIterable<SearchOptions>,
    prepare: (opts: SearchOptions) => Prepared,
    { batch, lazy }: Required<StreamOptions>,
    stillOpen: () => void = () => undefined,
  ): AsyncGenerator<SearchResponse | SearchFailure, void, undefined> {
    let chunk: (SearchOptions | Unreadable)[] = [];
    let pending: Promise<Array<SearchResponse | SearchFailure>> | undefined;
    const prepareRead = (opts: SearchOptions | Unreadable) => {
      if (opts instanceof Unreadable) throw opts.err;
      return prepare(opts);
    };
    const start = () => {
      // A closed index ends the stream (its failure would otherwise fill every answer, forever).
      stillOpen();
      const running = this.searchMany(chunk as SearchOptions[], prepareRead, lazy);
      // Awaited below; a consumer that stops early must not leave it unhandled.
      running.catch(() => undefined);
      chunk = [];
      return running;
    };
    for await (const opts of source) {
      // Read as it comes: a source that yields one object filled again for each search (searched
      // as its last contents, every one of a batch) gets an answer to each.
      try {
        chunk.push(optionsAsGiven(opts, SEARCH_OPTIONS));
      } catch (err) {
        chunk.push(new Unreadable(err));
      }
      if (chunk.length < batch) continue;
      const next = start();
      if (pending) yield* await pending;
      pending = next;
    }
    const last = chunk.length ? start() : undefined;
    if (pending) yield* await pending;
    if (last) yield* await last;
  }

  /** Many searches off the JS thread; each entry is an envelope or an error, in order. */
  async searchMany(
    list: SearchOptions[],
    prepare: (opts: SearchOptions) => Prepared,
    lazy: boolean,
  ): Promise<Array<SearchResponse | SearchFailure>> {
    const prepared: Prepared[] = [];
    // The same native call and shaping for the searches and for those run again widened.
    const run = (reqs: NativeRequest[]) => nativeAsync(() => this.index.searchMany(requestsJson(reqs)));
    const shape = (p: Prepared, res: AnswerRead, reader: PageReader) => this.noted(envelope(p, res, reader, lazy));
    const out = await searchMany(
      readingTheirs('the list of searches', () => list.length),
      (i) => (prepared[i] = prepare(list[i]!)),
      run,
      shape,
      searchFailure,
    );
    // Searches that left the package's documentation aside and found nothing: again over everything.
    const again = out.flatMap((r, i) => ('total' in r && r.total === 0 && prepared[i]?.widened ? [i] : []));
    if (again.length) {
      const widened = await searchMany(again.length, (k) => prepared[again[k]!]!.widened!, run, shape, searchFailure);
      again.forEach((i, k) => {
        out[i] = widened[k]!;
      });
    }
    return out;
  }
}

/** `searchMany`'s options. */
export interface ManyOptions {
  /**
   * Results as views that read their fields when first asked for (default false): a caller that
   * reads `id` and `score` pays for those alone. See `result-view.ts` for how a view differs
   * from a plain object.
   */
  lazy?: boolean;
}

/** `searchStream`'s options. */
export interface StreamOptions extends ManyOptions {
  /** Searches per native call (default 256; 1 to 10,000): two batches' answers are held at most. */
  batch?: number;
}

export const DEFAULT_STREAM_BATCH = 256;
const MANY_OPTION_NAMES: ReadonlySet<string> = new Set<keyof ManyOptions>(['lazy']);
const STREAM_OPTION_NAMES: ReadonlySet<string> = new Set<keyof StreamOptions>(['batch', 'lazy']);
const MAX_STREAM_BATCH = 10_000;

/** `searchMany`'s options, checked (its list is checked by the facade). */
export function manyOptions(given: ManyOptions | undefined): Required<ManyOptions> {
  const opts = callOptions(given, 'searchMany', 'the searchMany options', MANY_OPTION_NAMES);
  return { lazy: lazyOption(opts) };
}

/** A batch call's options as given (`what` names them): left out, or an object of the names it knows. */
function callOptions<T>(given: T | undefined, call: string, what: string, names: ReadonlySet<string>): T | undefined {
  const opts = optionsAsGiven(given, what);
  if (opts === undefined || opts === null) return undefined;
  if (typeof opts !== 'object' || Array.isArray(opts))
    throw new InvalidArgumentError(`${call}'s options must be an object, got ${shown(opts)}`, {
      hint: `pass { ${[...names].join(', ')} }, or leave them out`,
    });
  onlyKnown(opts, names, call);
  return opts;
}

/** The options of a stream over `source`, or the coded error of a bad source or option. */
export function streamOptions(source: unknown, given: StreamOptions | undefined): Required<StreamOptions> {
  const iterable =
    source !== null &&
    typeof source === 'object' &&
    readingTheirs('the searches', () => Symbol.iterator in source || Symbol.asyncIterator in source);
  if (!iterable)
    throw new InvalidArgumentError('searchStream takes an iterable of search options', {
      hint: 'pass an array, a generator or an async iterable of { query, … }',
    });
  const opts = callOptions(given, 'searchStream', 'the stream options', STREAM_OPTION_NAMES);
  const batch = opts?.batch ?? DEFAULT_STREAM_BATCH;
  if (!Number.isInteger(batch) || batch < 1 || batch > MAX_STREAM_BATCH)
    throw new InvalidArgumentError(`batch must be an integer from 1 to ${MAX_STREAM_BATCH}, got ${shown(batch)}`, {
      hint: `leave it out for ${DEFAULT_STREAM_BATCH}`,
    });
  return { batch, lazy: lazyOption(opts) };
}

/** `lazy` as given: a boolean, false when left out. */
function lazyOption(opts: ManyOptions | undefined): boolean {
  const lazy = opts?.lazy ?? false;
  if (typeof lazy !== 'boolean')
    throw new InvalidArgumentError(`lazy must be true or false, got ${shown(lazy)}`, {
      hint: 'true: results read their fields when first asked for',
    });
  return lazy;
}
