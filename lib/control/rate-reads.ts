import type { Datapoint, MetricSeries, QueueDepth } from './ports.ts';
import type { ControllerState } from './snapshot.ts';

/**
 * Which CloudWatch metrics a tick reads. The queue's age is the law's signal: read at every tick. The three rates
 * (messages sent, messages deleted, the consumer's Duration) size the need, the baselines and the saturation probe;
 * on a quiet queue (nothing sent or deleted in the newest period read, the queue empty at each tick since, the age
 * at or under target, no growth waiting for its verdict, no write since) they are all zero and stay so until
 * messages come, so the ticks reuse them for up to five minutes instead of paying for them again ($0.01 per 1,000
 * metrics: the three are $1.30 a month at one tick a minute, $0.26 on a queue quiet all month). A
 * reuse serves only a hold: a tick whose law would act on reused rates reads them afresh first (tick.ts). The
 * Lambda and the simulator both ask `ratesDue` and fill the reused series with `withRemembered`, so both see the
 * same inputs. On a busy queue nothing changes: every tick reads all four (measured, docs/controller.md, "What
 * each tick reads from CloudWatch, and why": reusing a busy queue's rates for a hold moved the figures past what this
 * saves).
 */

/** The rate series of one read, and whether the next tick may reuse them. Plain JSON. */
export interface RememberedRates {
  /** When they were read, epoch seconds. */
  readonly readAt: number;
  readonly messagesSent: readonly Datapoint[];
  readonly messagesDeleted: readonly Datapoint[];
  readonly consumerDurationMs: readonly Datapoint[];
  /** The queue was quiet at the last tick and nothing has written the limits since. */
  readonly reusable: boolean;
}

/**
 * A reuse reaches back at most this far: the rates are read afresh every five minutes at least, so a queue that
 * only looks empty at the ticks (a trickle served between them) is read as what it is, and the hour of baselines
 * the carried state takes from the rates stays current.
 */
export const MAX_RATES_REUSE_SECONDS = 300;

/** Whether this tick reads the rates afresh (true) or may reuse `remembered`'s. */
export function ratesDue(remembered: RememberedRates | undefined, now: number): boolean {
  if (remembered === undefined || !remembered.reusable) return true;
  const since = now - remembered.readAt;
  return !(since > 0 && since < MAX_RATES_REUSE_SECONDS);
}

/** The series a tick read without its rates, with the remembered ones (within the tick's window) in their place. */
export function withRemembered(
  series: MetricSeries,
  remembered: RememberedRates,
  from: number,
): MetricSeries {
  const partial = series.partial?.filter((name) => name === 'ageOfOldestMessage');
  const within = (points: readonly Datapoint[]) => points.filter((p) => p.timestamp >= from);
  return {
    ...series,
    messagesSent: within(remembered.messagesSent),
    messagesDeleted: within(remembered.messagesDeleted),
    consumerDurationMs: within(remembered.consumerDurationMs),
    ...(partial === undefined ? {} : { partial }),
    ratesReused: true,
  };
}

/**
 * What a tick leaves for the next: the rates it read afresh (`series`, with `readAt`), or the ones it reused
 * (`before`); reusable while the queue is quiet: its real-time depth empty at this tick (the reused rates cannot
 * say that), its rates and age quiet, no growth to judge; `forgetRates` when anything wrote.
 */
export function rememberRates(
  read: { readonly series: MetricSeries; readonly fresh: boolean; readonly depth: QueueDepth },
  before: RememberedRates | undefined,
  state: Pick<ControllerState, 'growthProbe'>,
  targetAgeSeconds: number,
  now: number,
): RememberedRates | undefined {
  const { series } = read;
  const kept = read.fresh
    ? {
        readAt: now,
        messagesSent: series.messagesSent,
        messagesDeleted: series.messagesDeleted,
        consumerDurationMs: series.consumerDurationMs,
      }
    : before;
  if (kept === undefined) return undefined;
  const empty = read.depth.visible + read.depth.inFlight + read.depth.delayed === 0;
  const quietNow = empty && quiet(series, targetAgeSeconds) && state.growthProbe === undefined;
  return { ...kept, reusable: quietNow && (read.fresh || (before?.reusable ?? false)) };
}

/** A write since the read (the tick's, a sample's growth): the next tick reads the rates afresh. */
export function forgetRates(remembered: RememberedRates | undefined): RememberedRates | undefined {
  return remembered === undefined ? undefined : { ...remembered, reusable: false };
}

/**
 * Nothing sent or deleted in the newest period of either (or no datapoint at all: SQS publishes nothing for an
 * inactive queue), no series partial, and the age at or under the target (or none).
 */
function quiet(series: MetricSeries, targetAgeSeconds: number): boolean {
  if ((series.partial ?? []).length > 0) return false;
  const age = newest(series.ageOfOldestMessage);
  const none = (points: readonly Datapoint[]) => (newest(points)?.value ?? 0) === 0;
  return (
    (age === undefined || age.value <= targetAgeSeconds) &&
    none(series.messagesSent) &&
    none(series.messagesDeleted)
  );
}

function newest(points: readonly Datapoint[]): Datapoint | undefined {
  let best: Datapoint | undefined;
  for (const p of points) if (best === undefined || p.timestamp > best.timestamp) best = p;
  return best;
}
