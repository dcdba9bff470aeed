import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../controller/support/world.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';
import { cli, startCli } from './cli.ts';
import { seedScaler } from './support/seeded-scaler.ts';

let server: MotoServer;
let silent: SilentServer;
let sqs: SQSClient;
const scratch = mkdtempSync(join(tmpdir(), 'load-cli-'));

beforeAll(async () => {
  server = await startMotoServer();
  silent = await startSilentServer();
  sqs = new SQSClient(server.clientConfig);
}, 60_000);
afterAll(async () => {
  sqs?.destroy();
  await silent?.stop();
  await server?.stop();
});

function phaseFile(name: string, rows: string): string {
  const path = join(scratch, `${name}.csv`);
  writeFileSync(path, `duration_s,rate_per_s,item_ms\n${rows}`);
  return path;
}

async function newQueue(): Promise<string> {
  return (await sqs.send(new CreateQueueCommand({ QueueName: uniqueName('load') }))).QueueUrl ?? '';
}

async function newFifoQueue(): Promise<string> {
  const out = await sqs.send(
    new CreateQueueCommand({ QueueName: `${uniqueName('load')}.fifo`, Attributes: { FifoQueue: 'true' } }),
  );
  return out.QueueUrl ?? '';
}

interface Body {
  run: string;
  seq: number;
  phase: number;
  intendedAt: string;
  itemMs: number;
}

/** Receives (and deletes) everything in the queue, with each message's group on a FIFO queue. */
async function drain(queueUrl: string): Promise<(Body & { group?: string })[]> {
  const bodies: (Body & { group?: string })[] = [];
  for (;;) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) return bodies;
    for (const m of messages)
      bodies.push({ ...(JSON.parse(m.Body ?? '{}') as Body), group: m.Attributes?.MessageGroupId });
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
}

const target = (queueUrl: string) => [
  '--queue-url',
  queueUrl,
  '--endpoint',
  server.endpoint,
  '--region',
  TEST_REGION,
];

describe('npm run load against the emulator', () => {
  it('sends exactly the planned messages, each once, stamped with sequence, phase and intended time', async () => {
    const queueUrl = await newQueue();
    const trace = phaseFile('short', '1,30,20\n0.5,0,20\n1,60,40\n');
    const { code, stdout, stderr } = await cli('load', ['--trace', trace, ...target(queueUrl), '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ planned: 90, sent: 90, failed: 0, unsent: 0, interrupted: false });
    expect(report.phases.map((p: { planned: number }) => p.planned)).toEqual([30, 0, 60]);
    const bodies = await drain(queueUrl);
    expect(bodies).toHaveLength(90);
    expect(bodies.map((b) => b.seq).sort((a, b) => a - b)).toEqual([...Array(90).keys()]);
    expect(bodies.filter((b) => b.phase === 3).every((b) => b.itemMs === 40)).toBe(true);
    // Intended times follow the plan: phase 3 starts 1.5 s after the first message.
    const t = (seq: number) => Date.parse(bodies.find((b) => b.seq === seq)?.intendedAt ?? '');
    expect(t(30) - t(0)).toBe(1500);
    expect(t(31) - t(30)).toBe(17); // 1 s / 60 messages, rounded to the millisecond
  });

  it('honours --rate-scale and --time-scale in what it sends and reports', async () => {
    const queueUrl = await newQueue();
    const trace = phaseFile('scaled', '20,10,20\n10,40,20\n');
    const { code, stdout } = await cli('load', [
      '--trace',
      trace,
      ...target(queueUrl),
      '--rate-scale',
      '0.5',
      '--time-scale',
      '0.1',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    // 2 s at 5/s, then 1 s at 20/s.
    expect(report.phases.map((p: { planned: number }) => p.planned)).toEqual([10, 20]);
    expect(report.phases.map((p: { targetRatePerSecond: number }) => p.targetRatePerSecond)).toEqual([5, 20]);
    // Achieved rates never exceed the target; at these small rates the emulator keeps up within a wide margin.
    for (const p of report.phases) {
      expect(p.achievedRatePerSecond).toBeLessThanOrEqual(p.targetRatePerSecond + 1e-9);
      expect(p.achievedRatePerSecond).toBeGreaterThan(p.targetRatePerSecond * 0.5);
    }
    expect(await drain(queueUrl)).toHaveLength(30);
  });

  it('prints the plan and sends nothing with --dry-run; reads the queue from --stack', async () => {
    const seeded = await seedScaler(server, {
      reserved: 2,
      mappingMax: 2,
      cap: 4,
      floor: 2,
      targetAge: 60,
      visibleMessages: 0,
      ticks: [],
      alarms: {},
    });
    const base = ['--scenario', 'seed-spike', '--rate-scale', '0.01', '--time-scale', '0.01'];
    const aws = ['--endpoint', server.endpoint, '--region', TEST_REGION];
    const dry = await cli('load', [...base, '--stack', seeded.stackName, ...aws, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`→ ${seeded.queueUrl}`);
    expect(dry.stdout).toMatch(/\| phase \| starts \| lasts \| rate\/s \| messages \| item ms \|/);
    expect(await drain(seeded.queueUrl)).toHaveLength(0);
    const json = JSON.parse((await cli('load', [...base, '--dry-run', '--json'])).stdout);
    expect(json.plan.totalMessages).toBe(
      json.plan.phases.reduce((s: number, p: { messages: number }) => s + p.messages, 0),
    );

    const sent = await cli('load', [
      '--trace',
      phaseFile('stack', '1,20,20\n'),
      '--stack',
      seeded.stackName,
      ...aws,
    ]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/sent 20 of 20, failed 0, unsent 0/);
    expect(await drain(seeded.queueUrl)).toHaveLength(20);
  });

  it('sends to a FIFO queue: every message once, in the group --groups gives it, in order within its group', async () => {
    const queueUrl = await newFifoQueue();
    const trace = phaseFile('fifo', '1,30,20\n');
    const { code, stdout, stderr } = await cli('load', [
      '--trace',
      trace,
      ...target(queueUrl),
      '--groups',
      '3',
      '--json',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ planned: 30, sent: 30, failed: 0, groups: 3 });
    const bodies = await drain(queueUrl);
    expect(bodies.map((b) => b.seq).sort((a, b) => a - b)).toEqual([...Array(30).keys()]);
    for (const b of bodies) expect(b.group).toBe(`g${b.seq % 3}`);
    for (const group of ['g0', 'g1', 'g2']) {
      const seqs = bodies.filter((b) => b.group === group).map((b) => b.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });

  it('defaults a FIFO queue to 100 groups and shows them in the plan', async () => {
    const { code, stdout } = await cli('load', [
      '--trace',
      phaseFile('fifo-plan', '1,5,20\n'),
      '--queue-url',
      `${server.endpoint}/123456789012/orders.fifo`,
      '--dry-run',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/orders\.fifo \(FIFO: 100 message groups\)/);
  });

  it('a SIGTERM mid-run (`timeout`, a CI limit) still prints what was sent, and exits 143', async () => {
    const queueUrl = await newQueue();
    const running = startCli('load', [
      '--trace',
      phaseFile('long', '60,5,20\n'),
      ...target(queueUrl),
      '--json',
    ]);
    const waiting = async () =>
      Number(
        (
          await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: queueUrl,
              AttributeNames: ['ApproximateNumberOfMessages'],
            }),
          )
        ).Attributes?.ApproximateNumberOfMessages,
      );
    // Signal once the first messages have arrived: the run is under way, with most of its minute to go.
    while ((await waiting()) === 0) await new Promise((r) => setTimeout(r, 200));
    running.child.kill('SIGTERM');
    const { code, stdout } = await running.done;
    expect(code).toBe(143);
    const report = JSON.parse(stdout);
    expect(report.interrupted).toBe(true);
    expect(report.sent).toBeGreaterThan(0);
    expect(report.sent + report.failed + report.unsent).toBe(report.planned);
    expect(report.unsent).toBeGreaterThan(0);
    expect(await waiting()).toBe(report.sent);
  });

  it.each([
    {
      comment: 'a missing load file',
      args: ['--trace', '/nonexistent/load.csv'],
      message: /cannot read load file \/nonexistent\/load.csv: ENOENT/,
    },
    {
      comment: 'a malformed load file',
      file: 'duration,rate\n10,5\n',
      message: /header is 'duration,rate', expected 'duration_s,rate_per_s,item_ms'/,
    },
    {
      comment: 'a negative rate in the file',
      file: 'duration_s,rate_per_s,item_ms\n10,-5,20\n',
      message: /line 2: rate_per_s = '-5': must be a number in \[0; 1000000\]/,
    },
    {
      comment: 'a negative --rate-scale',
      args: ['--scenario', 'steady', '--rate-scale=-2'],
      message: /--rate-scale '-2': must be a number > 0/,
    },
    {
      comment: 'a negative --time-scale as two words (parseArgs reads -2 as an option)',
      args: ['--scenario', 'steady', '--time-scale', '-2'],
      message: /Option '--time-scale' argument is ambiguous/,
    },
    {
      comment: 'an unknown scenario',
      args: ['--scenario', 'spike'],
      message: /unknown scenario 'spike' \(known: bursts, /,
    },
    { comment: 'no load at all', args: [], message: /give the load: --scenario NAME or --trace FILE.csv/ },
    { comment: 'an unknown option', args: ['--fast'], message: /Unknown option '--fast'/ },
  ])('exits 2 with one line for $comment', async ({ args, file, message }) => {
    const trace = file === undefined ? [] : ['--trace', phaseFile(uniqueName('bad'), '').replace(/$/, '')];
    if (file !== undefined) writeFileSync(trace[1] ?? '', file);
    const { code, stdout, stderr } = await cli('load', [
      ...(args ?? []),
      ...trace,
      '--queue-url',
      `${server.endpoint}/123456789012/never-used`,
      '--endpoint',
      server.endpoint,
      '--region',
      TEST_REGION,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^load: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });

  it.each([
    {
      comment: 'a queue that does not exist',
      target: () => [
        '--queue-url',
        `${server.endpoint}/123456789012/no-such-queue`,
        '--endpoint',
        server.endpoint,
      ],
      message: /queue .*no-such-queue: not found \(QueueDoesNotExist/,
    },
    {
      comment: 'an unreachable endpoint',
      target: () => ['--queue-url', 'http://127.0.0.1:9/123456789012/q', '--endpoint', 'http://127.0.0.1:9'],
      message: /cannot reach http:\/\/127.0.0.1:9 \(ECONNREFUSED\)/,
    },
    {
      comment: 'a stack that does not exist',
      target: () => ['--stack', 'NoSuchStack', '--endpoint', server.endpoint],
      message: /--stack NoSuchStack: no such stack in this region/,
    },
    {
      comment: 'an endpoint that accepts the connection and never answers',
      target: () => ['--queue-url', `${silent.endpoint}/123456789012/q`, '--endpoint', silent.endpoint],
      message:
        /queue .*: http:\/\/127.0.0.1:\d+ accepted the connection but did not answer within 4 s, 3 attempts/,
    },
    {
      comment: '--groups for a standard queue',
      target: () => ['--queue-url', `${server.endpoint}/123456789012/orders`, '--groups', '4'],
      message: /--groups 4: .*orders is a standard queue \(its name does not end in .fifo\)/,
    },
  ])('exits 2 with one line for $comment', async ({ target: t, message }) => {
    const { code, stderr } = await cli('load', [
      '--trace',
      phaseFile('one', '1,5,20\n'),
      ...t(),
      '--region',
      TEST_REGION,
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^load: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });

  it.each([
    {
      comment: 'an --endpoint that is not a URL',
      args: ['--endpoint', 'notaurl', '--region', TEST_REGION],
      message: /^load: --endpoint 'notaurl': must be an http\(s\) URL/,
    },
    {
      comment: 'an --endpoint that is not http(s)',
      args: ['--endpoint', 'ftp://127.0.0.1:9', '--region', TEST_REGION],
      message: /^load: --endpoint 'ftp:\/\/127.0.0.1:9': must be an http\(s\) URL/,
    },
    {
      comment: 'a --region the SDK would refuse',
      args: ['--endpoint', 'http://127.0.0.1:9', '--region', 'us east 1'],
      message: /^load: --region 'us east 1': must be a region name such as us-east-1/,
    },
    {
      comment: 'a --queue-url that is not a queue URL',
      args: ['--queue-url', 'http://bad host/q', '--endpoint', 'http://127.0.0.1:9', '--region', TEST_REGION],
      message: /^load: --queue-url 'http:\/\/bad host\/q': must be a queue URL/,
    },
    {
      comment: 'a --groups that is not a whole number',
      args: ['--groups', '2.5', '--endpoint', 'http://127.0.0.1:9', '--region', TEST_REGION],
      message: /^load: --groups '2.5': must be a whole number in \[1; 100000\]/,
    },
  ])('names the option in one line, exit 2, for $comment', async ({ args, message }) => {
    const { code, stdout, stderr } = await cli('load', [
      '--trace',
      phaseFile('bad-option', '1,5,20\n'),
      ...(args.includes('--queue-url') ? [] : ['--queue-url', 'http://127.0.0.1:9/123456789012/q']),
      ...args,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^load: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });
});
