/**
 * Walks the kind folders of each space and lists item files. Everything that is not an item is
 * reported with a reason — never silently dropped. Links are followed only while they stay
 * inside the space, and each real directory is visited once (no loops).
 */
import fs from 'node:fs';
import path from 'node:path';

import { DEFAULT_MAX_FILE_BYTES, IGNORED_DIRS, KIND_EXTENSIONS, KIND_FOLDERS } from './items.js';
import type { Kind } from './scope.js';
import type { Space } from './spaces.js';
import { FileType, inside, statAll, statAt } from './read-file.js';
import { exhaustedError } from './errors.js';
import { documentLimits } from './native.js';

export interface Candidate {
  /** Unique key in the index: space label + path. */
  key: string;
  path: string;
  kind: Kind;
  id: string;
  name: string;
  ext: string;
  space: Space;
  mtime: number;
  /** The change time, which a modification time put back does not hide (see `scan-snapshot.ts`). */
  ctime: number;
  size: number;
  /** A {@link FileType} from the batch stat. */
  fileType: number;
}

export type SkipReason =
  | 'hidden'
  | 'underscore'
  | 'ignored-dir'
  | 'extension'
  | 'too-large'
  | 'not-utf8'
  | 'binary'
  | 'link-outside-space'
  | 'link-loop'
  | 'unreadable'
  | 'not-a-file'
  | 'name-too-long';

export interface Skip {
  path: string;
  reason: SkipReason;
  detail?: string;
}

export interface Scan {
  candidates: Candidate[];
  skipped: Skip[];
  /** Every item file listed (candidates and the files skipped for their size or type), as stat'ed. */
  files: Candidate[];
  /**
   * The real directories whose entries decided this scan: every directory listed, each space's
   * `.ai` folder (where kind folders appear), and for a missing space its parent (where it appears).
   */
  dirs: string[];
  /** A link was met: what it points at may change while every directory above stays as it was. */
  linked: boolean;
}

/** What one listing of a directory found: reusable while nothing in the directory changes. */
export interface Listing {
  real: string;
  /** Item files, with mtime, size and file type from their last stat. */
  files: Candidate[];
  skipped: Skip[];
  /** `link`: reached through a link, whose target may have changed when this directory did. */
  /** `real` is the subdirectory's real path when known without a `realpath` (not a link). */
  subdirs: { path: string; relDir: string; link: boolean; real?: string }[];
  /** Files reached through a link change without an event here: they are stat'ed on every scan. */
  linked: Candidate[];
}

/** Listings kept between scans, so that a scan reads again only the directories that changed. */
export interface ScanCache {
  /** The listing of `dir` if it is known to be unchanged. */
  listing(key: string): Listing | undefined;
  /** Called before `dir` is read, so a change during the read is not missed. */
  watch(key: string, dir: string): void;
  remember(key: string, listing: Listing): void;
  /** Drops what is known of `dir` (its watcher too). */
  forget(key: string): void;
  /** Called after a scan with the directories it reached: the others are forgotten. */
  keepOnly(reached: Set<string>): void;
  /**
   * Called before a space is walked with the identity of its `.ai` folder (device and inode):
   * when it differs from the last one, the folder or one above it was replaced, which no watcher
   * below it reports, and what is known of the directories whose keys start with `prefix` goes.
   */
  root(prefix: string, identity: string): void;
}

export function scanSpaces(spaces: Space[], maxFileBytes = DEFAULT_MAX_FILE_BYTES, cache?: ScanCache): Scan {
  const scan: Scan = { candidates: [], skipped: [], files: [], dirs: [], linked: false };
  const listings: Listing[] = [];
  const fresh = new Set<Listing>();
  const reached = new Set<string>();
  for (const space of spaces) {
    const spaceReal = realDir(space.aiDir, cache && ((identity) => cache.root(dirKey(space, ''), identity)));
    // A space that does not exist has no items, until it appears below its nearest existing folder.
    scan.dirs.push(spaceReal ?? nearestFolder(space.aiDir));
    if (spaceReal === undefined) continue;
    for (const kind of Object.keys(KIND_FOLDERS) as Kind[]) {
      const root = path.join(space.aiDir, KIND_FOLDERS[kind]);
      walk(
        { kind, space, spaceReal, visited: new Set(), listings, fresh, reached, skipped: scan.skipped, cache },
        root,
        '',
      );
    }
  }
  cache?.keepOnly(reached);
  // One native call stats every new or linked file on all cores: the bulk of a full scan.
  const toStat: Candidate[] = [];
  // Loops, not spread: a directory may hold more files than a call takes arguments.
  for (const l of listings) for (const f of fresh.has(l) ? l.files : l.linked) toStat.push(f);
  if (toStat.length) {
    const stats = statAll(toStat.map((p) => p.path).join('\0'), toStat.length);
    for (let i = 0; i < toStat.length; i++) {
      const p = toStat[i]!;
      const st = statAt(stats, i);
      p.mtime = st.mtime;
      p.ctime = st.ctime;
      p.size = st.size;
      p.fileType = st.type;
    }
  }
  for (const l of listings) {
    scan.dirs.push(l.real);
    if (l.linked.length || l.subdirs.some((d) => d.link)) scan.linked = true;
    for (const p of l.files) {
      scan.files.push(p);
      if (p.fileType !== FileType.file)
        scan.skipped.push({
          path: p.path,
          reason: p.fileType === FileType.missing ? 'unreadable' : 'not-a-file',
          detail: p.fileType === FileType.missing ? 'vanished during the scan' : undefined,
        });
      else if (p.size > maxFileBytes)
        scan.skipped.push({ path: p.path, reason: 'too-large', detail: `${p.size} bytes > ${maxFileBytes}` });
      else scan.candidates.push(p);
    }
  }
  return scan;
}

interface Walk {
  kind: Kind;
  space: Space;
  spaceReal: string;
  /** Real directories visited under this kind folder (no loops). */
  visited: Set<string>;
  listings: Listing[];
  /** Listings read in this scan, whose files need a stat. */
  fresh: Set<Listing>;
  reached: Set<string>;
  skipped: Skip[];
  cache?: ScanCache;
}

/**
 * The real path of `dir`, or undefined when it cannot be resolved. Every refresh resolves each
 * space and each kind folder that has no listing yet, most of them missing (a bundle without
 * tools): a missing one is told by one `access` that throws nothing, and an existing one is
 * resolved by the system's `realpath` in one call (Node's own walks the path with an `lstat`
 * per component). Together a refresh of the RYE spaces with nothing changed took 428 µs.
 */
function realDir(dir: string, identified?: (identity: string) => void): string | undefined {
  if (!identified) return existingReal(dir);
  // A stat in place of the `access`, for the folder's identity (`ScanCache.root`); as numbers,
  // not bigints (a fifth of the cost): an inode past 2^53 may then miss a replacement, which
  // the minute's full scan still catches.
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  identified(st ? `${st.dev}:${st.ino}` : 'missing');
  return st && realOf(dir);
}

function existingReal(dir: string): string | undefined {
  return fs.existsSync(dir) ? realOf(dir) : undefined;
}

function realOf(dir: string): string | undefined {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return undefined;
  }
}

/** The real path of the nearest existing folder above `dir` (the root at worst). */
function nearestFolder(dir: string): string {
  for (let up = path.dirname(dir); ; up = path.dirname(up)) {
    const real = realDir(up);
    if (real !== undefined || up === path.dirname(up)) return real ?? up;
  }
}

/** A directory's key in the scan cache: one path can be a directory of two spaces. */
const dirKey = (space: Space, dir: string) => `${space.label}|${dir}`;

/** `relDir` is the directory's id prefix (`a/b`), carried down to avoid path arithmetic per file. */
function walk(w: Walk, dir: string, relDir: string, real?: string): void {
  const key = dirKey(w.space, dir);
  let l = w.cache?.listing(key);
  if (!l) {
    // A missing kind folder (most spaces lack one or two) is told here, before a watcher fails on it.
    if (relDir === '' && !fs.existsSync(dir)) return;
    w.cache?.watch(key, dir);
    l = list(w, dir, relDir, real);
    if (!l) return;
    w.fresh.add(l);
    w.cache?.remember(key, l);
  }
  w.reached.add(key);
  if (w.visited.has(l.real)) {
    w.skipped.push({ path: dir, reason: 'link-loop' });
    return;
  }
  w.visited.add(l.real);
  w.listings.push(l);
  for (const s of l.skipped) w.skipped.push(s);
  for (const sub of l.subdirs) {
    // A changed directory may hold a link that now points elsewhere: its old watcher and listing
    // belong to the old target.
    if (sub.link && w.fresh.has(l)) w.cache?.forget(dirKey(w.space, sub.path));
    walk(w, sub.path, sub.relDir, sub.real);
  }
}

/**
 * Reads one directory: its item files (not yet stat'ed), what it skips and its subdirectories.
 * `known` is its real path when its parent could tell (a plain subdirectory of a real path):
 * resolving every directory of a deep tree from the root made a scan quadratic in its depth.
 */
function list(w: Walk, dir: string, relDir: string, known?: string): Listing | undefined {
  const real = known ?? realDir(dir);
  if (real === undefined) return undefined;
  const l: Listing = { real, files: [], skipped: [], subdirs: [], linked: [] };
  // The space is the boundary: a kind folder (or any directory) that is itself a link leaving
  // the space is not indexed, as fetch would not serve what it holds.
  if (!inside(w.spaceReal, real)) {
    l.skipped.push({ path: dir, reason: 'link-outside-space', detail: real });
    return l;
  }
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (relDir === '' && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Out of descriptors or memory says nothing about the folder: taking it for empty would
    // drop its items from the index. The refresh fails whole instead.
    const exhausted = exhaustedError(err, `cannot list ${dir}`);
    if (exhausted) throw exhausted;
    l.skipped.push({ path: dir, reason: 'unreadable', detail: (err as Error).message });
    return l;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const prefix = dir + path.sep;
  for (const entry of entries) {
    const full = prefix + entry.name;
    // Node decodes names as UTF-8, replacing what is not: such a path names no file.
    if (entry.name.includes('\uFFFD')) {
      l.skipped.push({ path: full, reason: 'not-utf8', detail: 'the file name is not valid UTF-8' });
      continue;
    }
    if (entry.name.startsWith('.')) {
      l.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'hidden' });
      continue;
    }
    if (entry.name.startsWith('_')) {
      l.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'underscore' });
      continue;
    }
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    const isLink = entry.isSymbolicLink();
    if (isLink) {
      // Links are followed only while they stay inside the space.
      let target: string;
      let st: fs.Stats;
      try {
        target = fs.realpathSync(full);
        st = fs.statSync(full);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        l.skipped.push({ path: full, reason: code === 'ELOOP' ? 'link-loop' : 'unreadable', detail: code });
        continue;
      }
      if (!inside(w.spaceReal, target)) {
        l.skipped.push({ path: full, reason: 'link-outside-space', detail: target });
        continue;
      }
      isDir = st.isDirectory();
      isFile = st.isFile();
    }
    if (isDir) {
      if (IGNORED_DIRS.has(entry.name)) {
        l.skipped.push({ path: full, reason: 'ignored-dir' });
        continue;
      }
      const sub = { path: full, relDir: relDir ? `${relDir}/${entry.name}` : entry.name, link: isLink };
      l.subdirs.push(isLink ? sub : { ...sub, real: real + path.sep + entry.name });
      continue;
    }
    if (!isFile) {
      l.skipped.push({ path: full, reason: 'not-a-file' });
      continue;
    }
    const dot = entry.name.lastIndexOf('.');
    const ext = dot > 0 ? entry.name.slice(dot) : '';
    const name = ext ? entry.name.slice(0, dot) : entry.name;
    const id = relDir ? `${relDir}/${name}` : name;
    if (!KIND_EXTENSIONS[w.kind].includes(ext.toLowerCase())) {
      l.skipped.push({ path: full, reason: 'extension', detail: ext || '(none)' });
      continue;
    }
    const key = `${w.space.label}|${full}`;
    const tooLong = nameTooLong(id, key);
    if (tooLong) {
      l.skipped.push({ path: full, reason: 'name-too-long', detail: tooLong });
      continue;
    }
    const file: Candidate = {
      key,
      path: full,
      kind: w.kind,
      id,
      name,
      ext: ext.toLowerCase(),
      space: w.space,
      mtime: 0,
      ctime: 0,
      size: 0,
      fileType: FileType.missing,
    };
    l.files.push(file);
    if (isLink) l.linked.push(file);
  }
  return l;
}

/**
 * Why an item's id or key is longer than the index can find again, if it is: such a file is
 * skipped, as the rest of its space is indexed (Windows long paths reach past the id's bytes).
 */
export function nameTooLong(id: string, key: string): string | undefined {
  const most = documentLimits();
  // A UTF-16 unit is at most 3 UTF-8 bytes: most names need no counting.
  if (id.length * 3 <= most.idBytes && key.length * 3 <= most.keyBytes) return undefined;
  const idBytes = Buffer.byteLength(id);
  if (idBytes > most.idBytes) return `its id is ${idBytes} bytes, more than ${most.idBytes}`;
  const keyBytes = Buffer.byteLength(key);
  if (keyBytes > most.keyBytes) return `its path is ${keyBytes} bytes, more than ${most.keyBytes}`;
  return undefined;
}
