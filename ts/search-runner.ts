/**
 * One search runner for both facades (the persistent `RyeIndex` and the `MemoryIndex`): a single
 * search answers on the calling thread when it is cheap, else on the thread pool; many searches
 * go to the native threads in chunks.
 */
import { errorPayload } from './errors.js';
import { native, nativeAsync, type NativeIndex } from './native.js';
import { mayBeSlow, type SearchOptions } from './search-request.js';
import { envelope, type SearchResponse, type ShadowLookup } from './search-results.js';
import type { NativeRequest, NativeResponse } from './wire.js';

/** A request ready to run, with what shaping its answer needs. */
export interface Prepared {
  req: NativeRequest;
  /** The space named in the envelope. */
  space: string;
  warnings: string[];
  shadows?: ShadowLookup;
}

export interface SearchFailure {
  error: { code: string; message: string; hint: string; position?: number };
}

/** Searches per native call in `searchMany`: one chunk is parsed while the next is searched. */
const SEARCH_MANY_CHUNK = 2048;

/**
 * Runs many prepared searches in native calls of `SEARCH_MANY_CHUNK`, keeping each invalid one's
 * error in place. `prepare` throws for bad options; `run` gets valid requests and resolves to
 * their answers, one JSON text per line, in order. While the native threads search one chunk,
 * this thread parses and shapes the one before, so parsing hides behind searching.
 */
async function searchMany<P extends { req: NativeRequest }>(
  count: number,
  prepare: (i: number) => P,
  run: (reqs: NativeRequest[]) => Promise<string>,
  shape: (i: number, prepared: P, res: NativeResponse) => SearchResponse,
  failure: (err: unknown) => SearchFailure,
): Promise<Array<SearchResponse | SearchFailure>> {
  const out: Array<SearchResponse | SearchFailure> = new Array(count);
  const valid: Array<{ i: number; p: P }> = [];
  for (let i = 0; i < count; i++) {
    try {
      valid.push({ i, p: prepare(i) });
    } catch (err) {
      out[i] = failure(err);
    }
  }
  const start = (from: number) => {
    const task = run(valid.slice(from, from + SEARCH_MANY_CHUNK).map((v) => v.p.req));
    task.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
    return task;
  };
  let pending = valid.length ? start(0) : undefined;
  for (let from = 0; pending; from += SEARCH_MANY_CHUNK) {
    const raw = await pending;
    pending = from + SEARCH_MANY_CHUNK < valid.length ? start(from + SEARCH_MANY_CHUNK) : undefined;
    // One answer per line (see `many.rs`): each is parsed, shaped and dropped in turn.
    const answers = raw ? raw.split('\n') : [];
    for (let k = 0; k < answers.length; k++) {
      const { i, p } = valid[from + k]!;
      const r = JSON.parse(answers[k]!) as { ok: NativeResponse } | SearchFailure;
      out[i] = 'error' in r ? r : shape(i, p, r.ok);
    }
  }
  return out;
}

/** A failed entry of `searchMany`. */
function searchFailure(err: unknown): SearchFailure {
  return { error: errorPayload(err) };
}

export class SearchRunner {
  constructor(private readonly index: NativeIndex) {}

  async search(opts: SearchOptions, p: Prepared): Promise<SearchResponse> {
    const payload = JSON.stringify(p.req);
    // Plain queries take microseconds: answering on this thread beats a thread-pool round trip.
    const raw = mayBeSlow(p.req, () => this.index.numDocs())
      ? await nativeAsync(() => this.index.search(payload))
      : native(() => this.index.searchSync(payload));
    return envelope(opts, p.req, JSON.parse(raw) as NativeResponse, p.space, p.shadows, p.warnings);
  }

  /** Many searches off the JS thread; each entry is an envelope or an error, in order. */
  searchMany(
    list: SearchOptions[],
    prepare: (opts: SearchOptions) => Prepared,
  ): Promise<Array<SearchResponse | SearchFailure>> {
    return searchMany(
      list.length,
      (i) => prepare(list[i]!),
      (reqs) => nativeAsync(() => this.index.searchMany(JSON.stringify(reqs))),
      (i, p, res) => envelope(list[i]!, p.req, res, p.space, p.shadows, p.warnings),
      searchFailure,
    );
  }
}
