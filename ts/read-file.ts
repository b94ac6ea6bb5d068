/**
 * Reading a file a space or a repository supplied, without trusting what it is: only a regular
 * file is read, never past a size cap. A link to /dev/zero or a FIFO in a trust folder must not
 * read gigabytes or block every command forever.
 */
import fs from 'node:fs';
import path from 'node:path';

import { native, nativeAsync } from './native.js';

/** Trust documents and other small configuration files are a few hundred bytes. */
export const MAX_CONFIG_BYTES = 64 * 1024;

export class UnreadableFile extends Error {}

/** Whether `target` is `root` or below it (both real paths). */
export function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `dir`, or '' (no check: a folder that cannot be resolved holds no files to read). */
export function realPathOf(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return '';
  }
}

/** The real path of the file open as `fd` (from `file`): the descriptor's where Linux says it. */
function openedPath(fd: number, file: string): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return fs.realpathSync(file);
  }
}

/**
 * The bytes of `file` if it is a regular file of at most `maxBytes` and, with `within` (a real
 * path), if the file opened is inside it (checked on the descriptor: a link swapped in after a
 * check of the path cannot lead outside); else `UnreadableFile`.
 */
export function readRegularFile(file: string, maxBytes: number, within?: string): Buffer {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    if (within !== undefined && !inside(within, openedPath(fd, file)))
      throw new UnreadableFile('it links outside its space');
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnreadableFile('not a regular file');
    if (st.size > maxBytes) throw new UnreadableFile(`larger than ${maxBytes} bytes (${st.size})`);
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < buf.length) {
      const n = fs.readSync(fd, buf, read, buf.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

/** What reading one item file gave (see {@link readFiles}). */
export type FileRead =
  | { bytes: Buffer }
  | { tooLarge: number }
  | { notRegular: true }
  /** Opened outside the directory it had to be in: its real path. */
  | { outside: string }
  | { code: string; message: string };

/**
 * Reads many files off the JS thread, several at a time, with the guarantees above: only
 * regular files (links followed) of at most `maxBytes`, and with `within` (a real directory per
 * path, '' for anywhere) only those that, opened, are inside it; a FIFO is refused, never waited on.
 * One native call per batch: `fs.promises.readFile` took four thread-pool round trips a file,
 * a third of the first index of a 60k-file tree.
 */
export async function readFiles(paths: string[], maxBytes: number, within: string[] = []): Promise<FileRead[]> {
  const read = await nativeAsync((b) => b.readFiles(paths.join('\0'), maxBytes, within.join('\0')));
  let start = 0;
  return read.codes.map((code, i) => {
    const end = read.ends[i]!;
    const bytes = read.bytes.subarray(start, end);
    start = end;
    if (code === '') return { bytes };
    if (code === 'TOO_LARGE') return { tooLarge: read.sizes[i]! };
    if (code === 'NOT_REGULAR') return { notRegular: true };
    if (code === 'OUTSIDE') return { outside: read.messages[i]! };
    return { code, message: read.messages[i]! };
  });
}

/** A file type as the batch stat gives it. */
export const FileType = { missing: 0, file: 1, dir: 2, other: 3 } as const;

/** One path's stat: modification and change times (µs since the epoch), size and type. */
export interface Stat {
  mtime: number;
  ctime: number;
  size: number;
  type: number;
}

/** Numbers per path in {@link statAll}'s answer, in this order. */
const STAT_WIDTH = 4;

/**
 * Stats `\0`-joined paths (links followed) on native threads, several at a time: `count` stats
 * in one array, read with {@link statAt}. A tree's files stat'ed one by one from JavaScript took
 * three times as long.
 */
export function statAll(joined: string, count: number): Float64Array {
  const stats = count ? native((b) => b.statMany(joined)) : new Float64Array(0);
  if (stats.length !== count * STAT_WIDTH) throw new Error(`${stats.length / STAT_WIDTH} stats for ${count} paths`);
  return stats;
}

/** The `i`th stat of a {@link statAll} answer. */
export function statAt(stats: Float64Array, i: number): Stat {
  const at = i * STAT_WIDTH;
  return { mtime: stats[at]!, size: stats[at + 1]!, type: stats[at + 2]!, ctime: stats[at + 3]! };
}
