import { type DepthTrend, RATE_CHANGE_FACTOR } from './depth-trend.ts';
import type { FastPathContext } from './fast-context.ts';

/**
 * The arrival rate to size for, as in `decide`: the trend sizes a spike it proved; with the backlog confirmed
 * otherwise, the trend's estimate counts only where it differs from the reported rate beyond noise; unconfirmed,
 * the rate CloudWatch reported (none where it reported none).
 */
export function arrivalRateOf(
  context: FastPathContext,
  recent: DepthTrend | undefined,
  atLeast: number,
  proof: { readonly spike: boolean; readonly confirmed: boolean },
): number | undefined {
  const reported = context.reportedArrivals ?? 0;
  const tick = context.tickArrivals ?? 0;
  const estimate = recent?.arrivalsEstimate;
  if (proof.spike) return Math.max(reported, tick, estimate ?? 0, atLeast);
  const estimateCounts = estimate !== undefined && estimate > RATE_CHANGE_FACTOR * reported;
  // Unconfirmed, the estimate sizes too (the unconfirmed limit bounds what it buys) where the tick proved every
  // worker busy (a load outgrowing what runs since before the tick) and the depth still rises, and where CloudWatch
  // reported a rate to be above: with none, nothing sizes yet and slow start's proof decides. A burst onto idle
  // workers is not sized on it: on an API whose real limit is below the cap, growing at once to the limit doubled
  // the calls refused (downstream-at-limit: 11,108 → 22,184). A falling depth is being worked off: the backlog's
  // drain would grow past a need already met.
  if (!proof.confirmed) {
    const known = context.reportedArrivals;
    const outgrowing = context.provenBusy !== undefined && (recent?.arrivalsAtLeast ?? 0) > 0;
    return known !== undefined && estimateCounts && outgrowing ? Math.max(known, estimate) : known;
  }
  return Math.max(reported, tick, estimateCounts ? estimate : 0);
}
