/**
 * Reading a file a space or a repository supplied, without trusting what it is: only a regular
 * file is read, never past a size cap. A link to /dev/zero or a FIFO in a trust folder must not
 * read gigabytes or block every command forever.
 */
import fs from 'node:fs';

import { nativeAsync } from './native.js';

/** Trust documents and other small configuration files are a few hundred bytes. */
export const MAX_CONFIG_BYTES = 64 * 1024;

export class UnreadableFile extends Error {}

/** The bytes of `file` if it is a regular file of at most `maxBytes`; else `UnreadableFile`. */
export function readRegularFile(file: string, maxBytes: number): Buffer {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
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
  | { code: string; message: string };

/**
 * Reads many files off the JS thread, several at a time, with the guarantees above: only
 * regular files (links followed) of at most `maxBytes`; a FIFO is refused, never waited on.
 * One native call per batch: `fs.promises.readFile` took four thread-pool round trips a file,
 * a third of the first index of a 60k-file tree.
 */
export async function readFiles(paths: string[], maxBytes: number): Promise<FileRead[]> {
  const read = await nativeAsync((b) => b.readFiles(paths.join('\0'), maxBytes));
  let start = 0;
  return read.codes.map((code, i) => {
    const end = read.ends[i]!;
    const bytes = read.bytes.subarray(start, end);
    start = end;
    if (code === '') return { bytes };
    if (code === 'TOO_LARGE') return { tooLarge: read.sizes[i]! };
    if (code === 'NOT_REGULAR') return { notRegular: true };
    return { code, message: read.messages[i]! };
  });
}
