/**
 * The depth's rises with the workers that served them, counted off the messages in flight rather than the applied
 * value, and what two of them at different numbers of workers say of the items: issue 29's evidence that throughput
 * follows concurrency, read between ticks. Pure.
 *
 * A rise of the depth at one per-item time says nothing by itself: heavier items (the workers serve fewer) and a
 * step in arrivals CloudWatch has not counted yet (more arrive) rise alike, and the depth cannot tell them apart
 * (lib/control/heavier-items.ts). A growth can: with the arrivals unchanged, each added worker takes the rise down by
 * what one worker serves, so two rises at two numbers of running workers fit the per-worker service, hence the
 * per-item time (`fittedService`). Heavier items fit a time above the known one; a step in arrivals fits the known
 * time; a saturated downstream fits nothing (more workers, no less rise).
 */

import type { ScalerConfig } from './config.ts';
import {
  BACKLOG_MESSAGES_PER_WORKER,
  DEPTH_NOISE_MESSAGES,
  type DepthSample,
  RATE_CHANGE_FACTOR,
  workersRunning,
} from './depth-trend.ts';
import { needWithBacklog, UNJUDGED_GROWTH_FACTOR } from './need.ts';
import { fittedService, type ServiceFit } from './service-fit.ts';

/** A rise of the depth per second over an interval, and the workers its messages in flight showed at its two ends. */
export interface ServedRise {
  /** When the sample that ended the interval was taken. */
  readonly at: number;
  readonly perSecond: number;
  /** The interval's length. */
  readonly seconds: number;
  /** The fewest workers running at either end: at least these served the whole interval. */
  readonly fewest: number;
  /** The applied value through the interval: no more than these can have served it. */
  readonly applied: number;
}

/** The rises a loop keeps: a minute of samples. */
export const SERVED_RISES_KEPT = 6;

/**
 * The rise from `previous` to `sample`, where the depth rose beyond its noise and a backlog waited at both ends for
 * every worker running (each busy, so the depth's course is the arrivals less what they served); undefined else.
 */
export function servedRiseOf(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  batchSize: number | undefined,
): ServedRise | undefined {
  if (previous === undefined || !(sample.at > previous.at)) return undefined;
  if (!(sample.messages - previous.messages > DEPTH_NOISE_MESSAGES)) return undefined;
  const atStart = workersRunning(applied, previous.inFlight, batchSize);
  const atEnd = workersRunning(applied, sample.inFlight, batchSize);
  if (atStart === undefined || atEnd === undefined) return undefined;
  if (previous.messages < BACKLOG_MESSAGES_PER_WORKER * Math.max(atStart, atEnd)) return undefined;
  const seconds = sample.at - previous.at;
  const perSecond = (sample.messages - previous.messages) / seconds;
  return { at: sample.at, perSecond, seconds, fewest: Math.min(atStart, atEnd), applied };
}

/** `rises` with `rise` added, the oldest dropped past `SERVED_RISES_KEPT`. */
export function withServedRise(
  rises: readonly ServedRise[] | undefined,
  rise: ServedRise | undefined,
): readonly ServedRise[] | undefined {
  if (rise === undefined) return rises;
  return [...(rises ?? []), rise].slice(-SERVED_RISES_KEPT);
}

/** A fit of heavier items: the per-worker service and arrivals, and the workers the growth it judged reached. */
export interface HeavierFit extends ServiceFit {
  /** The fewest workers running over the later rise. */
  readonly running: number;
  /** The workers the growth added between the two rises, as counted (the smallest gap they allow). */
  readonly step: number;
}

/**
 * Items heavier than the known per-item time, proven by a growth that bought throughput: the latest earlier rise at
 * fewer workers than `now`'s, within `maxApartSeconds` of it, and `now` fit a per-worker service whose per-item time
 * exceeds `slowerBy` × the known one even as the lightest the two rises allow. Arrivals come at random (a Poisson
 * count over each interval), so the fall between the two rises is judged against two standard deviations of it:
 * - a fall within them is no proof the growth bought anything: a pool at its limit (downstream-slowing: 20
 *   connections, 250/s of 60–80 ms items) gives a rise of 3–9/s at 21 workers and of 8–30/s at 14–19, and fits on
 *   it sized 19 → 21 → 25 for a pool of 20;
 * - beyond them, the service is taken as the fall plus them (the lightest items the rises allow): a fall of 4/s
 *   between two rises of a 520/s step read as 244 ms items for 26 ms and grew 13 → 28 onto an API at its rate.
 * The workers are counted so that the gap between them is the smallest: the earlier rise's at its applied value (no
 * more can have run; the messages in flight miss a worker between two batches), this one's at the fewest its
 * messages in flight showed (the pollers may not have reached a raised value: a rise "at 8" while 5 ran fitted
 * 850 ms items for 90 ms). The latest earlier rise measures what the last growth bought, not an average over
 * growths some of which a saturating downstream took and some not.
 * Worked example (heavier-items, 400/s, items 10 → 30 ms, 10 s poller steps): +248/s with 5 running; grown to 7,
 * +181/s with 7 running through: a fall of 67/s against a noise of 2 × √(88.1 + 88.1) = 26.5/s (the arrivals the
 * known time would give: 181 + 7 ÷ 0.01); 46.8/s a worker at the most, 21 ms (2.1 × the known 10 ms); 509/s
 * arriving.
 */
export function heavierItemsFitted(
  rises: readonly ServedRise[] | undefined,
  now: ServedRise,
  known: {
    readonly itemSeconds: number;
    readonly slowerBy: number;
    readonly maxApartSeconds: number;
    /** The arrivals CloudWatch last reported: the noise is at least theirs. */
    readonly reportedArrivals?: number;
  },
): HeavierFit | undefined {
  const earlier = (rises ?? []).filter(
    (r) => r.at < now.at && now.at - r.at <= known.maxApartSeconds && r.applied < now.fewest,
  );
  const below = earlier.at(-1);
  if (below === undefined) return undefined;
  const measured = fittedService(
    { applied: below.applied, perSecond: below.perSecond },
    { applied: now.fewest, perSecond: now.perSecond },
  );
  if (measured === undefined) return undefined;
  // The noise of the busier reading: the arrivals CloudWatch reported, or what the rise says at the known time.
  const arrivals = Math.max(known.reportedArrivals ?? 0, now.perSecond + now.fewest / known.itemSeconds);
  const noise = 2 * Math.sqrt(arrivals / below.seconds + arrivals / now.seconds);
  const gap = now.fewest - below.applied;
  if (!(measured.perWorker * gap > noise)) return undefined;
  const perWorker = measured.perWorker + noise / gap;
  if (!(1 / perWorker > known.slowerBy * known.itemSeconds)) return undefined;
  if (!consistentWithCount(measured, below, now, known.reportedArrivals)) return undefined;
  return { perWorker, arrivals: now.perSecond + now.fewest * perWorker, running: now.fewest, step: gap };
}

/**
 * CloudWatch's count of the arrivals is the check on a fit, which takes them as held between its two rises. Not
 * where the last growth bought less a worker, by more than a change of rate, than the workers serve on average at
 * the counted arrivals, at either rise: returns diminishing (a downstream at its knee), or the arrivals climbing
 * between the rises (diurnal's afternoon, 651/s counted: a growth 13 → 17 took the rise down by 31/s, 7.75/s a
 * worker, where the 17 served 36.5/s each on average; read as items 3.5 × heavier, it sized 17 → 28). At such a
 * marginal time the need has no bound. The earlier rise's average counts too: a pool of 10 whose queries slowed to
 * 60 ms under 200/s (held-out sick-pool) served 83/s with 5 workers, 16.7 each, and 167/s with 15, 11.1 each; the
 * growth bought 8.4/s a worker, within a change of rate of the later average but half the earlier one, and fits on
 * it took the samples 15 → 25 → 30 on 10 connections. Nor where the fit's arrivals exceed the count by more than a
 * change of rate: the two rises saw two loads.
 */
function consistentWithCount(
  fit: ServiceFit,
  below: ServedRise,
  now: ServedRise,
  reported: number | undefined,
): boolean {
  if (reported === undefined || !(reported > 0)) return true;
  const average = Math.max(
    (reported - now.perSecond) / now.fewest,
    (reported - below.perSecond) / below.applied,
  );
  return fit.perWorker >= average / RATE_CHANGE_FACTOR && fit.arrivals <= RATE_CHANGE_FACTOR * reported;
}

/**
 * What heavier items a growth proved need: the fitted arrivals at the fitted per-item time, with the backlog's drain
 * (`needWithBacklog`), at most `UNJUDGED_GROWTH_FACTOR` × the step it was fitted on past the workers that ran: a
 * downstream that gives each growth less may have room for the step fitted and none for the need sized on it, and
 * the next fit judges the next step. Sized at once, it took a pool of 20 (downstream-saturated: queries 20 → 100 ms
 * at 300/s) 9 → 18 → 28 within a minute, each growth buying its share up to the pool, and the tick's probe, from
 * 28, could not take it back under that.
 */
export function heavierFitNeed(
  fit: HeavierFit,
  visible: number,
  config: ScalerConfig,
  ceiling: number,
): number {
  const need = needWithBacklog(fit.arrivals, 1 / fit.perWorker, visible, config, ceiling);
  return Math.min(need, fit.running + UNJUDGED_GROWTH_FACTOR * fit.step);
}
