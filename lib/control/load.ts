import type { ScalerConfig } from './config.ts';
import type { DecisionInputs } from './decision.ts';
import {
  arrivalsRose,
  type DepthTrend,
  depthTrend,
  lagSinceGrowth,
  POLLER_SETTLE_SECONDS,
  RATE_CHANGE_FACTOR,
  type TrendInput,
  workersProvenBusy,
} from './depth-trend.ts';
import { type HeavierShown, heavierItemsShown } from './heavier-items.ts';
import { needWithBacklog, setpointSeconds, steadyNeed, UNJUDGED_GROWTH_FACTOR } from './need.ts';
import { arrivalsRoseSince, countedEnough, quietStart } from './quiet-sample.ts';
import { rateLowerBound } from './rate-bounds.ts';
import { saturationOf } from './saturation.ts';
import type { ArrivalsClimbing, ControllerState, QueueSnapshot } from './snapshot.ts';

/**
 * What one tick knows, computed once so that every rule of `decide` reads the same figures: the tick (what any
 * rule needs) and, where the age datapoint is fresh, the load (the age, the rates for growth and for shrink,
 * the per-item time, whether CloudWatch confirmed the backlog, whether the downstream got slower).
 */

// Weight of one healthy tick in the per-item baseline: the baseline follows slow drift over about five ticks
// but not a step, which is what `slowdownFactor` is there to catch.
const BASELINE_WEIGHT = 0.2;

export function maxDefined(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return defined.length === 0 ? undefined : Math.max(...defined);
}

/** What every rule may read: the sanitized inputs and the rates CloudWatch reported. */
export interface Tick {
  readonly snapshot: QueueSnapshot;
  readonly state: ControllerState;
  readonly config: ScalerConfig;
  readonly now: number;
  /** The concurrency applied now (+∞: nothing bounds the consumer). */
  readonly applied: number;
  readonly setpoint: number;
  /** The per-item time now, else its healthy baseline, else the configured one. */
  readonly itemSeconds?: number;
  /** CloudWatch's arrival rate for the newest period. */
  readonly measuredArrivals?: number;
  /** The busiest arrival rate CloudWatch reported: the newest period or the window's peak. */
  readonly reportedArrivals?: number;
  /** The need CloudWatch's reported rates support: what unconfirmed growth is measured against. */
  readonly confirmedNeed?: number;
  /** The arrivals still climbing when CloudWatch last counted them (observe.ts). */
  readonly arrivalsClimbing?: ArrivalsClimbing;
}

export function tickOf(snapshot: QueueSnapshot, state: ControllerState, config: ScalerConfig): Tick {
  const itemSeconds = snapshot.itemSeconds ?? state.baselineItemSeconds ?? config.itemTimeSeconds;
  const measuredArrivals = snapshot.arrivalRatePerSecond;
  const reportedArrivals = maxDefined(measuredArrivals, snapshot.peakArrivalRatePerSecond);
  return {
    snapshot,
    state,
    config,
    now: snapshot.now,
    applied: snapshot.appliedConcurrency,
    setpoint: setpointSeconds(config),
    itemSeconds,
    measuredArrivals,
    reportedArrivals,
    arrivalsClimbing: snapshot.arrivalsClimbing,
    confirmedNeed:
      reportedArrivals === undefined || itemSeconds === undefined
        ? undefined
        : steadyNeed(reportedArrivals, itemSeconds, config),
  };
}

/** The age datapoint and how long ago its period ended; `fresh` when it is recent enough to act on. */
export function ageDataOf(tick: Tick): { lag?: number; fresh: boolean } {
  const age = tick.snapshot.oldestAge;
  const lag = age === undefined ? undefined : Math.max(0, tick.now - age.observedAt);
  return { lag, fresh: age !== undefined && lag !== undefined && lag <= tick.config.maxDataAgeSeconds };
}

/** The load, where the age datapoint is fresh. */
export interface Load extends Tick {
  /** The age now: the datapoint, bounded by what the real-time depth says (`estimateAge`). */
  readonly ageSeconds: number;
  readonly behind: boolean;
  /**
   * Behind only by the age a growth would meet when it binds (`ageWhenGrowthBinds`), not by the age now: such growth
   * records no probe, and goes at most this far (`UNJUDGED_GROWTH_FACTOR` × the applied value), as the samples'
   * unjudged growth does.
   */
  readonly aheadLimit?: number;
  readonly aboveTarget: boolean;
  /** The arrival rate the need is sized for: CloudWatch's, or the depth trend's where it proved more. */
  readonly arrivalRate?: number;
  /** The trend's λ = dV/dt + c ÷ S, where every worker was busy at both samples. */
  readonly estimate?: number;
  /** CloudWatch's own datapoint shows the backlog, or the trend proves a spike. */
  readonly confirmed: boolean;
  /** The steady need for `arrivalRate` (undefined: no per-item time, unless nothing arrives). */
  readonly steady?: number;
  /** The steady need plus draining the backlog, sized on the lowest rate the count leaves plausible. */
  readonly need?: number;
  readonly downstreamSlower: boolean;
  /**
   * The depth showed items heavier than CloudWatch reports yet (`itemSecondsShown`): the per-item time and the
   * completions the tick sized on, which a growth's probe is judged against.
   */
  readonly heavierShown?: HeavierShown;
  /**
   * The real-time depth finds a backlog and fewer workers running than the applied value allows, within two
   * minutes of the last change (`lagSinceGrowth`): the pollers have not reached it yet, so a higher limit buys
   * nothing now.
   */
  readonly executionsBehind: boolean;
  /**
   * What growth CloudWatch has not confirmed is measured from (`unconfirmedLimit`): the confirmed need, or the
   * applied value where the depth proves every applied worker busy now (`workersProvenBusy`) and that is more.
   */
  readonly unconfirmedBase?: number;
  /** The baselines and the saturation evidence to carry: the baselines frozen while the downstream is slower. */
  readonly baselines: ControllerState;
  /** The level growth past which bought no throughput, while it holds (saturation.ts). */
  readonly saturationCeiling?: number;
  readonly inputs: DecisionInputs;
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

/** What the depth said since the previous tick's sample (two ticks at most: an older one says little about now). */
const trendInputOf = (tick: Tick): TrendInput => ({
  previous: tick.state.lastVisible,
  now: tick.now,
  visible: tick.snapshot.visibleMessages,
  applied: tick.applied,
  inFlight: tick.snapshot.inFlightMessages,
  batchSize: tick.snapshot.batchSize,
  itemSeconds: tick.itemSeconds,
  lastChangeAt: tick.state.lastChangeAt,
  maxElapsedSeconds: 2 * tick.config.tickSeconds,
});

/** The trend since the previous tick's depth sample. */
function trendSincePreviousTick(tick: Tick): DepthTrend | undefined {
  return depthTrend(trendInputOf(tick));
}

/**
 * The tick with the per-item time the depth shows since the previous tick, where it shows items heavier than the
 * tick knows (heavier-items.ts): heavier items are work, and sizing on CloudWatch's time until its late datapoint
 * catches up leaves the queue two minutes behind. A saturated downstream looks the same here; the growth's probe
 * tells them apart (saturation.ts). The reported rates' need follows the time shown: it is what the workers serve now.
 */
function withHeavierShown(tick: Tick): { tick: Tick; shown?: HeavierShown } {
  // Over the rise alone where the samples saw where it began (quiet-sample.ts); none where it outran the arrivals.
  const start = quietStart(tick.state);
  if (arrivalsRoseSince(start, tick)) return { tick };
  const overTheRise =
    start === undefined
      ? undefined
      : heavierItemsShown({ ...trendInputOf(tick), previous: start }, tick, tick.config);
  const shown =
    overTheRise !== undefined && countedEnough(overTheRise, start, tick.now, tick.reportedArrivals)
      ? overTheRise
      : heavierItemsShown(trendInputOf(tick), tick, tick.config);
  if (shown === undefined) return { tick };
  const reported = tick.reportedArrivals;
  return {
    tick: {
      ...tick,
      itemSeconds: shown.itemSeconds,
      confirmedNeed:
        reported === undefined ? undefined : steadyNeed(reported, shown.itemSeconds, tick.config),
    },
    shown,
  };
}

/**
 * The arrival rate to size for. The trend sizes a spike it proved; otherwise its estimate counts only where it
 * differs from the measured rate beyond noise (40 Poisson arrivals in 50 ms vary by ±16 %), with the backlog
 * confirmed or the depth rising: unconfirmed, the unconfirmed limit bounds what it buys, and without it a load
 * rising step after step faster than CloudWatch reports it is sized on a rate two minutes old and held as
 * "draining" while its depth climbs. With no measured rate at all it is the only rate there is: without it, a
 * draining queue would grow on the blind age-only step with a young datapoint and hold on the estimate with an
 * older one.
 */
function arrivalRateOf(
  tick: Tick,
  trend: DepthTrend | undefined,
  spike: boolean,
  confirmed: boolean,
): number | undefined {
  const measured = tick.measuredArrivals;
  const estimate = trend?.arrivalsEstimate;
  if (spike) return maxDefined(measured, estimate ?? trend?.arrivalsAtLeast);
  // Unconfirmed, the estimate counts only while the depth rises: a falling depth is being worked off, and the
  // backlog's drain would grow past a need already met. The unconfirmed limit bounds what it buys.
  const rising = (trend?.arrivalsAtLeast ?? 0) > 0;
  const trendCounts =
    (confirmed || rising || measured === undefined) &&
    estimate !== undefined &&
    estimate > RATE_CHANGE_FACTOR * (measured ?? 0);
  return trendCounts ? estimate : measured;
}

/**
 * The downstream got slower: per-item time above `slowdownFactor` × its baseline, and arrivals not up as much.
 * Load explains slower items only if arrivals rose at least as much as the per-item time did: a bare "arrivals
 * up by slowdownFactor" test flipped on one noisy rate window (items 3× slower, arrivals 1.5× for a quarter of a
 * second) and grew into a slow downstream.
 */
function slowdownOf(tick: Tick): { ratio?: number; slower: boolean } {
  const { snapshot, state } = tick;
  const ratio =
    snapshot.itemSeconds !== undefined && state.baselineItemSeconds !== undefined
      ? snapshot.itemSeconds / state.baselineItemSeconds
      : undefined;
  const arrivalsUpAsMuch =
    ratio !== undefined &&
    snapshot.arrivalRatePerSecond !== undefined &&
    state.baselineArrivalRate !== undefined &&
    state.baselineArrivalRate > 0 &&
    snapshot.arrivalRatePerSecond / state.baselineArrivalRate >= ratio;
  return { ratio, slower: ratio !== undefined && ratio > tick.config.slowdownFactor && !arrivalsUpAsMuch };
}

/**
 * The steady need for the arrival rate, and with the backlog's drain the need growth is sized on (undefined: no
 * per-item time, unless nothing arrives).
 */
function needOf(tick: Tick, arrivalRate: number | undefined): Pick<Load, 'steady' | 'need'> {
  const { snapshot, config, setpoint, itemSeconds } = tick;
  // Without a per-item time the need is known only when nothing arrives, now or at the window's peak.
  const nothingArrives = arrivalRate === 0 && (snapshot.peakArrivalRatePerSecond ?? 0) === 0;
  const sized = arrivalRate !== undefined && (itemSeconds !== undefined || nothingArrives);
  const steady = sized ? steadyNeed(arrivalRate, itemSeconds ?? 0, config) : undefined;
  const excess = Math.max(0, (snapshot.visibleMessages ?? 0) - (arrivalRate ?? 0) * setpoint);
  // Growth is sized on the lowest rate the period's count leaves plausible (rate-bounds.ts). That may take away
  // the utilisation headroom, never the work itself: at least λ·S stays busy (at 0.5/s over a minute the bound is
  // 37 % lower; a need below λ·S would call a growing queue "draining"). A rate the depth trend estimated is not a
  // count and stands as it is.
  const growthArrivals =
    arrivalRate !== undefined && arrivalRate === tick.measuredArrivals
      ? Math.max(
          rateLowerBound(arrivalRate, snapshot.ratePeriodSeconds),
          config.targetUtilization * arrivalRate,
        )
      : arrivalRate;
  const need =
    !sized || (itemSeconds === undefined && excess > 0)
      ? undefined
      : needWithBacklog(growthArrivals ?? 0, itemSeconds ?? 0, snapshot.visibleMessages, config);
  return { steady, need };
}

/** The baselines to carry: updated by a healthy tick, frozen while the downstream is slower. */
function baselinesOf(tick: Tick, slower: boolean): ControllerState {
  const { snapshot, state } = tick;
  if (slower) {
    return { baselineItemSeconds: state.baselineItemSeconds, baselineArrivalRate: state.baselineArrivalRate };
  }
  return {
    baselineItemSeconds: updatedBaseline(state.baselineItemSeconds, snapshot.itemSeconds),
    baselineArrivalRate: updatedBaseline(state.baselineArrivalRate, snapshot.arrivalRatePerSecond),
  };
}

export function loadOf(knownTick: Tick, lag: number): Load {
  const { tick, shown } = withHeavierShown(knownTick);
  const { snapshot, config, setpoint, itemSeconds } = tick;
  const age = snapshot.oldestAge as NonNullable<QueueSnapshot['oldestAge']>;
  const trend = trendSincePreviousTick(tick);
  // Only a rise beyond what a slower downstream could cause confirms a spike; then the trend sizes it, a minute
  // or two before the late datapoint reports it.
  const spike = arrivalsRose(trend, tick.reportedArrivals);
  // CloudWatch's own datapoint already shows the backlog: the per-item time and arrivals of the same late period
  // are published with it, so what the data says of a slowdown is known.
  const confirmed = spike || age.seconds > setpoint;
  const arrivalRate = arrivalRateOf(tick, trend, spike, confirmed);
  const estimate = trend?.arrivalsEstimate;
  // The trend's estimate enters the age estimate whether or not it may size growth: V ÷ λ, Little's estimate with
  // the trend's arrivals. While S is stale (a downstream slower than CloudWatch shows yet) it overstates λ and so
  // understates the age: it then delays growth, the side a slower downstream needs.
  const ageSeconds = estimateAge(
    age.seconds,
    lag,
    snapshot,
    maxDefined(arrivalRate, snapshot.completionRatePerSecond, estimate),
  );

  const { steady, need } = needOf(tick, arrivalRate);
  const slowdown = slowdownOf(tick);
  const aheadLimit = aheadLimitOf(tick, ageSeconds, shown);
  const behind = ageSeconds > setpoint || aheadLimit !== undefined;
  const saturation = saturationOf({ ...tick, behind, heavierShown: shown, aheadLimit });
  return {
    ...tick,
    ageSeconds,
    behind,
    aheadLimit,
    aboveTarget: ageSeconds > config.targetAgeSeconds,
    arrivalRate,
    estimate,
    confirmed,
    steady,
    need,
    downstreamSlower: slowdown.slower,
    heavierShown: shown,
    executionsBehind: executionsBehindAt(tick),
    unconfirmedBase: unconfirmedBaseOf(tick),
    baselines: { ...baselinesOf(tick, slowdown.slower), ...saturation.carried },
    saturationCeiling: saturation.ceiling,
    inputs: {
      ageSeconds,
      ageDataLagSeconds: lag,
      arrivalRatePerSecond: arrivalRate,
      itemSeconds,
      ...(shown?.afterLowering === true ? { fastItemSeconds: knownTick.itemSeconds } : {}),
      ...(shown === undefined ? {} : { itemSecondsShown: true }),
      ...(aheadLimit === undefined ? {} : { grownAhead: true }),
      needConcurrency: need,
      slowdownRatio: slowdown.ratio,
      arrivalsAtLeast: trend?.arrivalsAtLeast,
      confirmed,
    },
  };
}

/**
 * The age the queue reaches by the time a growth the next tick makes would bind (that tick, then the pollers' step:
 * docs/aws-facts.md, "Event source mapping"), where the depth shows the workers serving less than arrives (heavier
 * items): the backlog grows at what arrives less what they serve, and the oldest message ages by that share of the
 * time. Waiting for the age to pass the setpoint first leaves the queue a tick and a step behind the heavier items.
 * Such growth, ahead of the age, records no probe (saturation.ts, `probeFor`) and goes at most as far as the
 * samples' unjudged growth (`UNJUDGED_GROWTH_FACTOR` × the value); growth once the age is behind is probed as before.
 * Worked example (heavier-items, one poller step a minute: 400/s, 14 workers after idle shrinks, items 30 → 50 ms at
 * 1,200 s): at 1,260 s, 8,144 waiting, the 14 served 269/s: an age of 21 s now, 21 + 120 × (1 − 269 ÷ 399) = 60 s
 * by then, past the setpoint of 30 s: the tick grows 14 → 25 now rather than 16 → 17 at 1,320 s on CloudWatch's
 * 31 ms (that phase's p99 68 → 40 s).
 */
function aheadLimitOf(tick: Tick, ageSeconds: number, shown: HeavierShown | undefined): number | undefined {
  const ahead = !(ageSeconds > tick.setpoint) && ageWhenGrowthBinds(tick, ageSeconds, shown) > tick.setpoint;
  return ahead ? Math.floor(UNJUDGED_GROWTH_FACTOR * tick.applied) : undefined;
}

function ageWhenGrowthBinds(tick: Tick, ageSeconds: number, shown: HeavierShown | undefined): number {
  const arrivals = tick.reportedArrivals;
  if (shown === undefined || arrivals === undefined || !(arrivals > shown.completionsPerSecond))
    return ageSeconds;
  const horizon = tick.config.tickSeconds + POLLER_SETTLE_SECONDS;
  return ageSeconds + horizon * (1 - shown.completionsPerSecond / arrivals);
}

/** The confirmed need, or the applied value where the depth proves every applied worker busy and that is more. */
function unconfirmedBaseOf(tick: Tick): number | undefined {
  const { snapshot } = tick;
  const sample = { messages: snapshot.visibleMessages, inFlight: snapshot.inFlightMessages };
  return maxDefined(tick.confirmedNeed, workersProvenBusy(sample, tick.applied, snapshot.batchSize));
}

function executionsBehindAt(tick: Tick): boolean {
  const { snapshot, now, applied } = tick;
  if (snapshot.visibleMessages === undefined || snapshot.inFlightMessages === undefined) return false;
  const sample = { at: now, messages: snapshot.visibleMessages, inFlight: snapshot.inFlightMessages };
  return lagSinceGrowth(sample, applied, tick.state.lastChangeAt, snapshot.batchSize);
}
