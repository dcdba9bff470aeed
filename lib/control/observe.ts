import { healthReading } from './downstream-health.ts';
import type { Datapoint, MetricSeries, QueueDepth, SeriesName } from './ports.ts';
import { rateLowerBound, rateUpperBound } from './rate-bounds.ts';
import type { ArrivalsClimbing, PauseKind, QueueSnapshot } from './snapshot.ts';

/**
 * Builds the control law's snapshot from CloudWatch series and real-time depth. Pure, so the Lambda and the
 * simulator pick datapoints the same way: by timestamp, never by array position (GetMetricData omits empty
 * periods and its order is not a contract: docs/aws-facts.md, "CloudWatch GetMetricData"); a `PartialData` series
 * counts as missing.
 */
export interface ObservationInput {
  readonly now: number;
  /** The metric period in seconds (CloudWatch's SQS metrics: 60). */
  readonly periodSeconds: number;
  readonly series: MetricSeries;
  readonly depth?: QueueDepth;
  readonly appliedConcurrency: number;
  /** An operator's pause, as the actuator read it. */
  readonly paused?: PauseKind;
  /** The window for the peak arrival rate (the scale-down delay). @default one period */
  readonly peakWindowSeconds?: number;
  /** The mapping's BatchSize, as the actuator read it. */
  readonly batchSize?: number;
}

function usable(input: ObservationInput, name: SeriesName): readonly Datapoint[] {
  if (input.series.partial?.includes(name)) return [];
  // A datapoint for a period that has not ended yet is incomplete: a Sum over half a minute reads as half the rate.
  return input.series[name].filter(
    (d) => Number.isFinite(d.value) && d.timestamp + input.periodSeconds <= input.now + 1e-9,
  );
}

function newest(points: readonly Datapoint[]): Datapoint | undefined {
  let best: Datapoint | undefined;
  for (const p of points) if (best === undefined || p.timestamp > best.timestamp) best = p;
  return best;
}

function at(points: readonly Datapoint[], timestamp: number): Datapoint | undefined {
  return points.find((p) => Math.abs(p.timestamp - timestamp) < 1e-6);
}

/** Duration (ms) ÷ count in the newest period where both are above zero: seconds per counted thing. */
function newestSecondsPer(duration: readonly Datapoint[], counts: readonly Datapoint[]): number | undefined {
  for (const d of [...duration].sort((a, b) => b.timestamp - a.timestamp)) {
    const count = at(counts, d.timestamp);
    if (count !== undefined && count.value > 0 && d.value > 0) return d.value / 1000 / count.value;
  }
  return undefined;
}

/**
 * Arrivals still climbing when CloudWatch last counted them: the newest period's rate's lower bound above the upper
 * bound of the period before it (rate-bounds.ts), so that a count's noise at a steady rate is no climb. What the
 * depth's reading of heavier items assumes arrives (heavier-items.ts, `climbedTo`).
 * Worked example (held-out three-steps: 100, 300, 500/s in two-minute steps): 6,000 then 18,000 sent in two
 * periods: 300/s less its noise (295.5/s) is above 100/s and its noise (102.6/s): climbing 200/s a period.
 */
function arrivalsClimbing(
  sent: readonly Datapoint[],
  newestSent: Datapoint | undefined,
  period: number,
): ArrivalsClimbing | undefined {
  if (newestSent === undefined) return undefined;
  const before = at(sent, newestSent.timestamp - period);
  if (before === undefined) return undefined;
  const now = newestSent.value / period;
  const then = before.value / period;
  if (!(rateLowerBound(now, period) > rateUpperBound(then, period))) return undefined;
  return { perPeriod: now - then, periodSeconds: period, observedAt: newestSent.timestamp + period };
}

export function observe(input: ObservationInput): QueueSnapshot {
  const period = input.periodSeconds;
  const age = newest(usable(input, 'ageOfOldestMessage'));
  const sentSeries = usable(input, 'messagesSent');
  const sent = newest(sentSeries);
  const peakFrom = input.now - Math.max(input.peakWindowSeconds ?? 0, period) - 1e-9;
  const recentSent = sentSeries.filter((d) => d.timestamp + period >= peakFrom);
  const deleted = usable(input, 'messagesDeleted');
  const newestDeleted = newest(deleted);
  const duration = usable(input, 'consumerDurationMs');
  const recentDuration = duration.filter((d) => d.timestamp + period >= peakFrom);

  // Per-item cost from the newest period where the consumer both ran and deleted messages; seconds per invocation
  // from the newest where it ran.
  const itemSeconds = newestSecondsPer(duration, deleted);

  return {
    now: input.now,
    appliedConcurrency: input.appliedConcurrency,
    oldestAge: age === undefined ? undefined : { seconds: age.value, observedAt: age.timestamp + period },
    visibleMessages: input.depth?.visible,
    inFlightMessages: input.depth?.inFlight,
    arrivalRatePerSecond: sent === undefined ? undefined : sent.value / period,
    peakArrivalRatePerSecond:
      recentSent.length === 0 ? undefined : Math.max(...recentSent.map((d) => d.value)) / period,
    arrivalsClimbing: arrivalsClimbing(sentSeries, sent, period),
    completionRatePerSecond: newestDeleted === undefined ? undefined : newestDeleted.value / period,
    ratePeriodSeconds: period,
    itemSeconds,
    // Concurrency-seconds per second: the consumer's mean concurrent executions in its busiest recent period.
    observedConcurrency:
      recentDuration.length === 0
        ? undefined
        : Math.max(...recentDuration.map((d) => d.value)) / 1000 / period,
    paused: input.paused,
    batchSize: input.batchSize,
    downstreamHealth: healthReading(input.series.downstreamHealth, input.now),
  };
}
