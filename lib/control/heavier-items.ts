import type { ScalerConfig } from './config.ts';
import { itemSecondsShown, type TrendInput } from './depth-trend.ts';
import { steadyNeed } from './need.ts';
import { rateUpperBound } from './rate-bounds.ts';

/**
 * Heavier items shown by the real-time depth, two minutes before CloudWatch's Duration shows them: the seed's
 * "the downstream got slower" is decided on evidence (lib/control/saturation.ts), and until that evidence comes
 * heavier items are work. The tick's law sizes on it (load.ts) and hands it to the fast path between ticks as its
 * per-item time. The fast path does not look for it itself: its growth records no probe, so a saturated pool
 * grown into between ticks would never be judged and taken back (tried: the simulator's saturated pool then kept
 * its workers past the pool).
 */

/** The per-item time the depth showed, and the completions the workers gave at it (what a growth is judged against). */
export interface HeavierShown {
  readonly itemSeconds: number;
  readonly completionsPerSecond: number;
}

/** What the reader knows besides the depth: CloudWatch's per-item time and arrivals, however late. */
export interface KnownLoad {
  /** The per-item time the reader sizes on now (CloudWatch's, else its baseline). */
  readonly itemSeconds?: number;
  /** The busiest arrival rate CloudWatch reported over the window. */
  readonly reportedArrivals?: number;
}

/**
 * The per-item time the depth shows over the interval `input` describes, where it is heavier than the known one by
 * more than `slowdownFactor` (the law's own "slower"); undefined otherwise. Guards, each from a run that went wrong
 * without it:
 * - λ is the busiest rate the interval's arrivals leave plausible (the reported rate's upper bound over the
 *   interval's length): arrivals that merely vary, a trace's busy minute after quiet ones, are not heavier items;
 * - the applied value is at most one above what that rate needs at the known time: workers grown for a burst
 *   CloudWatch has not reported yet (the fast path) make a rise that says the arrivals are still above them, not
 *   that the items got heavier (a trace: 8 workers for 0.9/s reported, 4.8/s arriving, read as 53 s items);
 * - one settled applied value served the whole interval (`itemSecondsShown`).
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
  const busiest = rateUpperBound(reportedArrivals, elapsed);
  const sizedForReported = Math.max(
    config.minConcurrency,
    Math.ceil(steadyNeed(busiest, itemSeconds, config)),
  );
  if (input.applied > sizedForReported + 1) return undefined;
  const shown = itemSecondsShown(input, busiest);
  if (shown === undefined || shown.itemSeconds <= config.slowdownFactor * itemSeconds) return undefined;
  return { itemSeconds: shown.itemSeconds, completionsPerSecond: shown.servedPerSecond };
}
