import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../lib/load-file/load-file.ts';
import { buildPlan } from '../../lib/operator/plan.ts';
import { isoSeconds } from '../../lib/operator/trace-range.ts';
import { runScenario } from '../../lib/sim/run.ts';
import { uniqueName } from '../controller/support/world.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';
import { cli } from './cli.ts';
import {
  createConsumer,
  createStack,
  type HistoryPoint,
  putHistory,
  type SeededConsumer,
} from './support/metric-history.ts';

/**
 * `trace` against moto: three days of one-minute history seeded with PutMetricData (moto 5.2.1 takes timestamps
 * days in the past and GetMetricData returns them), exported, and read back with the load file's parser.
 *
 * moto answers every GetMetricData in one response: it ignores MaxDatapoints and never returns a NextToken, and
 * its time grows with periods × datapoints in the range (about 50 s for this history in one call). So these runs
 * pass --max-datapoints 2000: 333 minutes a call, 13 calls, each well inside the 10 s answer timeout. That
 * exercises the windows; NextToken paging is tested with aws-sdk-client-mock in trace-metrics.test.ts.
 */

const DAY = 86_400;
const BATCH_SIZE = 4;

interface SeededMinute {
  readonly at: number;
  readonly count: number;
  readonly itemMs: number;
  readonly age: number;
  readonly concurrency: number;
}

let server: MotoServer;
let consumer: SeededConsumer;
let idle: SeededConsumer;
let stackName: string;
let dir: string;
/** Epoch seconds, whole hours: the seeded range. */
let start: number;
let end: number;
/** Every seeded minute with data, by its start. */
const seeded = new Map<number, SeededMinute>();
let gap: { start: number; end: number };
let fallback: { start: number; end: number };

/**
 * A diurnal load (0.1–3.1/s over the day) with a burst (40/s for 30 minutes, items slower at 200 ms), half an hour
 * of an active queue that received nothing (sent 0, no invocations), half an hour whose Invocations and
 * NumberOfMessagesDeleted are missing (item time from the batch size), and a four-hour gap with no datapoints.
 */
function history(names: SeededConsumer): HistoryPoint[] {
  const points: HistoryPoint[] = [];
  const burst = { start: start + DAY + 12 * 3600, end: start + DAY + 12 * 3600 + 1800 };
  const silent = { start: start + DAY + 2 * 3600, end: start + DAY + 2 * 3600 + 1800 };
  for (let at = start; at < end; at += 60) {
    if (at >= gap.start && at < gap.end) continue;
    const inBurst = at >= burst.start && at < burst.end;
    const dayFraction = (at % DAY) / DAY;
    const diurnal = Math.round(60 * (1.6 + 1.5 * Math.sin(2 * Math.PI * dayFraction)));
    const count = at >= silent.start && at < silent.end ? 0 : inBurst ? 2400 : diurnal;
    const itemMs = inBurst ? 200 : 80;
    const age = 3 + ((at / 60) % 7);
    const concurrency = Math.ceil(((count / 60) * itemMs) / 1000) + 1;
    seeded.set(at, { at, count, itemMs, age, concurrency });
    // Inside the minute, as CloudWatch stamps datapoints: the period bucketing must find them.
    const t = at + 7;
    const sqs = (metric: string, value: number) =>
      points.push({ namespace: 'AWS/SQS', metric, dimension: names.queueName, at: t, value });
    const fn = (metric: string, value: number) =>
      points.push({ namespace: 'AWS/Lambda', metric, dimension: names.functionName, at: t, value });
    sqs('NumberOfMessagesSent', count);
    sqs('ApproximateAgeOfOldestMessage', age);
    fn('ConcurrentExecutions', concurrency);
    if (count === 0) continue;
    if (at >= fallback.start && at < fallback.end) {
      // No counts: the item time is Duration ÷ the mapping's batch size.
      fn('Duration', itemMs * BATCH_SIZE);
      continue;
    }
    const invocations = Math.ceil(count / 3);
    sqs('NumberOfMessagesDeleted', count);
    fn('Invocations', invocations);
    // Per invocation: its batch's items, count ÷ invocations of them on average.
    fn('Duration', (itemMs * count) / invocations);
  }
  return points;
}

beforeAll(async () => {
  server = await startMotoServer();
  const now = Date.now() / 1000;
  end = Math.floor(now / 3600) * 3600 - 3600;
  start = end - 3 * DAY;
  gap = { start: start + 2 * DAY + 3 * 3600, end: start + 2 * DAY + 7 * 3600 };
  fallback = { start: start + 6 * 3600, end: start + 6 * 3600 + 1800 };
  consumer = await createConsumer(server, {
    queueName: uniqueName('orders'),
    functionName: uniqueName('consumer'),
    roleName: uniqueName('role'),
    batchSize: BATCH_SIZE,
  });
  idle = await createConsumer(server, {
    queueName: uniqueName('idle'),
    functionName: uniqueName('idle-consumer'),
    roleName: uniqueName('role'),
    batchSize: 10,
  });
  stackName = uniqueName('TraceStack');
  await createStack(server, stackName, consumer);
  await putHistory(server, history(consumer));
  dir = mkdtempSync(join(tmpdir(), 'trace-'));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const aws = () => ['--endpoint', server.endpoint, '--region', TEST_REGION];
const MOTO_CALLS = ['--max-datapoints', '2000'];

describe('trace against the emulator: three days of minutes', () => {
  let out: string;
  let text: string;
  let stdout: string;

  beforeAll(async () => {
    out = join(dir, 'orders.csv');
    const result = await cli('trace', [
      '--stack',
      stackName,
      '--from',
      isoSeconds(start),
      '--to',
      isoSeconds(end),
      '--out',
      out,
      ...MOTO_CALLS,
      ...aws(),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    stdout = result.stdout;
    text = readFileSync(out, 'utf8');
  }, 120_000);

  it('chooses 1-minute periods and says why', () => {
    expect(stdout).toMatch(/^period: 1-minute: the range starts 3(\.\d)? days ago, within the 15 days/m);
    expect(stdout).toMatch(/in 13 GetMetricData calls/);
    expect(text).toMatch(/^# period: 1-minute \(60 s\): the range starts 3(\.\d)? days ago/m);
  });

  it('reproduces every seeded minute: rate, item time and the observed columns', () => {
    const { phases } = parseScenarioText(text, out);
    const rows = phases.filter((p) => p.durationSeconds === 60);
    expect(rows).toHaveLength(seeded.size);
    const minutes = [...seeded.values()].sort((a, b) => a.at - b.at);
    let carried = 80;
    rows.forEach((phase, i) => {
      const minute = minutes[i];
      if (minute === undefined) throw new Error(`row ${i}: no seeded minute`);
      expect(Math.abs(phase.ratePerSecond - minute.count / 60)).toBeLessThanOrEqual(5e-7);
      // A minute without invocations takes the minute before's item time.
      if (minute.count > 0) carried = minute.itemMs;
      expect(phase.itemMs).toBeCloseTo(carried, 3);
      expect(phase.observed).toEqual({ ageSeconds: minute.age, concurrency: minute.concurrency });
    });
  });

  it('replays the seeded arrivals exactly: the plan of `load` sends as many messages as were sent', () => {
    const scenario = { name: 'orders', ...parseScenarioText(text, out) };
    const plan = buildPlan(scenario);
    const sent = [...seeded.values()].reduce((sum, m) => sum + m.count, 0);
    expect(plan.totalMessages).toBe(sent);
    expect(plan.totalSeconds).toBe(3 * DAY);
  });

  it('replays in the simulator: the seeded arrivals, nothing lost', async () => {
    const run = await runScenario({
      scenario: { name: 'orders', ...parseScenarioText(text, out) },
      preset: 'lambda',
    });
    const sent = [...seeded.values()].reduce((sum, m) => sum + m.count, 0);
    // The simulator draws Poisson arrivals at each phase's rate: about 570,000 of them, within 1 %.
    expect(Math.abs(run.summary.sent / sent - 1)).toBeLessThan(0.01);
    expect(run.summary.lost).toBe(0);
  });

  it('marks the four-hour gap as one row after a comment, not as zeros', () => {
    const lines = text.split('\n');
    const comment = lines.findIndex((l) => l.startsWith('# gap '));
    const [from, to] = [isoSeconds(gap.start), isoSeconds(gap.end)];
    // The end's date is left out when it is the start's.
    const until = from.slice(0, 10) === to.slice(0, 10) ? to.slice(11) : to;
    expect(lines[comment]).toBe(`# gap ${from} – ${until}: no datapoints for 4 h; replayed as no arrivals`);
    expect(lines[comment + 1]).toBe('14400,0,80,,');
    expect(lines.filter((l) => l.startsWith('# gap '))).toHaveLength(1);
    expect(text).toMatch(/^# periods: 4320, 4080 with data .*; 1 gap of 240 periods$/m);
  });

  it('records the queue, the function, the range and how each column was derived', () => {
    expect(text).toContain(`# queue: ${consumer.queueName} (${consumer.queueUrl})`);
    expect(text).toContain(`# function: ${consumer.functionName}`);
    expect(text).toContain(`# range: ${isoSeconds(start)} – ${isoSeconds(end)} (--from `);
    expect(text).toMatch(/# {3}rate_per_s: AWS\/SQS NumberOfMessagesSent \(Sum\) ÷ 60 s/);
    expect(text).toContain(
      `# batch size: 4, the BatchSize of the event source mapping ${consumer.mappingUuid}, GetEventSourceMapping`,
    );
    expect(text).toMatch(/from the batch size in 30,/);
    expect(text).toMatch(/^duration_s,rate_per_s,item_ms,observed_age_s,observed_concurrency$/m);
  });

  it('finds the batch size with ListEventSourceMappings from --queue and --function', async () => {
    const part = join(dir, 'part.csv');
    const { code, stdout, stderr } = await cli('trace', [
      '--queue',
      consumer.queueUrl,
      '--function',
      consumer.functionName,
      '--from',
      isoSeconds(start),
      '--to',
      isoSeconds(start + 7 * 3600),
      '--out',
      part,
      ...MOTO_CALLS,
      ...aws(),
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^wrote .*part\.csv: 420 phases for 420 periods, 420 with data, 0 gaps/m);
    const partText = readFileSync(part, 'utf8');
    expect(partText).toContain(
      `# batch size: 4, the BatchSize of the event source mapping ${consumer.mappingUuid}, ListEventSourceMappings`,
    );
    // The half hour without counts: Duration (80 ms × 4) ÷ the batch size.
    const { phases } = parseScenarioText(partText, part);
    expect(phases.slice(360, 390).every((p) => p.itemMs === 80)).toBe(true);
  });
});

describe('trace: one line and exit 2 for a mistake', () => {
  it.each([
    {
      comment: 'a stack that does not exist',
      args: () => ['--stack', 'NoSuchStack', '--since', '1h', ...aws()],
      message: /^trace: --stack NoSuchStack: no such stack in this region\n$/,
    },
    {
      comment: 'a queue with no data in the range',
      args: () => ['--queue', idle.queueUrl, '--function', idle.functionName, '--since', '2h', ...aws()],
      message:
        /^trace: no data in range: queue idle-\d+-\d+ has no AWS\/SQS NumberOfMessagesSent datapoints between/,
    },
    {
      comment: 'a queue that does not exist',
      args: () => [
        '--queue',
        `${consumer.queueUrl}-gone`,
        '--function',
        consumer.functionName,
        '--since',
        '1h',
        ...aws(),
      ],
      message: /^trace: queue .*-gone: not found \(/,
    },
    {
      comment: '--since beyond what CloudWatch keeps',
      args: () => ['--stack', stackName, '--since', '500d', ...aws()],
      message:
        /^trace: --since 500d: the range starts 500 days ago, beyond the 455 days CloudWatch keeps metrics: give a range that starts within the last 455 days/,
    },
    {
      comment: '--from after --to',
      args: () => ['--stack', stackName, '--from', '2026-11-04', '--to', '2026-11-03', ...aws()],
      message: /^trace: --from 2026-11-04 is not before --to 2026-11-03: give a range that starts within/,
    },
    {
      comment: 'a queue in another region than --region',
      args: () => [
        '--queue',
        'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
        '--function',
        'orders-consumer',
        '--since',
        '1h',
        ...aws(),
      ],
      message:
        /^trace: the queue .* is in eu-west-1, but the region is us-east-1 .*: give --region eu-west-1\n$/,
    },
  ])('$comment', async ({ args, message }) => {
    const out = join(dir, `${uniqueName('bad')}.csv`);
    const { code, stderr } = await cli('trace', [...args(), '--out', out]);
    expect(stderr).toMatch(/^trace: [^\n]+\n$/);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    {
      comment: 'a directory that does not exist',
      out: () => join(dir, 'no-such-dir', 'x.csv'),
      message:
        /^trace: --out .*no-such-dir\/x\.csv: cannot write there \(ENOENT: its directory does not exist\)\n$/,
    },
    {
      comment: 'a directory',
      out: () => dir,
      message: /^trace: --out .*: is a directory; give a file name such as/,
    },
  ])('an unwritable --out ($comment), checked before any call', async ({ out, message }) => {
    // A closed port: had the tool called AWS first, the line would say it cannot reach the endpoint.
    const { code, stderr, stdout } = await cli('trace', [
      '--stack',
      'Orders',
      '--since',
      '1d',
      '--out',
      out(),
      '--endpoint',
      'http://127.0.0.1:9',
      '--region',
      TEST_REGION,
    ]);
    expect(stderr).toMatch(/^trace: [^\n]+\n$/);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it('describes every option in --help', async () => {
    const { code, stdout } = await cli('trace', ['--help']);
    expect(code).toBe(0);
    for (const option of [
      '--stack',
      '--queue',
      '--function',
      '--since',
      '--from',
      '--to',
      '--out',
      '--max-datapoints',
      '--endpoint',
      '--region',
    ])
      expect(stdout).toContain(`  ${option} `);
    expect(stdout).toMatch(/Usage: npm run trace -- /);
  });
});
