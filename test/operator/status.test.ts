import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeWatch } from '../../lib/operator/cli-args.ts';
import { lastDecisions, parseDecisionEvent } from '../../lib/operator/decision-log.ts';
import { minuteGrid } from '../../lib/operator/status-chart.ts';
import { parseStatusMetrics } from '../../lib/operator/status-metrics.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';
import { cli } from './cli.ts';
import { type SeededScaler, type SeedValues, seedScaler } from './support/seeded-scaler.ts';

let server: MotoServer;
let seeded: SeededScaler;

const VALUES: SeedValues = {
  reserved: 12,
  mappingMax: 10,
  cap: 16,
  floor: 2,
  targetAge: 60,
  visibleMessages: 23,
  ticks: [
    { applied: 4, desired: 4, age: 20, reason: 'hold:steady' },
    { applied: 8, desired: 8, age: 95, reason: 'grow:age-above-target', scaled: true },
    { applied: 16, desired: 16, age: 140, reason: 'hold:at-cap', scaled: true, saturated: true },
  ],
  alarms: { saturated: 'ALARM', oscillation: 'OK', 'controller-unhealthy': 'INSUFFICIENT_DATA' },
};

beforeAll(async () => {
  server = await startMotoServer();
  seeded = await seedScaler(server, VALUES);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const aws = () => ['--endpoint', server.endpoint, '--region', TEST_REGION];

describe('npm run status against the emulator', () => {
  it('reads back the seeded concurrency, mapping maximum, metrics, alarms and decisions from --stack', async () => {
    const { code, stdout, stderr } = await cli('status', ['--stack', seeded.stackName, ...aws(), '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { summary, reading } = JSON.parse(stdout);
    expect(summary).toMatchObject({
      reservedConcurrency: 12,
      mappingMaximum: 10,
      cap: 16,
      floor: 2,
      targetAgeSeconds: 60,
      visible: 23,
      inFlight: 0,
      saturated: true,
      atCap: true,
    });
    expect(summary.headAge.value).toBe(140);
    expect(summary.controllerApplied.value).toBe(16);
    expect(reading.series.applied.map((p: { value: number }) => p.value)).toEqual([4, 8, 16]);
    expect(reading.alarms.map((a: { name: string; state: string }) => [a.name, a.state])).toEqual([
      [`${seeded.scalerName}-controller-unhealthy`, 'INSUFFICIENT_DATA'],
      [`${seeded.scalerName}-oscillation`, 'OK'],
      [`${seeded.scalerName}-saturated`, 'ALARM'],
    ]);
    expect(reading.target.logGroup).toBe(seeded.logGroup);
    expect(reading.decisions.map((d: { reason: string }) => d.reason)).toEqual([
      'hold:steady',
      'grow:age-above-target',
      'hold:at-cap',
    ]);
    expect(reading.problems).toEqual([]);
  });

  it('shows the same on screen, from explicit names', async () => {
    const { code, stdout } = await cli('status', [
      '--queue-url',
      seeded.queueUrl,
      '--function-name',
      seeded.consumer,
      '--mapping-uuid',
      seeded.mappingUuid,
      '--scaler-name',
      seeded.scalerName,
      '--log-group',
      seeded.logGroup,
      '--decisions',
      '2',
      ...aws(),
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/concurrency +reserved 12 · mapping maximum 10/);
    expect(stdout).toMatch(/cap \/ floor +16 \/ 2/);
    expect(stdout).toMatch(/head age +140 s vs target 60 s/);
    expect(stdout).toMatch(/depth +visible 23 · in flight 0 · delayed 0/);
    expect(stdout).toMatch(/saturated +YES/);
    expect(stdout).toMatch(/ALARM +\S+-saturated/);
    expect(stdout).toMatch(/grow:age-above-target +4 → 8 +desired 8 +age 95 s/);
    expect(stdout).toMatch(/hold:at-cap +8 → 16/);
    expect(stdout).not.toMatch(/hold:steady/); // --decisions 2: only the newest two
    expect(stdout).toMatch(/applied concurrency per minute \(flat line: cap 16\)/);
  });

  it('says what it did not read when given only the queue', async () => {
    const { code, stdout } = await cli('status', ['--queue-url', seeded.queueUrl, ...aws()]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/reserved not read \(no --function-name\)/);
    expect(stdout).toMatch(/cap \/ floor +unknown \/ unknown/);
    expect(stdout).toMatch(/saturated +unknown/);
    expect(stdout).toMatch(/alarms +not read \(no --scaler-name\)/);
    expect(stdout).toMatch(/decisions +log not read/);
    // The queue's own age metric is read without the scaler.
    expect(stdout).toMatch(/head age +140 s vs target unknown/);
  });

  it.each([
    {
      comment: 'a queue that does not exist',
      args: () => ['--queue-url', `${server.endpoint}/123456789012/no-such-queue`, ...aws()],
      message: /no-such-queue: not found \(QueueDoesNotExist/,
    },
    {
      comment: 'an unreachable endpoint',
      args: () => ['--queue-url', 'http://127.0.0.1:9/123456789012/q', '--endpoint', 'http://127.0.0.1:9'],
      message: /cannot reach http:\/\/127.0.0.1:9 \(ECONNREFUSED\)/,
    },
    {
      comment: 'a stack that does not exist',
      args: () => ['--stack', 'NoSuchStack', ...aws()],
      message: /--stack NoSuchStack: no such stack/,
    },
    { comment: 'no target', args: () => aws(), message: /give --stack NAME or --queue-url URL/ },
    {
      comment: 'a stack and explicit names',
      args: () => ['--stack', 'S', '--scaler-name', 'x'],
      message: /give --stack or the explicit names/,
    },
    {
      comment: 'a watch interval too short',
      args: () => ['--stack', 'S', '--watch', '1'],
      message: /--watch '1': must be a whole number in \[5; 3600\]/,
    },
  ])('exits 2 with one line for $comment', async ({ args, message }) => {
    const { code, stdout, stderr } = await cli('status', [...args(), '--region', TEST_REGION]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^status: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });
});

describe('status parsing', () => {
  it('keeps only the controller tick lines of a log, in time order, with or without a Lambda text prefix', () => {
    const line = (reason: string, message = 'decision') =>
      JSON.stringify({ level: 'INFO', message, reason, applied: 3 });
    const events = [
      { timestamp: 3000, message: `2026-01-01T00:00:03Z\tabc-123\tINFO\t${line('hold:steady')}` },
      { timestamp: 1000, message: line('skip:repeat', 'tick skipped') },
      { timestamp: 2000, message: JSON.stringify({ _aws: {}, reason: 'not a tick' }) },
      { timestamp: 2500, message: 'START RequestId: abc Version: $LATEST' },
      { timestamp: 2600, message: '{"message":"decision", truncated' },
      { timestamp: 4000, message: line('error:throttled', 'tick failed: holding') },
    ];
    expect(lastDecisions(events, 10).map((d) => [d.time, d.reason])).toEqual([
      [1, 'skip:repeat'],
      [3, 'hold:steady'],
      [4, 'error:throttled'],
    ]);
    expect(lastDecisions(events, 1).map((d) => d.reason)).toEqual(['error:throttled']);
    expect(parseDecisionEvent({ timestamp: 0, message: line('hold:steady') })?.applied).toBe(3);
  });

  it('treats a PartialData or missing metric as unknown, and orders datapoints by time', () => {
    const series = parseStatusMetrics([
      {
        Id: 'applied',
        StatusCode: 'Complete',
        Timestamps: [new Date(120_000), new Date(60_000)],
        Values: [5, 4],
      },
      { Id: 'cap', StatusCode: 'PartialData', Timestamps: [new Date(60_000)], Values: [16] },
    ]);
    expect(series.applied).toEqual([
      { timestamp: 60, value: 4 },
      { timestamp: 120, value: 5 },
    ]);
    expect(series.cap).toEqual([]);
    expect(series.partial).toContain('cap');
    expect(series.partial).toContain('sqsAge');
    expect(series.partial).not.toContain('applied');
  });

  it('charts per minute, repeating the last value over an empty minute, nothing before the first', () => {
    const points = [
      { timestamp: 120, value: 4 },
      { timestamp: 240, value: 8 },
    ];
    expect(minuteGrid(points, 0, 300)).toEqual([4, 4, 8, 8]);
    expect(minuteGrid([], 0, 300)).toBeUndefined();
  });

  it.each([
    { argv: ['--watch'], expected: ['--watch=10'] },
    { argv: ['--watch', '15', '--json'], expected: ['--watch', '15', '--json'] },
    { argv: ['--watch', '--json'], expected: ['--watch=10', '--json'] },
  ])('reads --watch with an optional interval: $argv', ({ argv, expected }) => {
    expect(normalizeWatch(argv)).toEqual(expected);
  });
});
