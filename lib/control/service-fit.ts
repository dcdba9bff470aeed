/**
 * The service a worker gives, fitted from the depth's rises at two applied values, and what a later fall says of it:
 * slow start sizes its last step on it (lib/control/fast-path.ts), and a sample's course judges by it whether a
 * burst ended (lib/control/fast-course.ts). Pure.
 */

import { type DepthSample, RATE_CHANGE_FACTOR, workersRunning } from './depth-trend.ts';

/** A rise of the depth, per second, measured over an interval an applied value held through. */
export interface HeldRise {
  readonly applied: number;
  readonly perSecond: number;
}

/**
 * The service a worker gives, fitted from two rises at two applied values with the arrivals unchanged between
 * them: rise = arrivals − applied × perWorker at each, so perWorker = (rise₁ − rise₂) ÷ (applied₂ − applied₁) and
 * arrivals = rise₂ + applied₂ × perWorker. Only where more workers made it rise less and it still rises: anything
 * else (a fall, a larger rise) says the arrivals changed, and nothing is fitted.
 * Worked example (60/s of 300 ms items after an hour of silence): +33.3/s at 8, +6.7/s at 16: 3.33/s a worker
 * (300 ms), arrivals 60/s.
 */
export function fittedService(
  before: HeldRise | undefined,
  now: HeldRise,
): { readonly perWorker: number; readonly arrivals: number } | undefined {
  if (before === undefined || !(now.applied > before.applied)) return undefined;
  if (!(before.perSecond > now.perSecond && now.perSecond > 0)) return undefined;
  const perWorker = (before.perSecond - now.perSecond) / (now.applied - before.applied);
  return { perWorker, arrivals: now.perSecond + now.applied * perWorker };
}

/** The per-worker service and the arrivals two rises fitted (`fittedService`). */
export type ServiceFit = NonNullable<ReturnType<typeof fittedService>>;

/**
 * A fall over an interval the applied value held through, judged against the service two earlier rises fitted: the
 * applied workers serve at most applied × perWorker, so the arrivals were at most that less the fall. Below the
 * fitted arrivals by `RATE_CHANGE_FACTOR`, the burst ended, even where the growth that slow start sized on the fit
 * came at its last second and no rise at the new value can prove it. A fall faster than the fit's service by that
 * factor contradicts the fit (each worker serves far more than it says, and the arrivals may not have ended):
 * nothing is proven.
 * Worked example (a 20 s fan-out of 10 ms items): 76.3/s a worker and 2,982.6/s arriving fitted at 4 workers, the
 * growth to 8 at the burst's last second; then 638/s fewer each second at 8, within 1.5 × the 610/s the fit gives 8:
 * the arrivals are at most 610 − 638 < 0, the burst ended.
 */
export function arrivalsFellBelowFit(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  fit: ServiceFit | undefined,
): boolean {
  if (previous === undefined || fit === undefined || !(sample.at > previous.at)) return false;
  const fall = (previous.messages - sample.messages) / (sample.at - previous.at);
  const serves = applied * fit.perWorker;
  if (fall > RATE_CHANGE_FACTOR * serves) return false;
  return serves - fall < fit.arrivals / RATE_CHANGE_FACTOR;
}

/**
 * A fall over an interval the applied value held through that the service two earlier rises fitted cannot explain:
 * the last rise and this fall, at the workers running at its end (`workersRunning`), fit a per-worker service
 * `RATE_CHANGE_FACTOR` times lower than the fit's. Three points on one line (rise = arrivals − workers × service)
 * agree where the arrivals held; here they did not: the fit's second rise straddled the burst's end, and its
 * arrivals and service are both far too high. The fit then judges nothing (a fall after a busy rise is read as a
 * fan-out's end, as with no fit). A fall faster than the fit says is `arrivalsFellBelowFit`'s.
 * Worked example (held-out fan-out-12s: 30,000 messages of 15 ms items in 12 s after 40 quiet minutes): +2,401/s at
 * 2 workers, then +280/s at 4 over the interval the burst ended in, fit 1,060/s a worker (under 1 ms an item) and
 * 4,520/s arriving; then 281/s fewer each second at 5: with the +280/s at 4, 561/s a worker, under 1,060 ÷ 1.5.
 * Read as an end, 5 → 10, p99 1.68 → 1.06 × the target (10 s steps), 1.24 × (one a minute). cold-steady's fit
 * (14.9/s a worker at 4 and 8) and its fall at 13 (12.1/s) agree: its load goes on.
 */
export function fallRefutesFit(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  fitted: { readonly fit: ServiceFit | undefined; readonly lastRise: HeldRise | undefined },
  batchSize: number | undefined,
): boolean {
  const { fit, lastRise } = fitted;
  if (previous === undefined || fit === undefined || lastRise === undefined || !(sample.at > previous.at))
    return false;
  const running = workersRunning(applied, sample.inFlight, batchSize);
  if (running === undefined || !(running > lastRise.applied)) return false;
  const fall = (previous.messages - sample.messages) / (sample.at - previous.at);
  const perWorker = (lastRise.perSecond + fall) / (running - lastRise.applied);
  return perWorker < fit.perWorker / RATE_CHANGE_FACTOR;
}
