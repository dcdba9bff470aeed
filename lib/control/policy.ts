import type { ScalerConfig } from './config.ts';
import type { Decision, DecisionInputs, ReasonCode } from './decision.ts';
import type { ControllerState, QueueSnapshot } from './snapshot.ts';

/**
 * The control law: one pure function of a snapshot, the carried state and the config. No AWS, no clock, no I/O;
 * the controller Lambda and the simulator both call it.
 *
 * - Age decides *when* to grow (age is in latency units: one target works at any throughput).
 * - The Little's-law need decides *how far*: λ·S at the target utilisation, plus draining the backlog above the
 *   target within the drain horizon, at most `maxScaleUpStep` per tick.
 * - Shrink one step at a time, only after sustained idleness, and never below the need: a shrink that the next
 *   tick would undo is an oscillation.
 * - At the cap with age above target: hold and signal `saturated` (shed upstream); the cap is the downstream's.
 * - Per-item time up markedly while arrivals are not: the downstream got slower; more workers make it worse.
 * - Missing or stale age: hold; never shrink on data we do not have.
 */

// A product like 17.000000001 must need 17, not 18.
const ROUNDING_SLACK = 1e-9;
// Weight of one healthy tick in the per-item baseline: the baseline follows slow drift over about five ticks
// but not a step, which is what `slowdownFactor` is there to catch.
const BASELINE_WEIGHT = 0.2;
// Growth per tick when age says "behind" but the need cannot be computed: the seed article's step.
const AGE_ONLY_STEP = 4;
// The depth trend must exceed the measured rate by this much to count as a change rather than noise.
const RATE_CHANGE_FACTOR = 1.5;

export function clampConcurrency(value: number, config: ScalerConfig): number {
  return Math.min(config.maxConcurrency, Math.max(config.minConcurrency, Math.round(value)));
}

/**
 * The arrival rate the depth trend implies: λ = dV/dt + μ. Between late one-minute datapoints this is the only
 * real-time view of a spike (AWS-FACTS: SQS metrics arrive 1–2 minutes late; depth is near real time).
 * Worked example: 2 workers at 20 ms serve μ = 100/s; the queue went from 0 to 42,000 visible in 60 s:
 * dV/dt = 700/s, so λ ≈ 700 + 100 = 800/s.
 */
function arrivalRateFromDepth(
  snapshot: QueueSnapshot,
  state: ControllerState,
  itemSeconds: number | undefined,
  config: ScalerConfig,
): number | undefined {
  const previous = state.lastVisible;
  const visible = snapshot.visibleMessages;
  if (previous === undefined || visible === undefined || visible <= 0) return undefined;
  const elapsed = snapshot.now - previous.at;
  // Two ticks at most: an older sample says little about now.
  if (elapsed <= 0 || elapsed > 2 * config.tickSeconds) return undefined;
  // While the queue stayed backlogged every applied worker was busy, so the service rate is applied ÷ S.
  // Otherwise only the measured completion rate is known (a lower bound on λ, which is all growth needs).
  const backlogged = previous.messages > 0 && itemSeconds !== undefined && itemSeconds > 0;
  const serviceRate = backlogged
    ? snapshot.appliedConcurrency / itemSeconds
    : (snapshot.completionRatePerSecond ?? 0);
  return Math.max(0, (visible - previous.messages) / elapsed + serviceRate);
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
  return Math.min(ageSeconds + lag, undeleted / drainRate);
}

function updatedBaseline(previous: number | undefined, sample: number | undefined): number | undefined {
  if (sample === undefined) return previous;
  if (previous === undefined) return sample;
  return previous + BASELINE_WEIGHT * (sample - previous);
}

export function decide(snapshot: QueueSnapshot, state: ControllerState, config: ScalerConfig): Decision {
  const { now } = snapshot;
  const applied = snapshot.appliedConcurrency;
  const floor = config.minConcurrency;
  const cap = config.maxConcurrency;
  const lastVisible =
    snapshot.visibleMessages === undefined
      ? state.lastVisible
      : { at: now, messages: snapshot.visibleMessages };

  const result = (
    desired: number,
    reason: ReasonCode,
    inputs: DecisionInputs,
    next: ControllerState,
    ageAboveTarget = false,
  ): Decision => {
    const bounded = clampConcurrency(desired, config);
    const atCap = bounded >= cap;
    const changed = bounded !== applied;
    return {
      desired: bounded,
      reason,
      atCap,
      saturated: atCap && ageAboveTarget,
      inputs,
      state: { ...next, lastVisible, lastChangeAt: changed ? now : state.lastChangeAt },
    };
  };

  // The bounds are configuration, not a judgement on data: they hold even when the data is missing.
  if (applied > cap) return result(cap, 'shrink:above-cap', {}, state);
  if (applied < floor) return result(floor, 'grow:below-floor', {}, state);

  // Missing data means hold: a scale-down that trusted late or missing metrics has stopped workers
  // mid-message in production (AWS-FACTS). Idleness must be observed afresh once data returns.
  const age = snapshot.oldestAge;
  const lag = age === undefined ? undefined : Math.max(0, now - age.observedAt);
  if (
    age === undefined ||
    lag === undefined ||
    !Number.isFinite(age.seconds) ||
    lag > config.maxDataAgeSeconds
  ) {
    return result(applied, 'hold:no-data', { ageDataLagSeconds: lag }, { ...state, idleSince: undefined });
  }

  const itemSeconds = snapshot.itemSeconds ?? state.baselineItemSeconds;
  const measuredArrivals = snapshot.arrivalRatePerSecond;
  const ageSeconds = estimateAge(
    age.seconds,
    lag,
    snapshot,
    maxDefined(measuredArrivals, snapshot.completionRatePerSecond),
  );
  const target = config.targetAgeSeconds;
  const behind = ageSeconds > target;
  // Only while behind is the queue known to have stayed backlogged, which the depth trend needs to mean anything:
  // two samples of a near-empty queue say nothing about the minute between them. Even then the trend over one
  // short tick is noisy (40 Poisson arrivals in 50 ms vary by ±16 %), so it overrides the metric only when it
  // shows a change beyond that noise, as at a spike's onset before the late datapoint reports it.
  const depthArrivals = behind ? arrivalRateFromDepth(snapshot, state, itemSeconds, config) : undefined;
  const arrivalRate =
    depthArrivals !== undefined &&
    (measuredArrivals === undefined || depthArrivals > RATE_CHANGE_FACTOR * measuredArrivals)
      ? depthArrivals
      : measuredArrivals;

  // Little's law: L = λ·S busy workers, sized for the target utilisation so a Poisson queue stays stable.
  // Worked example (the seed): λ = 800/s, S = 20 ms, utilisation 0.9 → 16 ÷ 0.9 = 17.8 → 18.
  // Without a per-item time the need is known only when nothing arrives, now or at the window's peak.
  const nothingArrives = arrivalRate === 0 && (snapshot.peakArrivalRatePerSecond ?? 0) === 0;
  const busy =
    arrivalRate === undefined || (itemSeconds === undefined && !nothingArrives)
      ? undefined
      : arrivalRate * (itemSeconds ?? 0);
  const steadyNeed =
    busy === undefined ? undefined : Math.ceil(busy / config.targetUtilization - ROUNDING_SLACK);
  // Messages above what the target allows (λ × target waiting is on target) must drain within the horizon. The
  // utilisation headroom drains them already; only where it is too slow is more added.
  // Worked example (the seed): λ = 800/s, target 50 ms → 40 allowed; 150 visible → 110 extra over 1 s = 110/s ×
  // 20 ms = 2.2; 16 + 2.2 = 18.2 → 19, above the 18 the headroom alone gives.
  const excessBacklog = Math.max(0, (snapshot.visibleMessages ?? 0) - (arrivalRate ?? 0) * target);
  const need =
    busy === undefined || steadyNeed === undefined || (itemSeconds === undefined && excessBacklog > 0)
      ? undefined
      : Math.max(
          steadyNeed,
          Math.ceil(
            busy + (excessBacklog * (itemSeconds ?? 0)) / config.backlogDrainSeconds - ROUNDING_SLACK,
          ),
        );

  const slowdownRatio =
    snapshot.itemSeconds !== undefined &&
    state.baselineItemSeconds !== undefined &&
    state.baselineItemSeconds > 0
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
  const healthy = !downstreamSlower;
  const baselines: ControllerState = healthy
    ? {
        baselineItemSeconds: updatedBaseline(state.baselineItemSeconds, snapshot.itemSeconds),
        baselineArrivalRate: updatedBaseline(state.baselineArrivalRate, snapshot.arrivalRatePerSecond),
      }
    : { baselineItemSeconds: state.baselineItemSeconds, baselineArrivalRate: state.baselineArrivalRate };

  const inputs: DecisionInputs = {
    ageSeconds,
    ageDataLagSeconds: lag,
    arrivalRatePerSecond: arrivalRate,
    itemSeconds,
    needConcurrency: need,
    slowdownRatio,
  };

  if (behind) {
    const next = { ...state, ...baselines, idleSince: undefined };
    if (downstreamSlower) return result(applied, 'hold:downstream-slower', inputs, next, true);
    if (applied >= cap) return result(applied, 'hold:at-cap', inputs, next, true);
    // Without a per-item time or an arrival rate, age alone says "behind" but not by how much: grow by the seed's
    // step of 4 (or less where maxScaleUpStep is smaller), never straight to the cap on a guess.
    const wanted = need ?? applied + Math.min(AGE_ONLY_STEP, config.maxScaleUpStep);
    // Capacity already exceeds arrivals plus the drain: the backlog is shrinking; growing more would overshoot.
    if (wanted <= applied) return result(applied, 'hold:draining', inputs, next, true);
    return result(
      Math.min(wanted, applied + config.maxScaleUpStep),
      'grow:age-above-target',
      inputs,
      next,
      true,
    );
  }

  const idle = ageSeconds <= config.idleAgeFraction * target;
  const idleSince = idle ? (state.idleSince ?? now) : undefined;
  const idleSeconds = idleSince === undefined ? undefined : now - idleSince;
  const next: ControllerState = { ...state, ...baselines, idleSince };
  const withIdle = { ...inputs, idleSeconds };
  const sustained = idleSeconds !== undefined && idleSeconds >= config.scaleDownDelaySeconds;
  const spaced =
    state.lastChangeAt === undefined || now - state.lastChangeAt >= config.scaleDownIntervalSeconds;
  // The shrink is sized for the busiest period of the scale-down window, so one quiet sample cannot undo a need.
  const shrinkNeed =
    busy === undefined || itemSeconds === undefined
      ? steadyNeed // known only when nothing arrives (above): 0
      : Math.ceil(
          (Math.max(measuredArrivals ?? 0, snapshot.peakArrivalRatePerSecond ?? 0) * itemSeconds) /
            config.targetUtilization -
            ROUNDING_SLACK,
        );
  // Worked example (one-minute ticks, fraction 0.5): 19 applied, need 2 → surplus 17 → remove 8 → 11 → 7 → 5 ….
  const surplus = shrinkNeed === undefined ? 0 : applied - shrinkNeed;
  const step = Math.max(config.scaleDownStep, Math.floor(surplus * config.scaleDownSurplusFraction));
  const candidate = Math.max(floor, applied - step);
  // The shrink must still cover the need, or the next busy tick grows right back: that is an oscillation.
  // An unknown need is missing data, and missing data never shrinks.
  if (sustained && spaced && applied > floor && shrinkNeed !== undefined && candidate >= shrinkNeed) {
    return result(candidate, 'shrink:sustained-idle', withIdle, next);
  }
  return result(applied, 'hold:steady', withIdle, next);
}
