import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildMetricQueries } from '../../lib/aws/metric-queries.ts';
import { benchScenario } from '../../lib/bench/bench.ts';
import {
  ageLawMonthlyBreakdown,
  ageLawMonthlyCost,
  BUDGET_COUNTED,
  budgetMonthlyBreakdown,
  DOWNSTREAM_HEALTH_METRICS_PER_TICK,
  PRICES,
  provisionedMonthlyCost,
  SECONDS_PER_MONTH,
} from '../../lib/bench/cost.ts';
import DEPLOYED from '../../lib/bench/deployed-cost-inputs.json' with { type: 'json' };
import { groupMonthlyCost } from '../../lib/bench/group-run.ts';
import type { LoadFile } from '../../lib/load-file/load-file.ts';
import { configFor } from '../../lib/sim/run.ts';
import { budgetApp } from '../cdk/budget-app.ts';
import { DB_LOAD_HEALTH } from '../control/fixtures.ts';
import { DEPLOYED_INPUTS_PATH, deployedFiguresNow, EXAMPLE_TEMPLATE } from './deployed-inputs.ts';

const lambda = configFor('lambda');

const ROOT = join(import.meta.dirname, '..', '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

describe('the cost counts what is deployed', () => {
  it("the committed inputs are the synthesized template's and the controller's: run scripts/cost-inputs.ts when this fails", () => {
    // An alarm, an alarm metric, a KMS key, a dashboard, a memory size, a query or a metric name the file does not
    // count makes the two differ.
    expect(readJson(DEPLOYED_INPUTS_PATH)).toEqual(deployedFiguresNow(readJson(EXAMPLE_TEMPLATE)));
  });

  it('counts a metric-math alarm per metric it references, and an extra key or alarm in the template', () => {
    const template = readJson(EXAMPLE_TEMPLATE);
    const now = deployedFiguresNow(template);
    expect(now.alarms.length).toBe(7);
    const grown = structuredClone(template);
    grown.Resources.ExtraKey = { Type: 'AWS::KMS::Key', Properties: {} };
    grown.Resources.ExtraAlarm = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: 'a + b' }] },
    };
    const more = deployedFiguresNow(grown);
    expect(more.kmsKeys).toBe(now.kmsKeys + 1);
    expect(more.alarmMetrics).toBe(now.alarmMetrics + 2);
  });

  it("the breakdown's lines sum to the figure; the alarm topic's key is $0 by default, $1 opted in", () => {
    const b = ageLawMonthlyBreakdown(lambda);
    const { total, dashboardBeyondFreeTier, ...lines } = b;
    expect(Object.values(lines).reduce((x, y) => x + y, 0)).toBeCloseTo(total, 9);
    expect(total).toBeCloseTo(ageLawMonthlyCost(lambda), 9);
    // The default topic has no key (the template counts none); alarmTopicEncryption adds one.
    expect(DEPLOYED.kmsKeys).toBe(0);
    expect(b.alarmTopicKey).toBe(0);
    expect(ageLawMonthlyBreakdown(lambda, { alarmTopicEncryption: true }).alarmTopicKey).toBeCloseTo(
      PRICES.kmsKeyMonth,
      9,
    );
    expect(ageLawMonthlyBreakdown(lambda, { alarmTopic: true }).alarmTopicKey).toBe(0);
    expect(dashboardBeyondFreeTier).toBeCloseTo(3, 9);
  });
});

describe('the downstream health signal costs only where it is named', () => {
  it('one metric more a tick, as buildMetricQueries reads it: $0.43 a month at one tick a minute', () => {
    // GIVEN a scaler's resources with and without a health signal
    const resources = {
      scalerName: 's',
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      queueName: 'q',
      consumerFunctionName: 'c',
    };
    const health = DB_LOAD_HEALTH;
    const warm = { ownHistory: false };
    const added =
      buildMetricQueries({ ...resources, downstreamHealth: health }, 60, warm).length -
      buildMetricQueries(resources, 60, warm).length;
    // THEN the query adds what the cost counts, and the default's reads are the deployed figure's alone
    expect(added).toBe(DOWNSTREAM_HEALTH_METRICS_PER_TICK);
    const base = ageLawMonthlyBreakdown(lambda);
    const named = ageLawMonthlyBreakdown(lambda, { downstreamHealth: true });
    expect(named.reads - base.reads).toBeCloseTo((SECONDS_PER_MONTH / 60) * PRICES.metricRequested, 9);
    expect(named.reads - base.reads).toBeCloseTo(0.432, 9);
    expect(base.total).toBeCloseTo(ageLawMonthlyCost(lambda), 9);
  });
});

describe('the bench cost column', () => {
  it('the samples between ticks cost their short invocations and the ticker queue, not a sleeping minute', () => {
    // GIVEN the lambda preset with and without the samples between ticks
    const withSamples = ageLawMonthlyBreakdown(lambda);
    const tickOnly = ageLawMonthlyBreakdown({ ...lambda, fastSampleSeconds: 0 });
    const ticks = SECONDS_PER_MONTH / 60;
    // THEN five samples a tick, 0.1 s each at the deployed 128 MB, five more invocations
    expect(withSamples.sampleCompute).toBeCloseTo(ticks * 5 * 0.1 * 0.125 * PRICES.lambdaArmGbSecond, 9);
    expect(tickOnly.sampleCompute).toBe(0);
    expect(withSamples.requests).toBeCloseTo(ticks * 6 * PRICES.lambdaRequest, 9);
    // AND per tick five depth reads, the ticker's send, its mapping's 15 receives a minute and 5 deletes
    expect(withSamples.sqs - tickOnly.sqs).toBeCloseTo(ticks * (5 + 1 + 15 + 5) * PRICES.sqsRequest, 9);
    // AND GetMetricData: the law's 4 metrics a tick, the own history's 3 more at a cold start an hour ($1.75)
    expect(withSamples.reads).toBeCloseTo((ticks * 4 + 720 * 3) * PRICES.metricRequested, 9);
    // AND what is left is 1 dense metric ($0.30: applied; desired only where it differs, and the sparse ones, count
    // as none), 7 alarm metrics ($0.70), no key (the alarm topic is not encrypted at rest by default) and cents
    expect(tickOnly.metrics).toBeCloseTo(1 * PRICES.customMetricMonth, 9);
    expect(tickOnly.alarms).toBeCloseTo(7 * PRICES.alarmMetricMonth, 9);
    expect(tickOnly.alarmTopicKey).toBe(0);
    expect(tickOnly.total).toBeGreaterThan(1.75 + 0.3 + 0.7);
    expect(tickOnly.total).toBeLessThan(1.75 + 0.3 + 0.7 + 0.2);
  });

  it('a quiet queue’s ticks reuse the three rates: the reads cost what a run counted', () => {
    // GIVEN a run in which a share of the ticks read the rates, the rest reused a quiet queue's
    const busy = ageLawMonthlyBreakdown(lambda);
    const quiet = ageLawMonthlyBreakdown(lambda, { rateReadShare: 0.2 });
    // THEN the reads drop by the three rates on the ticks that reused them, and nothing else moves
    const ticks = SECONDS_PER_MONTH / 60;
    expect(busy.reads - quiet.reads).toBeCloseTo(ticks * 3 * 0.8 * PRICES.metricRequested, 9);
    expect(busy.total - quiet.total).toBeCloseTo(busy.reads - quiet.reads, 9);
  });

  it('a longer tick costs less: fewer invocations, fewer metric reads', () => {
    expect(ageLawMonthlyCost({ tickSeconds: 120, fastSampleSeconds: 10 })).toBeLessThan(
      ageLawMonthlyCost(lambda),
    );
  });

  it('provisioned mode bills its pollers by the hour, 2 at least', () => {
    expect(provisionedMonthlyCost(2 * 3600, 3600)).toBeCloseTo(2 * 720 * PRICES.eventPollerUnitHour, 6);
  });

  it('the bench prices the age law, provisioned (2 pollers on a quiet queue) and native (nothing)', async () => {
    // GIVEN a queue with a trickle of messages, served between the ticks
    const quiet: LoadFile = {
      name: 'quiet',
      phases: [{ durationSeconds: 1800, ratePerSecond: 1, itemMs: 20 }],
    };
    // WHEN the bench runs it
    const rows = await benchScenario(quiet, 'lambda');
    const cost = (controller: string) => rows.find((r) => r.controller === controller)?.monthlyCost;
    // THEN the age law at the share of ticks that read the rates, as the run counted it: nearly all of them (a
    // trickle is not a quiet queue: messages sent in every period read; only its first minutes, before SQS's first
    // datapoints, look quiet)
    const share = rows.find((r) => r.controller === 'age-law')?.summary.rateReadShare as number;
    expect(share).toBeGreaterThan(0.8);
    expect(cost('age-law')).toBeCloseTo(ageLawMonthlyCost(lambda, share), 6);
    expect(cost('provisioned')).toBeCloseTo(provisionedMonthlyCost(2 * 1800, 1800), 6);
    expect(cost('native')).toBe(0);
    expect(cost('fixed-cap')).toBeUndefined();
  });

  it('the seed preset has no AWS bill', async () => {
    const spike: LoadFile = {
      name: 'spike',
      phases: [{ durationSeconds: 2, ratePerSecond: 50, itemMs: 20 }],
    };
    const rows = await benchScenario(spike, 'seed');
    expect(rows.every((r) => r.monthlyCost === undefined)).toBe(true);
  });
});

describe('a shared budget’s cost counts what a budget deploys', () => {
  const lambda = configFor('lambda');

  it('a budget of two as synthesized: its keys (none by default), the budget’s one alarm metric, each member a lone scaler’s alarms', () => {
    const { stack } = budgetApp({ maxConcurrency: 20, alarmEmail: 'ops@example.com' }, [
      { name: 'Orders' },
      { name: 'Billing' },
    ]);
    const template = Template.fromStack(stack).toJSON() as {
      Resources: Record<string, { Type: string; Properties?: { Metrics?: unknown[] } }>;
    };
    const alarms = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
    // A metric-math alarm pays for each metric it references (its MetricStats, not its expression).
    const refs = (ids: [string, { Properties?: { Metrics?: unknown[] } }][]) =>
      ids.reduce((n, [, r]) => {
        const metrics = r.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
        return n + (metrics ? metrics.filter((m) => m.MetricStat !== undefined).length : 1);
      }, 0);
    const budgetOwn = alarms.filter(([id]) => id.startsWith('OrdersDb'));
    const members = alarms.filter(([id]) => !id.startsWith('OrdersDb'));
    expect(refs(budgetOwn)).toBe(BUDGET_COUNTED.alarmMetrics);
    expect(refs(members)).toBe(2 * DEPLOYED.alarmMetrics);
    expect(Object.values(template.Resources).filter((r) => r.Type === 'AWS::KMS::Key')).toHaveLength(
      DEPLOYED.kmsKeys,
    );
  });

  it('a group prices each queue at its own share of rate reads, as the run counted it', () => {
    const configs = [lambda, lambda, lambda];
    const ticks = SECONDS_PER_MONTH / 60;
    const saved = (share: number) => ticks * 3 * (1 - share) * PRICES.metricRequested;
    // Three lone scalers: each queue's reads at its own share
    expect(
      groupMonthlyCost('age-law-split', configs) - groupMonthlyCost('age-law-split', configs, [1, 0.5, 0.2]),
    ).toBeCloseTo(saved(0.5) + saved(0.2), 9);
    // One budget: its members' reads at their mean share
    expect(
      groupMonthlyCost('shared-budget', configs) - groupMonthlyCost('shared-budget', configs, [1, 0.5, 0.2]),
    ).toBeCloseTo(3 * saved((1 + 0.5 + 0.2) / 3), 9);
  });

  it('one controller, and per member its reads, its metrics, its grant and its alarms', () => {
    const one = budgetMonthlyBreakdown(lambda, 1);
    const three = budgetMonthlyBreakdown(lambda, 3);
    expect(three.controller).toBeCloseTo(one.controller, 9);
    expect(three.total - one.total).toBeCloseTo(2 * one.perMember, 9);
    // Per member: 4 metrics a tick ($1.73), its applied value and its grant ($0.60: its age and target only while
    // it is behind, the desired value only where it differs, counted as none), its 7 alarm metrics ($0.70), the
    // depth reads and a cold start's own history (cents)
    expect(one.perMember).toBeGreaterThan(1.73 + 0.6 + 0.7);
    expect(one.perMember).toBeLessThan(1.73 + 0.6 + 0.7 + 0.2);
  });
});
