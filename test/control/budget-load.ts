import type { Datapoint, MetricSeries } from '../../lib/control/ports.ts';

/** The budget tests' clock and read window: ten complete one-minute periods end before NOW. */
export const NOW = 100_020;
export const OPTIONS = { periodSeconds: 60, windowSeconds: 3600 };

/** What one member's queue looks like to CloudWatch: an age, and a steady rate of items of one time. */
export interface Load {
  readonly ageSeconds?: number;
  readonly ratePerSecond: number;
  readonly itemSeconds: number;
  readonly visible?: number;
}

/** Ten complete one-minute periods ending before NOW, each with the load's age and counts. */
export function seriesOf(load: Load): MetricSeries {
  const points = (value: number): Datapoint[] =>
    Array.from({ length: 10 }, (_, i) => ({ timestamp: 99_360 + 60 * i, value }));
  const items = load.ratePerSecond * 60;
  return {
    ageOfOldestMessage: load.ageSeconds === undefined ? [] : points(load.ageSeconds),
    messagesSent: points(items),
    messagesDeleted: points(items),
    consumerDurationMs: points(items * load.itemSeconds * 1000),
  };
}
