import { clampConcurrency, concurrencyStep, type ScalerConfig } from './config.ts';
import type { Decision, DecisionInputs, ReasonCode } from './decision.ts';
import { loweredAtOnce, sampleAt } from './depth-sample.ts';
import { depthFalling, depthShowsBacklog, lagSinceGrowth, POLLER_SETTLE_SECONDS } from './depth-trend.ts';
import { downstreamUnhealthy } from './downstream-health.ts';
import { fastPathOn } from './fast-path.ts';
import { ageDataOf, type Load, loadOf, maxDefined, type Tick, tickOf } from './load.ts';
import { drainCeiling, needWithBacklog, unconfirmedLimit } from './need.ts';
import { saneSnapshot, saneState } from './sanitize.ts';
import { leftByTick, probeFor } from './saturation.ts';
import { shrinkNeedOf } from './shrink-need.ts';
import type { ControllerState, QueueSnapshot } from './snapshot.ts';

/**
 * The control law: one pure function of a snapshot, the carried state and the config. No AWS, no clock, no I/O;
 * the controller Lambda and the simulator both call it (the fast path between ticks is `decideFast`, built on the
 * same need and trend).
 *
 * - Age decides *when* to grow: above the setpoint (half the target by default; the target is the ceiling).
 * - The Little's-law need decides *how far*: λ·S at the target utilisation, plus draining the backlog above the
 *   setpoint within the drain horizon, at most `maxScaleUpStep` per tick. The cap is the last resort: the drain,
 *   and growth no need sizes, stop at `drainCeiling`; only the arrivals' own need reaches the cap.
 * - No growth while the executions lag a recent change (the pollers not up to it yet: `hold:settling`).
 * - Growth CloudWatch has not confirmed yet (depth alone cannot tell a spike from a slower downstream) is limited
 *   to `unconfirmedGrowthFactor` × the confirmed need, or × the workers the depth proves busy where that is more,
 *   unless the depth rises faster than any slowdown could make it.
 * - Shrink one step at a time, only after sustained idleness, and never below the need: a shrink that the next
 *   tick would undo is an oscillation.
 * - A rate is a count over a period: growth is sized on the lowest rate the count leaves plausible, a shrink on
 *   the highest, so the count's noise cannot shrink a pool and then regrow it past its old size.
 * - At the cap with age above target: hold and signal `saturated` (shed upstream); the cap is the downstream's.
 * - The downstream's health signal past its threshold (`downstreamHealth`): never grow; behind, hold and signal
 *   `saturated` while the age is above target. Not behind, the shrink rules still run.
 * - A growth made while behind that bought no throughput (the per-item time rose with the workers, the completions
 *   did not): the downstream is saturated; more workers make it worse: take it back, grow no further for the
 *   scale-down delay, and signal `shed` while the age is above target. A slower per-item time alone is heavier
 *   work: the need is sized on the time observed now, up to the cap.
 * - Missing or stale age: hold, unless the real-time depth shows a backlog the applied concurrency cannot drain
 *   within the setpoint (then grow, limited as unconfirmed growth is); never shrink on data we do not have.
 * - Nothing bounds the consumer yet (just attached): adopt what it runs, never cut it below its need.
 * - An operator's pause (reserved 0, a disabled mapping) is held, never fought.
 */

// Growth per tick when age says "behind" but the need cannot be computed: the seed article's step.
const AGE_ONLY_STEP = 4;

/**
 * The one decision of a tick: every rule below, tried in this order, the first that applies decides. Each rule is
 * named by the reason code it returns, and reads the figures `load.ts` computed once.
 */
export function decide(raw: QueueSnapshot, rawState: ControllerState, config: ScalerConfig): Decision {
  const tick = tickOf(saneSnapshot(raw), saneState(rawState), config);
  const before = holdPaused(tick) ?? adoptUnbounded(tick) ?? shrinkAboveCap(tick) ?? growBelowFloor(tick);
  if (before) return before;
  const { lag, fresh } = ageDataOf(tick);
  if (!fresh || lag === undefined) {
    // An unhealthy downstream takes no growth, not even on a backlog the depth shows.
    const unhealthy = downstreamUnhealthy(tick.snapshot, tick.config.maxDataAgeSeconds);
    return (unhealthy ? undefined : growBacklogBeforeData(tick, lag)) ?? holdNoData(tick, lag);
  }
  const load = loadOf(tick, lag);
  return (
    onSaturatedDownstream(load) ??
    holdDownstreamSaturated(load) ??
    holdAtCap(load) ??
    holdDraining(load) ??
    growAgeAboveTarget(load) ??
    shrinkSustainedIdle(load) ??
    holdSteady(load)
  );
}

interface Flags {
  readonly ageAboveTarget?: boolean;
  readonly downstreamSlower?: boolean;
  /** Growth bought no throughput (saturation.ts): the shed signal while the age is above target. */
  readonly saturatedDownstream?: boolean;
}

/** A decision: the value clamped to [floor, cap], the flags, the state to carry. */
function verdict(
  tick: Tick,
  desired: number,
  reason: ReasonCode,
  inputs: DecisionInputs,
  next: ControllerState,
  flags: Flags = {},
): Decision {
  const { config, snapshot, state, now, applied } = tick;
  const bounded = clampConcurrency(desired, config);
  const atCap = bounded >= config.maxConcurrency;
  const changed = reason !== 'hold:paused' && bounded !== applied;
  const tickLeft = leftByTick(state.tickLeft, changed ? bounded : applied, applied, now);
  const unhealthy = downstreamUnhealthy(snapshot, config.maxDataAgeSeconds);
  const health = snapshot.downstreamHealth;
  const lastVisible =
    snapshot.visibleMessages === undefined
      ? state.lastVisible
      : loweredAtOnce(sampleAt(now, snapshot.visibleMessages, snapshot.inFlightMessages), {
          applied,
          to: changed ? bounded : applied,
          settled: !settling(tick),
        });
  return {
    desired: bounded,
    reason,
    atCap,
    saturated: (atCap || unhealthy) && (flags.ageAboveTarget ?? false),
    shed: (flags.saturatedDownstream ?? false) && (flags.ageAboveTarget ?? false),
    downstreamSlower: flags.downstreamSlower ?? false,
    downstreamUnhealthy: unhealthy,
    inputs: {
      setpointSeconds: tick.setpoint,
      ...(health === undefined ? {} : { downstreamHealth: health.value }),
      ...inputs,
    },
    state: { ...next, lastVisible, lastChangeAt: changed ? now : state.lastChangeAt, tickLeft },
  };
}

/**
 * The last change is younger than the pollers' settling time (a minute: docs/aws-facts.md, "Event source mapping"):
 * the depth since the previous tick still shows the old concurrency, so growth no need sizes (the age-only step,
 * growth before data) waits for it to show the new one. Worked example: the fast path doubled 2 → 16 in the 30 s
 * before this tick, no per-item time yet; the depth rose over the minute, but falls since the doubling: no step.
 */
const settling = (tick: Tick): boolean =>
  tick.state.lastChangeAt !== undefined && tick.now - tick.state.lastChangeAt < POLLER_SETTLE_SECONDS;

const flagsOf = (load: Load): Flags => ({
  ageAboveTarget: load.aboveTarget,
  downstreamSlower: load.downstreamSlower,
});

/** Behind, the carried state forgets idleness and keeps the baselines the load computed. */
const busyState = (load: Load): ControllerState => ({
  ...load.state,
  ...load.baselines,
  idleSince: undefined,
});

/**
 * `hold:paused`. An operator's pause is theirs to lift: writing anything would undo it (the console's "Throttle"
 * is reserved 0; a disabled mapping stops the pollers). Nothing is known of the load meanwhile, so idleness
 * restarts.
 */
function holdPaused(tick: Tick): Decision | undefined {
  if (tick.snapshot.paused === undefined) return undefined;
  const value = Number.isFinite(tick.applied) ? tick.applied : tick.config.maxConcurrency;
  return verdict(tick, value, 'hold:paused', {}, { ...tick.state, idleSince: undefined });
}

/**
 * `adopt:unbounded`. Nothing bounds the consumer (the scaler was just attached, or the reading made no sense):
 * start from what it runs — the need, or its busiest recent concurrency — and never cut it below either. With
 * neither known, the cap: the downstream's limit is the one bound the configuration vouches for.
 */
function adoptUnbounded(tick: Tick): Decision | undefined {
  if (Number.isFinite(tick.applied)) return undefined;
  const { snapshot, config, confirmedNeed } = tick;
  const observed =
    snapshot.observedConcurrency === undefined ? undefined : Math.ceil(snapshot.observedConcurrency);
  // Nothing arriving over the whole window is a known need too: none.
  const idleNeed = tick.reportedArrivals === 0 ? config.minConcurrency : undefined;
  const adopted = maxDefined(confirmedNeed, observed, idleNeed) ?? config.maxConcurrency;
  const inputs = { needConcurrency: confirmedNeed, observedConcurrency: snapshot.observedConcurrency };
  return verdict(tick, adopted, 'adopt:unbounded', inputs, tick.state);
}

/** `shrink:above-cap`. The bounds are configuration, not a judgement on data: they hold even without data. */
function shrinkAboveCap(tick: Tick): Decision | undefined {
  const cap = tick.config.maxConcurrency;
  return tick.applied > cap ? verdict(tick, cap, 'shrink:above-cap', {}, tick.state) : undefined;
}

/** `grow:below-floor`: the same, for the floor. */
function growBelowFloor(tick: Tick): Decision | undefined {
  const floor = tick.config.minConcurrency;
  return tick.applied < floor ? verdict(tick, floor, 'grow:below-floor', {}, tick.state) : undefined;
}

const noDataInputs = (tick: Tick, lag: number | undefined): DecisionInputs => ({
  ageDataLagSeconds: lag,
  itemSeconds: tick.itemSeconds,
  needConcurrency: tick.confirmedNeed,
});

/**
 * `grow:backlog-before-data`. A backlog the real-time depth shows is not missing data: a new queue has no
 * datapoint for its first minutes while GetQueueAttributes already counts thousands of messages. Growth on it is
 * unconfirmed growth, limited alike; with the rates CloudWatch does report the backlog is sized, without them the
 * limit is the step. With the samples running (`fastPathOn`) the depth before data is theirs: every 10 s they see
 * what two depths a minute apart cannot, whether it fell after a burst ended (`growBacklogLeftBehind`) or after the
 * pollers stepped up onto arrivals that go on, and whether a minute that rose is falling now, and they grow on it
 * themselves (slow start, `growUnconfirmed`). Read by the tick as well, a new queue's 150/s of 80 ms items, falling
 * 40/s once the pollers reached 16, grew 16 → 24 for a need of 14 (cold-steady, one poller step a minute, the tick
 * 10 s after the load: later and heavier than provisioned mode on 5 seeds of 5, on none since).
 */
function growBacklogBeforeData(tick: Tick, lag: number | undefined): Decision | undefined {
  const { snapshot, state, config, applied, reportedArrivals, itemSeconds } = tick;
  if (applied >= config.maxConcurrency || fastPathOn(config)) return undefined;
  // A falling depth is worked off by what runs: grow only where even its drain (the least the workers serve)
  // leaves the newest message waiting past the target; a flat or rising one, past the setpoint.
  const falling =
    snapshot.visibleMessages !== undefined && depthFalling(state.lastVisible, snapshot.visibleMessages);
  const backlog = depthShowsBacklog(
    state.lastVisible,
    tick.now,
    snapshot.visibleMessages,
    applied,
    falling ? config.targetAgeSeconds : tick.setpoint,
    2 * config.tickSeconds,
  );
  // After a sample that found the executions behind a recent change, the fall is fewer workers' drain: wait.
  const lagged =
    state.lastVisible !== undefined &&
    lagSinceGrowth(state.lastVisible, applied, state.lastChangeAt, snapshot.batchSize);
  if (!backlog || settling(tick) || lagged) return undefined;
  const growthLimit = unconfirmedLimit(applied, tick.confirmedNeed, config);
  const wanted =
    reportedArrivals === undefined || itemSeconds === undefined
      ? Math.min(growthLimit, drainCeiling(config))
      : needWithBacklog(reportedArrivals, itemSeconds, snapshot.visibleMessages, config);
  const desired = Math.min(wanted, growthLimit, applied + config.maxScaleUpStep);
  if (desired <= applied) return undefined;
  const inputs = { ...noDataInputs(tick, lag), growthLimit };
  return verdict(tick, desired, 'grow:backlog-before-data', inputs, { ...state, idleSince: undefined });
}

/**
 * `hold:no-data`. Missing or stale age data means hold: a scale-down that trusted late or missing metrics has
 * stopped workers mid-message in production (docs/aws-facts.md, "SQS metrics"). Idleness must be observed afresh
 * once data returns.
 */
function holdNoData(tick: Tick, lag: number | undefined): Decision {
  const next = { ...tick.state, idleSince: undefined };
  return verdict(tick, tick.applied, 'hold:no-data', noDataInputs(tick, lag), next);
}

/**
 * `shrink:downstream-saturated`, `hold:downstream-saturated`. A growth made while behind bought no throughput: the
 * per-item time rose with the workers and the completions did not (saturation.ts). More workers make a saturated
 * downstream worse: the growth goes back to where it started, and no growth passes that level for the scale-down
 * delay, with the shed signal while the age is above target. A slower per-item time alone is heavier work, not
 * saturation: the need is sized on the time observed now, up to the cap.
 */
function onSaturatedDownstream(load: Load): Decision | undefined {
  const ceiling = load.saturationCeiling;
  if (ceiling === undefined) return undefined;
  const inputs = { ...load.inputs, saturationCeiling: ceiling };
  const flags = { ...flagsOf(load), saturatedDownstream: true };
  if (load.applied > ceiling) {
    return verdict(load, ceiling, 'shrink:downstream-saturated', inputs, busyState(load), flags);
  }
  if (!load.behind || load.applied < ceiling || wantedWhenBehind(load) <= load.applied) return undefined;
  return verdict(load, load.applied, 'hold:downstream-saturated', inputs, busyState(load), flags);
}

/**
 * `hold:downstream-saturated`. The user's health signal for the downstream (a pool's connections, an API's 429s)
 * is past its threshold: more workers would load a saturated dependency further, so behind nothing grows, and
 * with the age above target the tick signals `saturated` (shed upstream). Not behind, this rule passes: the
 * shrink rules may still run, and no rule after it grows when not behind. Worked example: DBLoad 14 with a
 * threshold of 8, the age 240 s over a 60 s target, 6 applied of a cap of 20: hold at 6, `Saturated = 1`.
 */
function holdDownstreamSaturated(load: Load): Decision | undefined {
  if (!load.behind || !downstreamUnhealthy(load.snapshot, load.config.maxDataAgeSeconds)) return undefined;
  return verdict(
    load,
    load.applied,
    'hold:downstream-saturated',
    load.inputs,
    busyState(load),
    flagsOf(load),
  );
}

/** `hold:at-cap`. Behind at the cap: hold and signal `saturated` (shed upstream); the cap is the downstream's. */
function holdAtCap(load: Load): Decision | undefined {
  if (!load.behind || load.applied < load.config.maxConcurrency) return undefined;
  return verdict(load, load.applied, 'hold:at-cap', load.inputs, busyState(load), flagsOf(load));
}

/**
 * How far behind asks to grow: the need, or without a per-item time or an arrival rate the seed's step of 4 (or
 * less where maxScaleUpStep is smaller), never straight to the cap on a guess.
 */
const wantedWhenBehind = (load: Load): number =>
  load.need ?? load.applied + Math.min(AGE_ONLY_STEP, load.config.maxScaleUpStep);

/**
 * `hold:draining`. Behind, but the capacity already exceeds arrivals plus the drain: the backlog is shrinking;
 * growing more would overshoot.
 */
function holdDraining(load: Load): Decision | undefined {
  if (!load.behind || wantedWhenBehind(load) > load.applied) return undefined;
  return verdict(load, load.applied, 'hold:draining', load.inputs, busyState(load), flagsOf(load));
}

/**
 * `grow:age-above-target`, `hold:unconfirmed` at the limit, or `hold:settling` where no need sizes the growth and the
 * last change (the fast path's slow start, say) has not settled yet. Age decides when (above the setpoint, or past it
 * when the growth binds: `load.aheadLimit`), the need how far, at most `maxScaleUpStep` a tick; growth CloudWatch has
 * not confirmed stops at `unconfirmedGrowthFactor` × the confirmed need (depth alone cannot tell a spike from a
 * slower downstream). `hold:settling` too while the executions lag the applied value (`load.executionsBehind`): the
 * pollers have not followed the last growth yet, and a backlog growing meanwhile would size the limit to the cap.
 */
function growAgeAboveTarget(load: Load): Decision | undefined {
  if (!load.behind) return undefined;
  const { config, applied } = load;
  if ((load.need === undefined && settling(load)) || load.executionsBehind) {
    return verdict(load, applied, 'hold:settling', load.inputs, busyState(load), flagsOf(load));
  }
  const growthLimit = Math.min(
    load.confirmed ? config.maxConcurrency : unconfirmedLimit(applied, load.unconfirmedBase, config),
    load.saturationCeiling ?? Number.POSITIVE_INFINITY,
    // The age-only step is a guess: it stops below the cap (drainCeiling), at `hold:unconfirmed`.
    load.need === undefined ? drainCeiling(config) : Number.POSITIVE_INFINITY,
    load.aheadLimit ?? Number.POSITIVE_INFINITY,
  );
  const desired = Math.min(wantedWhenBehind(load), applied + config.maxScaleUpStep, growthLimit);
  const inputs = { ...load.inputs, growthLimit };
  if (desired <= applied) {
    return verdict(load, applied, 'hold:unconfirmed', inputs, busyState(load), flagsOf(load));
  }
  if (probing(load)) return verdict(load, applied, 'hold:probing', inputs, busyState(load), flagsOf(load));
  // What the growth buys is judged once CloudWatch shows a period after it (saturation.ts); one probe at a time.
  const probe = load.baselines.growthProbe ?? probeFor(load, applied, clampConcurrency(desired, config));
  const next = { ...busyState(load), growthProbe: probe };
  return verdict(load, desired, 'grow:age-above-target', inputs, next, flagsOf(load));
}

/**
 * `hold:probing`. The per-item time is up (heavier items or a saturated downstream) and the last growth's probe has no
 * verdict yet: the next growth waits, so a saturated downstream gets one growth's worth of waiting workers, not a
 * climb to the cap. Where the per-item time is as usual (a spike in arrivals), growth does not wait.
 */
const probing = (load: Load): boolean =>
  (load.downstreamSlower || load.heavierShown !== undefined) && load.baselines.growthProbe !== undefined;

/** Idleness: the age at or below `idleAgeFraction` × target, carried since it began. */
function idleOf(load: Load): { next: ControllerState; idleSeconds?: number } {
  const { config, state, now } = load;
  const idle = load.ageSeconds <= config.idleAgeFraction * config.targetAgeSeconds;
  const idleSince = idle ? (state.idleSince ?? now) : undefined;
  return {
    next: { ...state, ...load.baselines, idleSince },
    idleSeconds: idleSince === undefined ? undefined : now - idleSince,
  };
}

/**
 * `shrink:sustained-idle`. Idle for `scaleDownDelaySeconds` without a break, shrinks spaced by
 * `scaleDownIntervalSeconds`, and never below the need (the next busy tick would grow right back: an
 * oscillation). Worked example (fraction 0.5): 19 applied, need 2 → surplus 17 → remove 8 → 11 → 7 → 5 ….
 */
function shrinkSustainedIdle(load: Load): Decision | undefined {
  const { config, state, now, applied } = load;
  const { next, idleSeconds } = idleOf(load);
  const sustained = idleSeconds !== undefined && idleSeconds >= config.scaleDownDelaySeconds;
  const spaced =
    state.lastChangeAt === undefined || now - state.lastChangeAt >= config.scaleDownIntervalSeconds;
  const shrinkNeed = shrinkNeedOf(load);
  if (!sustained || !spaced || applied <= config.minConcurrency || shrinkNeed === undefined) return undefined;
  const surplus = applied - shrinkNeed;
  // A shrink removes at least one of the actuator's steps (a poller in provisioned mode): less would round back up.
  const step = Math.max(
    config.scaleDownStep,
    concurrencyStep(config.actuator),
    Math.floor(surplus * config.scaleDownSurplusFraction),
  );
  // On the actuator's levels (whole pollers round up: 100 − 15 applies 90), so a level that still covers the need
  // is not refused for the 85 it rounds from.
  const candidate = clampConcurrency(Math.max(config.minConcurrency, applied - step), config);
  if (candidate < shrinkNeed || candidate >= applied) return undefined;
  const inputs = { ...load.inputs, idleSeconds };
  return verdict(load, candidate, 'shrink:sustained-idle', inputs, next, flagsOf(load));
}

/** `hold:steady`: within the setpoint, and no shrink due. */
function holdSteady(load: Load): Decision {
  const { next, idleSeconds } = idleOf(load);
  return verdict(load, load.applied, 'hold:steady', { ...load.inputs, idleSeconds }, next, flagsOf(load));
}
