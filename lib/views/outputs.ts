import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LoadFileError } from '../load-file/load-file.ts';

/**
 * Where a tool writes its result, checked before any work starts: a mistake in `--out` must not cost a finished
 * run (checked only when writing, `npm run bench -- --out` on a bad path would fail after the whole bench).
 */
export class OutputError extends LoadFileError {
  override name = 'OutputError';
}

function kind(path: string): 'file' | 'directory' | 'other' | undefined {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other';
  } catch {
    return undefined;
  }
}

function ensureWritableDirectory(dir: string, flag: string, given: string): void {
  const existing = kind(dir);
  if (existing !== undefined && existing !== 'directory')
    throw new OutputError(`${flag} '${given}': ${dir} is a ${existing}, not a directory`);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new OutputError(
      `${flag} '${given}': cannot write into ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** `--out DIR` for files named inside it: DIR is created if missing; each file must not be a directory. */
export function prepareOutputDirectory(flag: string, given: string, files: readonly string[]): string[] {
  const dir = resolve(given);
  ensureWritableDirectory(dir, flag, given);
  return files.map((name) => {
    const path = join(dir, name);
    if (kind(path) === 'directory')
      throw new OutputError(`${flag} '${given}': ${path} is a directory, so ${name} cannot be written there`);
    return path;
  });
}

/** `--out FILE`: its directory is created if missing; FILE itself must not be a directory. */
export function prepareOutputFile(flag: string, given: string): string {
  const path = resolve(given);
  if (kind(path) === 'directory')
    throw new OutputError(
      `${flag} '${given}': is a directory; give a file name (e.g. ${join(given, 'bench.md')})`,
    );
  ensureWritableDirectory(dirname(path), flag, given);
  return path;
}

/**
 * Writes each file; a failure is reported, not thrown, so the caller has already printed its result and only the
 * files are missing. Returns the messages of the files that could not be written.
 */
export function writeOutputs(files: readonly { path: string; content: string }[]): string[] {
  const failures: string[] = [];
  for (const { path, content } of files) {
    try {
      writeFileSync(path, content);
    } catch (error) {
      failures.push(
        `could not write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return failures;
}
