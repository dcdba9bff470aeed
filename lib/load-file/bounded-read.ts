import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Reads a text file the user names (a load file, a config or group file) within a size bound, so that a wrong path
 * (`/dev/zero`, a 220 MB export, a pipe that never ends) is refused with its size instead of filling the memory:
 * the whole file used to be read and split before any limit was checked (a 220 MB file took 4.5 GB, `/dev/zero`
 * grew without end). Reads in chunks and stops one byte past the bound, so pipes and devices are bounded too. A
 * leading UTF-8 byte-order mark (Excel and Notepad write one) is dropped.
 */

const CHUNK_BYTES = 1 << 20;

export class FileReadError extends Error {
  override name = 'FileReadError';
}

/**
 * The file's text, or a `FileReadError` naming what it is (`what`), the path and the reason; `bound` says why
 * `maxBytes` is enough (`a load file within 100,000 phases is a few MB`).
 */
export function readBoundedText(path: string, what: string, maxBytes: number, bound: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new FileReadError(`cannot read ${what} ${path}: ${reasonOf(error)}`);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) {
        throw new FileReadError(
          `${what} ${path} is larger than ${megabytes(maxBytes)} (${bound}): is it the right file?`,
        );
      }
    }
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw new FileReadError(`cannot read ${what} ${path}: ${reasonOf(error)}`);
  } finally {
    closeSync(fd);
  }
}

function reasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

const megabytes = (bytes: number) => `${Math.round(bytes / (1 << 20))} MB`;
