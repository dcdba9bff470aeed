import type { ScalerConfig } from './config.ts';
import type { Decision, DecisionInputs, ReasonCode } from './decision.ts';
import {
  arrivalsRose,
  type DepthTrend,
  depthShowsBacklog,
  depthTrend,
  RATE_CHANGE_FACTOR,
} from './depth-trend.ts';
import { needWithBacklog, setpointSeconds, steadyNeed, unconfirmedLimit } from './need.ts';
import { rateLowerBound, rateUpperBound } from './rate-bounds.ts';
import { saneSnapshot, saneState } from './sanitize.ts';
import type { ControllerState, QueueSnapshot } from './snapshot.ts';

/**
 * The control law: one pure function of a snapshot, the carried state and the config. No AWS, no clock, no I/O;
 * the controller Lambda and the simulator both call it (the fast path between ticks is `decideFast`, built on the
 * same need and trend).
 *
 * - Age decides *when* to grow: above the setpoint (half the target by default; the target is the ceiling).
 * - The Little's-law need decides *how far*: λ·S at the target utilisation, plus draining the backlog above the
 *   setpoint within the drain horizon, at most `maxScaleUpStep` per tick.
 * - Growth CloudWatch has not confirmed yet (depth alone cannot tell a spike from a slower downstream) is limited
 *   to `unconfirmedGrowthFactor` × the confirmed need, unless the depth rises faster than any slowdown could make
 *   it.
 * - Shrink one step at a time, only after sustained idleness, and never below the need: a shrink that the next
 *   tick would undo is an oscillation.
 * - A rate is a count over a period: growth is sized on the lowest rate the count leaves plausible, a shrink on
 *   the highest, so the count's noise cannot shrink a pool and then regrow it past its old size.
 * - At the cap with age above target: hold and signal `saturated` (shed upstream); the cap is the downstream's.
 * - Per-item time up markedly while arrivals are not: the downstream got slower; more workers make it worse:
 *   return to the need at the healthy per-item time, and signal `shed` while the age is above target.
 * - Missing or stale age: hold, unless the real-time depth shows a backlog the applied concurrency cannot drain
 *   within the setpoint (then grow, limited as unconfirmed growth is); never shrink on data we do not have.
 * - Nothing bounds the consumer yet (just attached): adopt what it runs, never cut it below its need.
 * - An operator's pause (reserved 0, a disabled mapping) is held, never fought.
 */

// Weight of one healthy tick in the per-item baseline: the baseline follows slow drift over about five ticks
// but not a step, which is what `slowdownFactor` is there to catch.
const BASELINE_WEIGHT = 0.2;
// Growth per tick when age says "behind" but the need cannot be computed: the seed article's step.
const AGE_ONLY_STEP = 4;

export function clampConcurrency(value: number, config: ScalerConfig): number {
  const v = Number.isNaN(value) ? config.minConcurrency : Math.round(value);
  return Math.min(config.maxConcurrency, Math.max(config.minConcurrency, v));
}

function maxDefined(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return defined.length === 0 ? undefined : Math.max(...defined);
}

/**
 * The age now: the datapoint describes a period that ended `lag` seconds ago. Where the real-time depth is
 * known and the datapoint is not of this instant, the age now is at most the datapoint plus its lag, and
 * Little's law on the queue (W = V ÷ λ) estimates it from the depth; the lower of the two is the better bound.
 */
function estimateAge(
  ageSeconds: number,
  lag: number,
  snapshot: QueueSnapshot,
  drainRate: number | undefined,
): number {
  if (lag <= 0 || snapshot.visibleMessages === undefined) return ageSeconds;
  // In-flight messages are not deleted yet and count towards the age (AWS: the oldest non-deleted message);
  // a throttled batch waiting out its visibility timeout is the oldest of all (the overpull case).
  const undeleted = snapshot.visibleMessages + (snapshot.inFlightMessages ?? 0);
  if (undeleted === 0) return 0;
  // Without a drain rate the depth says nothing about time: the datapoint stands as it is. Adding its lag would
  // call a quiet queue with one message "behind" whenever the rate series is missing.
  if (drainRate === undefined || drainRate <= 0) return ageSeconds;
  // A rate so small that the depth would take forever (5e-324/s) is no drain rate either: the same answer as 0.
  const drainSeconds = undeleted / drainRate;
  if (!Number.isFinite(drainSeconds)) return ageSeconds;
  return Math.min(ageSeconds + lag, drainSeconds);
}

function updatedBaseline(previous: number | undefined, sample: number | undefined): number | undefined {
  if (sample === undefined) return previous;
  if (previous === undefined) return sample;
  return previous + BASELINE_WEIGHT * (sample - previous);
}

/** The trend since the previous tick's depth sample (two ticks at most: an older one says little about now). */
function trendSincePreviousTick(
  snapshot: QueueSnapshot,
  state: ControllerState,
  itemSeconds: number | undefined,
  config: ScalerConfig,
): DepthTrend | undefined {
  return depthTrend({
    previous: state.lastVisible,
    now: snapshot.now,
    visible: snapshot.visibleMessages,
    applied: snapshot.appliedConcurrency,
    itemSeconds,
    lastChangeAt: state.lastChangeAt,
    maxElapsedSeconds: 2 * config.tickSeconds,
  });
}

export function decide(raw: QueueSnapshot, rawState: ControllerState, config: ScalerConfig): Decision {
  const snapshot = saneSnapshot(raw);
  const state = saneState(rawState);
  const { now } = snapshot;
  const applied = snapshot.appliedConcurrency;
  const floor = config.minConcurrency;
  const cap = config.maxConcurrency;
  const target = config.targetAgeSeconds;
  const setpoint = setpointSeconds(config);
  const lastVisible =
    snapshot.visibleMessages === undefined
      ? state.lastVisible
      : { at: now, messages: snapshot.visibleMessages };

  const result = (
    desired: number,
    reason: ReasonCode,
    inputs: DecisionInputs,
    next: ControllerState,
    flags: { ageAboveTarget?: boolean; downstreamSlower?: boolean } = {},
  ): Decision => {
    const bounded = clampConcurrency(desired, config);
    const atCap = bounded >= cap;
    const changed = reason !== 'hold:paused' && bounded !== applied;
    const slower = flags.downstreamSlower ?? false;
    return {
      desired: bounded,
      reason,
      atCap,
      saturated: atCap && (flags.ageAboveTarget ?? false),
      shed: slower && (flags.ageAboveTarget ?? false),
      downstreamSlower: slower,
      inputs: { setpointSeconds: setpoint, ...inputs },
      state: { ...next, lastVisible, lastChangeAt: changed ? now : state.lastChangeAt },
    };
  };

  // An operator's pause is theirs to lift: writing anything would undo it (the console's "Throttle" is reserved
  // 0; a disabled mapping stops the pollers). Nothing is known of the load meanwhile, so idleness restarts.
  if (snapshot.paused !== undefined) {
    return result(
      Number.isFinite(applied) ? applied : cap,
      'hold:paused',
      {},
      { ...state, idleSince: undefined },
    );
  }

  const itemSeconds = snapshot.itemSeconds ?? state.baselineItemSeconds ?? config.itemTimeSeconds;
  const measuredArrivals = snapshot.arrivalRatePerSecond;
  const reportedArrivals = maxDefined(measuredArrivals, snapshot.peakArrivalRatePerSecond);
  const confirmedNeed =
    reportedArrivals === undefined || itemSeconds === undefined
      ? undefined
      : steadyNeed(reportedArrivals, itemSeconds, config);

  // Nothing bounds the consumer (the scaler was just attached, or the reading made no sense): start from what it
  // runs — the need, or its busiest recent concurrency — and never cut it below either. With neither known, the
  // cap: the downstream's limit is the one bound the configuration vouches for.
  if (!Number.isFinite(applied)) {
    const observed =
      snapshot.observedConcurrency === undefined ? undefined : Math.ceil(snapshot.observedConcurrency);
    // Nothing arriving over the whole window is a known need too: none.
    const idleNeed = reportedArrivals === 0 ? floor : undefined;
    const known = maxDefined(confirmedNeed, observed, idleNeed);
    return result(
      known ?? cap,
      'adopt:unbounded',
      { needConcurrency: confirmedNeed, observedConcurrency: snapshot.observedConcurrency },
      state,
    );
  }

  // The bounds are configuration, not a judgement on data: they hold even when the data is missing.
  if (applied > cap) return result(cap, 'shrink:above-cap', {}, state);
  if (applied < floor) return result(floor, 'grow:below-floor', {}, state);

  // Missing data means hold: a scale-down that trusted late or missing metrics has stopped workers
  // mid-message in production (docs/aws-facts.md, "SQS metrics"). Idleness must be observed afresh once data
  // returns. But a backlog the real-time depth shows is not missing data: a new queue has no datapoint for its
  // first minutes while GetQueueAttributes already counts thousands of messages. Growth on it is unconfirmed
  // growth, limited alike.
  const age = snapshot.oldestAge;
  const lag = age === undefined ? undefined : Math.max(0, now - age.observedAt);
  if (age === undefined || lag === undefined || lag > config.maxDataAgeSeconds) {
    const next = { ...state, idleSince: undefined };
    const inputs = { ageDataLagSeconds: lag, itemSeconds, needConcurrency: confirmedNeed };
    const backlog = depthShowsBacklog(
      state.lastVisible,
      now,
      snapshot.visibleMessages,
      applied,
      setpoint,
      2 * config.tickSeconds,
    );
    if (backlog && applied < cap) {
      const growthLimit = unconfirmedLimit(applied, confirmedNeed, config);
      // With the rates CloudWatch does report, the backlog is sized; without them, the limit is the step.
      const wanted =
        reportedArrivals === undefined || itemSeconds === undefined
          ? growthLimit
          : needWithBacklog(reportedArrivals, itemSeconds, snapshot.visibleMessages, config);
      const desired = Math.min(wanted, growthLimit, applied + config.maxScaleUpStep);
      if (desired > applied) {
        return result(desired, 'grow:backlog-before-data', { ...inputs, growthLimit }, next);
      }
    }
    return result(applied, 'hold:no-data', inputs, next);
  }

  const trend = trendSincePreviousTick(snapshot, state, itemSeconds, config);
  // Only a rise beyond what a slower downstream could cause confirms a spike; then the trend sizes it, a minute
  // or two before the late datapoint reports it.
  const spike = arrivalsRose(trend, reportedArrivals);
  // CloudWatch's own datapoint already shows the backlog: the per-item time and arrivals of the same late period
  // are published with it, so what the data says of a slowdown is known.
  const confirmed = spike || age.seconds > setpoint;
  // The trend sizes a spike it proved; otherwise, with the backlog confirmed, it counts only where it differs from
  // the measured rate beyond noise (40 Poisson arrivals in 50 ms vary by ±16 %). With no measured rate at all it is
  // the only rate there is: without it a draining queue grew on the blind age-only step with a young datapoint and
  // held on the estimate with an older one (found by the monotone-in-age property).
  const estimate = trend?.arrivalsEstimate;
  const arrivalRate = spike
    ? maxDefined(measuredArrivals, estimate ?? trend?.arrivalsAtLeast)
    : (confirmed || measuredArrivals === undefined) &&
        estimate !== undefined &&
        estimate > RATE_CHANGE_FACTOR * (measuredArrivals ?? 0)
      ? estimate
      : measuredArrivals;
  // The trend's estimate (λ = dV/dt + c ÷ S, made only when every worker was busy at both samples) enters the age
  // estimate whether or not it may size growth: V ÷ λ, Little's estimate with the trend's arrivals. Gated like the
  // sizing, the same queue read as behind with a young datapoint and as idle with an older one. While S is stale
  // (a downstream slower than CloudWatch shows yet) it overstates λ and so understates the age: it then delays
  // growth, the side a slower downstream needs.
  const ageSeconds = estimateAge(
    age.seconds,
    lag,
    snapshot,
    maxDefined(arrivalRate, snapshot.completionRatePerSecond, estimate),
  );
  const behind = ageSeconds > setpoint;
  const aboveTarget = ageSeconds > target;

  // Without a per-item time the need is known only when nothing arrives, now or at the window's peak.
  const nothingArrives = arrivalRate === 0 && (snapshot.peakArrivalRatePerSecond ?? 0) === 0;
  const known = arrivalRate !== undefined && (itemSeconds !== undefined || nothingArrives);
  const steady = known ? steadyNeed(arrivalRate, itemSeconds ?? 0, config) : undefined;
  const excess = Math.max(0, (snapshot.visibleMessages ?? 0) - (arrivalRate ?? 0) * setpoint);
  // Growth is sized on the lowest rate the period's count leaves plausible (rate-bounds.ts). That may take away
  // the utilisation headroom, never the work itself: at least λ·S stays busy. (At 0.5/s over a minute the bound is
  // 37 % lower; a need below λ·S called a growing queue "draining".) A rate the depth trend estimated is not a
  // count and stands as it is.
  const growthArrivals =
    arrivalRate !== undefined && arrivalRate === measuredArrivals
      ? Math.max(
          rateLowerBound(arrivalRate, snapshot.ratePeriodSeconds),
          config.targetUtilization * arrivalRate,
        )
      : arrivalRate;
  const need =
    !known || (itemSeconds === undefined && excess > 0)
      ? undefined
      : needWithBacklog(growthArrivals ?? 0, itemSeconds ?? 0, snapshot.visibleMessages, config);

  const slowdownRatio =
    snapshot.itemSeconds !== undefined && state.baselineItemSeconds !== undefined
      ? snapshot.itemSeconds / state.baselineItemSeconds
      : undefined;
  // Load explains slower items only if arrivals rose at least as much as the per-item time did. A bare
  // "arrivals up by slowdownFactor" test flipped on one noisy rate window: items 3× slower, arrivals 1.5× for a
  // quarter of a second, and the controller grew into a slow downstream.
  const arrivalsUpAsMuch =
    slowdownRatio !== undefined &&
    snapshot.arrivalRatePerSecond !== undefined &&
    state.baselineArrivalRate !== undefined &&
    state.baselineArrivalRate > 0 &&
    snapshot.arrivalRatePerSecond / state.baselineArrivalRate >= slowdownRatio;
  const downstreamSlower =
    slowdownRatio !== undefined && slowdownRatio > config.slowdownFactor && !arrivalsUpAsMuch;
  const baselines: ControllerState = downstreamSlower
    ? { baselineItemSeconds: state.baselineItemSeconds, baselineArrivalRate: state.baselineArrivalRate }
    : {
        baselineItemSeconds: updatedBaseline(state.baselineItemSeconds, snapshot.itemSeconds),
        baselineArrivalRate: updatedBaseline(state.baselineArrivalRate, snapshot.arrivalRatePerSecond),
      };

  const inputs: DecisionInputs = {
    ageSeconds,
    ageDataLagSeconds: lag,
    arrivalRatePerSecond: arrivalRate,
    itemSeconds,
    needConcurrency: need,
    slowdownRatio,
    arrivalsAtLeast: trend?.arrivalsAtLeast,
    confirmed,
  };
  const flags = { ageAboveTarget: aboveTarget, downstreamSlower };

  // A slower downstream: more workers make it worse. What the law added before CloudWatch showed the slower
  // per-item time goes back: the need at the healthy per-item time for today's arrivals (its pre-slowdown level).
  if (downstreamSlower) {
    const next = { ...state, ...baselines, idleSince: undefined };
    const healthyNeed =
      measuredArrivals === undefined || state.baselineItemSeconds === undefined
        ? undefined
        : Math.max(floor, steadyNeed(measuredArrivals, state.baselineItemSeconds, config));
    const withHealthy = { ...inputs, healthyNeed };
    if (healthyNeed !== undefined && healthyNeed < applied) {
      return result(healthyNeed, 'shrink:downstream-slower', withHealthy, next, flags);
    }
    return result(applied, 'hold:downstream-slower', withHealthy, next, flags);
  }

  if (behind) {
    const next = { ...state, ...baselines, idleSince: undefined };
    if (applied >= cap) return result(applied, 'hold:at-cap', inputs, next, flags);
    // Without a per-item time or an arrival rate, age alone says "behind" but not by how much: grow by the seed's
    // step of 4 (or less where maxScaleUpStep is smaller), never straight to the cap on a guess.
    const wanted = need ?? applied + Math.min(AGE_ONLY_STEP, config.maxScaleUpStep);
    // Capacity already exceeds arrivals plus the drain: the backlog is shrinking; growing more would overshoot.
    if (wanted <= applied) return result(applied, 'hold:draining', inputs, next, flags);
    const growthLimit = confirmed ? cap : unconfirmedLimit(applied, confirmedNeed, config);
    const desired = Math.min(wanted, applied + config.maxScaleUpStep, growthLimit);
    if (desired <= applied) {
      return result(applied, 'hold:unconfirmed', { ...inputs, growthLimit }, next, flags);
    }
    return result(desired, 'grow:age-above-target', { ...inputs, growthLimit }, next, flags);
  }

  const idle = ageSeconds <= config.idleAgeFraction * target;
  const idleSince = idle ? (state.idleSince ?? now) : undefined;
  const idleSeconds = idleSince === undefined ? undefined : now - idleSince;
  const next: ControllerState = { ...state, ...baselines, idleSince };
  const withIdle = { ...inputs, idleSeconds };
  const sustained = idleSeconds !== undefined && idleSeconds >= config.scaleDownDelaySeconds;
  const spaced =
    state.lastChangeAt === undefined || now - state.lastChangeAt >= config.scaleDownIntervalSeconds;
  // The shrink is sized for the busiest period of the scale-down window, so one quiet sample cannot undo a need,
  // and for the most that period's count leaves plausible, so a low count cannot either. The trend's estimate
  // counts too: the age it read as idle is idle only at that rate (and bounding it as if it were a count only errs
  // towards not shrinking).
  const busiestArrivals =
    maxDefined(estimate, arrivalRate, measuredArrivals, snapshot.peakArrivalRatePerSecond) ?? 0;
  const shrinkNeed =
    steady === undefined || itemSeconds === undefined
      ? steady // known only when nothing arrives (above): 0
      : steadyNeed(rateUpperBound(busiestArrivals, snapshot.ratePeriodSeconds), itemSeconds, config);
  // Worked example (one-minute ticks, fraction 0.5): 19 applied, need 2 → surplus 17 → remove 8 → 11 → 7 → 5 ….
  const surplus = shrinkNeed === undefined ? 0 : applied - shrinkNeed;
  const step = Math.max(config.scaleDownStep, Math.floor(surplus * config.scaleDownSurplusFraction));
  const candidate = Math.max(floor, applied - step);
  // The shrink must still cover the need, or the next busy tick grows right back: that is an oscillation.
  // An unknown need is missing data, and missing data never shrinks.
  if (sustained && spaced && applied > floor && shrinkNeed !== undefined && candidate >= shrinkNeed) {
    return result(candidate, 'shrink:sustained-idle', withIdle, next, flags);
  }
  return result(applied, 'hold:steady', withIdle, next, flags);
}
