import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkWritable } from '../../lib/operator/trace-out.ts';

/** `trace --out`'s check before any AWS call: it finds an unwritable path and creates or removes nothing. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trace-out-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('checkWritable', () => {
  it('leaves a dangling symlink as it was and creates nothing at its target', () => {
    // GIVEN --out is a symlink to a file that does not exist yet
    const target = join(dir, 'target.csv');
    const link = join(dir, 'link.csv');
    symlinkSync(target, link);
    // WHEN the path is checked
    checkWritable(link);
    // THEN the link is still there, and its target was not created
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  it("refuses a dangling symlink whose target's directory does not exist, creating nothing", () => {
    const link = join(dir, 'link.csv');
    symlinkSync(join(dir, 'missing', 'target.csv'), link);
    expect(() => checkWritable(link)).toThrow(/cannot write there \(ENOENT: its directory does not exist\)/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('leaves no file behind for a new path, and an existing file unchanged', () => {
    const fresh = join(dir, 'new.csv');
    checkWritable(fresh);
    expect(existsSync(fresh)).toBe(false);
    const existing = join(dir, 'old.csv');
    writeFileSync(existing, 'kept\n');
    checkWritable(existing);
    expect(readFileSync(existing, 'utf8')).toBe('kept\n');
  });
});
