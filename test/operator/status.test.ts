import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logEntryFor, logEntryForFast } from '../../functions/controller/report.ts';
import { CallLog } from '../../lib/aws/clients.ts';
import { decideFast } from '../../lib/control/fast-path.ts';
import {
  normalizeBareBudget,
  normalizeWatch,
  STACK_BUDGET,
  spelledAsOne,
} from '../../lib/operator/cli-args.ts';
import { lastDecisions, parseDecisionEvent } from '../../lib/operator/decision-log.ts';
import { minuteGrid } from '../../lib/operator/status-chart.ts';
import { parseStatusMetrics } from '../../lib/operator/status-metrics.ts';
import type { StatusReading } from '../../lib/operator/status-reader.ts';
import { summarize } from '../../lib/operator/status-summary.ts';
import { troubles } from '../../lib/operator/status-trouble.ts';
import { statusScreen } from '../../lib/operator/status-view.ts';
import { config } from '../control/fixtures.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';
import { cli, startCli } from './cli.ts';
import { type SeededScaler, type SeedValues, seedScaler } from './support/seeded-scaler.ts';

let server: MotoServer;
let silent: SilentServer;
let seeded: SeededScaler;
/** A consumer whose mapping may pull more than it may run: reserved 4 under a mapping maximum of 10. */
let overpulled: SeededScaler;

const VALUES: SeedValues = {
  reserved: 12,
  mappingMax: 10,
  cap: 16,
  floor: 2,
  targetAge: 60,
  visibleMessages: 23,
  ticks: [
    { applied: 4, desired: 4, age: 20, reason: 'hold:steady' },
    {
      applied: 8,
      desired: 8,
      age: 95,
      reason: 'grow:age-above-target',
      scaled: true,
      fastGrowth: { to: 12, visible: 700 },
    },
    { applied: 16, desired: 16, age: 140, reason: 'hold:at-cap', scaled: true, saturated: true },
  ],
  alarms: { saturated: 'ALARM', oscillation: 'OK', 'controller-unhealthy': 'INSUFFICIENT_DATA' },
};

beforeAll(async () => {
  server = await startMotoServer();
  silent = await startSilentServer();
  seeded = await seedScaler(server, VALUES);
  overpulled = await seedScaler(server, { ...VALUES, reserved: 4, mappingMax: 10, alarms: {} });
}, 60_000);
afterAll(async () => {
  await silent?.stop();
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
    // The fast path's growth between two ticks, in its place among them.
    expect(reading.decisions.map((d: { reason: string }) => d.reason)).toEqual([
      'hold:steady',
      'grow:age-above-target',
      'grow:fast-surge',
      'hold:at-cap',
    ]);
    expect(reading.decisions[2]).toMatchObject({
      source: 'fast path',
      applied: 8,
      appliedAfter: 12,
      visibleMessages: 700,
    });
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
      '3',
      ...aws(),
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/concurrency +reserved 12 · mapping maximum 10/);
    expect(stdout).toMatch(/cap \/ floor +16 \/ 2/);
    expect(stdout).toMatch(/head age +140 s vs target 60 s/);
    expect(stdout).toMatch(/depth +visible 23 · in flight 0 · delayed 0/);
    expect(stdout).toMatch(/saturated +YES/);
    expect(stdout).toMatch(/ALARM +\S+-saturated/);
    const decisions = stdout.split('\n').filter((l) => /^ {2}\d\d:\d\d:\d\d {2}[a-z]+:/.test(l));
    expect(decisions).toEqual([
      expect.stringMatching(/grow:age-above-target +4 → 8 +desired 8 +age 95 s$/),
      expect.stringMatching(/grow:fast-surge +8 → 12 +desired 12 +visible 700$/),
      expect.stringMatching(/hold:at-cap +12 → 16/),
    ]);
    expect(stdout).not.toMatch(/hold:steady/); // --decisions 3: only the newest three
    expect(stdout).toMatch(/applied concurrency per minute \(flat line: cap 16\)/);
  });

  it('takes trace’s spelling too: --queue and --function', async () => {
    const { code, stdout } = await cli('status', [
      '--queue',
      seeded.queueUrl,
      '--function',
      seeded.consumer,
      ...aws(),
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/concurrency +reserved 12 · mapping maximum /);
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

  it('shows why a part could not be read where its value would be, and exits 1', async () => {
    const { code, stdout } = await cli('status', [
      '--queue-url',
      seeded.queueUrl,
      '--function-name',
      'nofn',
      '--mapping-uuid',
      '00000000-0000-4000-8000-000000000000',
      ...aws(),
    ]);
    expect(code).toBe(1);
    expect(stdout).not.toMatch(/no --function-name|no --mapping-uuid/);
    expect(stdout).toMatch(/^trouble +NOT READ: reserved concurrency, the mapping/m);
    expect(stdout).toMatch(
      /concurrency +reserved not read · mapping maximum not read\n +reserved: ResourceNotFoundException: Function not found: .*nofn\n +mapping: ResourceNotFoundException/,
    );
    // The queue itself was read.
    expect(stdout).toMatch(/depth +visible 23/);
  });

  it('leads with overpull when the mapping may pull more than the consumer may run', async () => {
    const { code, stdout } = await cli('status', ['--stack', overpulled.stackName, ...aws()]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[2]).toMatch(
      /^trouble +OVERPULL: the mapping's MaximumConcurrency 10 is above the consumer's reserved concurrency 4: .*raise reserved concurrency to 10 or more/,
    );
    expect(stdout).toMatch(/concurrency +reserved 4 · mapping maximum 10 \(disabled\)/);
    const json = JSON.parse(
      (await cli('status', ['--stack', overpulled.stackName, ...aws(), '--json'])).stdout,
    );
    expect(json.trouble.map((t: { kind: string }) => t.kind)).toEqual(['overpull', 'saturated']);
    // The healthy scaler (reserved 12 over a maximum of 10) shows no overpull.
    const healthy = JSON.parse(
      (await cli('status', ['--stack', seeded.stackName, ...aws(), '--json'])).stdout,
    );
    expect(healthy.trouble.map((t: { kind: string }) => t.kind)).toEqual(['saturated', 'alarm']);
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
    {
      comment: 'an endpoint that accepts the connection and never answers',
      args: () => ['--queue-url', `${silent.endpoint}/123456789012/q`, '--endpoint', silent.endpoint],
      message:
        /queue .*: http:\/\/127.0.0.1:\d+ accepted the connection but did not answer within 4 s, 3 attempts/,
    },
    {
      comment: 'a silent endpoint behind --stack',
      args: () => ['--stack', 'Orders', '--endpoint', silent.endpoint],
      message: /DescribeStacks Orders: .* accepted the connection but did not answer/,
    },
    {
      comment: 'an --endpoint that is not a URL',
      args: () => ['--stack', 'S', '--endpoint', 'notaurl'],
      message: /^status: --endpoint 'notaurl': must be an http\(s\) URL/,
    },
    {
      comment: 'a --region the SDK would refuse',
      args: () => ['--stack', 'S', '--endpoint', server.endpoint, '--region', 'bad_region!'],
      message: /^status: --region 'bad_region!': must be a region name such as us-east-1/,
    },
    {
      comment: 'a --mapping-uuid that is not a UUID',
      args: () => [
        '--queue-url',
        seeded.queueUrl,
        '--function-name',
        'nofn',
        '--mapping-uuid',
        'not-a-uuid',
        ...aws(),
      ],
      message: /^status: --mapping-uuid 'not-a-uuid': must be an event source mapping UUID/,
    },
    {
      comment: 'a --function-name Lambda would refuse',
      args: () => ['--queue-url', seeded.queueUrl, '--function-name', 'my consumer', ...aws()],
      message: /^status: --function-name 'my consumer': must be a function name/,
    },
    {
      comment: 'a --queue-url that is not a queue URL',
      args: () => ['--queue-url', 'orders', ...aws()],
      message: /^status: --queue-url 'orders': must be a queue URL/,
    },
  ])('exits 2 with one line for $comment', async ({ args, message }) => {
    const given = args();
    const region = given.includes('--region') ? [] : ['--region', TEST_REGION];
    const { code, stdout, stderr } = await cli('status', [...given, ...region]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^status: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });
});

describe('status --watch, stopped with Ctrl-C', () => {
  /** Starts a watch, waits for its first reading, sends SIGINT: the exit code and how many readings were shown. */
  const watchThenStop = async (args: string[]) => {
    const running = startCli('status', [...args, ...aws(), '--watch', '5', '--json']);
    while (running.stdout().trim() === '' && running.child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    running.child.kill('SIGINT');
    const { code, stdout, signal } = await running.done;
    return { code, signal, readings: stdout.trim().split('\n').length };
  };

  it('exits 0 when its last refresh read every part', async () => {
    const { code, signal, readings } = await watchThenStop(['--stack', seeded.stackName]);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(readings).toBe(1);
  });

  it('exits 1 when its last refresh could not read a part, as a single reading does', async () => {
    const { code, signal } = await watchThenStop(['--queue-url', seeded.queueUrl, '--function-name', 'nofn']);
    expect({ code, signal }).toEqual({ code: 1, signal: null });
  });
});

describe('what status lists as trouble', () => {
  const reading = (over: Partial<StatusReading>): StatusReading => ({
    readAt: 0,
    target: { queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders' },
    queueName: 'orders',
    depth: { visible: 0, inFlight: 0, delayed: 0 },
    series: parseStatusMetrics([]),
    windowSeconds: 1800,
    problems: [],
    ...over,
  });
  const kinds = (r: StatusReading) => troubles(r, summarize(r)).map((t) => t.kind);
  const first = (r: StatusReading) => troubles(r, summarize(r))[0]?.message ?? '';

  it('a sparse flag counts only in the controller newest minute: an older 1 is a past state', () => {
    const series = parseStatusMetrics([
      {
        Id: 'applied',
        Timestamps: [new Date(60_000), new Date(180_000)],
        Values: [16, 12],
        StatusCode: 'Complete',
      },
      { Id: 'saturated', Timestamps: [new Date(60_000)], Values: [1], StatusCode: 'Complete' },
      { Id: 'atcap', Timestamps: [new Date(180_000)], Values: [1], StatusCode: 'Complete' },
    ]);
    const sum = summarize(reading({ series }));
    expect(sum.saturated).toBe(false);
    expect(sum.atCap).toBe(true);
    expect(kinds(reading({ series }))).not.toContain('saturated');
  });

  it.each([
    { comment: 'mapping maximum above reserved', reserved: 4, maximum: 10, state: 'Enabled', overpull: true },
    {
      comment: 'mapping maximum equal to reserved',
      reserved: 10,
      maximum: 10,
      state: 'Enabled',
      overpull: false,
    },
    {
      comment: 'mapping maximum below reserved',
      reserved: 12,
      maximum: 10,
      state: 'Enabled',
      overpull: false,
    },
    {
      comment: 'no mapping maximum under a reserved value',
      reserved: 8,
      maximum: null,
      state: 'Enabled',
      overpull: true,
    },
    {
      comment: 'reserved 0 (Throttle) with the mapping on',
      reserved: 0,
      maximum: 10,
      state: 'Enabled',
      overpull: true,
    },
    {
      comment: 'no reserved value (the account pool)',
      reserved: null,
      maximum: 10,
      state: 'Enabled',
      overpull: false,
    },
    { comment: 'the mapping not read', reserved: 4, maximum: undefined, state: undefined, overpull: false },
  ])('$comment: overpull $overpull', ({ reserved, maximum, state, overpull }) => {
    const r = reading({ reservedConcurrency: reserved, mappingMaximum: maximum, mappingState: state });
    expect(kinds(r).includes('overpull')).toBe(overpull);
  });

  it('says how to pause safely when reserved is 0, and that a disabled mapping overpulls only once enabled', () => {
    expect(first(reading({ reservedConcurrency: 0, mappingMaximum: 10, mappingState: 'Enabled' }))).toMatch(
      /reserved 0 throttles every invocation: to pause, disable the mapping as well/,
    );
    expect(first(reading({ reservedConcurrency: 4, mappingMaximum: 10, mappingState: 'Disabled' }))).toMatch(
      /once the mapping is enabled again, batches beyond it are throttled/,
    );
  });

  it('puts overpull before alarms and parts not read', () => {
    const r = reading({
      reservedConcurrency: 2,
      mappingMaximum: 5,
      alarms: [{ name: 'orders-dead-letters', state: 'ALARM' }],
      problems: [{ part: 'decisions', error: 'AccessDeniedException: no' }],
    });
    expect(kinds(r)).toEqual(['overpull', 'alarm', 'not-read']);
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

  it("keeps the fast path's growth and failure between the ticks, not its summary line", () => {
    // The lines one busy minute logs, as the controller's reporter builds them: a tick, a sample that grew on
    // seed-spike's 7,000 messages, a sample that failed, the loop's summary, the next tick.
    const ctx = { applied: 2, tickApplied: 2, reportedArrivals: 50, itemSeconds: 0.02, confirmed: false };
    const before = { at: 60, messages: 0 };
    const grown = decideFast(
      { at: 70, messages: 7_000 },
      { ...ctx, tickSample: before, previous: before },
      config(),
    );
    expect(grown.reason).toBe('grow:fast-surge');
    const grew = logEntryForFast(
      {
        kind: 'grew',
        sample: {
          depth: { visible: 7_000, inFlight: 2, delayed: 0 },
          decision: grown,
          applied: 2,
          changed: true,
          context: grown.context,
        },
        actuation: { kind: 'applied', value: grown.desired },
        writes: [],
        applied: 2,
        appliedAfter: grown.desired,
        config: config(),
      },
      new CallLog(),
    );
    const failed = logEntryForFast(
      {
        kind: 'failed',
        failure: 'throttled',
        error: 'ThrottlingException: Rate exceeded',
        hint: 'Lambda or CloudWatch throttled after the SDK retries: held this tick',
      },
      new CallLog(),
    );
    const skipped = logEntryFor({ kind: 'skipped', reason: 'skip:repeat', detail: {} }, new CallLog());
    const powertools = (entry: { message: string; fields: Record<string, unknown> }) =>
      JSON.stringify({ level: 'INFO', message: entry.message, service: 'queue-age-scaler', ...entry.fields });
    const events = [
      { timestamp: 120_000, message: powertools(skipped) },
      { timestamp: 70_000, message: powertools(grew) },
      {
        timestamp: 80_000,
        message: powertools({
          message: 'fast path done',
          fields: { samples: 2, growths: 1, maxVisible: 7_000, appliedAfter: 16, stoppedBy: 'error' },
        }),
      },
      {
        timestamp: 60_000,
        message: JSON.stringify({ message: 'decision', reason: 'hold:steady', applied: 2 }),
      },
      { timestamp: 80_000, message: powertools(failed) },
    ];
    expect(lastDecisions(events, 10).map((d) => [d.time, d.source, d.reason])).toEqual([
      [60, 'tick', 'hold:steady'],
      [70, 'fast path', 'grow:fast-surge'],
      [80, 'fast path', 'error:throttled'],
      [120, 'tick', 'skip:repeat'],
    ]);
    expect(lastDecisions(events, 10)[1]).toMatchObject({
      applied: 2,
      desired: grown.desired,
      appliedAfter: grown.desired,
      visibleMessages: 7_000,
    });
    expect(lastDecisions(events, 10)[2]?.error).toBe('ThrottlingException: Rate exceeded');
    // On screen: the depth a growth grew on, and which part of the controller failed.
    const screen = statusScreen({
      readAt: 180,
      target: { queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders', logGroup: '/orders' },
      queueName: 'orders',
      depth: { visible: 0, inFlight: 0, delayed: 0 },
      series: parseStatusMetrics([]),
      windowSeconds: 1800,
      decisions: lastDecisions(events, 10),
      problems: [],
    });
    expect(screen).toMatch(/00:01:10 {2}grow:fast-surge +2 → 16 {2}desired 16 {2}visible 7000\n/);
    expect(screen).toMatch(/00:01:20 {2}error:throttled +fast path: ThrottlingException: Rate exceeded\n/);
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
    // Not a number, still its value: refused as --watch's, with its range (bin/status.ts)
    { argv: ['--watch', 'abc'], expected: ['--watch', 'abc'] },
    { argv: ['--watch', '-5'], expected: ['--watch', '-5'] },
  ])('reads --watch with an optional interval: $argv', ({ argv, expected }) => {
    expect(normalizeWatch(argv)).toEqual(expected);
  });
});

describe('one spelling for one thing across status, trace and load', () => {
  it.each([
    {
      argv: ['--queue', 'https://q', '--function', 'f'],
      expected: ['--queue-url', 'https://q', '--function-name', 'f'],
    },
    { argv: ['--queue=https://q?a=b'], expected: ['--queue-url=https://q?a=b'] },
    { argv: ['--queue-url', 'https://q'], expected: ['--queue-url', 'https://q'] },
  ])(
    'reads trace’s --queue and --function as --queue-url and --function-name: $argv',
    ({ argv, expected }) => {
      expect(spelledAsOne(argv)).toEqual(expected);
    },
  );

  it('refuses both spellings of one flag, naming them', () => {
    expect(() => spelledAsOne(['--queue', 'a', '--queue-url', 'b'])).toThrow(
      'give --queue or --queue-url, not both',
    );
  });

  it('reads a bare --budget as the stack’s budget, and a named one as given', () => {
    expect(normalizeBareBudget(['--stack', 'S', '--budget'])).toEqual([
      '--stack',
      'S',
      `--budget=${STACK_BUDGET}`,
    ]);
    expect(normalizeBareBudget(['--budget', '--json'])).toEqual([`--budget=${STACK_BUDGET}`, '--json']);
    expect(normalizeBareBudget(['--budget', 'orders-db'])).toEqual(['--budget', 'orders-db']);
  });
});
