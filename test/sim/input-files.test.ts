import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBoundedText } from '../../lib/load-file/bounded-read.ts';
import { LoadFileError, readLoadFile } from '../../lib/load-file/load-file.ts';
import { loadSimConfig } from '../../lib/sim/config-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'input-files-'));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('files the user names are read within a bound, and quoted short in errors', () => {
  it('a file past the bound is refused with its size, before it is read whole', () => {
    const path = file('big.csv', 'x'.repeat(101));
    expect(() => readBoundedText(path, 'load file', 100, 'a test bound')).toThrow(
      `load file ${path} is larger than 0 MB (a test bound): is it the right file?`,
    );
    expect(readBoundedText(path, 'load file', 101, 'a test bound')).toHaveLength(101);
  });

  it('/dev/zero (a device that never ends) is refused at 64 MB, not read until the memory is gone', () => {
    expect(() => readLoadFile('/dev/zero')).toThrow(LoadFileError);
    expect(() => readLoadFile('/dev/zero')).toThrow(
      /load file \/dev\/zero is larger than 64 MB \(a load file within 100,000 phases is a few MB\)/,
    );
  });

  it('a directory or a missing file: one line naming the path and the reason', () => {
    expect(() => readLoadFile(dir)).toThrow(`cannot read load file ${dir}: EISDIR`);
    expect(() => readLoadFile(join(dir, 'none.csv'))).toThrow(/cannot read load file .*none\.csv: ENOENT/);
  });

  it('a 5 MB line is quoted at most 80 characters in its error, a binary header escaped', () => {
    const long = file('long.csv', `duration_s,rate_per_s,item_ms\n${'9'.repeat(5_000_000)},1,1\n`);
    const error = (() => {
      try {
        readLoadFile(long);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(LoadFileError);
    expect(error?.message.length).toBeLessThan(400);
    const binary = file('binary.csv', Buffer.from([0x00, 0x01, 0x1b, 0x41, 0x0a, 0x31]));
    expect(() => readLoadFile(binary)).toThrow(/header is '\\u0000\\u0001\\u001bA'/);
  });

  it('a config file saved with a byte-order mark reads as the same JSON', () => {
    const path = file('bom.json', '\uFEFF{"targetAgeSeconds": 45}');
    expect(loadSimConfig(path).settings).toEqual({ targetAgeSeconds: 45 });
  });
});
