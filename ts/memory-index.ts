/**
 * An in-memory index over plain documents, for library users who are not indexing `.ai/` trees.
 */
import { closedIndexError, InvalidArgumentError, LimitError, readingTheirs, RyeSearchError, shown } from './errors.js';
import { buildDocument, documentTexts } from './document.js';
import { type ReadyOptions, ready, type SemanticStatus, semanticStatus, startEncoding } from './encoder-tier.js';
import { embeddingModel, native, nativeAsync, type NativeBatch, type NativeIndex } from './native.js';
import { isKind, type Kind } from './scope.js';
import type { SearchOptions } from './search-request.js';
import type { LazySearchResponse, Prepared, SearchResponse } from './search-results.js';
import {
  prepareSearch,
  SearchRunner,
  type SearchFailure,
  type StreamOptions,
  type ManyOptions,
  manyOptions,
  streamOptions,
} from './search-runner.js';
import { copiedList, listAsGiven, optionsAsGiven, parseDate, wellFormed } from './validate.js';
import type { NativeDocument, NativeFilter } from './wire.js';

export interface PlainDocument {
  id: string;
  /** Default `knowledge`. */
  kind?: Kind;
  title?: string;
  name?: string;
  description?: string;
  category?: string;
  content?: string;
  tags?: string[];
  version?: string;
  /** ISO date or epoch milliseconds. */
  date?: string | number;
  /** Source label: `project` (default), `user`, `system` or `system:<bundle id>`. */
  source?: 'project' | 'user' | 'system' | `system:${string}`;
  path?: string;
  metadata?: Record<string, string | number | boolean | string[]>;
}

export type MemorySearchOptions = SearchOptions;

const RANK: Record<string, number> = { project: 0, user: 1 };
/** A document's source label, and a `space` a search over them may name. */
const SOURCE_LABEL = /^(project|user|system(:.+)?)$/;
/**
 * Documents sent at a time (see `upsertDocuments` for the texts' own size): few, so that their
 * texts die young too.
 */
const UPSERT_CHUNK = 256;

const TEXT_KEYS = ['title', 'name', 'description', 'category', 'content', 'version', 'source', 'path'] as const;
/**
 * The most text one document holds, as a file item at the largest size cap (64 MiB): adding a
 * document costs ~11 times its text while it is indexed (its copies across the wire, the stored
 * text, the tokens of its first million words), so a 500 MB one would take ~6 GB.
 */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;
/**
 * Documents one `add` takes: a copy of each is held until it is written (a sparse array or a
 * proxy can claim any length at no cost to the caller; `new Array(3e8)` took 10 s and 1.2 GB
 * before it was refused). Twice the bench's largest tier, added at once.
 */
export const MAX_DOCUMENTS_PER_ADD = 2_000_000;

/**
 * A document as it is at the call: its fields read once (a getter, a proxy's traps), its tags
 * and metadata copied. Anything but a plain object is left for `checkDocument` to refuse.
 */
function snapshot(d: PlainDocument): PlainDocument {
  if (!d || typeof d !== 'object' || Array.isArray(d)) return d;
  const { id, kind, title, name, description, category, content, version, date, source, path, tags, metadata } = d;
  // Typed by every field of a document: a field added to `PlainDocument` does not compile until it is copied here.
  const copy: { [K in keyof Required<PlainDocument>]: PlainDocument[K] | undefined } = {
    id,
    kind,
    title,
    name,
    description,
    category,
    content,
    version,
    date,
    source,
    path,
    tags: copiedList(tags, `document ${shown(id)}: tags`),
    metadata:
      metadata && typeof metadata === 'object' && !Array.isArray(metadata)
        ? Object.fromEntries(
            Object.entries(metadata).map(([k, v]) => [k, copiedList(v, `document ${shown(id)}: metadata.${k}`)]),
          )
        : metadata,
  };
  // `id` may be missing or of any type here: `checkDocument` refuses it next.
  return copy as PlainDocument;
}

/**
 * Rejects what would otherwise be dropped or stringified silently, naming the document and
 * field.
 */
function checkDocument(d: PlainDocument): void {
  if (!d || typeof d !== 'object' || typeof d.id !== 'string' || d.id === '') {
    const got = d && typeof d === 'object' && !Array.isArray(d) ? `a document with id ${shown(d.id)}` : shown(d);
    throw new InvalidArgumentError(`every document needs a string id, got ${got}`, {
      hint: 'pass { id, title?, content?, … }',
    });
  }
  const fail = (what: string, hint: string): never => {
    throw new InvalidArgumentError(`document ${shown(d.id)}: ${what}`, { hint });
  };
  if (d.id.includes('\0')) fail('the id has a NUL character', 'use ids like "section/name"');
  if (d.kind !== undefined && !isKind(d.kind))
    fail(`unknown kind ${shown(d.kind)}`, 'use directive, tool or knowledge');
  if (d.source !== undefined && d.source !== null && !(typeof d.source === 'string' && SOURCE_LABEL.test(d.source))) {
    fail(`unknown source ${shown(d.source)}`, 'use project, user, system or system:<bundle id>');
  }
  for (const k of TEXT_KEYS) {
    if (d[k] !== undefined && d[k] !== null && typeof d[k] !== 'string')
      fail(`${k} must be a string, got ${typeof d[k]}`, `pass ${k} as text`);
  }
  const chars = TEXT_KEYS.reduce((n, k) => n + ((d[k] as string | undefined)?.length ?? 0), 0);
  if (chars > MAX_DOCUMENT_CHARS)
    throw new LimitError(
      `document ${shown(d.id)} holds ${chars} characters of text; the limit is ${MAX_DOCUMENT_CHARS}`,
      {
        hint: 'split it into several documents (sections, pages): an item is what an agent reads at once',
      },
    );
  if (
    d.tags !== undefined &&
    d.tags !== null &&
    !(Array.isArray(d.tags) && d.tags.every((t) => typeof t === 'string'))
  ) {
    fail('tags must be an array of strings', 'e.g. tags: ["api", "cli"]');
  }
  if (Number.isNaN(dateOf(d)))
    fail(`date ${shown(d.date)} is not an ISO date or epoch milliseconds`, 'e.g. "2026-01-31" or 1769817600000');
  if (d.metadata !== undefined && d.metadata !== null) {
    if (typeof d.metadata !== 'object' || Array.isArray(d.metadata))
      fail('metadata must be an object', 'e.g. metadata: { author: "ann" }');
    for (const [k, v] of Object.entries(d.metadata)) {
      const scalar = (x: unknown) =>
        typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)) || typeof x === 'boolean';
      if (!(scalar(v) || (Array.isArray(v) && v.every((x) => typeof x === 'string')))) {
        fail(
          `metadata.${k} must be a string, number, boolean or array of strings`,
          'flatten nested values into keys of their own',
        );
      }
    }
  }
}

/** The document's date in epoch milliseconds: null without one, NaN when it is not a date. */
function dateOf(d: PlainDocument): number | null {
  if (d.date === undefined || d.date === null) return null;
  const date =
    typeof d.date === 'number' ? Math.trunc(d.date) : typeof d.date === 'string' ? parseDate(d.date) : Number.NaN;
  // Epoch milliseconds a JavaScript Date can hold (±8.64e15, ~273,790 years either side of 1970).
  return Number.isFinite(new Date(date).getTime()) ? date : Number.NaN;
}

/** Finds the string of a document that JSON cannot carry (called only when the native side refused a chunk). */
function checkText(d: PlainDocument): void {
  const check = (text: unknown, what: string) =>
    typeof text === 'string' && wellFormed(text, `document ${shown(d.id)}: ${what}`);
  check(d.id, 'id');
  for (const k of TEXT_KEYS) check(d[k], k);
  for (const t of d.tags ?? []) check(t, 'a tag');
  for (const [k, v] of Object.entries(d.metadata ?? {})) {
    check(k, 'a metadata key');
    for (const x of Array.isArray(v) ? v : [v]) check(x, `metadata.${k}`);
  }
}

/**
 * A document, already checked by `checkDocument`, as the core indexes it (exported for
 * `bench/probes/build-floor.js`, which times the core alone on what this sends it).
 */
export function toNative(d: PlainDocument): NativeDocument {
  const date = dateOf(d);
  const kind = d.kind ?? 'knowledge';
  const source = d.source ?? 'project';
  const name = d.name ?? d.id.split('/').pop()!;
  return buildDocument({
    key: `${kind}\0${d.id}`,
    id: d.id,
    kind,
    space: source,
    spaceRank: RANK[source] ?? 2,
    title: d.title ?? name,
    name,
    description: d.description ?? '',
    category: d.category ?? '',
    content: d.content ?? '',
    path: d.path ?? '',
    version: d.version,
    tags: d.tags ?? [],
    date: date ?? undefined,
    metadata: { ...(d.metadata ?? {}) },
    signed: false,
    integrity: 'unsigned',
  });
}

/**
 * Sends `docs` to a batch in chunks: one JSON text of every document would double the memory a
 * large add needs. Each chunk's texts are made while the native side indexes the one before (an
 * upsert runs off this thread; one at a time, so documents are written in order). The documents
 * were checked (`checkDocument`); text JSON cannot carry fails the call, so the batch (aborted)
 * commits nothing; no upsert is left running behind it.
 */
async function upsertAll(batch: NativeBatch, docs: PlainDocument[]): Promise<void> {
  let sending: { chunk: PlainDocument[]; upsert: Promise<void> } | undefined;
  const sent = async () => {
    if (!sending) return;
    const { chunk, upsert } = sending;
    sending = undefined;
    try {
      await upsert;
    } catch (err) {
      // Text JSON cannot carry (an unpaired surrogate) is named here; anything else is rethrown.
      if (!(err instanceof RyeSearchError) || err.code !== 'E_LIMIT') chunk.forEach(checkText);
      throw err;
    }
  };
  try {
    for (let i = 0; i < docs.length; i += UPSERT_CHUNK) {
      const chunk = docs.slice(i, i + UPSERT_CHUNK);
      const { texts, tooLarge } = documentTexts(chunk, toNative);
      await sent();
      if (tooLarge) throw tooLarge;
      sending = { chunk, upsert: nativeAsync(() => batch.upsert(texts)) };
    }
    await sent();
  } finally {
    await sending?.upsert.catch(() => {});
  }
}

export class MemoryIndex {
  private readonly native: NativeIndex = native((b) => b.NativeIndex.inMemory());
  private readonly runner = new SearchRunner(this.native);
  private closed = false;

  constructor() {
    startEncoding(this.native);
  }

  /** Which vectors searches by meaning use now, and how far the sentence encoder has got. */
  semanticStatus(): SemanticStatus {
    return semanticStatus(this.native, embeddingModel() !== 'none');
  }

  /**
   * Resolves when ready as asked: always once the merges left after bulk adds have run (searches
   * then read as few segments as they will), and with `{ semantic: 'full' }` once every item has
   * its encoder vector (see `RyeIndex.ready`).
   */
  async ready(opts?: ReadyOptions): Promise<SemanticStatus> {
    opts = optionsAsGiven(opts, 'the ready options');
    await this.writes;
    await nativeAsync(() => this.native.settleMerges(true));
    return ready(() => this.semanticStatus(), opts);
  }

  /** The last write queued: `add` and `remove` run one at a time, in call order. */
  private writes: Promise<unknown> = Promise.resolve();

  /** The adds queued last, not yet written: an add asked for before they start joins them. */
  private gathering: AddGroup | undefined;

  /**
   * Adds documents; a document with the same kind and id replaces the old one. Calls made while
   * another write runs wait their turn (the index has one writer); adds that wait together are
   * written in one batch, in call order, each resolving once all of them are searchable.
   */
  async add(docs: PlainDocument[]): Promise<void> {
    this.assertOpen();
    if (!Array.isArray(docs))
      throw new InvalidArgumentError('add takes an array of documents', { hint: 'pass [{ id, … }]' });
    // Each document is read once, now: what is written is what the call was given, whatever the
    // caller does with its objects while the add waits for the writer (one object filled again
    // for each add, not awaited, was written as its last contents, once). Each is checked as it
    // is copied: the first bad one (a hole of a sparse array is a missing document) refuses the
    // add before the rest are read, and never the adds written with it.
    const list: PlainDocument[] = [];
    readingTheirs('the documents', () => {
      const count = docs.length;
      if (count > MAX_DOCUMENTS_PER_ADD)
        throw new LimitError(`${count} documents in one add; the limit is ${MAX_DOCUMENTS_PER_ADD}`, {
          hint: 'add them in batches (of 5,000, say): each add is searchable when it returns',
        });
      for (let i = 0; i < count; i++) {
        const d = snapshot(docs[i]!);
        checkDocument(d);
        list.push(d);
      }
    });
    const joined = this.gathering?.join(list);
    if (joined) return joined;
    const group = new AddGroup(list);
    this.gathering = group;
    this.serially(() => {
      if (this.gathering === group) this.gathering = undefined;
      return group.write((docs) => this.inBatch(docs.length, (batch) => upsertAll(batch, docs)));
    });
    return group.first;
  }

  /** Removes the documents of `kind` with these ids (ids not in the index are ignored). */
  async remove(ids: string[], kind: Kind = 'knowledge'): Promise<void> {
    this.assertOpen();
    const given = listAsGiven(ids, 'the ids', MAX_DOCUMENTS_PER_ADD);
    if (!Array.isArray(given) || !given.every((id) => typeof id === 'string'))
      throw new InvalidArgumentError('remove takes an array of ids', { hint: "pass ['id', …]" });
    if (!isKind(kind))
      throw new InvalidArgumentError(`unknown kind ${shown(kind)}`, { hint: 'use directive, tool or knowledge' });
    const keys = given.map((id) => `${kind}\0${id}`);
    // Adds asked for after this removal are written after it.
    this.gathering = undefined;
    return this.serially(() => this.inBatch(keys.length, (batch) => native(() => batch.delete(keys))));
  }

  /** Runs `write` after every write queued before it, whether they succeeded or not. */
  private serially<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** One write batch: `fill` it, then commit; a failure anywhere commits nothing of it. */
  private async inBatch(size: number, fill: (batch: NativeBatch) => unknown): Promise<void> {
    // Merges parked after the last bulk add wait for the next pause; one under way is waited
    // for here, off this thread (the batch would wait for the writer's lock on it).
    if (this.native.mergesPending()) await nativeAsync(() => this.native.settleMerges(false));
    const batch = native(() => this.native.batch(size));
    try {
      await fill(batch);
      await nativeAsync(() => batch.commit());
    } catch (err) {
      batch.abort();
      throw err;
    }
  }

  get size(): number {
    return this.native.numDocs();
  }

  /** Bytes this index holds outside the JS heap (its files, what its searches built), as V8 was last told. */
  get nativeBytes(): number {
    return this.native.toldMemory();
  }

  async search(opts: MemorySearchOptions): Promise<SearchResponse> {
    this.assertOpen();
    return this.runner.search(prepare(opts as SearchOptions));
  }

  searchMany(
    list: MemorySearchOptions[],
    opts: ManyOptions & { lazy: true },
  ): Promise<Array<LazySearchResponse | SearchFailure>>;
  searchMany(list: MemorySearchOptions[], opts?: ManyOptions): Promise<Array<SearchResponse | SearchFailure>>;
  async searchMany(list: MemorySearchOptions[], opts?: ManyOptions): Promise<Array<SearchResponse | SearchFailure>> {
    this.assertOpen();
    if (!Array.isArray(list))
      throw new InvalidArgumentError('searchMany takes an array of search options', { hint: 'pass [{ query }, …]' });
    const { lazy } = manyOptions(opts);
    return this.runner.searchMany(list as SearchOptions[], prepare, lazy);
  }

  /** Searches answered as they are ready, in order, from any iterable: see `RyeIndex.searchStream`. */
  searchStream(
    source: Iterable<MemorySearchOptions> | AsyncIterable<MemorySearchOptions>,
    opts: StreamOptions & { lazy: true },
  ): AsyncGenerator<LazySearchResponse | SearchFailure, void, undefined>;
  searchStream(
    source: Iterable<MemorySearchOptions> | AsyncIterable<MemorySearchOptions>,
    opts?: StreamOptions,
  ): AsyncGenerator<SearchResponse | SearchFailure, void, undefined>;
  searchStream(
    source: Iterable<MemorySearchOptions> | AsyncIterable<MemorySearchOptions>,
    opts?: StreamOptions,
  ): AsyncGenerator<SearchResponse | SearchFailure, void, undefined> {
    this.assertOpen();
    const options = streamOptions(source, opts);
    return this.runner.stream(source as Iterable<SearchOptions>, prepare, options, () => this.assertOpen());
  }

  /**
   * Lets the writes already asked for finish, then stops the background encoding (its threads
   * end after the batch in hand) and the merges. Searches and writes after it throw, as those of
   * a closed `RyeIndex` do; `ready()` answers with the status.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.writes;
    await nativeAsync(() => this.native.settleMerges(false));
    await nativeAsync(() => this.native.stopEncoding());
  }

  private assertOpen(): void {
    if (this.closed) throw closedIndexError('make another with createMemoryIndex()');
  }
}

/**
 * Adds that waited for the writer together, written as one batch: a commit costs a few
 * milliseconds whatever it holds (Tantivy makes a segment's tables anew), so 1,000 adds of one
 * item each, asked for at once, took 3.5 s one commit at a time.
 */
class AddGroup {
  private readonly calls: { docs: PlainDocument[]; done: Settle }[] = [];
  private size = 0;
  /** The first call's answer. */
  readonly first: Promise<void>;

  constructor(docs: PlainDocument[]) {
    this.first = this.add(docs);
  }

  /** Joins `docs` to the group, unless it holds enough already (then undefined). */
  join(docs: PlainDocument[]): Promise<void> | undefined {
    return this.size + docs.length <= GROUP_MAX_DOCS ? this.add(docs) : undefined;
  }

  private add(docs: PlainDocument[]): Promise<void> {
    this.size += docs.length;
    return new Promise((resolve, reject) => this.calls.push({ docs, done: { resolve, reject } }));
  }

  /**
   * Writes every call's documents with `write` (one batch, committed or not at all). Should it
   * fail, each call is written alone, so a bad document fails only the call that holds it.
   */
  async write(write: (docs: PlainDocument[]) => Promise<void>): Promise<void> {
    const calls = this.calls;
    try {
      await write(calls.length === 1 ? calls[0].docs : calls.flatMap((c) => c.docs));
      for (const c of calls) c.done.resolve();
    } catch (err) {
      if (calls.length === 1) return calls[0].done.reject(err);
      for (const c of calls) await write(c.docs).then(c.done.resolve, c.done.reject);
    }
  }
}

type Settle = { resolve: () => void; reject: (err: unknown) => void };

/** Documents a group of adds gathers at most: past it, adds wait for the next group. */
const GROUP_MAX_DOCS = 10_000;

/** A memory index has no spaces to select: `space` filters on the documents' source labels. */
function prepare(opts: SearchOptions): Prepared {
  const p = prepareSearch(opts, () => undefined);
  const only = spaceFilter(p.space);
  if (only) p.req.filters.push(only);
  return p;
}

/** `space` over plain documents, read as `selectSpaces` reads the spaces of an `.ai/` tree. */
function spaceFilter(space: string): NativeFilter | undefined {
  if (space === 'all' || space === 'local') return undefined;
  if (space === 'registry')
    throw new InvalidArgumentError('no registry is configured', {
      hint: 'use a local source: project, user or system',
    });
  if (!SOURCE_LABEL.test(space))
    throw new InvalidArgumentError(`unknown space ${shown(space)}`, {
      hint: 'use all, project, user, system or system:<bundle id>',
    });
  // A document's `source` facet holds its label and its kind (`system:docs` and `system`).
  return { type: 'anyOf', key: 'source', values: [space] };
}

export function createMemoryIndex(): MemoryIndex {
  return new MemoryIndex();
}
