import { clampConcurrency, type ScalerConfig } from './config.ts';
import {
  arrivalsRose,
  BACKLOG_MESSAGES_PER_WORKER,
  backlogLeftBehind,
  type DepthSample,
  depthShowsBacklog,
  depthTrend,
  lagSinceGrowth,
  STANDARD_STARTING_INVOKES,
  slowStartProof,
  workersRunning,
} from './depth-trend.ts';
import { arrivalRateOf } from './fast-arrivals.ts';
import { type FastPathContext, unconfirmedBase } from './fast-context.ts';
import { carriedOf, type FastCourse } from './fast-course.ts';
import {
  backlogWorkedOffInTime,
  drainCeiling,
  needWithBacklog,
  setpointSeconds,
  UNJUDGED_GROWTH_FACTOR,
  unconfirmedLimit,
} from './need.ts';
import { slowStartAheadOfPollers } from './provisioned-ramp.ts';
import { heavierFitNeed, heavierItemsFitted } from './served-rises.ts';
import { fittedService } from './service-fit.ts';

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

export { type FastPathContext, fastPathContext } from './fast-context.ts';

/**
 * The loop stops starting samples this long before the next scheduled tick, so the next invocation (reserved
 * concurrency 1) normally finds the controller free.
 */
export const FAST_LOOP_END_BEFORE_TICK_SECONDS = 10;
/** Whether the fast path runs between ticks at all. */
export function fastPathOn(config: ScalerConfig): boolean {
  return config.fastSampleSeconds > 0 && config.fastSampleSeconds < config.tickSeconds;
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
    /** Where growth no steady need sizes stopped (`drainCeiling`): why a surge's growth ended below the cap. */
    readonly drainCeiling?: number;
    readonly frozen?: FastPathContext['frozen'];
  };
  /** The context for the next sample. */
  readonly context: FastPathContext;
}

/**
 * One sample. Grows to the need when the depth shows more than the applied concurrency works off within the
 * setpoint; sizes a confirmed spike from the trend; limits growth CloudWatch has not confirmed.
 * Worked example (seed-spike, lambda): 2 applied at 50/s; 800/s starts; 10 s later 7,000 wait. The depth rose
 * 700/s, more than 1.5 × 50 (no slower downstream can do that), so arrivals are at least 700/s: grow to
 * 700 × 0.0205 ÷ 0.9 → 16 at once, a minute before the tick and three before CloudWatch reports it.
 *
 * Every rule below, tried in this order, the first that applies decides; each reads the figures `fastLoadOf`
 * computed once. A growth rule that applies decides even where it holds: at a need already met, or at its limit.
 */
export function decideFast(
  sample: DepthSample,
  context: FastPathContext,
  config: ScalerConfig,
): FastDecision {
  const load = fastLoadOf(sample, context, config);
  return (
    holdFrozen(load) ??
    holdAtCap(load) ??
    holdNoBacklog(load) ??
    growHeavierFitted(load) ??
    holdWorkedOffInTime(load) ??
    growAheadOfPollers(load) ??
    growSizedAtStartingFive(load) ??
    holdExecutionsLagging(load) ??
    growSizedNeed(load) ??
    growSlowStart(load) ??
    growBacklogLeftBehind(load) ??
    growUnconfirmed(load) ??
    holdUnsized(load)
  );
}

/** What one sample knows, computed once so that every rule of `decideFast` reads the same figures. */
interface FastLoad extends FastCourse {
  readonly sample: DepthSample;
  readonly context: FastPathContext;
  readonly config: ScalerConfig;
  readonly applied: number;
  readonly visible: number;
  /** Arrivals were at least this: the larger of the short trend's bound and the long one's. */
  readonly atLeast: number;
  /** The tick found the backlog confirmed, or either trend proves a spike. */
  readonly confirmed: boolean;
  /** The arrival rate to size for (`arrivalRateOf`). */
  readonly arrivals?: number;
  /** Where growth stops: the cap where confirmed, else the unconfirmed limit of the confirmed need. */
  readonly growthLimit: number;
  /** Where growth no steady need sizes stops (`drainCeiling`): the backlog's drain, a doubling, a guess. */
  readonly ceiling: number;
}

function fastLoadOf(sample: DepthSample, context: FastPathContext, config: ScalerConfig): FastLoad {
  const applied = context.applied;
  const trendOf = (previous: DepthSample | undefined) =>
    depthTrend({
      previous,
      now: sample.at,
      visible: sample.messages,
      applied,
      inFlight: sample.inFlight,
      batchSize: context.batchSize,
      itemSeconds: context.itemSeconds,
      lastChangeAt: context.lastChangeAt,
      maxElapsedSeconds: 2 * config.tickSeconds,
    });
  // The short trend sizes (it sees this instant); the long one, since the tick, is the steadier proof of a spike.
  const recent = trendOf(context.previous);
  const sinceTick = trendOf(context.tickSample);
  const atLeast = Math.max(recent?.arrivalsAtLeast ?? 0, sinceTick?.arrivalsAtLeast ?? 0);
  const spike =
    arrivalsRose(recent, context.reportedArrivals) || arrivalsRose(sinceTick, context.reportedArrivals);
  const confirmed = context.confirmed || spike;
  return {
    ...carriedOf(sample, context),
    sample,
    context,
    config,
    applied,
    visible: sample.messages,
    atLeast,
    confirmed,
    arrivals: arrivalRateOf(context, recent, atLeast, { spike, confirmed }),
    growthLimit: Math.min(
      confirmed ? config.maxConcurrency : unconfirmedLimit(applied, unconfirmedBase(context), config),
      context.unjudgedLimit ?? Number.POSITIVE_INFINITY,
    ),
    ceiling: context.drainCeiling ?? drainCeiling(config),
  };
}

/** `hold:fast`: the applied value (within [floor, cap]); `extra` says what the sample measured. */
function hold(load: FastLoad, extra: Partial<FastDecision['inputs']> = {}): FastDecision {
  const { applied, config, context } = load;
  return {
    desired: clampConcurrency(Math.max(applied, config.minConcurrency), config),
    reason: 'hold:fast',
    inputs: { visibleMessages: load.visible, confirmed: context.confirmed, frozen: context.frozen, ...extra },
    context: load.next,
  };
}

/** What a growth rule measured, for its decision whether it grows or holds. */
const needInputs = (load: FastLoad, need: number | undefined) => ({
  arrivalsAtLeast: load.atLeast,
  arrivalRatePerSecond: load.arrivals,
  needConcurrency: need,
  confirmed: load.confirmed,
  growthLimit: load.growthLimit,
  drainCeiling: load.ceiling,
});

/**
 * `grow:fast-surge` to the need, at most `maxScaleUpStep` and the growth limit; `hold:fast` where the need is
 * met or the limit reached. Slow start's proof stands in for CloudWatch's confirmation: with no baseline, no
 * downstream can be "slower", so its limit is the cap.
 */
function growTo(load: FastLoad, need: number, slowStart: boolean): FastDecision {
  const { applied, config, sample } = load;
  const inputs = needInputs(load, need);
  if (need <= applied) return hold(load, inputs);
  const limit = Math.min(
    slowStart ? config.maxConcurrency : load.growthLimit,
    load.context.saturationCeiling ?? Number.POSITIVE_INFINITY,
  );
  const desired = clampConcurrency(Math.min(need, limit, applied + config.maxScaleUpStep), config);
  if (desired <= applied) return hold(load, inputs);
  return {
    desired,
    reason: 'grow:fast-surge',
    inputs: { visibleMessages: load.visible, ...inputs },
    context: {
      ...load.next,
      applied: desired,
      lastChangeAt: sample.at,
      roseAtApplied: false,
      grownFrom: applied,
    },
  };
}

/**
 * `hold:fast`. Nothing may grow: the tick froze the loop (a pause, a slower downstream, the downstream's health
 * signal past its threshold, nothing bounding the consumer), or the reading makes no sense (a depth that is
 * negative or not finite).
 */
function holdFrozen(load: FastLoad): FastDecision | undefined {
  const { context, applied, visible } = load;
  const frozen =
    context.frozen !== undefined || !Number.isFinite(applied) || !Number.isFinite(visible) || visible < 0;
  return frozen ? hold(load) : undefined;
}

/** `hold:fast`. At the cap there is nothing to add, and nothing to size. */
function holdAtCap(load: FastLoad): FastDecision | undefined {
  return load.applied >= load.config.maxConcurrency ? hold(load) : undefined;
}

/** `hold:fast`. Nothing to work off: a few messages come and go at any load. */
function holdNoBacklog(load: FastLoad): FastDecision | undefined {
  if (load.visible >= BACKLOG_MESSAGES_PER_WORKER * load.applied) return undefined;
  return hold(load, { arrivalsAtLeast: load.atLeast, confirmed: load.confirmed });
}

/**
 * `hold:fast`. The target is safe without growth: what waits is worked off within the setpoint (the tick's law
 * would hold).
 */
function holdWorkedOffInTime(load: FastLoad): FastDecision | undefined {
  const { itemSeconds } = load.context;
  if (itemSeconds === undefined) return undefined;
  if (!backlogWorkedOffInTime(load.visible, load.applied, itemSeconds, load.config)) return undefined;
  return hold(load, { arrivalsAtLeast: load.atLeast, confirmed: load.confirmed });
}

/**
 * `grow:fast-surge`, slow start on provisioned mode where its pollers lag: it doubles on, up to what they reach by
 * their next step (provisioned-ramp.ts), rather than once a poller step.
 */
function growAheadOfPollers(load: FastLoad): FastDecision | undefined {
  const { context, sample, applied } = load;
  if (context.itemSeconds !== undefined) return undefined;
  const { previous, lastChangeAt, batchSize } = context;
  const ahead = slowStartAheadOfPollers(previous, sample, applied, lastChangeAt, batchSize, load.config);
  return ahead === undefined ? undefined : growTo(load, Math.min(ahead, load.ceiling), true);
}

/**
 * `hold:fast`. A backlog waits, yet fewer workers run than the applied value allows, within two minutes of the
 * last change (`lagSinceGrowth`; later the shortfall is the consumer's own, and holding would hold for good): the
 * pollers have not followed the last growth yet (docs/aws-facts.md, "Event source mapping"). A higher limit buys
 * nothing until they do, and the backlog that grows meanwhile would wind it up to the cap: wait for the executions.
 * Worked example (650/s of 40 ms items after 50/s, pollers stepping once a minute): 3 → 27 at the first sample;
 * 20 s later 13 run (130 in flight: a step taken) and 21,692 wait: hold at 27, not 31 and then the cap. With the
 * starting five running the sized need goes first (`growSizedAtStartingFive`: 28, the drain ceiling).
 */
function holdExecutionsLagging(load: FastLoad): FastDecision | undefined {
  if (!lagSinceGrowth(load.sample, load.applied, load.context.lastChangeAt, load.context.batchSize))
    return undefined;
  return hold(load, { arrivalsAtLeast: load.atLeast, confirmed: load.confirmed });
}

/**
 * `grow:fast-surge`, sized, while the pollers still run their starting five (docs/aws-facts.md, "Event source
 * mapping"): their first step goes to whatever the limit is then, so the limit is sized on the backlog there now
 * (`growSizedNeed`: the need for the arrivals at the known per-item time and the backlog's drain, at most the drain
 * ceiling: it does not compound as unsized growth would). Past the five, the executions lag a limit a step has
 * already taken, and growth waits for them (`holdExecutionsLagging`). Held-out twenty-second/slow-item-bursts-on-
 * trickle (150/s of 150 ms items for 30 s), one poller step a minute: 2 → 23 ten seconds in, on a backlog of 1,347;
 * at the step 5,800 waited, drained by 23 (1.04 × the target); sized again meanwhile, 28 (0.80 ×).
 */
function growSizedAtStartingFive(load: FastLoad): FastDecision | undefined {
  const running = workersRunning(load.applied, load.sample.inFlight, load.context.batchSize);
  if (running === undefined || running > STANDARD_STARTING_INVOKES) return undefined;
  if (!lagSinceGrowth(load.sample, load.applied, load.context.lastChangeAt, load.context.batchSize))
    return undefined;
  return growSizedNeed(load);
}

/**
 * `grow:fast-surge` on heavier items a growth proved (served-rises.ts), ahead of `holdWorkedOffInTime`, which judges
 * the backlog at the known, lighter time. It records no probe of its own: the next tick's growth probes it with its
 * own, from the value the tick before left (saturation.ts, `GrowthProbe.unjudgedFrom`); until then it goes at most
 * `UNJUDGED_GROWTH_FACTOR` × the value the tick left, as other growth on heavier items between ticks does.
 */
function growHeavierFitted(load: FastLoad): FastDecision | undefined {
  const { context, served, config } = load;
  const { itemSeconds } = context;
  if (itemSeconds === undefined || served === undefined) return undefined;
  const fit = heavierItemsFitted(context.servedRises, served, {
    itemSeconds,
    slowerBy: config.slowdownFactor,
    maxApartSeconds: 2 * config.tickSeconds,
    ...(context.reportedArrivals === undefined ? {} : { reportedArrivals: context.reportedArrivals }),
  });
  if (fit === undefined) return undefined;
  const need = heavierFitNeed(fit, load.visible, config, load.ceiling);
  return growTo(load, Math.min(need, Math.floor(UNJUDGED_GROWTH_FACTOR * context.tickApplied)), true);
}

/** `grow:fast-surge`. A rate and a per-item time size the need with the backlog, limited as unconfirmed growth is. */
function growSizedNeed(load: FastLoad): FastDecision | undefined {
  const { arrivals, context } = load;
  if (arrivals === undefined || context.itemSeconds === undefined) return undefined;
  const need = needWithBacklog(arrivals, context.itemSeconds, load.visible, load.config, load.ceiling);
  return growTo(load, need, false);
}

/**
 * `grow:fast-surge`, slow start. No per-item time to size with (a new queue, a burst after a long silence):
 * double per sample while the depth proves arrivals above what runs, as TCP's slow start does; it stops at the
 * first sample that shows the depth no longer rising. Worked example (800/s at 15 ms after 20 idle minutes):
 * 2 → 4 → 8 → 16 in 30 s. Once two rises at two values fit a per-worker service, the last step is sized by it,
 * not doubled: 8 → 16 → 32 would overshoot a need of 20.
 */
function growSlowStart(load: FastLoad): FastDecision | undefined {
  const { context, sample, applied, rise } = load;
  if (
    context.itemSeconds !== undefined ||
    !slowStartProof(context.previous, sample, applied, context.batchSize)
  )
    return undefined;
  const fitted = rise === undefined ? undefined : fittedService(context.lastRise, rise);
  // Unsized, the doubling stops below the cap (drainCeiling): the cap needs a need that says so.
  if (fitted === undefined)
    return growTo(load, Math.min(2 * applied, load.ceiling, load.unfollowedBound), true);
  const sized = needWithBacklog(
    fitted.arrivals,
    1 / fitted.perWorker,
    load.visible,
    load.config,
    load.ceiling,
  );
  const decision = growTo(load, Math.max(applied + 1, Math.min(2 * applied, sized)), true);
  return { ...decision, context: { ...decision.context, serviceFit: fitted } };
}

/**
 * `grow:fast-surge`. The same doubling on the backlog a burst left behind (a fan-out), up to what its drain says
 * works it off: once the burst ended, or where no fit judges a fall after a rise (`fellBusy`; a fit the fall
 * refutes judges nothing: held-out fan-out-12s, whose second rise straddled its end, sat at 5 workers, 1.7 × the
 * target). A fan-out shorter than a sample shows a rise and then a fall at the doubled value, and no second rise can
 * fit a service to say whether the arrivals ended; waiting for that proof held held-out fan-out-short (30,000
 * messages in 10 s after 45 quiet minutes, 20 ms items) at 4 workers for three minutes (p99 2.7 × the target;
 * native 0.3 ×). Read as an end: where the load goes on, the doubling limits the step and the next sample's fast
 * drain stops it.
 */
function growBacklogLeftBehind(load: FastLoad): FastDecision | undefined {
  const { context, sample, applied, config } = load;
  if (context.itemSeconds !== undefined || !(load.burstEnded || load.fellBusy)) return undefined;
  const leftBehind = backlogLeftBehind(context.previous, sample, applied, {
    target: config.targetAgeSeconds,
    setpoint: setpointSeconds(config),
  });
  if (leftBehind === undefined) return undefined;
  return growTo(load, Math.min(2 * applied, leftBehind, load.ceiling), true);
}

/**
 * `grow:fast-surge`. No need sized, no proof this sample, and the depth not falling since the last one: how far
 * to grow is unknown; the unconfirmed limit of the tick's value, once per tick, even where a spike is confirmed
 * (the cap is no size for an unknown need). A falling depth is being worked off: the last growth is still
 * settling.
 */
function growUnconfirmed(load: FastLoad): FastDecision | undefined {
  const { context, config, sample, applied } = load;
  if (load.falling) return undefined;
  const maxElapsed = 2 * config.tickSeconds;
  const setpoint = setpointSeconds(config);
  if (!depthShowsBacklog(context.tickSample, sample.at, load.visible, applied, setpoint, maxElapsed)) {
    return undefined;
  }
  const limit = unconfirmedLimit(applied, unconfirmedBase(context), config);
  return growTo(load, Math.min(limit, load.ceiling), false);
}

/** `hold:fast`. A backlog, but nothing sizes the growth and nothing proves it is needed. */
function holdUnsized(load: FastLoad): FastDecision {
  return hold(load, needInputs(load, undefined));
}
