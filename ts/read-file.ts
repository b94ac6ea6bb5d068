/**
 * Reading a file a space or a repository supplied, without trusting what it is: only a regular
 * file is read, never past a size cap. A link to /dev/zero or a FIFO in a trust folder must not
 * read gigabytes or block every command forever.
 */
import fs from 'node:fs';

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
