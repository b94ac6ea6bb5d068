/**
 * The last full scan, kept beside the index, so that a new process (each CLI command) can tell
 * that nothing changed without walking the spaces: one native call stats every directory the
 * scan listed and every item file it saw, in parallel, and compares them with what was stored.
 * A file edited, added, removed or renamed changes a file's or a directory's time or size; then
 * the refresh walks everything as before.
 *
 * A snapshot is only a shortcut, never the truth: one that cannot be read, belongs to another
 * commit, trust store, size cap or set of spaces, or does not match the disk is ignored. Scans
 * that times cannot vouch for are not stored: links (their targets change with no directory
 * above them changing), files or folders that could not be read (a permission fixed changes
 * no time), and directories changed less than {@link RACY_MS} before the scan began (on file
 * systems with coarse times, an entry added in the same tick would leave the time as it was).
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Candidate, Scan, Skip, SkipReason } from './discovery.js';
import { FileType, readRegularFile, statAll, statAt } from './read-file.js';
import { KINDS, type Kind } from './scope.js';
import type { Space } from './spaces.js';

const MAGIC = 'RYESCAN1';
/** FAT keeps times to 2 s; other systems' ticks are finer. */
const RACY_MS = 2000;
/** ~130 bytes a file: a million files fit. */
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
/** Skips whose cause may go away without any time changing. */
const VOLATILE: ReadonlySet<SkipReason> = new Set(['unreadable', 'link-outside-space', 'link-loop']);
/** Numbers stored per file: mtime, ctime, size, file type, and tag (space × 8 + kind × 2 + indexed). */
const PER_FILE = 5;

/** What a snapshot must agree with to be used. */
export interface SnapshotContext {
  spaces: Space[];
  /** The index's commit that the snapshot describes. */
  opstamp: number;
  /** The trust store's fingerprint the items were verified with. */
  trust: string;
  maxFileBytes: number;
}

/** What a refresh that read nothing reports: the indexed files and every skip, as last seen. */
export interface StoredScan {
  /** How many files are indexed. */
  indexed: number;
  /** The indexed files, made only when asked for (fetch and verify need them, a search does not). */
  files: () => Candidate[];
  /** The indexed files that share their kind and id with another, in groups (as the shadows saw them). */
  copies: Candidate[][];
  skipped: Skip[];
}

interface Header {
  version: 1;
  context: string;
  dirs: number;
  files: number;
  skipped: Skip[];
  /** Positions (in the files) of the indexed files that share their kind and id, in groups. */
  copies: number[][];
  /** Byte lengths of the three `\0`-joined text blocks: directories, file paths, item ids. */
  texts: [number, number, number];
}

/** The fields of the context that must match, as one string. */
function contextKey(c: SnapshotContext): string {
  return JSON.stringify([c.opstamp, c.trust, c.maxFileBytes, c.spaces.map((s) => [s.label, s.aiDir, s.rank])]);
}

/** What a full scan found and what the refresh made of it. */
export interface ScanRecord {
  context: SnapshotContext;
  scan: Scan;
  /** When the scan began (ms since the epoch). */
  startedAt: number;
  /** Whether a file of the scan is in the index. */
  indexed: (c: Candidate) => boolean;
  /** Every skip the refresh reported. */
  skipped: Skip[];
  /** The indexed files that share their kind and id, in groups in precedence order. */
  copies: Candidate[][];
}

/** Stores the scan if times can vouch for it later, else removes any stored one. */
export function saveSnapshot(file: string, record: ScanRecord): void {
  const bytes = encode(record);
  if (!bytes) {
    remove(file);
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch {
    // A shortcut that cannot be stored costs the next process a walk, nothing else.
    fs.rmSync(tmp, { force: true });
  }
}

function encode({ context, scan, startedAt, indexed, skipped, copies }: ScanRecord): Buffer | undefined {
  if (scan.linked || skipped.some((s) => VOLATILE.has(s.reason))) return undefined;
  // A folder's change time moves with every entry added, removed or renamed in it, and with
  // its modification time put back.
  const dirStats = statAll(scan.dirs.join('\0'), scan.dirs.length);
  const numbers = new Float64Array(scan.dirs.length + scan.files.length * PER_FILE);
  for (let i = 0; i < scan.dirs.length; i++) {
    const st = statAt(dirStats, i);
    if (st.type !== FileType.dir || st.ctime / 1000 >= startedAt - RACY_MS) return undefined;
    numbers[i] = st.ctime;
  }
  const spaceIndex = new Map(context.spaces.map((s, i) => [s, i]));
  const paths: string[] = [];
  const ids: string[] = [];
  scan.files.forEach((f, i) => {
    const at = scan.dirs.length + i * PER_FILE;
    numbers[at] = f.mtime;
    numbers[at + 1] = f.ctime;
    numbers[at + 2] = f.size;
    numbers[at + 3] = f.fileType;
    numbers[at + 4] = spaceIndex.get(f.space)! * 8 + KINDS.indexOf(f.kind) * 2 + (indexed(f) ? 1 : 0);
    paths.push(f.path);
    ids.push(f.id);
  });
  const texts = [scan.dirs.join('\0'), paths.join('\0'), ids.join('\0')].map((t) => Buffer.from(t, 'utf8'));
  const position = new Map(copies.length ? scan.files.map((f, i) => [f, i]) : []);
  const header: Header = {
    version: 1,
    context: contextKey(context),
    dirs: scan.dirs.length,
    files: scan.files.length,
    skipped,
    copies: copies.map((group) => group.map((c) => position.get(c) ?? -1)),
    texts: texts.map((t) => t.length) as Header['texts'],
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const lead = Buffer.alloc(16);
  lead.write(MAGIC, 0, 'latin1');
  lead.writeUInt32LE(json.length, 8);
  const pad = Buffer.alloc((8 - ((16 + json.length) % 8)) % 8);
  const body = Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength);
  return Buffer.concat([lead, json, pad, body, ...texts]);
}

/** The stored scan when the disk still matches it in every time and size, else undefined. */
export function unchangedScan(file: string, context: SnapshotContext): StoredScan | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, MAX_SNAPSHOT_BYTES);
  } catch {
    return undefined;
  }
  try {
    return matching(bytes, context);
  } catch {
    return undefined; // a damaged snapshot is no snapshot
  }
}

function matching(bytes: Buffer, context: SnapshotContext): StoredScan | undefined {
  if (bytes.length < 16 || bytes.toString('latin1', 0, 8) !== MAGIC) return undefined;
  const jsonEnd = 16 + bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 16, jsonEnd)) as Header;
  if (header.version !== 1 || header.context !== contextKey(context)) return undefined;
  const numbersAt = jsonEnd + ((8 - (jsonEnd % 8)) % 8);
  const count = header.dirs + header.files * PER_FILE;
  const textsAt = numbersAt + count * 8;
  const [dirBytes, pathBytes, idBytes] = header.texts;
  if (textsAt + dirBytes + pathBytes + idBytes !== bytes.length || !Array.isArray(header.skipped)) return undefined;
  // Copied out: the buffer's offset need not be a multiple of 8.
  const numbers = new Float64Array(bytes.buffer.slice(bytes.byteOffset + numbersAt, bytes.byteOffset + textsAt));
  const dirs = bytes.toString('utf8', textsAt, textsAt + dirBytes);
  const paths = bytes.toString('utf8', textsAt + dirBytes, textsAt + dirBytes + pathBytes);
  const dirStats = statAll(dirs, header.dirs);
  for (let i = 0; i < header.dirs; i++) {
    const st = statAt(dirStats, i);
    if (st.type !== FileType.dir || st.ctime !== numbers[i]) return undefined;
  }
  const fileStats = statAll(paths, header.files);
  for (let i = 0; i < header.files; i++) {
    const at = header.dirs + i * PER_FILE;
    const st = statAt(fileStats, i);
    if (st.mtime !== numbers[at] || st.ctime !== numbers[at + 1] || st.size !== numbers[at + 2]) return undefined;
    if (st.type !== numbers[at + 3]) return undefined;
  }
  if (!Array.isArray(header.copies)) return undefined;
  // Nothing changed: the items are made only when asked for.
  let indexed = 0;
  for (let i = 0; i < header.files; i++) {
    const tag = numbers[header.dirs + i * PER_FILE + 4]!;
    if (!(Math.floor(tag / 8) < context.spaces.length && tag % 8 < 2 * KINDS.length)) return undefined;
    if (tag % 2 === 1) indexed++;
  }
  const idBlock = bytes.subarray(textsAt + dirBytes + pathBytes);
  let separators = 0;
  for (let at = idBlock.indexOf(0); at !== -1; at = idBlock.indexOf(0, at + 1)) separators++;
  const pathList = header.files ? paths.split('\0') : [];
  if (pathList.length !== header.files || (header.files && separators !== header.files - 1)) return undefined;
  const ids = () => (header.files ? idBlock.toString('utf8').split('\0') : []);
  const item = (i: number, idList: string[]): Candidate => {
    const at = header.dirs + i * PER_FILE;
    const tag = numbers[at + 4]!;
    const space = context.spaces[Math.floor(tag / 8)];
    const kind: Kind | undefined = KINDS[Math.floor((tag % 8) / 2)];
    const filePath = pathList[i];
    const id = idList[i];
    if (!space || !kind || filePath === undefined || id === undefined) throw new Error(`no file ${i} in the snapshot`);
    const base = filePath.slice(filePath.lastIndexOf(path.sep) + 1);
    const name = id.slice(id.lastIndexOf('/') + 1);
    return {
      key: `${space.label}|${filePath}`,
      path: filePath,
      kind,
      id,
      name,
      ext: base.slice(name.length).toLowerCase(),
      space,
      mtime: numbers[at]!,
      ctime: numbers[at + 1]!,
      size: numbers[at + 2]!,
      fileType: numbers[at + 3]!,
    };
  };
  const idList = header.copies.length ? ids() : [];
  const copies = header.copies.map((group) => group.map((i) => item(i, idList)));
  const files = () => {
    const all = ids();
    const out: Candidate[] = [];
    for (let i = 0; i < header.files; i++)
      if (numbers[header.dirs + i * PER_FILE + 4]! % 2 === 1) out.push(item(i, all));
    return out;
  };
  return { indexed, files, copies, skipped: header.skipped };
}

function remove(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // A stale snapshot is refused by its opstamp; one that cannot be removed does no harm.
  }
}
