import { OperatorError } from './operator-error.ts';
import type { TraceSeries } from './trace-metrics.ts';
import { isoSeconds, type TraceRange } from './trace-range.ts';

/**
 * From a queue's CloudWatch history to one phase per period: what arrived, how long an item took, and what was
 * observed. Pure: the series in, the rows out.
 */

/** The batch size that stands in for messages per invocation where the counts are missing, and where it came from. */
export interface BatchSize {
  readonly size: number;
  /** `the event source mapping 1f2e…'s BatchSize`, or why the default was used. */
  readonly source: string;
}

/** Lambda's default batch size for an SQS event source (CreateEventSourceMapping's BatchSize). */
export const DEFAULT_BATCH_SIZE = 10;

/** How a row's item time was found. */
export type ItemSource = 'counts' | 'batch-size' | 'carried';

export interface TraceRow {
  /** Epoch seconds: the first period's start. */
  readonly start: number;
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly itemMs: number;
  readonly observedAgeSeconds?: number;
  readonly observedConcurrency?: number;
  /** A run of periods without a `NumberOfMessagesSent` datapoint, merged into this one row. */
  readonly gap: boolean;
  readonly itemSource: ItemSource;
}

// The load file's limits (lib/load-file/load-file.ts): an item of at least a microsecond, at most Lambda's 15 minutes;
// a phase of at most 30 days, so a longer gap is written as several rows.
const MIN_ITEM_MS = 0.001;
const MAX_ITEM_MS = 900_000;
export const MAX_PHASE_SECONDS = 30 * 86_400;

/**
 * The time one message took, from a period's consumer metrics (docs/aws-facts.md, "Lambda metrics"). `Duration`
 * is per invocation, and one invocation handles one batch: so ÷ the messages in a batch, `NumberOfMessagesDeleted
 * ÷ Invocations` (Lambda deletes a batch's messages when it succeeds). At least 1: an invocation carries at least
 * one message, so a lower ratio means failed batches, not fractional ones (1,000 ms over 0.2 messages would make a
 * 5-second item of a 1-second one). Without both counts, ÷ the mapping's batch size: the most a batch holds, so the
 * item time it gives is the shortest it can be.
 */
function itemOf(
  durationMs: number,
  deleted: number | undefined,
  invocations: number | undefined,
  batchSize: number,
): { itemMs: number; source: ItemSource } {
  const counted = deleted !== undefined && invocations !== undefined && invocations > 0;
  const perInvocation = counted ? Math.max(1, deleted / invocations) : batchSize;
  const itemMs = Math.min(MAX_ITEM_MS, Math.max(MIN_ITEM_MS, durationMs / perInvocation));
  return { itemMs, source: counted ? 'counts' : 'batch-size' };
}

/**
 * One row per period with a `NumberOfMessagesSent` datapoint; each run of periods without one is a gap, one row
 * (or several of at most 30 days) with rate 0 and no observed values. CloudWatch omits a period without data, and
 * SQS stops reporting a queue idle for six hours (docs/aws-facts.md, "SQS metrics"): the arrivals there are
 * unknown, not zero, and the row says so rather than passing a guess off as an observation. A period without
 * `Duration` (no invocation ended in it) takes the previous period's item time, the first the first known one.
 */
export function traceRows(
  series: TraceSeries,
  range: Pick<TraceRange, 'start' | 'end' | 'periodSeconds'>,
  batch: BatchSize,
): TraceRow[] {
  const { start, end, periodSeconds } = range;
  const starts: number[] = [];
  for (let t = start; t < end; t += periodSeconds) starts.push(t);
  const items = starts.map((t) => {
    const duration = series.duration.get(t);
    return duration === undefined
      ? undefined
      : itemOf(duration, series.deleted.get(t), series.invocations.get(t), batch.size);
  });
  const firstKnown = items.find((i) => i !== undefined);
  if (firstKnown === undefined) return [];
  let carried = firstKnown.itemMs;
  const rows: TraceRow[] = [];
  let gapStart: number | undefined;
  const closeGap = (until: number) => {
    if (gapStart === undefined) return;
    // A phase may last 30 days at most: a longer gap is several rows of whole periods.
    const chunk = Math.floor(MAX_PHASE_SECONDS / periodSeconds) * periodSeconds;
    for (let t = gapStart; t < until; t += chunk) {
      rows.push({
        start: t,
        durationSeconds: Math.min(chunk, until - t),
        ratePerSecond: 0,
        itemMs: carried,
        gap: true,
        itemSource: 'carried',
      });
    }
    gapStart = undefined;
  };
  starts.forEach((t, i) => {
    const sent = series.sent.get(t);
    const item = items[i];
    if (sent === undefined) {
      if (item !== undefined) carried = item.itemMs;
      gapStart ??= t;
      return;
    }
    // The gap before this period takes the item time known before it, not this period's.
    closeGap(t);
    if (item !== undefined) carried = item.itemMs;
    rows.push({
      start: t,
      durationSeconds: periodSeconds,
      ratePerSecond: sent / periodSeconds,
      itemMs: item?.itemMs ?? carried,
      observedAgeSeconds: series.age.get(t),
      observedConcurrency: series.concurrency.get(t),
      gap: false,
      itemSource: item?.source ?? 'carried',
    });
  });
  closeGap(end);
  return rows;
}

/** Why there is nothing to export: no arrivals recorded, or no consumer timing to give the items a time. */
export function checkHasData(
  series: TraceSeries,
  names: { queueName: string; functionName: string },
  range: Pick<TraceRange, 'start' | 'end'>,
): void {
  const between = `between ${isoSeconds(range.start)} and ${isoSeconds(range.end)}`;
  if (series.sent.size === 0)
    throw new OperatorError(
      `no data in range: queue ${names.queueName} has no AWS/SQS NumberOfMessagesSent datapoints ${between} (a queue idle for 6 hours stops reporting; check the queue, --region and the range)`,
    );
  if (series.duration.size === 0)
    throw new OperatorError(
      `no data in range: function ${names.functionName} has no AWS/Lambda Duration datapoints ${between}, so the items have no time: check that it is the queue's consumer`,
    );
}
