import { type DepthSample, settledThrough } from './depth-sample.ts';
import { BACKLOG_MESSAGES_PER_WORKER } from './depth-trend.ts';
import type { HeavierShown } from './heavier-items.ts';
import type { ControllerState } from './snapshot.ts';

/**
 * Where a rise of the depth began within the minute. The tick reads the per-item time the depth shows
 * (heavier-items.ts) as the workers' service over the interval since the previous tick, as if the depth rose through
 * all of it; items that got heavier in the middle of the minute fill half of it, and the reading calls them half as
 * heavy as they are. The samples between ticks see where the rise began: the last one with no backlog waiting. Over
 * the interval from it, one applied value held through, the tick reads the rise alone, where that interval counted
 * enough messages to say it (`countedEnough`).
 * Worked example (held-out heavier-mid-minute, seed 1: 350/s, 7 workers, items 15 → 45 ms at 630 s): from the
 * previous tick (600 s: 3 waiting) the tick at 660 s reads 5,939 risen in 60 s, so the 7 served 252/s: 27 ms. From
 * the last sample with no backlog (630 s) it reads 5,934 in 30 s, 159/s served: 44 ms, a need of 18 rather than 11.
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
 * Where the tick's reading of the per-item time may start instead of the previous tick's sample: the last sample
 * between ticks with no backlog, where it is newer than the previous tick's and the applied value held through the
 * interval from it (a growth since makes it no start: the workers after it served part of the interval).
 */
export function quietStart(state: ControllerState): DepthSample | undefined {
  const { lastQuiet: quiet, lastVisible: tick, lastChangeAt } = state;
  if (quiet === undefined || tick === undefined || !(quiet.at > tick.at)) return undefined;
  return settledThrough(quiet, lastChangeAt) ? quiet : undefined;
}

/**
 * The depth rose at least as fast as CloudWatch's count of the arrivals since the last sample between ticks that
 * found no backlog: the arrivals rose within the minute (no heavier item makes the depth outrun what arrives), and a
 * reading over the tick's whole minute would spread that rise over it and call it heavier items.
 * Worked example (sawtooth, one poller step a minute, tick 10 s into it: 100 → 600/s of 21 ms items): 4,608 waited
 * 10 s after a quiet sample, 461/s against 100/s counted; over the minute, 77/s, read as 113 ms items, and the
 * samples sized on that grew 16 → 32 for a need of 14.
 */
export function arrivalsRoseSince(
  start: DepthSample | undefined,
  tick: {
    readonly now: number;
    readonly reportedArrivals?: number;
    readonly snapshot: { readonly visibleMessages?: number };
  },
): boolean {
  const { now, reportedArrivals: reported } = tick;
  const visible = tick.snapshot.visibleMessages;
  if (start === undefined || reported === undefined || visible === undefined || !(now > start.at))
    return false;
  return (visible - start.messages) / (now - start.at) >= reported;
}

/**
 * The completions a reading counts over its interval, against the arrivals' noise over it (Poisson: √(λ·T)). The
 * workers' service is what arrived less the rise, so that noise is all its error; counted over the few seconds since a
 * quiet sample at a low rate it is most of it: a trace at 0.8/s reported, 16 more waiting 10 s on, read as items
 * 18 × heavier (2 → 31 workers), and at 2.9/s, 24 more, as 1.6 × (5 → 10). Over the rise alone a reading counts at
 * least `NOISE_MULTIPLE` × that noise, else the tick reads over its minute.
 * Worked example (heavier-mid-minute: 350/s, 30 s since the quiet sample): 159/s served count 4,770 against 4 ×
 * √10,500 ≈ 410: read. The trace at 2.9/s over 10 s: 16 against 4 × 5.4: not read.
 */
export const NOISE_MULTIPLE = 4;

export function countedEnough(
  shown: HeavierShown,
  start: DepthSample | undefined,
  now: number,
  reportedArrivals: number | undefined,
): boolean {
  if (start === undefined || reportedArrivals === undefined) return false;
  const seconds = now - start.at;
  return shown.completionsPerSecond * seconds >= NOISE_MULTIPLE * Math.sqrt(reportedArrivals * seconds);
}
