import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function simulate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/simulate.ts', ...args], {
      cwd: ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'group-cli-'));

describe('npm start -- --group', () => {
  it('compares the four controllers on a group file, with the acceptance checks', async () => {
    const { code, stdout } = await simulate('--group', 'scenarios/groups/api-300-coinciding-bursts.json');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^## api-300-coinciding-bursts: 2 queues, an API at 300 calls\/s .*budget 15 \(seed 1/,
    );
    expect(stdout).toMatch(
      /\| member \| target \| native, static split \| native, full budget each \| age law per queue, static split \| shared budget \|/,
    );
    expect(stdout).toMatch(/\| orders \| 60 s \| /);
    expect(stdout).toMatch(/\| native, full budget each \| \*\*30\*\* \| \*\*30\*\* \| 0 \| [1-9]\d* \|/);
    expect(stdout).toMatch(/- (pass|\*\*miss\*\*): Σ limits ≤ budget \(peak \d+ of 15\)/);
    expect(stdout).toMatch(/fewer pool waits or 429s than native, full budget each/);
  });

  it('takes a shipped group by name, and prints JSON', async () => {
    const { code, stdout } = await simulate('--group', 'api-300-coinciding-bursts', '--seed', '2', '--json');
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.seed).toBe(2);
    expect(out.runs.map((r: { controller: string }) => r.controller)).toEqual([
      'native-split',
      'native-full',
      'age-law-split',
      'shared-budget',
    ]);
    expect(out.acceptance.length).toBe(7);
  });

  it('refuses the single-queue options, a config with settings, and a file that does not validate', async () => {
    const mixed = await simulate('--group', 'api-300-coinciding-bursts', '--controller', 'native');
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--group takes only --seed, --json and --config; not --controller/);

    const config = join(scratch, 'settings.json');
    writeFileSync(config, '{"targetAgeSeconds": 30}');
    const settings = await simulate('--group', 'api-300-coinciding-bursts', '--config', config);
    expect(settings.code).toBe(2);
    expect(settings.stderr).toMatch(
      /with --group only its "simulator" settings apply .*take out targetAgeSeconds/,
    );

    const bad = join(scratch, 'bad.json');
    writeFileSync(bad, '{"downstream": {"connectionPool": 40}, "budget": 4000, "members": []}');
    const invalid = await simulate('--group', bad);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/bad\.json: budget = 4000: must be an integer in \[2; 1000\]/);
    expect(invalid.stderr).toMatch(/bad\.json: members has 0 entries/);

    const unknown = await simulate('--group', 'no-such-group');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--group 'no-such-group': not a shipped group \(api-300-coinciding-bursts, pool-40-three-shapes\)/,
    );
  });

  it('is in --help', async () => {
    const { code, stdout } = await simulate('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/--group FILE\.json +several queues sharing one downstream/);
    expect(stdout).toMatch(/api-300-coinciding-bursts, pool-40-three-shapes/);
  });
});
