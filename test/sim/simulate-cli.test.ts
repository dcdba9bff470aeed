import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `npm start -- args` as a user would (through tsx), returning exit code and output. */
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

const scratch = mkdtempSync(join(tmpdir(), 'simulate-cli-'));

describe('npm start', () => {
  it('replays a load file and writes the chart and the timeline', async () => {
    const trace = join(scratch, 'short.csv');
    writeFileSync(trace, 'duration_s,rate_per_s,item_ms\n300,100,20\n300,400,20\n');
    const { code, stdout } = await simulate('--trace', trace, '--out', scratch);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\| phase \| length \|/);
    expect(stdout).toMatch(/none lost/);
    expect(readFileSync(join(scratch, 'short.svg'), 'utf8')).toMatch(/^<svg[\s\S]*head age[\s\S]*<\/svg>\n$/);
    expect(readFileSync(join(scratch, 'short.csv'), 'utf8').split('\n')[0]).toBe(
      'time_s,arrivals_per_s,applied_concurrency,concurrent_executions,warm_environments,head_age_s,visible,in_flight,reason,saturated',
    );
  });

  it('prints one JSON object with --json', async () => {
    const trace = join(scratch, 'json.csv');
    writeFileSync(trace, 'duration_s,rate_per_s,item_ms\n120,50,20\n');
    const { code, stdout } = await simulate('--trace', trace, '--out', scratch, '--json');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    for (const key of [
      'executions',
      'warmEnvironments',
      'reservedSeconds',
      'timedOutInvocations',
      'failedItems',
      'rateScale',
      'timeScale',
      'peakConcurrency',
      'minConcurrency',
      'finalConcurrency',
      'cap',
      'p99WaitSeconds',
      'maxWaitSeconds',
      'concurrencySeconds',
      'oracleConcurrencySeconds',
      'scaleEvents',
      'saturatedSeconds',
      'throttledInvocations',
      'deadLettered',
      'lost',
      'simulatedSeconds',
      'wallSeconds',
      'phases',
    ]) {
      expect(summary).toHaveProperty(key);
    }
    expect(summary.phases[0]).toHaveProperty('p50WaitSeconds');
    expect(summary.phases[0]).toHaveProperty('peakExecutions');
    expect(Object.keys(summary.executions).sort()).toEqual(['mean', 'p99', 'peak']);
  });

  it('replays a trace scaled as npm run load does, and says so', async () => {
    const trace = join(scratch, 'scaled.csv');
    writeFileSync(trace, 'duration_s,rate_per_s,item_ms\n600,2,20\n');
    const { code, stdout } = await simulate(
      '--trace',
      trace,
      '--rate-scale',
      '100',
      '--time-scale',
      '0.2',
      '--out',
      scratch,
      '--json',
    );
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ rateScale: 100, timeScale: 0.2, simulatedSeconds: 120 });
    expect(summary.phases[0]).toMatchObject({ ratePerSecond: 200, durationSeconds: 120, itemMs: 20 });
  });

  it('runs the native baseline, with no controller writes and no reserved concurrency', async () => {
    const trace = join(scratch, 'native.csv');
    writeFileSync(trace, 'duration_s,rate_per_s,item_ms\n120,100,20\n');
    const { code, stdout } = await simulate(
      '--trace',
      trace,
      '--controller',
      'native',
      '--out',
      scratch,
      '--json',
    );
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ controllerKind: 'native', scaleEvents: 0, reservedSeconds: 0, lost: 0 });
  });

  it('a wrong --out fails at once, before the run, and leaves the file alone', async () => {
    // Checked up front: found only at the end, a file where the directory goes would cost the whole run.
    const file = join(scratch, 'README.md');
    writeFileSync(file, 'keep me\n');
    const { code, stdout, stderr } = await simulate('--out', file);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^simulate: --out '${file}': ${file} is a file, not a directory\n$`));
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('a chart path taken by a directory is caught before the run too', async () => {
    const dir = join(scratch, 'taken');
    mkdirSync(join(dir, 'seed-spike.svg'), { recursive: true });
    const { code, stdout, stderr } = await simulate('--out', dir);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/seed-spike.svg is a directory, so seed-spike.svg cannot be written there/);
    expect(statSync(join(dir, 'seed-spike.svg')).isDirectory()).toBe(true);
  });

  it.each([
    {
      comment: 'an unknown option',
      args: ['--fast'],
      message: /^simulate: Unknown option '--fast'.*\(see --help\)\n$/,
    },
    {
      comment: 'an unknown scenario',
      args: ['--scenario', 'spike'],
      message: /^simulate: unknown scenario 'spike' \(known: bursts, /m,
    },
    {
      comment: 'an unknown preset',
      args: ['--preset', 'ecs'],
      message: /^simulate: --preset 'ecs': must be one of lambda, seed\n$/,
    },
    {
      comment: 'a bad seed',
      args: ['--seed', '1.5'],
      message: /^simulate: --seed '1.5': must be a whole number/,
    },
    {
      // Taken modulo 2³², it would run as seed 1 and be reported as 4294967297.
      comment: 'a seed beyond the 32 bits the generator uses',
      args: ['--seed', '4294967297'],
      message:
        /^simulate: --seed '4294967297': must be a whole number in \[0; 4294967295\] \(the generator's state is 32 bits\)\n$/,
    },
    {
      comment: 'a seed in hex',
      args: ['--seed', '0x10'],
      message: /^simulate: --seed '0x10': must be a whole number/,
    },
    {
      comment: 'a zero rate scale',
      args: ['--rate-scale', '0'],
      message: /^simulate: --rate-scale '0': must be a number > 0\n$/,
    },
    {
      comment: 'a run beyond the bounds',
      args: ['--rate-scale', '1000'],
      message: /^simulate: the run is too large: 840,000,000 messages .*more than 50,000,000/,
    },
    {
      comment: 'native in the seed preset',
      args: ['--preset', 'seed', '--controller', 'native'],
      message:
        /^simulate: invalid configuration: controller 'native' is a setting of Lambda's event source mapping/,
    },
    {
      comment: 'a missing trace file',
      args: ['--trace', '/nonexistent.csv'],
      message: /^simulate: cannot read load file \/nonexistent.csv: ENOENT\n$/,
    },
  ])('rejects $comment with one line and exit 2', async ({ args, message }) => {
    const { code, stderr } = await simulate(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects an invalid config file, naming every bad field', async () => {
    const config = join(scratch, 'bad.json');
    writeFileSync(
      config,
      JSON.stringify({ targetAgeSeconds: -1, minConcurrency: 40, simulator: { batchSize: 0 } }),
    );
    const { code, stderr } = await simulate('--config', config);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^simulate: invalid configuration: simulator.batchSize = 0: must be an integer in \[1; 10000\]\n$/,
    );
    writeFileSync(config, JSON.stringify({ targetAgeSeconds: -1, minConcurrency: 40 }));
    const second = await simulate('--config', config);
    expect(second.stderr).toMatch(
      /targetAgeSeconds = -1: .*; minConcurrency = 40: must not exceed the cap 32/,
    );
  });

  it('shows --help', async () => {
    const { code, stdout } = await simulate('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: npm start -- \[options\]/);
    expect(stdout).toMatch(/--scenario NAME/);
  });
});
