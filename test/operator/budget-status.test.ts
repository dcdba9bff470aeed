import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BudgetReading, parseBudgetMetrics } from '../../lib/operator/budget-status.ts';
import {
  budgetScreen,
  budgetTroubles,
  summarizeBudget,
  summarizeMember,
} from '../../lib/operator/budget-view.ts';
import {
  BUDGET_METRICS as B,
  BUDGET_DIMENSION,
  CONTROLLER_METRICS as M,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
} from '../../lib/telemetry.ts';
import { uniqueName } from '../controller/support/world.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';
import { cli, startCli } from './cli.ts';

/** A member's last tick as the budget's controller publishes it; `own: false` leaves out its own metrics. */
interface MemberSeed {
  readonly grant: number;
  readonly desired?: number;
  readonly applied?: number;
  readonly age?: number;
  readonly target?: number;
  readonly cap?: number;
  readonly floor?: number;
}

interface BudgetSeed {
  readonly limit: number;
  readonly exhausted: boolean;
  readonly starved: number;
  /** Member label → its newest tick. */
  readonly members: Readonly<Record<string, MemberSeed>>;
}

interface SeededBudget {
  readonly budgetName: string;
  /** Member label → its scaler name. */
  readonly names: Readonly<Record<string, string>>;
}

let server: MotoServer;
let cloudwatch: CloudWatchClient;

/**
 * Two minutes of a budget's metrics, ending with the newest complete minute (so its tick is 1–2 min old, shown as
 * `95 s ago` or `2 min ago`): the older one with other values, so a test sees that the newest is shown. Every name
 * is new (moto matches datapoints by dimensions alone).
 */
async function seedBudget(seed: BudgetSeed): Promise<SeededBudget> {
  const budgetName = uniqueName('budget');
  const names = Object.fromEntries(Object.keys(seed.members).map((label) => [label, uniqueName(label)]));
  const newest = Math.floor(Date.now() / 1000 / 60) * 60 - 60;
  const data: MetricDatum[] = [];
  const budget = { Name: BUDGET_DIMENSION, Value: budgetName };
  for (const [minute, older] of [
    [newest - 60, true],
    [newest, false],
  ] as const) {
    const Timestamp = new Date((minute + 5) * 1000);
    const put = (
      MetricName: string,
      Value: number | undefined,
      Dimensions: { Name: string; Value: string }[],
    ) => {
      if (Value !== undefined) data.push({ MetricName, Dimensions, Timestamp, Value });
    };
    const granted = Object.values(seed.members).reduce((sum, m) => sum + m.grant, 0);
    put(B.limit, seed.limit, [budget]);
    put(B.granted, older ? granted - 1 : granted, [budget]);
    put(B.exhausted, older ? 0 : seed.exhausted ? 1 : 0, [budget]);
    put(B.starvedMembers, older ? 0 : seed.starved, [budget]);
    for (const [label, m] of Object.entries(seed.members)) {
      const scaler = { Name: SCALER_DIMENSION, Value: names[label] ?? '' };
      put(B.memberGrant, older ? m.grant + 1 : m.grant, [budget, scaler]);
      put(M.desiredConcurrency, m.desired, [scaler]);
      put(M.appliedConcurrency, m.applied === undefined ? undefined : older ? m.applied + 1 : m.applied, [
        scaler,
      ]);
      put(M.headAgeSeconds, m.age === undefined ? undefined : older ? m.age / 2 : m.age, [scaler]);
      put(M.targetAgeSeconds, m.target, [scaler]);
      put(M.cap, m.cap, [scaler]);
      put(M.floor, m.floor, [scaler]);
    }
  }
  for (let i = 0; i < data.length; i += 500) {
    await cloudwatch.send(
      new PutMetricDataCommand({ Namespace: METRIC_NAMESPACE, MetricData: data.slice(i, i + 500) }),
    );
  }
  return { budgetName, names };
}

/** Three members sharing 9: one within its target, one starved behind it, one with nothing to do. Shown starved
 * first, then by name. */
const SHARED: BudgetSeed = {
  limit: 9,
  exhausted: true,
  starved: 1,
  members: {
    steady: { grant: 6, desired: 6, applied: 6, age: 30, target: 60, cap: 10, floor: 1 },
    starving: { grant: 2, desired: 8, applied: 2, age: 300, target: 60, cap: 10, floor: 1 },
    // Its law asks 0; the controller counts its floor.
    quiet: { grant: 1, desired: 0, applied: 1, age: 0, target: 60, cap: 10, floor: 1 },
  },
};

let shared: SeededBudget;

beforeAll(async () => {
  server = await startMotoServer();
  cloudwatch = new CloudWatchClient({ ...server.clientConfig, disableRequestCompression: true });
  shared = await seedBudget(SHARED);
}, 60_000);
afterAll(async () => {
  cloudwatch?.destroy();
  await server?.stop();
});

const aws = () => ['--endpoint', server.endpoint, '--region', TEST_REGION];
const name = (label: string) => shared.names[label] ?? '';

describe('status --budget against the emulator', () => {
  it('shows the budget, every member with its grant, desire, age and target, and the starved one first', async () => {
    const { code, stdout, stderr } = await cli('status', ['--budget', shared.budgetName, ...aws()]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^budget ${shared.budgetName} · 3 members · `));
    expect(lines[2]).toMatch(
      new RegExp(
        `^trouble +STARVED: ${name('starving')} granted 2 of the 8 its law asks, head age 300 s vs target 60 s \\(5\\.0×\\): shed or slow its producers, or raise the downstream's capacity`,
      ),
    );
    // The controller says the same: no separate EXHAUSTED line.
    expect(stdout).not.toMatch(/EXHAUSTED|NOT READ/);
    expect(stdout).toMatch(
      /^budget +limit 9 · granted 9 · fully granted {3}\(the controller's last tick, \d+ (s|min) ago\)$/m,
    );
    expect(stdout).toMatch(
      /^exhausted +YES: a member starved with nothing left it can take, the controller counted 1 starved/m,
    );
    const header = lines.findIndex((l) =>
      /^ {2}member +grant +desired +applied +head age +target +age ÷ target +state/.test(l),
    );
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 1, header + 4).map((l) => l.trim().split(/ {2,}/));
    expect(rows).toEqual([
      [
        name('starving'),
        '2',
        '8',
        '2',
        '300 s',
        '60 s',
        '5.0×',
        'STARVED',
        expect.stringMatching(/^\d+ (s|min) ago$/),
      ],
      // Desired 0 counts as its floor 1, as the controller's demand.
      [
        name('quiet'),
        '1',
        '1',
        '1',
        '0 s',
        '60 s',
        '0.0×',
        'idle',
        expect.stringMatching(/^\d+ (s|min) ago$/),
      ],
      [
        name('steady'),
        '6',
        '6',
        '6',
        '30 s',
        '60 s',
        '0.5×',
        'ok',
        expect.stringMatching(/^\d+ (s|min) ago$/),
      ],
    ]);
  });

  it('gives one JSON object with --json', async () => {
    const { code, stdout } = await cli('status', ['--budget', shared.budgetName, ...aws(), '--json']);
    expect(code).toBe(0);
    const { summary, trouble, reading } = JSON.parse(stdout);
    expect(summary).toMatchObject({
      budgetName: shared.budgetName,
      limit: { value: 9 },
      granted: { value: 9 },
      exhausted: true,
      starvedMembers: 1,
      starved: [name('starving')],
    });
    expect(summary.members.map((m: { name: string; state: string }) => [m.name, m.state])).toEqual([
      [name('starving'), 'starved'],
      [name('quiet'), 'idle'],
      [name('steady'), 'ok'],
    ]);
    expect(summary.members[0]).toMatchObject({
      grant: { value: 2 },
      desired: 8,
      applied: 2,
      headAgeSeconds: 300,
      targetAgeSeconds: 60,
      ageOverTarget: 5,
      starved: true,
      missing: [],
    });
    expect(trouble).toEqual([
      { kind: 'starved', member: name('starving'), message: expect.stringMatching(/^STARVED/) },
    ]);
    expect(reading.problems).toEqual([]);
    expect(reading.notShown).toEqual([]);
    // Both minutes were read; the newest is what the summary shows.
    expect(reading.members.find((m: { name: string }) => m.name === name('starving')).series.grant).toEqual([
      { timestamp: expect.any(Number), value: 3 },
      { timestamp: expect.any(Number), value: 2 },
    ]);
  });

  it("shows where a member's own metrics are missing, and why, in place", async () => {
    const budget = await seedBudget({
      limit: 4,
      exhausted: false,
      starved: 0,
      members: { listed: { grant: 2 }, running: { grant: 2, desired: 2, applied: 2, age: 10, target: 60 } },
    });
    const { code, stdout } = await cli('status', ['--budget', budget.budgetName, ...aws()]);
    // Nothing failed to be read: there is no such datapoint.
    expect(code).toBe(0);
    expect(stdout).toMatch(/^budget +limit 4 · granted 4 · fully granted/m);
    expect(stdout).toMatch(/^exhausted +no, the controller counted 0 starved$/m);
    const listed = budget.names.listed ?? '';
    expect(stdout).toMatch(
      new RegExp(
        `^ {2}${listed} +2 +unknown +unknown +unknown +unknown +unknown +unknown +\\d+ (s|min) ago\\n {4,}DesiredConcurrency, AppliedConcurrency, HeadAgeSeconds, TargetAgeSeconds: no datapoint in the window$`,
        'm',
      ),
    );
    expect(stdout).toMatch(new RegExp(`^ {2}${budget.names.running} +2 +2 +2 +10 s +60 s +0\\.2× +ok`, 'm'));
    expect(stdout).not.toMatch(/^trouble/m);
  });

  it('reads at most 20 members, says which it left out, and exits 1', async () => {
    const members = Object.fromEntries(
      Array.from({ length: 22 }, (_, i) => [`m${String(i).padStart(2, '0')}`, { grant: 1 }]),
    );
    const budget = await seedBudget({ limit: 22, exhausted: false, starved: 0, members });
    const { code, stdout } = await cli('status', ['--budget', budget.budgetName, ...aws(), '--json']);
    expect(code).toBe(1);
    const { reading, trouble } = JSON.parse(stdout);
    expect(reading.members).toHaveLength(20);
    expect(reading.notShown).toEqual([budget.names.m20, budget.names.m21]);
    expect(trouble.map((t: { kind: string }) => t.kind)).toEqual(['not-read']);
    const screen = await cli('status', ['--budget', budget.budgetName, ...aws()]);
    expect(screen.code).toBe(1);
    expect(screen.stdout).toMatch(/^trouble +NOT READ: the members beyond the first 20/m);
    expect(screen.stdout).toMatch(
      new RegExp(
        `^not shown +2 more scalers published a grant under this budget than the 20 a budget holds .*:\\n +${budget.names.m20}, ${budget.names.m21}$`,
        'm',
      ),
    );
  });

  it('refreshes with --watch and exits 0 on Ctrl-C when every part was read', async () => {
    const running = startCli('status', ['--budget', shared.budgetName, ...aws(), '--watch', '5', '--json']);
    while (running.stdout().trim() === '' && running.child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    running.child.kill('SIGINT');
    const { code, signal, stdout } = await running.done;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // One line per refresh.
    expect(JSON.parse(stdout.trim().split('\n')[0] ?? '').summary.starved).toEqual([name('starving')]);
  });

  it.each([
    {
      comment: 'a budget no scaler publishes a grant under',
      args: () => ['--budget', `no-such-budget-${process.pid}`, ...aws()],
      message: new RegExp(
        `^status: --budget no-such-budget-${process.pid}: no scaler published a BudgetGrant under BudgetName=no-such-budget-${process.pid} \\(namespace QueueAgeScaler\\) in the last 3 hours: check the name`,
      ),
    },
    {
      comment: 'a --budget value that is not a name',
      args: () => ['--budget', 'orders db!', ...aws()],
      message: /^status: --budget 'orders db!': must be a budget name \(1–64 of letters, digits, - and _\)$/m,
    },
    {
      comment: 'a --budget name too long',
      args: () => ['--budget', 'b'.repeat(65), ...aws()],
      message: /^status: --budget 'b{65}': must be a budget name/,
    },
    {
      comment: 'an empty --budget',
      args: () => ['--budget=', ...aws()],
      message: /^status: --budget '': must be a budget name/,
    },
    {
      comment: '--budget with a scaler',
      args: () => [
        '--budget',
        'orders-db',
        '--queue-url',
        'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      ],
      message: /^status: give --budget or one scaler's target \(--queue-url\), not both$/m,
    },
    {
      comment: '--budget with --decisions',
      args: () => ['--budget', 'orders-db', '--decisions', '3'],
      message: /--decisions lists one scaler's decisions: not with --budget/,
    },
    {
      comment: 'an unreachable endpoint',
      args: () => ['--budget', 'orders-db', '--endpoint', 'http://127.0.0.1:9'],
      message:
        /^status: --budget orders-db: ListMetrics: cannot reach http:\/\/127.0.0.1:9 \(ECONNREFUSED\)$/m,
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

  it("--stack S --budget reads the stack's BudgetName output and shows that budget", async () => {
    // GIVEN a stack whose output names the seeded budget (a DownstreamBudget adds BudgetName)
    const cloudformation = new CloudFormationClient(server.clientConfig);
    const stackName = uniqueName('shared-db');
    await cloudformation.send(
      new CreateStackCommand({
        StackName: stackName,
        TemplateBody: JSON.stringify({
          Resources: { Marker: { Type: 'AWS::SQS::Queue' } },
          Outputs: { BudgetName: { Value: shared.budgetName } },
        }),
      }),
    );
    cloudformation.destroy();
    // WHEN
    const { code, stdout, stderr } = await cli('status', ['--stack', stackName, '--budget', ...aws()]);
    // THEN the budget's screen, as --budget NAME shows it
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(new RegExp(`^budget ${shared.budgetName} · 3 members · `));
  });

  it.each([
    {
      comment: 'a bare --budget without --stack',
      args: ['--budget'],
      message: /--budget without a name reads the stack's budget: give --stack NAME too/,
    },
    {
      comment: '--stack with a named --budget',
      args: ['--stack', 'S', '--budget', 'orders-db'],
      message: /give --budget orders-db or --stack S --budget \(the stack's\), not both/,
    },
  ])('refuses $comment in one line, exit 2', async ({ args, message }) => {
    const { code, stdout, stderr } = await cli('status', [...args, ...aws()]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^status: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });

  it('names --budget in --help', async () => {
    const { code, stdout } = await cli('status', ['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}--budget NAME +a shared budget's members/m);
  });
});

describe('the budget screen', () => {
  const reading = (over: Partial<BudgetReading>): BudgetReading => ({
    readAt: 600,
    budgetName: 'orders-db',
    windowSeconds: 1800,
    ...parseBudgetMetrics([], ['orders', 'payments']),
    notShown: [],
    problems: [],
    ...over,
  });

  it('shows the members by name, and why their metrics are not shown, when the read failed', () => {
    const r = reading({
      problems: [{ part: 'metrics', error: 'AccessDenied: not allowed to GetMetricData' }],
    });
    const screen = budgetScreen(r);
    expect(screen).toMatch(/^trouble +NOT READ: the metrics \(the reason is shown in place below\)$/m);
    expect(screen).toMatch(
      /^budget +unknown: metrics not read \(AccessDenied: not allowed to GetMetricData\)$/m,
    );
    expect(screen).toMatch(/^members +orders, payments \(ListMetrics\)$/m);
    expect(summarizeBudget(r).members.every((m) => m.state === 'unknown' && m.missing.length === 0)).toBe(
      true,
    );
  });

  it('says a series is incomplete rather than showing it as zero', () => {
    const r = reading(
      parseBudgetMetrics(
        [
          { Id: 'b_limit', StatusCode: 'PartialData', Timestamps: [new Date(540_000)], Values: [9] },
          { Id: 'm0_grant', StatusCode: 'Complete', Timestamps: [new Date(540_000)], Values: [3] },
          { Id: 'm0_headage', StatusCode: 'InternalError' },
        ],
        ['orders'],
      ),
    );
    const screen = budgetScreen(r);
    expect(screen).toMatch(
      /^budget +limit unknown: incomplete \(PartialData\) · granted unknown: missing from the answer$/m,
    );
    expect(screen).toMatch(/^ {4,}HeadAgeSeconds: incomplete \(InternalError\)$/m);
    expect(screen).toMatch(
      /^ {4,}DesiredConcurrency, AppliedConcurrency, TargetAgeSeconds: missing from the answer$/m,
    );
    expect(screen).toMatch(/^exhausted +unknown: missing from the answer$/m);
  });

  it("leads with the controller's verdict when the members' metrics name no one starved", () => {
    const r = reading(
      parseBudgetMetrics(
        [
          { Id: 'b_limit', StatusCode: 'Complete', Timestamps: [new Date(540_000)], Values: [9] },
          { Id: 'b_exhausted', StatusCode: 'Complete', Timestamps: [new Date(540_000)], Values: [1] },
          { Id: 'b_starvedmembers', StatusCode: 'Complete', Timestamps: [new Date(540_000)], Values: [2] },
        ],
        ['orders'],
      ),
    );
    const t = budgetTroubles(r, summarizeBudget(r));
    expect(t.map((x) => x.kind)).toEqual(['exhausted']);
    expect(t[0]?.message).toMatch(
      /^EXHAUSTED: the budget 9 is fully granted \(or what is left is less than a starved member's poller\) and the controller's last tick counted 2/,
    );
  });

  it('exhausted and starved are sparse: an older 1 is a past state, none with a newer tick is 0', () => {
    const r = reading(
      parseBudgetMetrics(
        [
          { Id: 'b_limit', StatusCode: 'Complete', Timestamps: [new Date(600_000)], Values: [9] },
          { Id: 'b_granted', StatusCode: 'Complete', Timestamps: [new Date(600_000)], Values: [9] },
          { Id: 'b_exhausted', StatusCode: 'Complete', Timestamps: [new Date(540_000)], Values: [1] },
          { Id: 'b_starvedmembers', StatusCode: 'Complete', Timestamps: [], Values: [] },
        ],
        ['orders'],
      ),
    );
    const s = summarizeBudget(r);
    expect(s.exhausted).toBe(false);
    expect(s.starvedMembers).toBe(0);
    expect(budgetTroubles(r, s).map((x) => x.kind)).not.toContain('exhausted');
  });

  it.each([
    { comment: 'granted less than asked, above target', grant: 2, desired: 8, age: 90, state: 'starved' },
    { comment: 'granted what it asks, above target', grant: 8, desired: 8, age: 90, state: 'behind' },
    { comment: 'asking above its cap, granted its cap', grant: 10, desired: 50, age: 90, state: 'behind' },
    { comment: 'granted less than asked, within target', grant: 2, desired: 8, age: 40, state: 'ok' },
    { comment: 'nothing waiting', grant: 1, desired: 1, age: 0, state: 'idle' },
  ])('$comment: $state', ({ grant, desired, age, state }) => {
    const at = (value: number) => [{ timestamp: 540, value }];
    const m = summarizeMember({
      name: 'orders',
      series: {
        grant: at(grant),
        desired: at(desired),
        applied: at(grant),
        headAge: at(age),
        targetAge: at(60),
        cap: at(10),
        floor: at(1),
      },
      partial: [],
    });
    expect(m.state).toBe(state);
    expect(m.starved).toBe(state === 'starved');
  });

  it('a newest minute without an age is at or under target (published only while behind): an older one is the past', () => {
    // Behind at 480 (age 300, target 60, granted 2 of 8); at 540 on target again, so no age or target was published
    const series = {
      grant: [{ timestamp: 540, value: 6 }],
      desired: [{ timestamp: 480, value: 8 }],
      applied: [
        { timestamp: 480, value: 2 },
        { timestamp: 540, value: 6 },
      ],
      headAge: [{ timestamp: 480, value: 300 }],
      targetAge: [{ timestamp: 480, value: 60 }],
      cap: [{ timestamp: 540, value: 10 }],
      floor: [{ timestamp: 540, value: 1 }],
    };
    const m = summarizeMember({ name: 'orders', series, partial: [] });
    expect(m).toMatchObject({ atOrUnderTarget: true, state: 'ok', starved: false, missing: [] });
    expect(m.headAgeSeconds).toBeUndefined();
    const screen = budgetScreen({
      readAt: 600,
      budgetName: 'db',
      windowSeconds: 900,
      budget: { limit: [{ timestamp: 540, value: 9 }], granted: [], exhausted: [], starvedMembers: [] },
      budgetPartial: [],
      members: [{ name: 'orders', series, partial: [] }],
      notShown: [],
      problems: [],
    });
    expect(screen).toMatch(/orders .*≤ target/);
    // The age read failed: unknown, not "on target"
    const unread = summarizeMember({
      name: 'orders',
      series,
      partial: [{ series: 'headAge', status: 'InternalError' }],
    });
    expect(unread.atOrUnderTarget).toBeUndefined();
    expect(unread.headAgeSeconds).toBe(300);
  });

  it('behind at its tick, then a sample’s applied value a minute later: still behind; a tick with no age: unknown', () => {
    const base = {
      desired: [{ timestamp: 480, value: 30 }],
      cap: [{ timestamp: 480, value: 40 }],
      floor: [{ timestamp: 480, value: 1 }],
    };
    // A budget ticking every 2 minutes: the tick at 480 (behind), a sample's growth published applied at 540
    const sampled = summarizeMember({
      name: 'orders',
      series: {
        ...base,
        grant: [{ timestamp: 480, value: 10 }],
        applied: [
          { timestamp: 480, value: 10 },
          { timestamp: 540, value: 12 },
        ],
        headAge: [{ timestamp: 480, value: 300 }],
        targetAge: [{ timestamp: 480, value: 60 }],
      },
      partial: [],
    });
    expect(sampled.atOrUnderTarget).toBeUndefined();
    expect(sampled.headAgeSeconds).toBe(300);
    // The tick at 540 had no age: its target alone was published
    const noAge = summarizeMember({
      name: 'orders',
      series: {
        ...base,
        grant: [{ timestamp: 540, value: 10 }],
        applied: [{ timestamp: 540, value: 10 }],
        headAge: [{ timestamp: 420, value: 300 }],
        targetAge: [{ timestamp: 540, value: 60 }],
      },
      partial: [],
    });
    expect(noAge.atOrUnderTarget).toBeUndefined();
    expect(noAge.headAgeSeconds).toBeUndefined();
    expect(noAge.state).toBe('unknown');
  });

  it('a minute without a desired datapoint is "as applied" (published only where it differs): not starved', () => {
    // The member asked 8 and was granted 2 at 480; from 540 its law asks what it runs, so nothing was published
    const m = summarizeMember({
      name: 'orders',
      series: {
        grant: [{ timestamp: 540, value: 6 }],
        desired: [{ timestamp: 480, value: 8 }],
        applied: [
          { timestamp: 480, value: 2 },
          { timestamp: 540, value: 6 },
        ],
        headAge: [{ timestamp: 540, value: 90 }],
        targetAge: [{ timestamp: 540, value: 60 }],
        cap: [{ timestamp: 540, value: 10 }],
        floor: [{ timestamp: 540, value: 1 }],
      },
      partial: [],
    });
    expect(m.desired).toBe(6);
    expect(m.state).toBe('behind');
    expect(m.starved).toBe(false);
  });
});
