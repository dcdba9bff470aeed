import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  it('replays a phase file and writes the chart and the timeline', async () => {
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
      comment: 'a missing trace file',
      args: ['--trace', '/nonexistent.csv'],
      message: /^simulate: cannot read phase file \/nonexistent.csv: ENOENT\n$/,
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
