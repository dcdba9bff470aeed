import { FAST_LOOP_END_BEFORE_TICK_SECONDS } from '../control/fast-path.ts';
import type { ScalerConfig } from '../control/settings-table.ts';
import { BUDGET_DENSE_METRICS } from '../telemetry.ts';
import DEPLOYED from './deployed-cost-inputs.json' with { type: 'json' };

/** The bench's controllers this file prices (lib/sim's ControllerKind; any other is a yardstick: no price). */
type ControllerKind = string;

/**
 * What a controller adds to the bill a month, at us-east-1 list prices (docs/aws-facts.md, "Prices"), counted from what is deployed (lib/bench/deployed-figures.ts). The consumer's
 * own compute is the same for every controller (the same messages, the same item times) and is left out; so is
 * reserved concurrency, which costs nothing but the account's headroom (the bench's "reserved conc-s" column).
 */
export const PRICES = {
  /** Lambda on arm64, per GB-second, and per request. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** CloudWatch GetMetricData, per metric requested. */
  metricRequested: 0.01 / 1000,
  /** SQS, per request (past the free tier's first million). */
  sqsRequest: 0.4 / 1e6,
  /** A custom metric a month; a standard-resolution alarm's metric a month. */
  customMetricMonth: 0.3,
  alarmMetricMonth: 0.1,
  /** A customer-managed KMS key a month; a dashboard a month (beyond an account's first 3). */
  kmsKeyMonth: 1,
  dashboardMonth: 3,
  /** Provisioned mode's event poller unit, per hour. */
  eventPollerUnitHour: 0.00925,
} as const;

export const SECONDS_PER_MONTH = 30 * 86_400;

/**
 * The controller as deployed and run, from lib/bench/deployed-cost-inputs.json (written by scripts/cost-inputs.ts
 * from the synthesized template and the controller's queries and metric names; test/bench/cost.test.ts fails when
 * they disagree): its memory and architecture, the metrics each tick reads, the metric names it can publish, the
 * alarms' metric references, the KMS keys. The tick's own time is scripts/measure-controller.ts's: moto answers in
 * a few ms, AWS's API latencies are of the order of 300 ms for a tick's calls (assumed, not measured on AWS).
 */
const CONTROLLER = {
  memoryGb: DEPLOYED.controller.memoryMb / 1024,
  tickSeconds: 0.3,
  /**
   * One sample between ticks, in an invocation of its own: one GetQueueAttributes and the log line, about 0.1 s
   * (assumed like the tick's time; a growth adds the tick's writes, rare enough not to count).
   */
  sampleSeconds: 0.1,
  /** The samples come back through the controller's own ticker queue (the template's mapping onto it). */
  tickerQueue: DEPLOYED.tickerMappings > 0,
  metricsPerTick: DEPLOYED.metricsPerTick,
  ownHistoryMetrics: DEPLOYED.ownHistoryMetrics,
  rateMetrics: DEPLOYED.rateMetrics,
  /**
   * Ticks a month in a container that does not remember the tick before (functions/controller/tick-memory.ts):
   * one an hour, assumed. Invoked every 10 s the controller's container stays warm; AWS does not document how
   * long an execution environment lives, and a cold tick reads the own history on top.
   */
  coldTicks: SECONDS_PER_MONTH / 3600,
  ownMetrics: DEPLOYED.customMetricNames.length,
  alarmMetrics: DEPLOYED.alarmMetrics,
  kmsKeys: DEPLOYED.kmsKeys,
  dashboards: DEPLOYED.dashboards,
} as const;

/** The age law's controller a month, line by line (us-east-1 list prices). */
export interface CostBreakdown {
  /** The ticks' own compute. */
  readonly compute: number;
  /** The samples between ticks: one short invocation each, through the ticker queue. */
  readonly sampleCompute: number;
  /** Lambda requests. */
  readonly requests: number;
  /** GetMetricData: metrics requested each tick. */
  readonly reads: number;
  /**
   * SQS: GetQueueAttributes at each tick and each sample; the ticker queue's SendMessageBatch at each tick, its
   * mapping's receives and deletes.
   */
  readonly sqs: number;
  /**
   * The controller's custom metrics published every tick, a full month each (a lone scaler's applied concurrency:
   * its age is AWS/SQS's, its target a setting); the sparse ones (published only when non-zero, the desired value
   * only where it differs from the applied one) are billed only in those hours, counted as none.
   */
  readonly metrics: number;
  /**
   * Alarms, per metric each references, whatever its namespace (AWS's free metrics too): 7 in 7 alarms.
   */
  readonly alarms: number;
  /**
   * The alarm topic's KMS key: $0 by default (the topic the construct creates is not encrypted at rest, as the
   * template shows), $1 with `alarmTopicEncryption`; $0 when the app passes its own `alarmTopic`.
   */
  readonly alarmTopicKey: number;
  /** The sum of the lines above: the bench's `$ / month`. */
  readonly total: number;
  /** Not in the total: the dashboard, free for an account's first 3 ($3 a month each beyond). */
  readonly dashboardBeyondFreeTier: number;
}

/**
 * The ticker queue's mapping polls it whether or not a message waits: its pollers long-poll (up to 20 s a receive),
 * assumed 5 pollers, the standard mapping's starting number, so 15 receives a minute (AWS does not document an
 * idle mapping's receives; docs/aws-facts.md, "Sub-minute clocks").
 */
export const TICKER_RECEIVES_PER_MINUTE = 15;

/** The samples between ticks in one tick's slot: every interval up to 10 s before the next tick (sample-grid.ts). */
function samplesPerTick(config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>): number {
  const fast = config.fastSampleSeconds > 0 && config.fastSampleSeconds < config.tickSeconds;
  return fast
    ? Math.floor((config.tickSeconds - FAST_LOOP_END_BEFORE_TICK_SECONDS) / config.fastSampleSeconds)
    : 0;
}

/** SQS requests a tick: its depth read, and each sample's; with the ticker, its send, receives and deletes. */
function sqsRequestsPerTick(config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>): number {
  const samples = samplesPerTick(config);
  const ticker =
    CONTROLLER.tickerQueue && samples > 0
      ? 1 + samples + (TICKER_RECEIVES_PER_MINUTE * config.tickSeconds) / 60
      : 0;
  return 1 + samples + ticker;
}

/**
 * The downstream's health signal (`downstreamHealth`), where one is named: one metric more in each tick's
 * GetMetricData (lib/aws/metric-queries.ts adds its query only then; test/bench/cost.test.ts holds the two equal).
 * Not in the deployed figures: the example stack names none, so the default's bill does not move.
 */
export const DOWNSTREAM_HEALTH_METRICS_PER_TICK = 1;

/** Metrics a warm tick reads on average: all of them, less the rates on the share of ticks that reuse them. */
function metricsPerTick(rateReadShare = 1): number {
  const share = Math.min(1, Math.max(0, rateReadShare));
  return CONTROLLER.metricsPerTick - CONTROLLER.rateMetrics * (1 - share);
}

/** The age law's controller a month, in lines: compute, its samples, requests, reads, SQS, metrics, alarms, key. */
export function ageLawMonthlyBreakdown(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  options: {
    readonly alarmTopic?: boolean;
    readonly alarmTopicEncryption?: boolean;
    readonly downstreamHealth?: boolean;
    /**
     * The share of ticks that read the three rates (lib/control/rate-reads.ts: a quiet queue's ticks reuse them),
     * as a run counted it. @default 1: a queue never quiet, every tick reads all of them
     */
    readonly rateReadShare?: number;
  } = {},
): CostBreakdown {
  const ticks = SECONDS_PER_MONTH / config.tickSeconds;
  const samples = samplesPerTick(config);
  const gbSecond = CONTROLLER.memoryGb * PRICES.lambdaArmGbSecond;
  const lines = {
    compute: ticks * CONTROLLER.tickSeconds * gbSecond,
    sampleCompute: ticks * samples * CONTROLLER.sampleSeconds * gbSecond,
    requests: ticks * (1 + samples) * PRICES.lambdaRequest,
    reads:
      (ticks *
        (metricsPerTick(options.rateReadShare) +
          (options.downstreamHealth ? DOWNSTREAM_HEALTH_METRICS_PER_TICK : 0)) +
        CONTROLLER.coldTicks * CONTROLLER.ownHistoryMetrics) *
      PRICES.metricRequested,
    sqs: ticks * sqsRequestsPerTick(config) * PRICES.sqsRequest,
    metrics: CONTROLLER.ownMetrics * PRICES.customMetricMonth,
    alarms: CONTROLLER.alarmMetrics * PRICES.alarmMetricMonth,
    alarmTopicKey: options.alarmTopic
      ? 0
      : Math.max(CONTROLLER.kmsKeys, options.alarmTopicEncryption ? 1 : 0) * PRICES.kmsKeyMonth,
  };
  const total = Object.values(lines).reduce((a, b) => a + b, 0);
  return { ...lines, total, dashboardBeyondFreeTier: CONTROLLER.dashboards * PRICES.dashboardMonth };
}

/**
 * The age law's controller a month: compute, its reads, its metrics, alarms and the alarm topic's key; at the
 * share of rate reads a run counted (default: every tick reads them).
 */
export function ageLawMonthlyCost(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  rateReadShare = 1,
): number {
  return ageLawMonthlyBreakdown(config, { rateReadShare }).total;
}

/**
 * What one more queue adds to a controller's reads a month: its law's metrics in each tick's GetMetricData, and its
 * depth read at the tick and at each fast-path sample (GetQueueAttributes). Per metric and per request, these grow
 * with the queues read, whoever reads them.
 */
export function queueReadsMonthlyCost(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  rateReadShare = 1,
): number {
  const ticks = SECONDS_PER_MONTH / config.tickSeconds;
  const depthReads = 1 + samplesPerTick(config);
  const metrics = ticks * metricsPerTick(rateReadShare) + CONTROLLER.coldTicks * CONTROLLER.ownHistoryMetrics;
  return metrics * PRICES.metricRequested + ticks * depthReads * PRICES.sqsRequest;
}

/**
 * A shared budget's own figures: its dense metrics (the limit and the Σ granted, dimension BudgetName), each
 * member's grant (BudgetGrant) every tick (its age and target only while it is behind, BUDGET_MEMBER_BEHIND_METRICS,
 * and the desired value, a member's as a lone scaler's, only where it differs from the applied one: counted as none), and its one alarm (`-budget-exhausted`, one metric). test/bench/cost.test.ts
 * synthesizes a budget and fails when its alarms or a member's differ from what is counted here.
 */
export const BUDGET_COUNTED = {
  ownMetrics: BUDGET_DENSE_METRICS.size,
  metricsPerMember: 1,
  alarmMetrics: 1,
} as const;

/** A shared budget's bill a month, line by line: its one controller, and what each member adds. */
export interface BudgetCost {
  /**
   * The one controller: its compute, samples and requests (every member sampled in one invocation, in about a lone
   * sample's time: an assumption until the budget's Lambda is measured), its ticker queue, the budget's own
   * metrics and alarm, and the alarm topic's key (one topic per budget).
   */
  readonly controller: number;
  /**
   * Each member: its queue's reads (the law's metrics, the rates at the members' share of reads, by default never
   * quiet; its consumer's invocations for the release delay; the depth at the tick and each sample), its applied
   * value and its grant, its alarms (a lone scaler's).
   */
  readonly perMember: number;
  readonly total: number;
}

export function budgetMonthlyBreakdown(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  members: number,
  /** The members' mean share of ticks that read the rates, as a run counted it. @default 1: never quiet */
  rateReadShare = 1,
): BudgetCost {
  const lone = ageLawMonthlyBreakdown(config);
  const ticks = SECONDS_PER_MONTH / config.tickSeconds;
  const depthReads = ticks * (1 + samplesPerTick(config)) * PRICES.sqsRequest;
  const controller =
    lone.compute +
    lone.sampleCompute +
    lone.requests +
    (lone.sqs - depthReads) +
    lone.alarmTopicKey +
    BUDGET_COUNTED.ownMetrics * PRICES.customMetricMonth +
    BUDGET_COUNTED.alarmMetrics * PRICES.alarmMetricMonth;
  const perMember =
    queueReadsMonthlyCost(config, rateReadShare) +
    (CONTROLLER.ownMetrics + BUDGET_COUNTED.metricsPerMember) * PRICES.customMetricMonth +
    lone.alarms;
  return { controller, perMember, total: controller + members * perMember };
}

/** A shared budget of `members` queues a month (`budgetMonthlyBreakdown`). */
export function budgetMonthlyCost(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  members: number,
  rateReadShare = 1,
): number {
  return budgetMonthlyBreakdown(config, members, rateReadShare).total;
}

/** Provisioned mode a month, at the run's mean of billed pollers (at least MinimumPollers, 2). */
export function provisionedMonthlyCost(billedPollerSeconds: number, runSeconds: number): number {
  const meanPollers = billedPollerSeconds / runSeconds;
  return ((meanPollers * SECONDS_PER_MONTH) / 3600) * PRICES.eventPollerUnitHour;
}

/**
 * A controller's monthly cost in the bench: the age law's controller, provisioned mode's pollers, nothing for
 * native. The other baselines are yardsticks, not offers: undefined.
 */
export function monthlyCost(
  kind: ControllerKind,
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  run: {
    readonly billedPollerSeconds: number;
    readonly simulatedSeconds: number;
    readonly rateReadShare?: number;
  },
): number | undefined {
  switch (kind) {
    case 'age-law':
      // Driving provisioned mode (actuator 'provisioned'), its pollers are billed as provisioned mode's are.
      return (
        ageLawMonthlyCost(config, run.rateReadShare) +
        (run.billedPollerSeconds > 0
          ? provisionedMonthlyCost(run.billedPollerSeconds, run.simulatedSeconds)
          : 0)
      );
    case 'provisioned':
      return provisionedMonthlyCost(run.billedPollerSeconds, run.simulatedSeconds);
    case 'native':
      return 0;
    default:
      return undefined;
  }
}

/** The breakdown as a markdown table (docs/benchmarks.md, the README): the one figure, line by line. */
export function costBreakdownMarkdown(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
): string[] {
  const b = ageLawMonthlyBreakdown(config);
  const $ = (v: number) => `$${v.toFixed(2)}`;
  const gb = `${DEPLOYED.controller.memoryMb} MB ${DEPLOYED.controller.architecture}`;
  return [
    '| line | counted from | $ / month |',
    '|---|---|---|',
    `| compute: the ticks | ${gb} (the template), ${CONTROLLER.tickSeconds} s a tick | ${$(b.compute)} |`,
    `| compute: the samples between ticks | ${gb}, ${samplesPerTick(config)} a tick through the ticker queue, ${CONTROLLER.sampleSeconds} s each | ${$(b.sampleCompute)} |`,
    `| requests | the tick and each sample, one invocation each | ${$(b.requests)} |`,
    `| reads: GetMetricData | ${CONTROLLER.metricsPerTick} metrics a tick (buildMetricQueries) on a queue never quiet; a quiet queue's ticks reuse the ${CONTROLLER.rateMetrics} rates (rate-reads.ts: $${((SECONDS_PER_MONTH / config.tickSeconds) * CONTROLLER.rateMetrics * PRICES.metricRequested).toFixed(2)} less a month quiet); ${CONTROLLER.ownHistoryMetrics} more on a cold start (one an hour, assumed) | ${$(b.reads)} |`,
    `| SQS | GetQueueAttributes at the tick and each sample; the ticker queue's send, ${TICKER_RECEIVES_PER_MINUTE} receives a minute (assumed) and a delete per sample | ${$(b.sqs)} |`,
    `| metrics: the controller's own | ${CONTROLLER.ownMetrics} names every tick, a full month each; ${DEPLOYED.sparseMetricNames.length} more only when non-zero or, the desired value, different from the applied one (lib/telemetry.ts), counted as none | ${$(b.metrics)} |`,
    `| alarms | ${CONTROLLER.alarmMetrics} metric references in ${DEPLOYED.alarms.length} alarms (the template) | ${$(b.alarms)} |`,
    `| the alarm topic's KMS key | ${CONTROLLER.kmsKeys} ${CONTROLLER.kmsKeys === 1 ? 'key' : 'keys'} (the template: the topic is not encrypted at rest by default); $1 with \`alarmTopicEncryption: true\`, $0 with your own \`alarmTopic\` | ${$(b.alarmTopicKey)} |`,
    `| **total** (the bench's \`$ / month\`) | lib/bench/deployed-cost-inputs.json | **${$(b.total)}** |`,
    `| not in the total: the dashboard | ${CONTROLLER.dashboards} (the template); free for an account's first 3 | ${$(b.dashboardBeyondFreeTier)} |`,
  ];
}
