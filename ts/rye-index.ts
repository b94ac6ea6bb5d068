/**
 * A persistent index over the spaces of one project: refresh, search, searchMany.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { scanSpaces } from './discovery.js';
import { cacheDirFor, fallbackCacheDir, indexDirFor, markUsed, pruneCache } from './cache.js';
import { DEFAULT_MAX_FILE_BYTES } from './items.js';
import { checkOpenOptions, type OpenIndexOptions } from './open-options.js';
import { FETCH_OPTION_NAMES, fetchItem, parseItemRef, type FetchOptions, type FetchResponse } from './fetch.js';
import {
  closedIndexError,
  echo,
  fetchFailure,
  InvalidArgumentError,
  shown,
  NotFoundError,
  RyeSearchError,
  type FetchFailure,
} from './errors.js';
import { type ReadyOptions, ready, type SemanticStatus, semanticStatus, startEncoding } from './encoder-tier.js';
import { Indexer, type IndexReport, type IndexWarning, type ItemRef, type Progress, refKey } from './indexer.js';
import { loadParsers } from './metadata.js';
import { embeddingModel, native, nativeAsync, type NativeIndex, schemaVersion } from './native.js';
import { readFiles, realPathOf } from './read-file.js';
import type { SearchOptions } from './search-request.js';
import {
  type LazySearchResponse,
  type Prepared,
  shadowsAmong,
  type SearchResponse,
  type ShadowLookup,
} from './search-results.js';
import {
  prepareSearch,
  SearchRunner,
  type SearchFailure,
  type StreamOptions,
  type ManyOptions,
  manyOptions,
  streamOptions,
} from './search-runner.js';

import { checkProjectDir, DEFAULT_BUNDLE, resolveSpaces, selectSpaces, sourceOf, type Space } from './spaces.js';
import type { Kind } from './scope.js';
import { TrustStore, type IgnoredTrustFile, type Integrity } from './trust/trust.js';
import { listAsGiven, onlyKnown, optionsAsGiven } from './validate.js';

/** Most ids one `fetchMany` (and `rye_fetch` with `item_ids`) loads. */
export const MAX_ITEM_IDS = 50;

/** A search's warning after a refresh that could not write (another process's writer, a full disk). */
const STALE_ANSWER = 'answers come from what was last committed (refresh again for the rest)';
/** What a named space without its `.ai` folder misses, by kind (see `RyeIndex.missingSpaces`). */
const MISSING_SPACE: Partial<Record<Space['kind'], (aiDir: string) => string>> = {
  project: (aiDir) =>
    `no project items: pass the folder that holds .ai/${path.basename(path.dirname(aiDir)) === '.ai' ? ' (here its parent)' : ''}`,
  system: () =>
    `its items are in no answer (check the folder; RYE_SYSTEM_BUNDLES separates ID=DIR bundles with "${path.delimiter}")`,
};

/**
 * Spaces without their `.ai` folder named one by one, in each answer and in a refresh's report;
 * beyond, counted (3,000 bundles in RYE_SYSTEM_BUNDLES made 460 kB of warnings an answer).
 */
const NAMED_MISSING_IN_ANSWER = 3;
const NAMED_MISSING_IN_REPORT = 20;

/** Tantivy's list of an index's segments: without it, the index's files were removed. */
const INDEX_META_FILE = 'meta.json';

/** Bytes `verify` reads per native call at most: 256 files at the default size cap, fewer at a larger one. */
const VERIFY_READ_BYTES = 256 * DEFAULT_MAX_FILE_BYTES;

export interface FetchManyOptions extends Omit<FetchOptions, 'item_id'> {
  item_ids?: string[];
  /** Alias of `item_ids`. */
  itemIds?: string[];
}

const FETCH_MANY_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...[...FETCH_OPTION_NAMES].filter((n) => n !== 'item_id'),
  'item_ids',
  'itemIds',
]);

export type { OpenIndexOptions } from './open-options.js';

export interface VerifyReport {
  total: number;
  counts: Record<Integrity, number>;
  /** Every item that is not verified, with the reason. */
  problems: {
    id: string;
    type: string;
    source: string;
    space: string;
    path: string;
    integrity: Integrity;
    reason: string;
  }[];
  /** Every trust file that confers no trust, and why (unreadable, no key, fingerprint mismatch, bad signature…). */
  ignoredTrustFiles: IgnoredTrustFile[];
}

/** An index's native handle and what refreshes it, made by `openIndex` (again when its files go). */
export interface IndexParts {
  native: NativeIndex;
  indexer: Indexer;
}

export class RyeIndex {
  /** The report of the last refresh. */
  lastReport: IndexReport | undefined;
  private closed = false;
  private parts: IndexParts;
  /** The project and system bundles without a `.ai` folder at the last refresh. */
  private spacesMissing = new Set<Space>();
  private runner: SearchRunner;

  constructor(
    private readonly openParts: () => IndexParts,
    readonly spaces: Space[],
    readonly location: string,
    readonly maxFileBytes = DEFAULT_MAX_FILE_BYTES,
    /** Why the index is not in the usual cache, told in every refresh's report. */
    private readonly cacheNote?: IndexWarning,
  ) {
    this.parts = openParts();
    this.runner = new SearchRunner(this.parts.native);
  }

  get native(): NativeIndex {
    return this.parts.native;
  }

  get indexer(): Indexer {
    return this.parts.indexer;
  }

  /**
   * Files removed from under an open index (another process pruned the cache, a user cleared it)
   * can never be written again: every refresh failed with `E_INDEX` while searches went on
   * answering from the old files. The index is made anew where it was; searches already running
   * finish on the old one.
   */
  private async reopenIfRemoved(): Promise<void> {
    if (fs.existsSync(path.join(this.location, INDEX_META_FILE))) return;
    const old = this.parts;
    this.parts = this.openParts();
    this.runner = new SearchRunner(this.parts.native);
    old.indexer.close();
    await nativeAsync(() => old.native.stopEncoding()).catch(() => undefined);
  }

  /** Bytes this index holds outside the JS heap (what its searches built; its files are the disk's cache), as V8 was last told. */
  get nativeBytes(): number {
    return this.native.toldMemory();
  }

  async refresh(onProgress?: (p: Progress) => void): Promise<IndexReport> {
    this.assertOpen();
    // `refresh({ … })` failed deep inside with a TypeError ("onProgress is not a function").
    if (onProgress !== undefined && typeof onProgress !== 'function')
      throw new InvalidArgumentError(`refresh takes a progress callback, got ${shown(onProgress)}`, {
        hint: 'call refresh(), or refresh((progress) => { … })',
      });
    await this.reopenIfRemoved();
    markUsed(this.location);
    const report = await this.indexer.refresh(onProgress);
    if (this.cacheNote) report.warnings.unshift(this.cacheNote);
    const missing = this.spaces.filter((s) => MISSING_SPACE[s.kind] && !isDirectory(s.aiDir));
    this.spacesMissing = new Set(missing);
    for (const s of missing.slice(0, NAMED_MISSING_IN_REPORT))
      report.warnings.push({ path: s.aiDir, message: `${s.label}: no .ai folder here` });
    const unnamed = missing.length - NAMED_MISSING_IN_REPORT;
    if (unnamed > 0) report.warnings.push({ path: '', message: `${unnamed} more spaces have no .ai folder` });
    this.lastReport = report;
    return report;
  }

  async search(opts: SearchOptions): Promise<SearchResponse> {
    this.assertOpen();
    return this.runner.search(this.prepare(opts));
  }

  /**
   * Many searches in one call, run off the JS thread; each entry is an envelope or an error.
   * With `lazy: true`, results read their fields when first asked for (`result-view.ts`).
   */
  searchMany(
    list: SearchOptions[],
    opts: ManyOptions & { lazy: true },
  ): Promise<Array<LazySearchResponse | SearchFailure>>;
  searchMany(list: SearchOptions[], opts?: ManyOptions): Promise<Array<SearchResponse | SearchFailure>>;
  async searchMany(list: SearchOptions[], opts?: ManyOptions): Promise<Array<SearchResponse | SearchFailure>> {
    this.assertOpen();
    if (!Array.isArray(list))
      throw new InvalidArgumentError('searchMany takes an array of search options', {
        hint: 'pass [{ query, scope }, …]',
      });
    const { lazy } = manyOptions(opts);
    return this.runner.searchMany(list, (o) => this.prepare(o), lazy);
  }

  /**
   * Searches answered as they are ready, in order, each an envelope or an error: `source` may be
   * an array, a generator or an async iterable (1M queries need not be held), and memory holds
   * two batches of answers at most. Closing the index ends the stream with its error.
   */
  searchStream(
    source: Iterable<SearchOptions> | AsyncIterable<SearchOptions>,
    opts: StreamOptions & { lazy: true },
  ): AsyncGenerator<LazySearchResponse | SearchFailure, void, undefined>;
  searchStream(
    source: Iterable<SearchOptions> | AsyncIterable<SearchOptions>,
    opts?: StreamOptions,
  ): AsyncGenerator<SearchResponse | SearchFailure, void, undefined>;
  searchStream(
    source: Iterable<SearchOptions> | AsyncIterable<SearchOptions>,
    opts?: StreamOptions,
  ): AsyncGenerator<SearchResponse | SearchFailure, void, undefined> {
    this.assertOpen();
    const options = streamOptions(source, opts);
    return this.runner.stream(
      source,
      (o) => this.prepare(o),
      options,
      () => this.assertOpen(),
    );
  }

  /** ID mode: the verified content of one item (cascade project → user → bundles). */
  async fetch(opts: FetchOptions): Promise<FetchResponse> {
    this.assertOpen();
    const given = optionsAsGiven(opts, 'the fetch options');
    await loadParsers();
    return fetchItem(given, {
      spaces: this.spaces,
      trust: TrustStore.load(this.spaces),
      maxFileBytes: this.maxFileBytes,
      devMode: process.env.RYE_DEV_MODE === '1',
      endingWith: (kinds, id, spaces) => this.idsEndingWith(kinds, id, spaces),
    });
  }

  /** Up to five `kind:id`s of `kinds` in `spaces` whose id ends with `id`'s segments, sorted. */
  private idsEndingWith(kinds: readonly string[], id: string, spaces: readonly Space[]): string[] {
    const tail = `/${id.normalize('NFC')}`;
    const out = new Set<string>();
    const ends = (ref: { kind: string; id: string }) =>
      kinds.includes(ref.kind) && `/${ref.id.normalize('NFC')}`.endsWith(tail);
    if (this.lastReport) {
      for (const refs of this.indexer.byId.values()) {
        const ref = refs.find((r) => spaces.some((s) => s.label === r.space.label));
        if (ref && ends(ref)) out.add(`${ref.kind}:${ref.id}`);
      }
    } else {
      // A fetch with no refresh before it (the CLI's, an MCP server's first call): the files are
      // listed, once, for this error.
      for (const c of scanSpaces([...spaces], this.maxFileBytes).candidates) if (ends(c)) out.add(`${c.kind}:${c.id}`);
    }
    return [...out].sort().slice(0, 5);
  }

  /**
   * Several items in one call (at most {@link MAX_ITEM_IDS}): per id, in order, its fetch response
   * or its failure document. Verification and copy rules are those of `fetch`; one failure
   * stays in its place and does not stop the others.
   */
  /**
   * Ids of the items of `kind` (any kind when undefined) that start with `prefix`, each once,
   * sorted, at most `limit`: what a client completes an item id from (MCP completion).
   */
  itemIds(kind: Kind | undefined, prefix: string, limit = 1000): string[] {
    this.assertOpen();
    // The first `limit` in order, without sorting every id of a large index on each keystroke:
    // what is kept is cut back to `limit` whenever it reaches four times that.
    let ids: string[] = [];
    // Once `limit` are kept, an id that sorts after the last of them cannot enter.
    let last: string | undefined;
    const cut = () => {
      ids = [...new Set(ids)].sort().slice(0, limit);
      last = ids.length === limit ? ids[limit - 1] : undefined;
    };
    for (const key of this.indexer.byId.keys()) {
      const sep = key.indexOf('\0');
      if (kind !== undefined && key.slice(0, sep) !== kind) continue;
      const id = key.slice(sep + 1);
      if (!id.startsWith(prefix) || (last !== undefined && id >= last)) continue;
      ids.push(id);
      if (ids.length >= 4 * limit) cut();
    }
    cut();
    return ids;
  }

  async fetchMany(opts: FetchManyOptions): Promise<{ items: (FetchResponse | FetchFailure)[] }> {
    this.assertOpen();
    const given = optionsAsGiven(opts, 'the fetchMany options');
    onlyKnown(given, FETCH_MANY_OPTION_NAMES, 'fetchMany');
    const { item_ids: ids, itemIds, ...one } = given ?? ({} as FetchManyOptions);
    // Already a copy, bounded: `optionsAsGiven` copies the lists among the options.
    const list = ids ?? itemIds;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ITEM_IDS)
      throw new InvalidArgumentError(`item_ids must be a list of 1 to ${MAX_ITEM_IDS} ids`, {
        hint: 'e.g. {"item_ids": ["tool:rye/core/sign", "knowledge:rye/guide"]}',
      });
    const items: (FetchResponse | FetchFailure)[] = [];
    for (const item_id of list) {
      try {
        items.push(await this.fetch({ ...one, item_id }));
      } catch (err) {
        items.push(fetchFailure(err, item_id, one.item_type));
      }
    }
    return { items };
  }

  /**
   * Verification report over every indexed item, or over the copies (in every space) of the
   * items named by `ids` (`kind:id` or a bare id); results are cached by content hash.
   */
  async verify(ids?: string[]): Promise<VerifyReport> {
    this.assertOpen();
    ids = listAsGiven(ids, 'the ids');
    const counts: Record<Integrity, number> = { verified: 0, unsigned: 0, modified: 0, untrusted: 0, invalid: 0 };
    const problems: VerifyReport['problems'] = [];
    let total = 0;
    const refs = [...this.selected(ids)].flat();
    const realSpaces = new Map(this.spaces.map((s) => [s, realPathOf(s.aiDir)]));
    const perCall = Math.max(1, Math.floor(VERIFY_READ_BYTES / this.maxFileBytes));
    for (let i = 0; i < refs.length; i += perCall) {
      const part = refs.slice(i, i + perCall);
      const reads = await readFiles(
        part.map((r) => r.path),
        this.maxFileBytes,
        part.map((r) => realSpaces.get(r.space) ?? ''),
      );
      for (const [k, ref] of part.entries()) {
        const read = reads[k]!;
        // Gone, replaced by what is not a file, or grown past the cap since the last refresh:
        // the next refresh drops it from the index.
        if (!('bytes' in read)) continue;
        const { bytes } = read;
        const hash = createHash('sha256').update(bytes).digest('hex');
        const v = this.indexer.verify(bytes.toString('utf8'), hash, ref);
        total++;
        counts[v.integrity]++;
        if (v.integrity !== 'verified') {
          problems.push({
            id: ref.id,
            type: ref.kind,
            source: sourceOf(ref.space.label),
            space: ref.space.label,
            path: ref.path,
            integrity: v.integrity,
            reason: v.reason ?? '',
          });
        }
      }
    }
    problems.sort((a, b) => a.path.localeCompare(b.path));
    return { total, counts, problems, ignoredTrustFiles: [...this.indexer.trust.ignored] };
  }

  /** The refs of every item, or of the named ones; a name that matches no item is an error. */
  private selected(ids: string[] | undefined): Iterable<ItemRef[]> {
    if (ids === undefined) return this.indexer.byId.values();
    if (!Array.isArray(ids))
      throw new InvalidArgumentError('ids must be an array of item ids', { hint: 'e.g. ["tool:rye/core/bash/bash"]' });
    const out: ItemRef[][] = [];
    for (const itemId of ids) {
      const { kinds, id } = parseItemRef(itemId);
      const found = kinds
        .map((k) => this.indexer.byId.get(refKey(k, id)))
        .filter((refs): refs is ItemRef[] => refs !== undefined);
      if (found.length === 0) {
        throw new NotFoundError(`Item not found: ${echo(itemId)}`, {
          hint: 'find the id with a search (rye_search, rye-search search); ids are kind:id or a bare id without extension',
        });
      }
      for (const refs of found) if (!out.includes(refs)) out.push(refs);
    }
    return out;
  }

  /** Stops watching and encoding (what was encoded is kept); searches after it fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.indexer.close();
    await nativeAsync(() => this.native.stopEncoding());
  }

  /** Which vectors searches by meaning use now, and how far the sentence encoder has got. */
  semanticStatus(): SemanticStatus {
    return semanticStatus(this.native, embeddingModel() !== 'none');
  }

  /**
   * Resolves when the index is ready as asked: `{ semantic: 'full' }` waits until every item has
   * its sentence-encoder vector (or the encoder is off: see the status's `error`). Searches
   * never wait for it: the static model answers meanwhile.
   */
  async ready(opts?: ReadyOptions): Promise<SemanticStatus> {
    opts = optionsAsGiven(opts, 'the ready options');
    // An index opened with `encode: false` starts encoding here.
    if (opts?.semantic === 'full' && !this.closed) startEncoding(this.native);
    return ready(
      () => this.semanticStatus(),
      opts,
      () => this.closed,
    );
  }

  private prepare(opts: SearchOptions): Prepared {
    let selected: Space[] = [];
    let named = false;
    const p = prepareSearch(opts, (space, spaceNamed) => {
      selected = selectSpaces(this.spaces, space);
      named = spaceNamed;
      return selected;
    });
    // What another process was still writing at the last refresh is not in the answer yet.
    const report = this.lastReport;
    const warnings = [...p.warnings, ...this.missingSpaces(selected)];
    if (report?.readOnly) warnings.push(`${report.readOnlyReason}: ${STALE_ANSWER}`);
    const prepared = { ...p, warnings, shadows: shadowsAmong(this.shadows, selected) };
    // A space the options name is searched as named, the package's documentation included.
    return named ? prepared : docsAside(prepared, selected);
  }

  /**
   * A project or system bundle given without a `.ai` folder where it says (the `.ai` folder itself
   * given as the project, a typo, two bundles joined by a comma in RYE_SYSTEM_BUNDLES) adds
   * nothing, and its items were silently missing from every answer: each search of it says so,
   * as of the last refresh. A user space is often absent (no `~/.ai`): never said.
   */
  private missingSpaces(selected: Space[]): string[] {
    if (!this.spacesMissing.size) return [];
    const missing = selected.filter((s) => this.spacesMissing.has(s));
    const said = missing
      .slice(0, NAMED_MISSING_IN_ANSWER)
      .map((s) => `${s.label} has no .ai folder at ${s.aiDir}: ${MISSING_SPACE[s.kind]?.(s.aiDir)}`);
    const unnamed = missing.length - NAMED_MISSING_IN_ANSWER;
    if (unnamed > 0)
      said.push(
        `${unnamed} more spaces searched have no .ai folder (the index report names ${NAMED_MISSING_IN_REPORT})`,
      );
    return said;
  }

  /** Shadows are computed over every item of the spaces, not only the hits (each search keeps those it searched). */
  readonly shadows: ShadowLookup = (kind, id) =>
    this.indexer.copies(kind, id)?.map((r) => ({ label: r.space.label, path: r.path }));

  protected assertOpen(): void {
    if (this.closed) throw closedIndexError('open it again with openIndex()');
  }
}

/**
 * `mkdir -p`, one level at a time and at most 256 levels: Node's recursive mkdir spins forever
 * where the kernel answers ENOENT for a parent that exists (`/proc/self/…`).
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; missing.length < 256; at = path.dirname(at)) {
    try {
      if (fs.statSync(at).isDirectory()) break;
      throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) throw err;
      missing.push(at);
    }
  }
  for (const at of missing.reverse()) {
    try {
      fs.mkdirSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Creates the index's directory, or says in one coded error why the cache cannot hold it. */
function makeIndexDir(location: string): void {
  try {
    makeDirs(location);
    if (!fs.lstatSync(location).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    fs.accessSync(location, fs.constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    throw new RyeSearchError('E_IO', `cannot keep an index in ${location} (${code})`, {
      hint: 'choose a writable cache directory: cacheDir, --cache-dir or RYE_SEARCH_CACHE_DIR',
    });
  }
}

export async function openIndex(given: OpenIndexOptions = {}): Promise<RyeIndex> {
  const opts = optionsAsGiven(given, 'the open options');
  checkOpenOptions(opts);
  if (opts.projectPath !== undefined) checkProjectDir(opts.projectPath);
  const spaces = resolveSpaces(opts);
  const cache = cacheDirFor(opts.cacheDir);
  let cacheDir = cache.dir;
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const locationIn = (dir: string) =>
    indexDirFor(dir, opts.projectPath, spaces, embeddingModel(), schemaVersion(), maxFileBytes);
  let location = locationIn(cacheDir);
  let cacheNote: IndexWarning | undefined;
  try {
    makeIndexDir(location);
  } catch (err) {
    // The usual cache is read-only or not a folder (a sandbox's home): every search failed.
    // A cache the caller chose stays an error.
    const fallback = cache.chosen ? undefined : fallbackCacheDir();
    if (!fallback) throw err;
    const why = (err as Error).message;
    cacheNote = { path: cacheDir, message: `${why}: indexes are kept in ${fallback} (RYE_SEARCH_CACHE_DIR chooses)` };
    cacheDir = fallback;
    location = locationIn(cacheDir);
  }
  const watch = opts.watch ?? process.platform === 'linux';
  const openParts = (): IndexParts => {
    makeIndexDir(location);
    const nativeIndex = native((b) => b.NativeIndex.open(location));
    if (opts.encode !== false) startEncoding(nativeIndex);
    const indexer = new Indexer(nativeIndex, spaces, location, maxFileBytes, watch, opts.writerWaitMs);
    return { native: nativeIndex, indexer };
  };
  const index = new RyeIndex(openParts, spaces, location, maxFileBytes, cacheNote);
  pruneCache(cacheDir, location);
  if (opts.refresh !== false) {
    try {
      await index.refresh(opts.onProgress);
    } catch (err) {
      // The caller gets no index to close: its encoder and files are let go here.
      await index.close().catch(() => undefined);
      throw err;
    }
  }
  return index;
}

/** The package's own documentation's `.ai` directory. */
const DEFAULT_BUNDLE_AI = path.join(DEFAULT_BUNDLE.root, '.ai');

/**
 * The package's own documentation answers when asked for (a `space`/`source`, or a scope in its
 * `rye-search` namespace) or when nothing else does; it never outranks a user's items. A search
 * of every space leaves it aside, and is run again over everything when it finds nothing.
 */
function docsAside(p: Prepared, selected: Space[]): Prepared {
  const docs = selected.find((s) => s.kind === 'system' && path.resolve(s.aiDir) === DEFAULT_BUNDLE_AI);
  if (!docs || selected.length < 2) return p;
  const named = p.req.scopes.some((s) => (s.namespace ?? s.idPattern ?? '').startsWith('rye-search'));
  if (named) return p;
  const spaces = p.req.spaces.filter((label) => label !== docs.label);
  return { ...p, req: { ...p.req, spaces }, widened: p };
}
