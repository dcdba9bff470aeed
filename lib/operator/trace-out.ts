import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  readlinkSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { OperatorError } from './operator-error.ts';

/**
 * Where `trace` writes, checked before the first AWS call: an export of 15 days of minutes takes a few calls and
 * seconds to minutes, and finding out afterwards that the file cannot be written would waste them.
 */

const REASONS: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only file system',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
};

function cannotWrite(path: string, error: unknown): OperatorError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = REASONS[code] ?? (error as Error).message;
  return new OperatorError(`--out ${path}: cannot write there (${code ? `${code}: ` : ''}${reason})`);
}

/**
 * Opens the file for appending, which changes nothing in a file that exists, and removes it again when it did not:
 * a real check of the path (a read-only mount, a missing directory, a file without write permission), with no
 * file left behind.
 */
export function checkWritable(path: string): void {
  if (path.trim() === '') throw new OperatorError('--out: give a file name such as my-queue.csv');
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new OperatorError(`--out ${path}: is a directory; give a file name such as ${path}/my-queue.csv`);
  const existed = existsSync(path);
  try {
    // A link to nothing: opening it would create its target, and removing "the file" would remove the link and
    // leave the target behind. The target's directory is checked instead, and nothing is created.
    if (!existed && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
      accessSync(dirname(resolve(dirname(path), readlinkSync(path))), constants.W_OK);
      return;
    }
    closeSync(openSync(path, 'a'));
  } catch (error) {
    throw cannotWrite(path, error);
  }
  if (!existed) unlinkSync(path);
}

/** The whole file at once, after every call succeeded: an export that fails writes nothing. */
export function writeTrace(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw cannotWrite(path, error);
  }
}
