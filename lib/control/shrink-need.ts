import { type Load, maxDefined } from './load.ts';
import { steadyNeed } from './need.ts';
import { rateUpperBound } from './rate-bounds.ts';

/**
 * The need a shrink must still cover: the busiest period of the scale-down window, at the most its count leaves
 * plausible, so one quiet sample or a low count cannot undo a need. The trend's estimate counts too: the age it
 * read as idle is idle only at that rate. Undefined: unknown, and missing data never shrinks.
 */
export function shrinkNeedOf(load: Load): number | undefined {
  const { snapshot, steady, itemSeconds } = load;
  // Known without a per-item time only when nothing arrives: 0.
  if (steady === undefined || itemSeconds === undefined) return steady;
  const busiest =
    maxDefined(load.estimate, load.arrivalRate, load.measuredArrivals, snapshot.peakArrivalRatePerSecond) ??
    0;
  return steadyNeed(rateUpperBound(busiest, snapshot.ratePeriodSeconds), itemSeconds, load.config);
}
