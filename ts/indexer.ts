/**
 * Incremental refresh: scan the spaces, compare with the index manifest (change stamp + size), and
 * re-read, re-parse and re-verify only what changed. One commit per refresh, so readers see
 * either the old or the new state. The trust store's fingerprint is part of the state: when
 * trusted keys change, every item is verified again.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { buildDocument, type ItemDescription, upsertDocuments } from './document.js';
import { type Candidate, type Scan, scanSpaces, type Skip } from './discovery.js';
import { DEFAULT_MAX_FILE_BYTES } from './items.js';
import { EXHAUSTED, IndexLockedError, RyeSearchError } from './errors.js';
import { loadParsers, parseItem } from './metadata.js';
import { readFiles, readRegularFile, realPathOf, type FileRead } from './read-file.js';
import { native, nativeAsync, type NativeBatch, type NativeIndex } from './native.js';
import { WatchedScanCache } from './scan-cache.js';
import { saveSnapshot, type StoredScan, unchangedScan } from './scan-snapshot.js';
import type { Space } from './spaces.js';
import { TrustStore, verifyText, type Verification } from './trust/trust.js';

/** Read errors that are the system's, not the file's: a refresh that meets one is not committed. */

export interface IndexWarning {
  path: string;
  message: string;
}

export interface IndexReport {
  /** Items in the index after the refresh. */
  items: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: Skip[];
  warnings: IndexWarning[];
  durationMs: number;
  /**
   * True when this refresh could not write (another process held the writer for longer than
   * `writerWaitMs`, or the disk refused the write): the index was used as last committed, and
   * `readOnlyReason` says why.
   */
  readOnly: boolean;
  /** Why this refresh could not write, when `readOnly`. */
  readOnlyReason?: string;
}

/**
 * Where a refresh is: `discovering` the files, `reading` (parsing and verifying) the changed
 * ones (`done` of `total`), `committing` them. `done`/`total` count files in `reading`.
 */
export interface Progress {
  phase: 'discovering' | 'reading' | 'committing';
  done: number;
  total: number;
}

/**
 * Where `byId` keeps the copies of an item: its kind and id, the id in NFC, so copies whose file
 * names are in different Unicode forms (NFD from macOS, NFC elsewhere) are one item, as `fetch`
 * finds them.
 */
export function refKey(kind: string, id: string): string {
  return `${kind}\0${id.normalize('NFC')}`;
}

/** One indexed file, as the facade knows it (for shadows, fetch and verify). */
export type ItemRef = Pick<Candidate, 'key' | 'kind' | 'id' | 'name' | 'ext' | 'path' | 'space'>;

/**
 * Most files read and indexed together, and most bytes (by the scan's sizes): a slice of large
 * files is read, parsed and sent as a few tens of megabytes, not a gigabyte.
 */
const SLICE_FILES = 1000;
/** The scan state of a refresh: ~100 bytes a file, so a million files fit. */
const MAX_STATE_BYTES = 256 * 1024 * 1024;
const SLICE_BYTES = 32 * 1024 * 1024;

/** Changed files in slices of at most `SLICE_FILES` files and `SLICE_BYTES` bytes (at least one file each). */
function inSlices(files: Candidate[]): Candidate[][] {
  const slices: Candidate[][] = [];
  let slice: Candidate[] = [];
  let bytes = 0;
  for (const c of files) {
    if (slice.length && (slice.length >= SLICE_FILES || bytes + c.size > SLICE_BYTES)) {
      slices.push(slice);
      slice = [];
      bytes = 0;
    }
    slice.push(c);
    bytes += c.size;
  }
  if (slice.length) slices.push(slice);
  return slices;
}

const keyOf = (c: { key: string }) => c.key;

/**
 * When a file last changed, as a refresh compares it with what the index holds (beside its size):
 * the later of its mtime and ctime. The mtime alone can be set back (`cp -p`, `rsync -a`, `tar`,
 * `touch -r`): a file rewritten with the same size and its old mtime kept its old content, and
 * its old signature status, in every answer. The ctime cannot be set, and moves on every write.
 * The index's `mtime` field holds this stamp.
 */
const changeStamp = (f: { mtime: number; ctime: number }) => Math.max(f.mtime, f.ctime);

const pathsOf = (cs: Candidate[]) => cs.map((c) => c.path);

const utf8 = new TextDecoder('utf-8', { fatal: true });

interface Unreadable {
  /** The file's change stamp (`changeStamp`). */
  mtime: number;
  size: number;
  skip: Skip;
}

/** What the state file holds: the trust fingerprint the index was verified with, and skips. */
interface State {
  trust?: string;
  unreadable?: Array<[key: string, entry: Unreadable]>;
}

/** What a scan changed against the index. */
interface Changes {
  /** Files to read again: new, changed, or all of them when trust changed. */
  changed: Candidate[];
  /** Keys indexed before and seen no more. */
  removed: string[];
  /** Keys of changed files that could not be read or parsed: they leave the index. */
  failed: Set<string>;
  /** Keys of `unreadable` still skipped after this refresh; the others are forgotten. */
  stillSkipped: Set<string>;
}

/** A well-formed entry of the state file's `unreadable` list (anything else is ignored). */
function isUnreadable(item: unknown): item is [string, Unreadable] {
  if (!Array.isArray(item) || typeof item[0] !== 'string') return false;
  const e = item[1] as Unreadable | null;
  return (
    !!e &&
    typeof e.mtime === 'number' &&
    typeof e.size === 'number' &&
    typeof e.skip?.path === 'string' &&
    typeof e.skip.reason === 'string'
  );
}

/** Skips that do not depend on this process's options, so another process may trust them. */
const lasting = ([, e]: [string, Unreadable]) => e.skip.reason === 'binary' || e.skip.reason === 'not-utf8';

export class Indexer {
  trust: TrustStore = new TrustStore();
  /** kind \0 id → refs in precedence order (first wins); see {@link byId}. */
  private refs: Map<string, ItemRef[]> | undefined;
  /** After a refresh that read nothing: the refs, made when first asked for. */
  private pendingRefs: (() => ItemRef[]) | undefined;
  /** After a refresh that read nothing: the refs of items with several copies, by kind and id. */
  private sharedRefs: Map<string, ItemRef[]> | undefined;
  private running: Promise<IndexReport> | undefined;
  /** What the index holds (key → change stamp, size), valid while the on-disk opstamp is unchanged. */
  private manifest: Map<string, { stamp: number; size: number }> | undefined;
  private opstamp = -1;
  private verified = new Map<string, Verification>();
  /**
   * Files skipped when read (binary, not UTF-8, too large), with the mtime and size they had:
   * while unchanged they are reported again without being read again, and a refresh that
   * finds nothing else to do does not write. Kept in the state file too (all but too-large,
   * which depends on the size cap), so the next process does not read them again either.
   */
  private unreadable = new Map<string, Unreadable>();
  private unreadableLoaded = false;
  /** Directory listings reused while their watchers report no change (undefined: walk everything). */
  private readonly scanCache: WatchedScanCache | undefined;

  /** The trust fingerprint and lasting skips (JSON), and the last full scan (`scan-snapshot.ts`). */
  private readonly stateFile: string | undefined;
  private readonly snapshotFile: string | undefined;

  constructor(
    private readonly nativeIndex: NativeIndex,
    readonly spaces: Space[],
    stateDir: string | undefined,
    private readonly maxFileBytes = DEFAULT_MAX_FILE_BYTES,
    watch = false,
    private readonly writerWaitMs = WRITER_WAIT_MS,
  ) {
    if (watch) this.scanCache = new WatchedScanCache();
    this.stateFile = stateDir && path.join(stateDir, 'rye-state.json');
    this.snapshotFile = stateDir && path.join(stateDir, 'rye-scan.bin');
  }

  /** kind \0 id → refs in precedence order (first wins), for fetch and verify. */
  get byId(): Map<string, ItemRef[]> {
    if (!this.refs) this.setRefs(this.pendingRefs?.() ?? []);
    return this.refs!;
  }

  /** Every copy of an item that has more than one (or undefined), without making all refs. */
  copies(kind: string, id: string): ItemRef[] | undefined {
    const refs = (this.refs ?? this.sharedRefs)?.get(refKey(kind, id));
    return refs && refs.length > 1 ? refs : undefined;
  }

  /** Stops watching the spaces. */
  close(): void {
    this.scanCache?.close();
  }

  /** Refreshes once at a time; concurrent callers share the running refresh. */
  refresh(onProgress?: (p: Progress) => void): Promise<IndexReport> {
    if (!this.running) {
      this.running = this.run(onProgress).finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /**
   * One refresh: trust, then either the stored scan (nothing changed) or a scan compared with the
   * index, the changed files written in one commit, and what the next refresh starts from.
   */
  private async run(
    onProgress?: (p: Progress) => void,
    waitUntil = performance.now() + this.writerWaitMs,
    held?: NativeBatch,
  ): Promise<IndexReport> {
    try {
      return await this.runOnce(onProgress, waitUntil, held);
    } finally {
      // A writer taken for this refresh that found nothing left to write (the other process
      // wrote it) is let go; one that was used is committed and gone already.
      held?.abort();
    }
  }

  private async runOnce(
    onProgress: ((p: Progress) => void) | undefined,
    waitUntil: number,
    held: NativeBatch | undefined,
  ): Promise<IndexReport> {
    const started = performance.now();
    const startedAt = Date.now();
    onProgress?.({ phase: 'discovering', done: 0, total: 0 });
    // The opstamp the reloaded reader shows: the manifest below is read from that reader.
    const opstamp = native(() => this.nativeIndex.reload());
    const trust = this.loadTrust();
    const snapshot = this.snapshotFile && { spaces: this.spaces, trust: trust.print, maxFileBytes: this.maxFileBytes };
    // Without watchers, a stored scan that every time and size still matches spares the walk.
    const stored =
      snapshot && !this.scanCache && !trust.changed
        ? unchangedScan(this.snapshotFile!, { ...snapshot, opstamp })
        : undefined;
    if (stored) return this.unchanged(stored, opstamp, started);

    const skipsBefore = JSON.stringify([...this.unreadable].filter(lasting));
    await this.scanCache?.beginScan();
    const scan = scanSpaces(this.spaces, this.maxFileBytes, this.scanCache);
    // Another process's commit may have added or removed items: the refs are made again.
    const reloaded = this.loadManifest(opstamp);
    const changes = this.compare(scan, trust.changed);
    const report: IndexReport = {
      items: 0,
      added: 0,
      updated: 0,
      removed: changes.removed.length,
      unchanged: scan.candidates.length - changes.changed.length - changes.failed.size,
      skipped: scan.skipped,
      warnings: this.trustWarnings(),
      durationMs: 0,
      readOnly: false,
    };
    // Skips known before this refresh are not news: only a change in what is indexed rebuilds shadows.
    const skippedBefore = changes.failed.size;
    if (changes.changed.length || changes.removed.length) {
      const written = await this.write(changes, report, onProgress, held).catch((err: unknown) => {
        // The disk refused the write (full, read-only, out of descriptors): what was committed
        // still answers, as when another process holds the writer.
        if (!(err instanceof RyeSearchError && err.code === 'E_IO')) throw err;
        this.answerFromLastCommit(report, scan, `the index could not be written (${err.message})`, err);
        return undefined;
      });
      if (written) trust.state.trust = trust.print;
      else if (written === false) {
        // Another process is writing, most likely what this refresh would write. This refresh
        // takes the writer as soon as it is let go and, holding it, starts again from what was
        // committed: looking first and taking it after the walk lost it, every time, to
        // processes that kept writing.
        const expected = changes.changed.length + changes.removed.length;
        const taken = await writerTaken(this.nativeIndex, expected, waitUntil);
        if (taken) return this.run(onProgress, waitUntil, taken);
        const waited = Math.round(this.writerWaitMs / 1000);
        const found = scan.candidates.length;
        this.answerFromLastCommit(
          report,
          scan,
          `another process has been writing this index for over ${waited} s`,
          new IndexLockedError(
            `another process is building this index and has committed none of the ${found} items found yet`,
            { hint: 'retry when it has finished, or pass a longer writerWaitMs' },
          ),
        );
      }
    } else if (trust.changed) {
      trust.state.trust = trust.print;
    }
    for (const key of this.unreadable.keys()) if (!changes.stillSkipped.has(key)) this.unreadable.delete(key);
    const skipsAfter = [...this.unreadable].filter(lasting);
    const verified = trust.state.trust === trust.print;
    if (verified && (trust.changed || JSON.stringify(skipsAfter) !== skipsBefore)) {
      this.writeState({ trust: trust.print, unreadable: skipsAfter });
    }

    // Shadows depend on which items exist, not on their content: edits leave them as they are.
    const { failed } = changes;
    if (report.added || report.removed || failed.size > skippedBefore || reloaded || !this.refs)
      this.setRefs(scan.candidates.filter((c) => !failed.has(keyOf(c))));
    if (snapshot && !this.scanCache && !report.readOnly && verified) {
      const candidates = new Set(scan.candidates);
      const indexed = (c: Candidate) => candidates.has(c) && !failed.has(c.key);
      const copies = [...this.byId.values()].filter((refs) => refs.length > 1) as Candidate[][];
      const context = { ...snapshot, opstamp: this.opstamp };
      saveSnapshot(this.snapshotFile!, { context, scan, startedAt, indexed, skipped: report.skipped, copies });
    }
    report.items = native(() => this.nativeIndex.numDocs());
    report.durationMs = Math.round(performance.now() - started);
    return report;
  }

  /** The trust store as it is now, and the state file's record of what the index was verified with. */
  private loadTrust(): { print: string; changed: boolean; state: State } {
    this.trust = TrustStore.load(this.spaces);
    const print = this.trust.fingerprint();
    const state = this.readState();
    const changed = state.trust !== print;
    if (changed) this.verified.clear();
    if (!this.unreadableLoaded) {
      this.unreadableLoaded = true;
      for (const item of Array.isArray(state.unreadable) ? state.unreadable : [])
        if (isUnreadable(item)) this.unreadable.set(item[0], item[1]);
    }
    return { print, changed, state };
  }

  private trustWarnings(): IndexWarning[] {
    return this.trust.ignored.map((i) => ({ path: i.file, message: `trust file ignored: ${i.reason}` }));
  }

  /** The report of a refresh that found nothing changed since the stored scan. */
  private unchanged(stored: StoredScan, opstamp: number, started: number): IndexReport {
    // Refs made at another commit may name items since added or removed.
    if (!this.refs || opstamp !== this.opstamp) {
      this.refs = undefined;
      this.pendingRefs = stored.files;
      this.sharedRefs = new Map(stored.copies.map((group) => [refKey(group[0]!.kind, group[0]!.id), group]));
    }
    return {
      items: native(() => this.nativeIndex.numDocs()),
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: stored.indexed,
      skipped: stored.skipped,
      warnings: this.trustWarnings(),
      durationMs: Math.round(performance.now() - started),
      readOnly: false,
    };
  }

  /** Reads what the index holds when another handle or process committed since; true when it did. */
  private loadManifest(opstamp: number): boolean {
    if (this.manifest && opstamp === this.opstamp) return false;
    const manifest = new Map<string, { stamp: number; size: number }>();
    const m = JSON.parse(native(() => this.nativeIndex.manifest())) as {
      keys: string[];
      mtimes: number[];
      sizes: number[];
    };
    for (let i = 0; i < m.keys.length; i++) manifest.set(m.keys[i]!, { stamp: m.mtimes[i]!, size: m.sizes[i]! });
    this.manifest = manifest;
    this.opstamp = opstamp;
    return true;
  }

  /** The scan against the manifest: files to read, keys removed, and skips still known (by stat). */
  private compare(scan: Scan, trustChanged: boolean): Changes {
    const manifest = this.manifest!;
    const changes: Changes = { changed: [], removed: [], failed: new Set(), stillSkipped: new Set() };
    let indexedBefore = 0;
    for (const c of scan.candidates) {
      const old = manifest.get(c.key);
      if (old) indexedBefore++;
      if (old && old.stamp === changeStamp(c) && old.size === c.size && !trustChanged) continue;
      const skipped = old ? undefined : this.unreadable.get(c.key);
      if (skipped && skipped.mtime === changeStamp(c) && skipped.size === c.size) {
        scan.skipped.push(skipped.skip);
        changes.failed.add(c.key);
        changes.stillSkipped.add(c.key);
        continue;
      }
      changes.changed.push(c);
    }
    // When every indexed key was seen again nothing was removed, and no set of 60k keys is built.
    if (indexedBefore !== manifest.size) {
      const seen = new Set(scan.candidates.map(keyOf));
      changes.removed = [...manifest.keys()].filter((k) => !seen.has(k));
    }
    return changes;
  }

  /**
   * This refresh cannot write (another process held the writer for all the wait, or the disk
   * refused): the index is searched as it last committed it, and the report says why. When it
   * holds none of the items found, there is nothing to answer from: `nothingCommitted` is thrown.
   */
  private answerFromLastCommit(report: IndexReport, scan: Scan, why: string, nothingCommitted: Error): void {
    const committed = native(() => this.nativeIndex.numDocs());
    if (committed === 0 && scan.candidates.length > 0) throw nothingCommitted;
    report.readOnly = true;
    report.readOnlyReason = why;
    report.added = report.updated = report.removed = 0;
    report.warnings.push({ path: '', message: `${why}: searching what it last committed` });
  }

  /**
   * Reads, describes and indexes the changed files and removes the others, in one commit; false
   * when another process holds the writer (nothing is written).
   */
  private async write(
    changes: Changes,
    report: IndexReport,
    onProgress?: (p: Progress) => void,
    held?: NativeBatch,
  ): Promise<boolean> {
    const { changed, removed, failed } = changes;
    const manifest = this.manifest!;
    const batch = held ?? writerOf(this.nativeIndex, changed.length + removed.length);
    if (!batch) return false;
    try {
      const { done, written } = await this.indexFiles(batch, changes, report, onProgress);
      // Files that were indexed and now cannot be read leave the index.
      const dropped = [...failed].filter((k) => manifest.has(k));
      for (const c of changed) {
        if (failed.has(c.key)) continue;
        if (manifest.has(c.key)) report.updated++;
        else report.added++;
      }
      report.removed += dropped.length;
      if (written || removed.length || dropped.length) {
        native(() => batch.delete([...removed, ...dropped]));
        onProgress?.({ phase: 'committing', done, total: changed.length });
        await nativeAsync(() => batch.commit());
        for (const k of [...removed, ...dropped]) manifest.delete(k);
        for (const c of changed)
          if (!failed.has(keyOf(c))) manifest.set(keyOf(c), { stamp: changeStamp(c), size: c.size });
        this.opstamp = native(() => this.nativeIndex.opstamp());
      } else {
        // Only skipped files changed: no commit, so other processes have nothing to reload.
        batch.abort();
      }
      return true;
    } catch (err) {
      batch.abort();
      this.manifest = undefined;
      throw err;
    }
  }

  /**
   * The changed files into `batch`, in slices that overlap: while one is parsed here, the next is
   * read on native threads and the one before is indexed on the thread pool.
   */
  private async indexFiles(
    batch: NativeBatch,
    changes: Changes,
    report: IndexReport,
    onProgress?: (p: Progress) => void,
  ): Promise<{ done: number; written: number }> {
    const { changed, failed, stillSkipped } = changes;
    let done = 0;
    let written = 0;
    let indexing: Promise<void> = Promise.resolve();
    try {
      const slices = inSlices(changed);
      // Each file is read only if what opens is inside its space (a link swapped in since the
      // scan is refused, not followed).
      const roots = new Map(this.spaces.map((s) => [s, realPathOf(s.aiDir)]));
      const read = (slice: Candidate[]) => {
        const within = slice.map((c) => roots.get(c.space) ?? '');
        const files = readFiles(pathsOf(slice), this.maxFileBytes, within);
        files.catch(() => {}); // awaited in the loop; a failure after the loop left is not unhandled
        return files;
      };
      let reading = read(slices[0] ?? []);
      for (const [k, slice] of slices.entries()) {
        const reads = await reading;
        if (k + 1 < slices.length) reading = read(slices[k + 1]!);
        const items = await this.descriptions(slice, reads, report, failed, stillSkipped);
        await indexing;
        if (items.length) {
          indexing = upsertDocuments(batch, items, buildDocument);
          // Handled here so a failure met while reading is not reported as unhandled.
          indexing.catch(() => {});
        }
        written += items.length;
        done += slice.length;
        onProgress?.({ phase: 'reading', done, total: changed.length });
      }
    } finally {
      await indexing.catch(() => {});
    }
    await indexing;
    return { done, written };
  }

  private setRefs(indexed: ItemRef[]): void {
    const refs = new Map<string, ItemRef[]>();
    for (const c of indexed) {
      const k = refKey(c.kind, c.id);
      const list = refs.get(k);
      if (list) list.push(c);
      else refs.set(k, [c]);
    }
    this.refs = refs;
    this.pendingRefs = undefined;
    this.sharedRefs = undefined;
  }

  /** Verification of a text, cached by content hash (and reset when trust changes). */
  verify(text: string, hash: string, c: { kind: Candidate['kind']; ext: string; id: string }): Verification {
    const cacheKey = `${hash}|${c.kind}|${c.ext}`;
    let v = this.verified.get(cacheKey);
    if (!v) {
      v = verifyText(text, c.kind, c.ext, this.trust, c.id);
      this.verified.set(cacheKey, v);
    }
    return v;
  }

  /** The slice's items, described; each becomes a document only as it is sent (`upsertDocuments`). */
  private async descriptions(
    slice: Candidate[],
    reads: FileRead[],
    report: IndexReport,
    failed: Set<string>,
    skipped: Set<string>,
  ): Promise<ItemDescription[]> {
    await loadParsers();
    const items: ItemDescription[] = [];
    slice.forEach((c, i) => {
      const item = this.description(c, reads[i]!, report);
      if (item) items.push(item);
      else failed.add(keyOf(c));
      if (this.unreadable.has(c.key)) skipped.add(c.key);
    });
    return items;
  }

  private description(c: Candidate, read: FileRead, report: IndexReport): ItemDescription | undefined {
    if ('code' in read) {
      // Out of file descriptors or memory says nothing about the file: skipping it would commit
      // a silently partial index. The refresh fails whole and commits nothing.
      if (EXHAUSTED.has(read.code)) {
        throw new RyeSearchError('E_IO', `cannot read ${c.path}: ${read.message}`, {
          hint: read.code.endsWith('FILE')
            ? 'too many open files: raise the limit (ulimit -n) and refresh again'
            : 'the system is short of resources: refresh again later',
        });
      }
      report.skipped.push({
        path: c.path,
        reason: 'unreadable',
        detail: read.code === 'ENOENT' ? 'vanished during the scan' : read.code,
      });
      return undefined;
    }
    if ('outside' in read) {
      report.skipped.push({ path: c.path, reason: 'link-outside-space', detail: read.outside });
      return undefined;
    }
    // Replaced by a directory, FIFO or device since the scan: the next scan says what it is.
    if ('notRegular' in read) {
      report.skipped.push({ path: c.path, reason: 'not-a-file' });
      return undefined;
    }
    const skip = (s: Skip) => {
      report.skipped.push(s);
      this.unreadable.set(c.key, { mtime: changeStamp(c), size: c.size, skip: s });
      return undefined;
    };
    if ('tooLarge' in read)
      return skip({ path: c.path, reason: 'too-large', detail: `${read.tooLarge} bytes > ${this.maxFileBytes}` });
    const { bytes } = read;
    if (bytes.includes(0)) return skip({ path: c.path, reason: 'binary', detail: 'contains NUL bytes' });
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return skip({ path: c.path, reason: 'not-utf8' });
    }
    this.unreadable.delete(c.key);
    const hash = createHash('sha256').update(bytes).digest('hex');
    const meta = parseItem(c.kind, text, c.name, c.ext);
    if (meta.warning) report.warnings.push({ path: c.path, message: meta.warning });
    const v = this.verify(text, hash, c);
    const dateText = meta.createdAt ?? meta.updatedAt;
    const metadata: Record<string, unknown> = { ...meta.extra };
    if (meta.author) metadata.author = meta.author;
    if (meta.createdAt) metadata.created_at = meta.createdAt;
    if (meta.updatedAt) metadata.updated_at = meta.updatedAt;
    return {
      key: keyOf(c),
      id: c.id,
      kind: c.kind,
      space: c.space.label,
      spaceRank: c.space.rank,
      title: meta.title,
      name: c.name,
      description: meta.description,
      category: meta.category,
      content: meta.content,
      path: c.path,
      version: meta.version,
      tags: meta.tags,
      // The metadata's date, else the file's: `since`, `until` and `sort_by: date` cover every item.
      date: dateText ? Date.parse(dateText) : Math.floor(c.mtime / 1000),
      metadata,
      signed: v.signed,
      integrity: v.integrity,
      facets: { ext: [c.ext] },
      mtime: changeStamp(c),
      size: c.size,
    };
  }

  private readState(): State {
    if (!this.stateFile) return {};
    try {
      // Only a regular file under the cap: a FIFO or a link to /dev/zero here is no state.
      return JSON.parse(readRegularFile(this.stateFile, MAX_STATE_BYTES).toString('utf8')) as State;
    } catch {
      return {};
    }
  }

  private writeState(state: State): void {
    if (!this.stateFile) return;
    try {
      const tmp = `${this.stateFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(state));
      fs.renameSync(tmp, this.stateFile);
    } catch (err) {
      throw new RyeSearchError(
        'E_IO',
        `cannot write index state ${path.basename(this.stateFile)}: ${(err as Error).message}`,
        {
          hint: 'check that the cache directory is writable',
        },
      );
    }
  }
}

/** How long a refresh waits for another process's writer before searching what it last committed. */
export const WRITER_WAIT_MS = 10_000;
/** The longest `writerWaitMs` taken: a refresh answers, late or not, within ten minutes. */
export const MAX_WRITER_WAIT_MS = 600_000;

/**
 * Takes the index's writer as soon as no process holds it, trying every few milliseconds (a
 * commit takes milliseconds, a first build seconds); undefined when it is still held at `until`.
 */
async function writerTaken(index: NativeIndex, expected: number, until: number): Promise<NativeBatch | undefined> {
  // Often: writers that take turns let the lock go for moments (one try is one `flock`).
  for (let pause = 5; ; pause = Math.min(pause * 2, 25)) {
    const left = until - performance.now();
    if (left <= 0) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    const batch = writerOf(index, expected);
    if (batch) return batch;
  }
}

/** A write batch of `index`, or undefined while another writer holds it. */
function writerOf(index: NativeIndex, expected: number): NativeBatch | undefined {
  try {
    return native(() => index.batch(expected));
  } catch (err) {
    if (err instanceof IndexLockedError) return undefined;
    throw err;
  }
}
