import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { sampleAt } from './depth-sample.ts';
import { type DepthSample, workersProvenBusy } from './depth-trend.ts';
import { drainCeiling, steadyNeed, UNJUDGED_GROWTH_FACTOR } from './need.ts';
import { pollersStepped } from './pollers-stepped.ts';
import type { ServedRise } from './served-rises.ts';
import type { HeldRise, ServiceFit } from './service-fit.ts';
import type { QueueSnapshot } from './snapshot.ts';

/**
 * What a fast-path sample carries: the tick's reading that starts the loop (`fastPathContext`), then what each
 * sample of `decideFast` adds to it for the next.
 */

/** What a sample needs from the tick that started the loop, updated by every sample. */
export interface FastPathContext {
  /** The concurrency applied now: the tick's reading, then this loop's own writes. */
  readonly applied: number;
  /**
   * The concurrency the tick left: unconfirmed growth is measured from it when no confirmed need is known, so
   * six samples a minute cannot compound the limit (2 → 3 → 4 → 6 → 9 … within one minute).
   */
  readonly tickApplied: number;
  /** When it last changed (the pollers need up to a minute to reach a raised maximum). */
  readonly lastChangeAt?: number;
  /** The tick's depth sample: the long baseline of the trend. */
  readonly tickSample?: DepthSample;
  /** The previous sample of this loop (or the tick's). */
  readonly previous?: DepthSample;
  /** Arrivals per second CloudWatch last reported (the busiest recent period). */
  readonly reportedArrivals?: number;
  /** The arrival rate the tick sized for (the trend's, where it confirmed a spike). */
  readonly tickArrivals?: number;
  /** The per-item time the tick used. */
  readonly itemSeconds?: number;
  /** The need CloudWatch's confirmed data supports: what unconfirmed growth is measured against. */
  readonly confirmedNeed?: number;
  /**
   * The tick's applied value, where its depth sample proved every applied worker busy (`workersProvenBusy`):
   * unconfirmed growth is measured from it as from the confirmed need.
   */
  readonly provenBusy?: number;
  /** The tick found the backlog confirmed by CloudWatch itself. */
  readonly confirmed: boolean;
  /**
   * Nothing may grow: a pause, a saturated downstream (or the verdict on the last growth pending), the downstream's
   * health signal past its threshold, nothing bounding the consumer, or no tick decision.
   */
  readonly frozen?: 'paused' | 'downstream-saturated' | 'downstream-unhealthy' | 'unbounded';
  /** This loop saw the depth rise at the applied value, held (`roseWithAppliedHeld`); cleared by a growth. */
  readonly roseAtApplied?: boolean;
  /** The depth fell after it rose at an unchanged value: a burst ended; cleared when the depth rises again. */
  readonly burstEnded?: boolean;
  /** The last rise of the depth this loop measured over an interval the applied value held through. */
  readonly lastRise?: HeldRise;
  /** This loop's last rises with the workers that served them (served-rises.ts): what a growth bought. */
  readonly servedRises?: readonly ServedRise[];
  /**
   * This loop saw the depth rise with the applied value held and every worker busy (`roseWithAppliedHeld`), at any
   * value: unlike `roseAtApplied`, a growth does not clear it. A fall after it that no fit judges may be a burst's end.
   */
  readonly roseBusySince?: boolean;
  /**
   * The per-worker service and the arrivals two rises fitted (`fittedService`), kept from the slow-start step that
   * used them: a later fall is judged against them (did the arrivals end?) without waiting for another rise.
   */
  readonly serviceFit?: ServiceFit;
  /** The mapping's BatchSize as the tick read it: what makes a worker busy (`busyMessagesPerWorker`). */
  readonly batchSize?: number;
  /**
   * Where growth no steady need sizes stops (`drainCeiling` of the scaler's own cap), kept from the tick: a budget's
   * member samples under a cap lowered to what the budget leaves free, which is no measure of its downstream.
   */
  readonly drainCeiling?: number;
  /** The last sample of this loop with no backlog (quiet-sample.ts): the next tick reads a rise from it. */
  readonly quiet?: DepthSample;
  /**
   * Where every growth of this loop stops when the tick sized on a per-item time it read off the depth and did not
   * grow on it itself (below the setpoint): no probe judges the samples' growth (`UNJUDGED_GROWTH_FACTOR`).
   */
  readonly unjudgedLimit?: number;
  /**
   * The tick's saturation ceiling (lib/control/saturation.ts), while it holds: growth between ticks stops there
   * too, slow start's included. Unbounded, the samples grew 12 → 30 within a minute of a back-off on an API's
   * refusals (held-out api-over-limit), and the refusals came back with them.
   */
  readonly saturationCeiling?: number;
  /**
   * The value the last growth started from (this loop's, or the tick's own): executions that still fit in its full
   * batches may not have followed the growth, and a rise over such an interval is not recorded as the new value's
   * (`executionsAtGrownFrom`).
   */
  readonly grownFrom?: number;
}

/**
 * What unconfirmed growth is measured from, once per tick: the need CloudWatch confirmed, or the workers the tick's
 * depth proved busy where that is more (`workersProvenBusy`), else the tick's applied value.
 */
export function unconfirmedBase(context: FastPathContext): number {
  const { confirmedNeed, provenBusy } = context;
  if (confirmedNeed === undefined) return context.tickApplied;
  return Math.max(confirmedNeed, provenBusy ?? 0);
}

/**
 * The tick found the downstream saturated, or waits for the verdict on what its last growth bought: no growth
 * between ticks either (lib/control/saturation.ts).
 */
const SATURATION_HOLDS: ReadonlySet<string> = new Set([
  'hold:downstream-saturated',
  'shrink:downstream-saturated',
  'hold:probing',
]);

/** The fast path's starting point, from the tick's snapshot and decision (pure). */
export function fastPathContext(
  snapshot: QueueSnapshot,
  decision: Decision,
  appliedAfter: number,
  config: ScalerConfig,
): FastPathContext {
  const itemSeconds = decision.inputs.fastItemSeconds ?? decision.inputs.itemSeconds;
  const reported =
    snapshot.arrivalRatePerSecond === undefined && snapshot.peakArrivalRatePerSecond === undefined
      ? undefined
      : Math.max(snapshot.arrivalRatePerSecond ?? 0, snapshot.peakArrivalRatePerSecond ?? 0);
  const sample =
    snapshot.visibleMessages === undefined
      ? undefined
      : sampleAt(snapshot.now, snapshot.visibleMessages, snapshot.inFlightMessages);
  const frozen =
    decision.reason === 'hold:paused'
      ? 'paused'
      : SATURATION_HOLDS.has(decision.reason)
        ? 'downstream-saturated'
        : decision.downstreamUnhealthy
          ? 'downstream-unhealthy'
          : Number.isFinite(appliedAfter)
            ? undefined
            : 'unbounded';
  return {
    applied: appliedAfter,
    tickApplied: appliedAfter,
    lastChangeAt: decision.state.lastChangeAt,
    tickSample: sample,
    previous: sample,
    reportedArrivals: reported,
    tickArrivals: decision.inputs.arrivalRatePerSecond,
    itemSeconds,
    confirmedNeed:
      reported === undefined || itemSeconds === undefined
        ? undefined
        : steadyNeed(reported, itemSeconds, config),
    provenBusy: workersProvenBusy(
      { messages: snapshot.visibleMessages, inFlight: snapshot.inFlightMessages },
      snapshot.appliedConcurrency,
      snapshot.batchSize,
    ),
    confirmed: decision.inputs.confirmed ?? false,
    frozen,
    batchSize: snapshot.batchSize,
    drainCeiling: drainCeiling(config),
    unjudgedLimit: unjudgedLimitOf(snapshot, decision, itemSeconds, appliedAfter),
    ...(decision.state.saturation === undefined
      ? {}
      : { saturationCeiling: decision.state.saturation.ceiling }),
    ...(appliedAfter > snapshot.appliedConcurrency ? { grownFrom: snapshot.appliedConcurrency } : {}),
  };
}

/**
 * Where the tick sized on a time the depth showed and its own growth, if any, is not judged either: it did not grow
 * (`UNJUDGED_GROWTH_FACTOR` × the value), or grew ahead of the age, unprobed, to at most that limit of the value it
 * found (lib/control/load.ts, `ageWhenGrowthBinds`), which the samples keep.
 */
function unjudgedLimitOf(
  snapshot: QueueSnapshot,
  decision: Decision,
  itemSeconds: number | undefined,
  appliedAfter: number,
): number | undefined {
  const { inputs } = decision;
  if (inputs.itemSecondsShown !== true || itemSeconds !== inputs.itemSeconds) return undefined;
  if (inputs.grownAhead === true) return Math.floor(UNJUDGED_GROWTH_FACTOR * snapshot.appliedConcurrency);
  return decision.reason.startsWith('grow:') ? undefined : Math.floor(UNJUDGED_GROWTH_FACTOR * appliedAfter);
}

/**
 * The rises the loop of the tick before (`before`, its last context) measured, carried into the one this tick starts,
 * and, where the tick left the value as the samples did, the value their last growth started from. Only between
 * loops of one regime: both without a per-item time (slow start's evidence) or both with one (what a growth bought,
 * served-rises.ts); a rise measured at another per-item time says nothing of this one's load.
 * Slow start's: a burst the tick falls inside of is then read as one that started on a tick is, where the loop runs
 * the minute through: without it the first rise after the tick fits nothing, and the first fall at the doubled value
 * reads as a fan-out's end. Worked example (idle-then-burst, 800/s of 15 ms items after 20 quiet minutes, the
 * controller's ticks 30 s into the minute): 2 → 4 → 8 at the samples 10 s and 20 s in; the tick holds (settling);
 * 8 → 16 at 40 s on a rise at 8; at 50 s 14 run and the depth falls 109/s: read as an end, the doubling 16 → 28
 * (dominated by provisioned mode's 18 on every seed); with the rise at 4 carried, 8 → 16 fits 60/s a worker and
 * 815/s arriving, and the fall at 50 s is that fit's, not an end: 16 holds.
 * What a growth bought: items heavier 25 s into a minute, a growth at the tick, and the rise before the tick is the
 * growth's first point (held-out heavier-off-minute: the fit sizes the items from it, where the tick's next minute,
 * unsettled by its own growth, could not).
 * A fit and a burst's end judged before the tick stay there; a busy rise goes on only where no fit judged it
 * (`busyRiseCarried`). Carried too, a fit made while the pollers stepped once a minute (rises recorded at 4 and 8
 * while at most 5 ran: 6.6/s a worker for 80 ms items' 12.5/s) read the first fall after the tick as cold-steady's
 * end, 16 → 28, on 4 seeds of 5.
 */
export function withRisesCarried(
  context: FastPathContext,
  before: FastPathContext | undefined,
): FastPathContext {
  if (before === undefined || (context.itemSeconds === undefined) !== (before.itemSeconds === undefined))
    return context;
  if (context.frozen !== undefined || before.frozen !== undefined) return context;
  const unchanged =
    context.applied === before.applied &&
    context.grownFrom === undefined &&
    context.lastChangeAt === before.lastChangeAt;
  return {
    ...context,
    ...(before.lastRise === undefined ? {} : { lastRise: before.lastRise }),
    ...(before.servedRises === undefined ? {} : { servedRises: before.servedRises }),
    ...(unchanged && before.grownFrom !== undefined ? { grownFrom: before.grownFrom } : {}),
    ...(unchanged && busyRiseCarried(context, before) ? { roseBusySince: true } : {}),
  };
}

/**
 * Slow start's busy rise (`roseBusySince`) is carried over a tick that left the value as the samples did, where no
 * fit judges a fall by (`serviceFit`) and the pollers did not step up between the loop's last sample and the tick's
 * (`pollersStepped`): a fall after the tick is then read as a burst's end, as within one loop. Without it a fan-out
 * that rose before the tick and fell after it was read as nothing: held-out fan-out (60,000 messages of 10 ms items
 * in 20 s after half an hour of silence, the ticks 30 s into the minute) rose at 2 busy workers, grew 2 → 4, and after
 * the tick the fall was the first sample of a new loop: 4 workers for three minutes, 2.94 × the target (1.43 ×
 * carried). Neither the fit nor a rise the pollers' step made is carried: a fit made while fewer ran than applied (one
 * poller step a minute), or with the step between the two samples, read the growth working as a burst's end
 * (cold-steady-light, 400/s of 25 ms items: 16 → 28 on every seed).
 */
function busyRiseCarried(context: FastPathContext, before: FastPathContext): boolean {
  if (context.itemSeconds !== undefined || before.roseBusySince !== true || before.serviceFit !== undefined)
    return false;
  const { tickSample } = context;
  return tickSample !== undefined && !pollersStepped(before.previous, tickSample, before);
}
