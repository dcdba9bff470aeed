import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ageLawMonthlyCost } from '../../lib/bench/cost.ts';
import { configFor } from '../../lib/sim/run.ts';

/** The age law's monthly figure as the CLI prints it, for a pattern: the one computed figure, not a typed one. */
/**
 * The age law's price in a replay: its controller at the share of ticks that read the rates, as the replay counted
 * it (lib/control/rate-reads.ts), so between a month never quiet and one whose ticks read the age alone.
 */
const AGE_LAW_COST = '(\\d\\.\\d\\d)';
const NEVER_QUIET = ageLawMonthlyCost(configFor('lambda'));
/** Every age-law price the output quotes, within those bounds. */
function expectAgeLawPrices(stdout: string): void {
  const prices = [...stdout.matchAll(/(?:adds|add) \$(\d+\.\d\d) a month/g)].map((m) => Number(m[1]));
  expect(prices.length).toBeGreaterThan(0);
  for (const p of prices) {
    expect(p).toBeLessThanOrEqual(NEVER_QUIET + 0.005);
    expect(p).toBeGreaterThan(NEVER_QUIET - 1.3);
  }
}

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `npm run recommend -- args` as a user would (through tsx). */
async function recommend(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/recommend.ts', ...args], {
      cwd: ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'recommend-cli-'));

/**
 * An hour as `trace` exports it: its header with the range, one row a minute, the observed columns. 50/s, and
 * 600/s from minute 20 to 35; the queue showed ages of 3 s and 40 s, 2 and 14 concurrent executions.
 */
function exported(): string {
  const path = join(scratch, 'orders.csv');
  const rows = Array.from({ length: 60 }, (_, m) => (m >= 20 && m < 35 ? '60,600,20,40,14' : '60,50,20,3,2'));
  writeFileSync(
    path,
    [
      '# queue-age-scaler trace: the CloudWatch history of an SQS queue and its Lambda consumer, one phase a period.',
      '# range: 2026-11-03T00:00:00Z – 2026-11-03T01:00:00Z (--since 1h), exported 2026-11-03T01:00:05Z',
      'duration_s,rate_per_s,item_ms,observed_age_s,observed_concurrency',
      ...rows,
      '',
    ].join('\n'),
  );
  return path;
}

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('npm run recommend', () => {
  it('recommends the age law on a spike, with its settings, the options and the replay against the queue', async () => {
    const { code, stdout, stderr } = await recommend('--trace', exported(), '--seeds', '1-2');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^trace: orders: 1 h in 60 phases, 675,000 messages, up to 600\/s, items 20 ms\n/);
    expect(stdout).toMatch(
      /^replay: the trace as it is, 675,000 messages a run, 6 runs \(3 controllers × 2 seeds\)$/m,
    );
    expect(stdout).toMatch(
      new RegExp(
        `^recommend: age-law — meets the 60 s target on every seed with an exec peak of \\d+ against native's \\d+ and provisioned's \\d+; it adds \\$${AGE_LAW_COST} a month \\(its controller\\), and holds [\\d.]+ reserved concurrency on average \\([\\d,]+ concurrency-seconds over the trace\\)`,
        'm',
      ),
    );
    expect(stdout).toMatch(/^settings: targetAge 60 s · maxConcurrency 32 · minConcurrency 2$/m);
    expect(stdout).toMatch(
      /^ {2}the floor: the quietest 15 min's need, at least 2 \(2026-11-03 00:00, 50\/s: a need of 2\); below it/m,
    );
    expect(stdout).toMatch(
      new RegExp(`^ {2}age-law +\\d\\.\\d\\d +yes +\\d+ +[\\d.]+ +0 +${AGE_LAW_COST} +[\\d.]+$`, 'm'),
    );
    expect(stdout).toMatch(/^ {2}native +\d\.\d\d +yes +\d+ +[\d.]+ +0 +0\.00 +–$/m);
    expectAgeLawPrices(stdout);
    expect(stdout).toMatch(/consumer's own compute is the same for all/);
    expect(stdout).toMatch(
      /^replay vs your queue: native \(what you run today: --current\), the worst of 2 seeds, per 10 min:$/m,
    );
    expect(stdout).toMatch(/^ {2}11-03 00:00 +3 s +\d+ s +2 +\d+$/m);
    expect(stdout).toMatch(/^ {2}11-03 00:20 +40 s +\d+ s +14 +\d+$/m);
    expect(stdout).toMatch(/the replay's peak concurrency is [\d.]+–[\d.]+ × what your queue showed/);
  });

  it('prints one JSON object with --json, the replay of --current beside the queue', async () => {
    const { code, stdout } = await recommend(
      '--trace',
      exported(),
      '--seeds',
      '1',
      '--current',
      'age-law',
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.recommendation).toMatch(/^recommend: /);
    expect(report.options.map((o: { controller: string }) => o.controller)).toEqual([
      'age-law',
      'native',
      'provisioned',
    ]);
    expect(report).toMatchObject({
      current: 'age-law',
      seeds: [1],
      plan: { k: 1, runs: 3 },
      settings: { targetAgeSeconds: 60, cap: 32, floor: 2 },
      trace: { observed: true, startSeconds: Date.parse('2026-11-03T00:00:00Z') / 1000 },
      comparison: { windowSeconds: 600 },
    });
    expect(report.comparison.windows).toHaveLength(6);
    expect(report.comparison.windows[2]).toMatchObject({
      start: 1200,
      observedMaxAge: 40,
      observedPeakConcurrency: 14,
    });
  });

  it('recommends native on a steady load whose need is the cap, and says what the age law would add', async () => {
    const steady = file('steady.csv', 'duration_s,rate_per_s,item_ms\n600,350,20\n');
    const { code, stdout } = await recommend('--trace', steady, '--max-concurrency', '8', '--seeds', '1');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(
        `^recommend: native — it meets the 60 s target on every seed with an exec peak of 8, with no controller and nothing to pay \\(peaks within 5 %: the cheaper wins\\); the age law would add \\$${AGE_LAW_COST} a month and a peak no lower \\(8 against 8\\)\\. It is what you run today \\(--current\\)$`,
        'm',
      ),
    );
    expectAgeLawPrices(stdout);
    expect(stdout).toMatch(
      /^settings: the event source mapping's MaximumConcurrency 8, reserved concurrency unset, no scaler$/m,
    );
    expect(stdout).toMatch(/^ {2}the cap: maxConcurrency 8$/m);
    expect(stdout).toMatch(
      /^replay vs your queue: the file has no observed_age_s or observed_concurrency values/m,
    );
  });

  it('takes the cap from the downstream limits, the lowest of them', async () => {
    const steady = file('pool.csv', 'duration_s,rate_per_s,item_ms\n300,200,20\n');
    const { code, stdout } = await recommend(
      '--trace',
      steady,
      '--db-pool',
      '20',
      '--api-rate',
      '300',
      '--item-time',
      '0.05',
      '--seeds',
      '1',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).settings).toMatchObject({
      cap: 15,
      capFrom: [
        { field: 'maxConcurrency', value: 32, isDefault: true },
        { field: 'dbPoolSize', value: 20 },
        { field: 'apiRatePerSecond', value: 15 },
      ],
    });
  });

  it('thins a trace beyond the budget and says so: k and what a replayed message stands for', async () => {
    const big = file('big.csv', 'duration_s,rate_per_s,item_ms\n300,100,20\n');
    const { code, stdout } = await recommend('--trace', big, '--seeds', '1', '--budget', '1000');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^replay: thinned, k = 0\.011: 30,000 messages are too many \(1,000 messages for all runs keeps them to about two minutes \(--budget\)\); each replayed message stands for 90\.9 of yours/m,
    );
    expect(stdout).toMatch(/no figure is scaled back/);
    expect(stdout).toMatch(/^recommend: /m);
  });

  it.each([
    { comment: 'no --trace', args: [], message: /^recommend: --trace FILE\.csv is required/ },
    {
      comment: 'a target of 0',
      args: ['--target', '0'],
      message:
        /^recommend: invalid configuration: --target = '0': must be a number in \(0; 86400\] \(seconds\)$/,
    },
    {
      comment: 'a range of seeds that goes down',
      args: ['--seeds', '5-1'],
      message: /^recommend: --seeds '5-1': the range must go up \(5-1 starts above its end: write 1-5\)$/,
    },
    {
      comment: 'a seed that is not a whole number',
      args: ['--seeds', '1.5'],
      message: /^recommend: --seeds '1\.5': seeds are whole numbers in \[0; 4294967295\]/,
    },
    {
      comment: 'a controller that is not an offer',
      args: ['--current', 'fixed-cap'],
      message: /^recommend: --current 'fixed-cap': must be one of age-law, native, provisioned$/,
    },
    {
      comment: 'a pool of 0 connections',
      args: ['--db-pool', '0'],
      message:
        /^recommend: invalid configuration: --db-pool = '0': must be an integer in \[1; 100000\] \(connections\)$/,
    },
    {
      comment: 'an API rate without the item time',
      args: ['--api-rate', '300'],
      message: /^recommend: invalid configuration: --item-time is missing: the API cap is/,
    },
    {
      comment: 'a budget of no messages',
      args: ['--budget', '0'],
      message: /^recommend: --budget '0': must be a whole number of messages in \[1,000; 1,000,000,000\]$/,
    },
    {
      comment: 'an unknown option',
      args: ['--rate-scale', '2'],
      message: /^recommend: Unknown option '--rate-scale'/,
    },
  ])('refuses $comment: one line, exit 2', async ({ args, message }) => {
    const trace = file('ok.csv', 'duration_s,rate_per_s,item_ms\n60,10,20\n');
    const { code, stdout, stderr } = await recommend(
      ...(args.length === 0 ? [] : ['--trace', trace]),
      ...args,
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it("takes a shipped scenario's name for --trace, as simulate and bench do (the installed package carries them)", async () => {
    const { code, stdout } = await recommend('--trace', 'seed-spike', '--seeds', '1', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toHaveProperty('recommendation');
  });

  it('refuses a file of 130,000 rows in one line, exit 2, with advice it can take (no stack trace)', async () => {
    const rows = Array.from({ length: 130_000 }, (_, i) => `10,${1 + (i % 5)},20`);
    const trace = file('rows.csv', ['duration_s,rate_per_s,item_ms', ...rows, ''].join('\n'));
    const { code, stdout, stderr } = await recommend('--trace', trace, '--seeds', '1');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toMatch(
      /^recommend: --trace: 130,000 rows to replay, more than 100,000 .*trace --from and --to\)$/,
    );
    expect(stderr).not.toMatch(/--time-scale|RangeError| {4}at /);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('replays a 40-day trace over its last 30 days, and says so, rather than refuse it', async () => {
    const rows = Array.from({ length: 40 * 24 }, (_, h) => `3600,${1 + (h % 3)},20`);
    const trace = file('forty-days.csv', ['duration_s,rate_per_s,item_ms', ...rows, ''].join('\n'));
    const { code, stdout, stderr } = await recommend('--trace', trace, '--seeds', '1');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^window: the trace's last 30 d \(720 rows\), the most one run replays \(30 days\); its first 10 d \(240 rows\) are left out/m,
    );
    expect(stdout).toMatch(/^recommend: /m);
  }, 120_000);

  it('refuses a file it cannot read: one line, exit 2', async () => {
    const { code, stderr } = await recommend('--trace', join(scratch, 'missing.csv'));
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(/^recommend: cannot read load file .*missing\.csv: ENOENT$/);
  });

  it('describes every option in --help', async () => {
    const { code, stdout } = await recommend('--help');
    expect(code).toBe(0);
    for (const option of [
      '--trace',
      '--target',
      '--db-pool',
      '--api-rate',
      '--item-time',
      '--calls-per-item',
      '--max-concurrency',
      '--seeds',
      '--current',
      '--config',
      '--budget',
      '--json',
    ])
      expect(stdout).toContain(option);
  });
});
