// biome-ignore-all lint: a verbatim copy of the old decideFast, kept only while its replacement is proven equal.
import type { ScalerConfig } from '../../lib/control/config.ts';
import {
  arrivalsRose,
  BACKLOG_MESSAGES_PER_WORKER,
  backlogLeftBehind,
  DEPTH_NOISE_MESSAGES,
  type DepthSample,
  depthFalling,
  depthShowsBacklog,
  depthTrend,
  fittedService,
  type HeldRise,
  RATE_CHANGE_FACTOR,
  roseWithAppliedHeld,
  slowStartProof,
} from '../../lib/control/depth-trend.ts';
import type { FastDecision, FastPathContext } from '../../lib/control/fast-path.ts';
import {
  backlogWorkedOffInTime,
  needWithBacklog,
  setpointSeconds,
  unconfirmedLimit,
} from '../../lib/control/need.ts';
import { clampConcurrency } from '../../lib/control/policy.ts';

/** The old `decideFast`, verbatim but for `hit`, which names the branch taken so the comparison can count them. */
/**
 * One sample. Grows to the need when the depth shows more than the applied concurrency works off within the
 * setpoint; sizes a confirmed spike from the trend; limits growth CloudWatch has not confirmed.
 * Worked example (seed-spike, lambda): 2 applied at 50/s; 800/s starts; 10 s later 7,000 wait. The depth rose
 * 700/s, more than 1.5 × 50 (no slower downstream can do that), so arrivals are at least 700/s: grow to
 * 700 × 0.0205 ÷ 0.9 → 16 at once, a minute before the tick and three before CloudWatch reports it.
 */
export function decideFastFrozen(
  sample: DepthSample,
  context: FastPathContext,
  config: ScalerConfig,
  hit: (branch: string) => void = () => {},
): FastDecision {
  const applied = context.applied;
  const visible = sample.messages;
  const falling = depthFalling(context.previous, visible);
  const rising = context.previous !== undefined && visible - context.previous.messages > DEPTH_NOISE_MESSAGES;
  const roseAtApplied =
    context.roseAtApplied === true ||
    roseWithAppliedHeld(context.previous, sample, applied, context.lastChangeAt);
  const burstEnded = !rising && (context.burstEnded === true || (roseAtApplied && falling));
  const held =
    context.previous !== undefined &&
    sample.at > context.previous.at &&
    context.previous.settled !== false &&
    (context.lastChangeAt === undefined || context.lastChangeAt <= context.previous.at);
  const rise: HeldRise | undefined =
    held && rising && context.previous !== undefined
      ? { applied, perSecond: (visible - context.previous.messages) / (sample.at - context.previous.at) }
      : undefined;
  const next: FastPathContext = {
    ...context,
    previous: sample,
    roseAtApplied,
    burstEnded,
    lastRise: rise ?? context.lastRise,
  };
  const hold = (extra: Partial<FastDecision['inputs']> = {}): FastDecision => ({
    desired: clampConcurrency(Math.max(applied, config.minConcurrency), config),
    reason: 'hold:fast',
    inputs: { visibleMessages: visible, confirmed: context.confirmed, frozen: context.frozen, ...extra },
    context: next,
  });
  if (context.frozen !== undefined || !Number.isFinite(applied) || !Number.isFinite(visible) || visible < 0) {
    hit('frozen');
    return hold();
  }
  if (applied >= config.maxConcurrency) {
    hit('at-cap');
    return hold();
  }

  const trendOf = (previous: DepthSample | undefined, maxElapsedSeconds: number) =>
    depthTrend({
      previous,
      now: sample.at,
      visible,
      applied,
      itemSeconds: context.itemSeconds,
      lastChangeAt: context.lastChangeAt,
      maxElapsedSeconds,
    });
  // The short trend sizes (it sees this instant); the long one, since the tick, is the steadier proof of a spike.
  const recent = trendOf(context.previous, 2 * config.tickSeconds);
  const sinceTick = trendOf(context.tickSample, 2 * config.tickSeconds);
  const atLeast = Math.max(recent?.arrivalsAtLeast ?? 0, sinceTick?.arrivalsAtLeast ?? 0);
  const spike =
    arrivalsRose(recent, context.reportedArrivals) || arrivalsRose(sinceTick, context.reportedArrivals);
  const confirmed = context.confirmed || spike;
  // As in `decide`: the trend sizes a spike it proved; with the backlog confirmed otherwise, it counts only where it
  // differs from the reported rate beyond noise.
  const estimate = recent?.arrivalsEstimate;
  const reported = context.reportedArrivals ?? 0;
  hit(spike ? 'rate:spike' : confirmed ? 'rate:confirmed' : 'rate:reported');
  const arrivals = spike
    ? Math.max(reported, context.tickArrivals ?? 0, estimate ?? 0, atLeast)
    : confirmed
      ? Math.max(
          reported,
          context.tickArrivals ?? 0,
          estimate !== undefined && estimate > RATE_CHANGE_FACTOR * reported ? estimate : 0,
        )
      : context.reportedArrivals;

  // Nothing to work off: a few messages come and go at any load.
  if (visible < BACKLOG_MESSAGES_PER_WORKER * applied) {
    hit('no-backlog');
    return hold({ arrivalsAtLeast: atLeast, confirmed });
  }
  // The target is safe without growth: what waits is worked off within the setpoint (the tick's law would hold).
  if (
    context.itemSeconds !== undefined &&
    backlogWorkedOffInTime(visible, applied, context.itemSeconds, config)
  ) {
    hit('worked-off');
    return hold({ arrivalsAtLeast: atLeast, confirmed });
  }

  const growthLimit = confirmed
    ? config.maxConcurrency
    : unconfirmedLimit(applied, context.confirmedNeed ?? context.tickApplied, config);
  let need: number | undefined;
  let slowStart = false;
  const leftBehind = backlogLeftBehind(context.previous, sample, applied, {
    target: config.targetAgeSeconds,
    setpoint: setpointSeconds(config),
  });
  if (arrivals !== undefined && context.itemSeconds !== undefined) {
    hit('need:sized');
    need = needWithBacklog(arrivals, context.itemSeconds, visible, config);
  } else if (context.itemSeconds === undefined && slowStartProof(context.previous, sample, applied)) {
    // No per-item time to size with (a new queue, a burst after a long silence): double per sample while the
    // depth proves arrivals above what runs, as TCP's slow start does; it stops at the first sample that shows
    // the depth no longer rising. Worked example (800/s at 15 ms after 20 idle minutes): 2 → 4 → 8 → 16 in 30 s.
    // Once two rises at two values fit a per-worker service, the last step is sized by it, not doubled: 8 → 16
    // → 32 would overshoot a need of 20.
    const fitted = rise === undefined ? undefined : fittedService(context.lastRise, rise);
    hit(fitted === undefined ? 'need:slow-start' : 'need:slow-start-fitted');
    need =
      fitted === undefined
        ? 2 * applied
        : Math.max(
            applied + 1,
            Math.min(2 * applied, needWithBacklog(fitted.arrivals, 1 / fitted.perWorker, visible, config)),
          );
    slowStart = true;
  } else if (context.itemSeconds === undefined && burstEnded && leftBehind !== undefined) {
    // The same doubling on the backlog a burst left behind (a fan-out), up to what its drain says works it off.
    hit('need:left-behind');
    need = Math.min(2 * applied, leftBehind);
    slowStart = true;
  } else if (
    !falling &&
    depthShowsBacklog(
      context.tickSample,
      sample.at,
      visible,
      applied,
      setpointSeconds(config),
      2 * config.tickSeconds,
    )
  ) {
    // No per-item time, no proof this sample, and the depth not falling since the last one: how far to grow is
    // unknown; the unconfirmed limit of the tick's value, once per tick, even where a spike is confirmed (the cap
    // is no size for an unknown need). A falling depth is being worked off: the last growth is still settling.
    hit('need:unconfirmed');
    need = unconfirmedLimit(applied, context.confirmedNeed ?? context.tickApplied, config);
  }
  const inputs = {
    arrivalsAtLeast: atLeast,
    arrivalRatePerSecond: arrivals,
    needConcurrency: need,
    confirmed,
    growthLimit,
  };
  if (need === undefined || need <= applied) {
    hit(need === undefined ? 'hold:no-need' : 'hold:need-met');
    return hold(inputs);
  }
  // Slow start's proof stands in for CloudWatch's confirmation: with no baseline, no downstream can be "slower".
  const limit = slowStart ? config.maxConcurrency : growthLimit;
  const desired = clampConcurrency(Math.min(need, limit, applied + config.maxScaleUpStep), config);
  if (desired <= applied) {
    hit('hold:limited');
    return hold(inputs);
  }
  hit(slowStart ? 'grow:slow-start' : 'grow:limited-or-sized');
  return {
    desired,
    reason: 'grow:fast-surge',
    inputs: { visibleMessages: visible, ...inputs },
    context: { ...next, applied: desired, lastChangeAt: sample.at, roseAtApplied: false },
  };
}
