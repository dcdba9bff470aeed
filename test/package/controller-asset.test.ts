import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { FileSystem } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildControllerAsset, type ControllerBuild } from '../../scripts/build.ts';

// GIVEN two clean builds of the controller, each into a directory of its own.
let first: ControllerBuild & { dir: string };
let second: ControllerBuild & { dir: string };

beforeAll(async () => {
  const build = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-controller-'));
    return { dir, ...(await buildControllerAsset(dir)) };
  };
  first = await build();
  second = await build();
}, 120_000);

afterAll(() => {
  for (const build of [first, second]) if (build) rmSync(build.dir, { recursive: true, force: true });
});

describe('the pre-built controller', () => {
  it('two clean builds give the same bytes and the same CDK asset hash', () => {
    expect(first.sha256).toBe(second.sha256);
    // The hash CDK names the asset by (its S3 key): the fingerprint of the asset directory.
    const hash = FileSystem.fingerprint(first.dir);
    expect(FileSystem.fingerprint(second.dir)).toBe(hash);
    console.log(`[controller] ${(first.bytes / 1024).toFixed(0)} kB, asset hash ${hash}`);
  });

  it('carries everything the handler needs: only Node built-ins are left to the runtime', () => {
    expect(first.externals.length).toBeGreaterThan(0);
    expect(first.externals.filter((path) => !path.startsWith('node:'))).toEqual([]);
  });

  it('exports the handler the construct names (index.handler), with its init run on a valid environment', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'const m = await import(process.env.BUNDLE); process.stdout.write(typeof m.handler);',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          BUNDLE: pathToFileURL(join(first.dir, 'index.mjs')).href,
          AWS_REGION: 'us-east-1',
          SCALER_NAME: 'orders',
          QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders',
          QUEUE_NAME: 'orders',
          CONSUMER_FUNCTION_NAME: 'orders-consumer',
          EVENT_SOURCE_MAPPING_UUID: '11111111-2222-3333-4444-555555555555',
        },
      },
    );
    expect(stdout).toBe('function');
  });
});
