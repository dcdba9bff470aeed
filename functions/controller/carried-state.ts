import type { ControllerHistory } from '../../lib/aws/metric-queries.ts';
import {
  type ControllerState,
  type Datapoint,
  type DepthSample,
  POLLER_SETTLE_SECONDS,
  type ScalerConfig,
} from '../../lib/control/index.ts';
import type { RememberedTick } from './tick-memory.ts';

/**
 * The carried state, rebuilt at every tick from what the tick reads: the law's CloudWatch series (the idle run, the
 * baselines), the applied value and the mapping's `LastModified`, and for the last change and the last depth
 * either this container's memory of the tick before (`tick-memory.ts`) or, on a cold start, the controller's own
 * published history in the same `GetMetricData` call: no table, no parameter, nothing a cold start, a duplicate
 * or a concurrent invocation can lose or race on. Each field is derived so that missing history errs towards
 * *not shrinking* (a scale-down that trusted missing metrics stopped workers mid-message: docs/aws-facts.md,
 * "SQS metrics"). The full design is in docs/controller.md.
 */
export interface StateEvidence {
  readonly now: number;
  readonly periodSeconds: number;
  readonly history: ControllerHistory;
  /** The concurrency applied now, as just read from Lambda (undefined: none set). */
  readonly applied: number | undefined;
  /** When the event source mapping was last modified (GetEventSourceMapping `LastModified`), where read. */
  readonly mappingModifiedAt?: number;
  /** This container's memory of the tick before; undefined: a cold start, and `history` holds the own metrics. */
  readonly remembered?: RememberedTick;
}

/** Fewer healthy periods than this and there is no per-item baseline: a median of one or two is an outlier. */
export const MIN_BASELINE_PERIODS = 3;

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function newest(points: readonly Datapoint[], before = Number.POSITIVE_INFINITY): Datapoint | undefined {
  let best: Datapoint | undefined;
  for (const p of points)
    if (p.timestamp < before && (best === undefined || p.timestamp > best.timestamp)) best = p;
  return best;
}

function complete(points: readonly Datapoint[], e: StateEvidence): Datapoint[] {
  return points.filter((p) => p.timestamp + e.periodSeconds <= e.now + 1e-9);
}

/**
 * Idle since: the unbroken run of idle age datapoints ending at the newest one. A missing period breaks the run
 * (missing is unknown, not idle). The run counts only the time the data covers, so `now - idleSince` is the
 * idleness actually observed, never the metric delay on top.
 */
export function idleSinceFrom(e: StateEvidence, config: ScalerConfig): number | undefined {
  if (e.history.series.partial?.includes('ageOfOldestMessage')) return undefined;
  const threshold = config.idleAgeFraction * config.targetAgeSeconds;
  const age = new Map(complete(e.history.series.ageOfOldestMessage, e).map((p) => [p.timestamp, p.value]));
  const last = newest([...age.keys()].map((timestamp) => ({ timestamp, value: 0 })));
  if (last === undefined) return undefined;
  let runStart: number | undefined;
  for (let t = last.timestamp; (age.get(t) ?? Number.POSITIVE_INFINITY) <= threshold; t -= e.periodSeconds) {
    runStart = t;
  }
  if (runStart === undefined) return undefined;
  const observed = last.timestamp + e.periodSeconds - runStart;
  return e.now - observed;
}

/**
 * The start of the newest period with a change the controller made: one it published a scale event for (after the
 * EMF delay), or, warm, the one it remembers.
 */
export function scaleEventPeriod(e: StateEvidence): number | undefined {
  const published = newest(e.history.scaleEvents.filter((p) => p.value > 0))?.timestamp;
  const at = e.remembered?.lastChangeAt;
  const remembered = at === undefined ? undefined : Math.floor(at / e.periodSeconds) * e.periodSeconds;
  if (published === undefined || remembered === undefined) return published ?? remembered;
  return Math.max(published, remembered);
}

/** The newest recorded change: the mapping's `LastModified` (exact, read this tick) or a `ScaleEvents` period. */
export function lastRecordedChange(e: StateEvidence): number | undefined {
  // The write lands a second or so into the tick that made it; the next tick, one period after that tick's
  // start, would see 59-odd seconds and miss the one-minute shrink spacing every other time. The change belongs
  // to its tick's period: count it from the period's start (ScaleEvents is stamped that way already).
  const modifiedPeriod =
    e.mappingModifiedAt === undefined
      ? undefined
      : Math.floor(e.mappingModifiedAt / e.periodSeconds) * e.periodSeconds;
  const candidates = [scaleEventPeriod(e), modifiedPeriod].filter((v): v is number => v !== undefined);
  return candidates.length === 0 ? undefined : Math.max(...candidates);
}

/**
 * The last change. If the applied value is not one the tick before left (remembered, or the controller's newest
 * `AppliedConcurrency` period), a change happened that neither shows (a tick moments ago, or a hand edit): it
 * counts as now, so the shrink spacing restarts. With no published history at all the spacing cannot be proven:
 * also now.
 */
export function lastChangeFrom(e: StateEvidence): number | undefined {
  const recorded = lastRecordedChange(e);
  if (e.applied === undefined) return recorded;
  if (e.remembered !== undefined) return e.remembered.applied === e.applied ? recorded : e.now;
  const min = newest(e.history.appliedMin);
  const max = newest(e.history.appliedMax);
  const unseen = min === undefined || max === undefined || e.applied < min.value || e.applied > max.value;
  return unseen ? e.now : recorded;
}

/** Per-item seconds and the arrival rate for each complete period where the consumer both ran and deleted. */
function itemPeriods(e: StateEvidence): { timestamp: number; itemSeconds: number; arrivalRate?: number }[] {
  const s = e.history.series;
  const bad = new Set(s.partial ?? []);
  if (bad.has('consumerDurationMs') || bad.has('messagesDeleted')) return [];
  const deleted = new Map(s.messagesDeleted.map((p) => [p.timestamp, p.value]));
  const sent = bad.has('messagesSent')
    ? new Map()
    : new Map(s.messagesSent.map((p) => [p.timestamp, p.value]));
  const out = [];
  for (const d of complete(s.consumerDurationMs, e)) {
    const done = deleted.get(d.timestamp);
    if (done === undefined || done <= 0 || d.value <= 0) continue;
    const arrived = sent.get(d.timestamp);
    out.push({
      timestamp: d.timestamp,
      itemSeconds: d.value / 1000 / done,
      arrivalRate: arrived === undefined ? undefined : arrived / e.periodSeconds,
    });
  }
  return out.sort((a, b) => a.timestamp - b.timestamp);
}

/**
 * Baselines: the median over the periods before the newest one (which `observe` reports as the current per-item
 * time). A median over the window ignores a few slow periods, so a slowdown that began minutes ago stands out;
 * one that lasts more than half the window becomes the new normal, and the controller grows again.
 */
export function baselinesFrom(
  e: StateEvidence,
): Pick<ControllerState, 'baselineItemSeconds' | 'baselineArrivalRate'> {
  const periods = itemPeriods(e).slice(0, -1);
  if (periods.length < MIN_BASELINE_PERIODS) return {};
  const rates = periods.map((p) => p.arrivalRate).filter((v): v is number => v !== undefined);
  return {
    baselineItemSeconds: median(periods.map((p) => p.itemSeconds)),
    baselineArrivalRate: rates.length >= MIN_BASELINE_PERIODS ? median(rates) : undefined,
  };
}

/**
 * The visible depth at the tick before, when that tick took it: remembered by this container (a cold start has
 * none: the depth trend starts at the next tick). The sample is `settled: false` when the applied value changed
 * within the pollers' settling time before it or at any time after it (the mapping's exact LastModified, or a
 * change period that reaches that far): the law then estimates the arrivals from it with the workers the messages
 * in flight show at both samples (lib/control/depth-trend.ts), else takes only their lower bound. It is
 * `settled: true` where that tick's own write lowered a settled value and nothing changed since.
 */
export function lastVisibleFrom(e: StateEvidence): ControllerState['lastVisible'] {
  const sample = e.remembered?.lastVisible;
  if (sample === undefined || !(sample.at < e.now)) return undefined;
  const changed = changedSince(e, sample.at - POLLER_SETTLE_SECONDS);
  // The tick that took the sample lowered a settled value (lib/control/depth-sample.ts, `loweredAtOnce`): its own
  // write is the change, and it binds at once, so long as this container knew the pollers settled before it (to
  // the second), saw no change after it, and the value is still the one it left.
  const remembered = e.remembered;
  const loweredAtOnce =
    sample.settled === true &&
    remembered?.wroteOnSettled === true &&
    remembered.lastChangeAt === sample.at &&
    remembered.applied === e.applied;
  return {
    ...copied(sample),
    ...(loweredAtOnce ? { settled: true } : changed ? { settled: false } : {}),
  };
}

/** A change shows after `from`: the mapping's exact LastModified, or a change period that reaches that far. */
function changedSince(e: StateEvidence, from: number): boolean {
  const change = scaleEventPeriod(e);
  return (
    (e.mappingModifiedAt !== undefined && e.mappingModifiedAt > from) ||
    (change !== undefined && change + e.periodSeconds > from)
  );
}

/**
 * The last sample between ticks with no backlog (lib/control/quiet-sample.ts), as this container's loop took it: only
 * where nothing changed within the pollers' settling time before it or since, to the second (this container's own
 * growth, the mapping's LastModified, a change period) and the value is still the one this container left; a cold
 * start has none, and the tick reads over its whole minute.
 */
export function lastQuietFrom(e: StateEvidence): ControllerState['lastQuiet'] {
  const remembered = e.remembered;
  const sample = remembered?.lastQuiet;
  if (remembered === undefined || sample === undefined || !(sample.at < e.now)) return undefined;
  const from = sample.at - POLLER_SETTLE_SECONDS;
  const ownChange = remembered.lastChangeAt !== undefined && remembered.lastChangeAt > from;
  if (ownChange || changedSince(e, from) || remembered.applied !== e.applied) return undefined;
  return copied(sample);
}

/** A remembered sample's figures, no more: what the law reads of it is re-derived here. */
function copied(sample: DepthSample): DepthSample {
  return {
    at: sample.at,
    messages: sample.messages,
    ...(sample.inFlight === undefined ? {} : { inFlight: sample.inFlight }),
  };
}

export function deriveState(e: StateEvidence, config: ScalerConfig): ControllerState {
  const lastChangeAt = lastChangeFrom(e);
  return {
    idleSince: idleSinceFrom(e, config),
    lastChangeAt,
    ...baselinesFrom(e),
    lastVisible: lastVisibleFrom(e),
    lastQuiet: lastQuietFrom(e),
    ...e.remembered?.saturation,
  };
}
