import { FAST_LOOP_END_BEFORE_TICK_SECONDS } from '../control/fast-path.ts';
import type { ScalerConfig } from '../control/settings-table.ts';
import type { ControllerKind } from './run.ts';

/**
 * What a controller adds to the bill a month, at us-east-1 list prices (docs/aws-facts.md, "Prices"). The consumer's
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
  /** Provisioned mode's event poller unit, per hour. */
  eventPollerUnitHour: 0.00925,
} as const;

export const SECONDS_PER_MONTH = 30 * 86_400;

/**
 * The controller Lambda as the construct deploys it (lib/cdk/queue-age-scaler.ts): 256 MB, a tick's calls in about
 * 0.3 s (scripts/measure-controller.ts), 10 metrics in each GetMetricData, up to 22 metrics of its own and 19
 * alarm metrics (10 alarms, the math ones counting each metric).
 */
const CONTROLLER = {
  memoryGb: 256 / 1024,
  tickSeconds: 0.3,
  metricsPerTick: 10,
  ownMetrics: 22,
  alarmMetrics: 19,
} as const;

/** The age law's controller a month: compute, its reads, its metrics and alarms. */
export function ageLawMonthlyCost(config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>): number {
  const ticks = SECONDS_PER_MONTH / config.tickSeconds;
  const fast = config.fastSampleSeconds > 0 && config.fastSampleSeconds < config.tickSeconds;
  // With the fast path the invocation samples the depth, idle or busy, until 10 s before the next tick.
  const loopSeconds = fast ? config.tickSeconds - FAST_LOOP_END_BEFORE_TICK_SECONDS : 0;
  const samples = fast ? Math.floor(loopSeconds / config.fastSampleSeconds) : 0;
  const compute =
    ticks * (CONTROLLER.tickSeconds + loopSeconds) * CONTROLLER.memoryGb * PRICES.lambdaArmGbSecond;
  return (
    compute +
    ticks * PRICES.lambdaRequest +
    ticks * CONTROLLER.metricsPerTick * PRICES.metricRequested +
    ticks * (1 + samples) * PRICES.sqsRequest +
    CONTROLLER.ownMetrics * PRICES.customMetricMonth +
    CONTROLLER.alarmMetrics * PRICES.alarmMetricMonth
  );
}

/**
 * What one more queue adds to a controller's reads a month: its 10 metrics in each tick's GetMetricData, and its
 * depth read at the tick and at each fast-path sample (GetQueueAttributes). Per metric and per request, these grow
 * with the queues read, whoever reads them.
 */
export function queueReadsMonthlyCost(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
): number {
  const ticks = SECONDS_PER_MONTH / config.tickSeconds;
  const fast = config.fastSampleSeconds > 0 && config.fastSampleSeconds < config.tickSeconds;
  const loopSeconds = fast ? config.tickSeconds - FAST_LOOP_END_BEFORE_TICK_SECONDS : 0;
  const samples = fast ? Math.floor(loopSeconds / config.fastSampleSeconds) : 0;
  return (
    ticks * CONTROLLER.metricsPerTick * PRICES.metricRequested + ticks * (1 + samples) * PRICES.sqsRequest
  );
}

/**
 * A shared budget's controller a month, for `members` queues: ONE controller Lambda (its compute, its fast loop,
 * its invocations, its own metrics and alarms: one scaler's, as the group's tick reads every member in parallel
 * in about a lone tick's time, an assumption until the budget's Lambda is measured), plus every further member's
 * reads (`queueReadsMonthlyCost`). N independent scalers cost N × `ageLawMonthlyCost`; most of that is the fast
 * loop's compute and the metrics and alarms, which one controller pays once.
 */
export function budgetMonthlyCost(
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
  members: number,
): number {
  return ageLawMonthlyCost(config) + Math.max(0, members - 1) * queueReadsMonthlyCost(config);
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
  run: { readonly billedPollerSeconds: number; readonly simulatedSeconds: number },
): number | undefined {
  switch (kind) {
    case 'age-law':
      return ageLawMonthlyCost(config);
    case 'provisioned':
      return provisionedMonthlyCost(run.billedPollerSeconds, run.simulatedSeconds);
    case 'native':
      return 0;
    default:
      return undefined;
  }
}
