import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
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
} from './depth-trend.ts';
import {
  backlogWorkedOffInTime,
  needWithBacklog,
  setpointSeconds,
  steadyNeed,
  unconfirmedLimit,
} from './need.ts';
import { clampConcurrency } from './policy.ts';
import type { QueueSnapshot } from './snapshot.ts';

/**
 * The fast path: between one-minute ticks, idle or busy, the controller samples the real-time depth (one
 * `GetQueueAttributes`, about every 10 s) and grows when the depth shows a surge the applied concurrency cannot
 * work off. It samples an idle queue too: a burst after silence (a cron job, a batch import) is seen within a
 * sample, not at the next tick. It never shrinks: shrinking waits for sustained idleness in CloudWatch's data,
 * which only the tick reads. A sample that holds reads no Lambda value (the account's control plane is 15
 * requests/s): it carries the tick's reading and its own writes; one that grows reads both limits first
 * (`runFastSample`). Pure, like `decide`, and built on the same need and trend; the Lambda's loop
 * and the simulator's sampling event both call it through `runFastSample`.
 */

/**
 * The loop stops starting samples this long before the next scheduled tick, so the next invocation (reserved
 * concurrency 1) normally finds the controller free.
 */
export const FAST_LOOP_END_BEFORE_TICK_SECONDS = 10;
/** Whether the fast path runs between ticks at all. */
export function fastPathOn(config: ScalerConfig): boolean {
  return config.fastSampleSeconds > 0 && config.fastSampleSeconds < config.tickSeconds;
}

/** What a sample needs from the tick that started the loop, updated by every sample. */
export interface FastPathContext {
  /** The concurrency applied now: the tick's reading, then this loop's own writes. */
  readonly applied: number;
  /**
   * The concurrency the tick left: unconfirmed growth is measured from it when no confirmed need is known, so
   * six samples a minute cannot compound the limit (2 → 3 → 4 → 6 → 9 … within one minute).
   */
  readonly tickApplied: number;
  /** When it last changed (the pollers need up to a minute to reach a raised maximum). */
  readonly lastChangeAt?: number;
  /** The tick's depth sample: the long baseline of the trend. */
  readonly tickSample?: DepthSample;
  /** The previous sample of this loop (or the tick's). */
  readonly previous?: DepthSample;
  /** Arrivals per second CloudWatch last reported (the busiest recent period). */
  readonly reportedArrivals?: number;
  /** The arrival rate the tick sized for (the trend's, where it confirmed a spike). */
  readonly tickArrivals?: number;
  /** The per-item time the tick used. */
  readonly itemSeconds?: number;
  /** The need CloudWatch's confirmed data supports: what unconfirmed growth is measured against. */
  readonly confirmedNeed?: number;
  /** The tick found the backlog confirmed by CloudWatch itself. */
  readonly confirmed: boolean;
  /** Nothing may grow: a pause, a slower downstream, nothing bounding the consumer, or no tick decision. */
  readonly frozen?: 'paused' | 'downstream-slower' | 'unbounded';
  /** This loop saw the depth rise at the applied value, held (`roseWithAppliedHeld`); cleared by a growth. */
  readonly roseAtApplied?: boolean;
  /** The depth fell after it rose at an unchanged value: a burst ended; cleared when the depth rises again. */
  readonly burstEnded?: boolean;
  /** The last rise of the depth this loop measured over an interval the applied value held through. */
  readonly lastRise?: HeldRise;
}

export type FastReason = 'grow:fast-surge' | 'hold:fast';

export interface FastDecision {
  /** Always in [applied, cap]: the fast path never shrinks. */
  readonly desired: number;
  readonly reason: FastReason;
  readonly inputs: {
    readonly visibleMessages: number;
    readonly arrivalsAtLeast?: number;
    readonly arrivalRatePerSecond?: number;
    readonly needConcurrency?: number;
    readonly confirmed: boolean;
    readonly growthLimit?: number;
    readonly frozen?: FastPathContext['frozen'];
  };
  /** The context for the next sample. */
  readonly context: FastPathContext;
}

/** The fast path's starting point, from the tick's snapshot and decision (pure). */
export function fastPathContext(
  snapshot: QueueSnapshot,
  decision: Decision,
  appliedAfter: number,
  config: ScalerConfig,
): FastPathContext {
  const itemSeconds = decision.inputs.itemSeconds;
  const reported =
    snapshot.arrivalRatePerSecond === undefined && snapshot.peakArrivalRatePerSecond === undefined
      ? undefined
      : Math.max(snapshot.arrivalRatePerSecond ?? 0, snapshot.peakArrivalRatePerSecond ?? 0);
  const sample =
    snapshot.visibleMessages === undefined
      ? undefined
      : { at: snapshot.now, messages: snapshot.visibleMessages };
  const frozen =
    decision.reason === 'hold:paused'
      ? 'paused'
      : decision.downstreamSlower
        ? 'downstream-slower'
        : Number.isFinite(appliedAfter)
          ? undefined
          : 'unbounded';
  return {
    applied: appliedAfter,
    tickApplied: appliedAfter,
    lastChangeAt: decision.state.lastChangeAt,
    tickSample: sample,
    previous: sample,
    reportedArrivals: reported,
    tickArrivals: decision.inputs.arrivalRatePerSecond,
    itemSeconds,
    confirmedNeed:
      reported === undefined || itemSeconds === undefined
        ? undefined
        : steadyNeed(reported, itemSeconds, config),
    confirmed: decision.inputs.confirmed ?? false,
    frozen,
  };
}

/**
 * One sample. Grows to the need when the depth shows more than the applied concurrency works off within the
 * setpoint; sizes a confirmed spike from the trend; limits growth CloudWatch has not confirmed.
 * Worked example (seed-spike, lambda): 2 applied at 50/s; 800/s starts; 10 s later 7,000 wait. The depth rose
 * 700/s, more than 1.5 × 50 (no slower downstream can do that), so arrivals are at least 700/s: grow to
 * 700 × 0.0205 ÷ 0.9 → 16 at once, a minute before the tick and three before CloudWatch reports it.
 */
export function decideFast(
  sample: DepthSample,
  context: FastPathContext,
  config: ScalerConfig,
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
    return hold();
  }
  if (applied >= config.maxConcurrency) return hold();

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
  if (visible < BACKLOG_MESSAGES_PER_WORKER * applied) return hold({ arrivalsAtLeast: atLeast, confirmed });
  // The target is safe without growth: what waits is worked off within the setpoint (the tick's law would hold).
  if (
    context.itemSeconds !== undefined &&
    backlogWorkedOffInTime(visible, applied, context.itemSeconds, config)
  ) {
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
    need = needWithBacklog(arrivals, context.itemSeconds, visible, config);
  } else if (context.itemSeconds === undefined && slowStartProof(context.previous, sample, applied)) {
    // No per-item time to size with (a new queue, a burst after a long silence): double per sample while the
    // depth proves arrivals above what runs, as TCP's slow start does; it stops at the first sample that shows
    // the depth no longer rising. Worked example (800/s at 15 ms after 20 idle minutes): 2 → 4 → 8 → 16 in 30 s.
    // Once two rises at two values fit a per-worker service, the last step is sized by it, not doubled: 8 → 16
    // → 32 would overshoot a need of 20.
    const fitted = rise === undefined ? undefined : fittedService(context.lastRise, rise);
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
    need = unconfirmedLimit(applied, context.confirmedNeed ?? context.tickApplied, config);
  }
  const inputs = {
    arrivalsAtLeast: atLeast,
    arrivalRatePerSecond: arrivals,
    needConcurrency: need,
    confirmed,
    growthLimit,
  };
  if (need === undefined || need <= applied) return hold(inputs);
  // Slow start's proof stands in for CloudWatch's confirmation: with no baseline, no downstream can be "slower".
  const limit = slowStart ? config.maxConcurrency : growthLimit;
  const desired = clampConcurrency(Math.min(need, limit, applied + config.maxScaleUpStep), config);
  if (desired <= applied) return hold(inputs);
  return {
    desired,
    reason: 'grow:fast-surge',
    inputs: { visibleMessages: visible, ...inputs },
    context: { ...next, applied: desired, lastChangeAt: sample.at, roseAtApplied: false },
  };
}
