import type { DepthSample } from './depth-trend.ts';
import type { GrowthProbe } from './saturation.ts';
import type { ControllerState, LeftApplied, QueueSnapshot } from './snapshot.ts';

/**
 * The law's inputs as it may trust them. The adapters already refuse nonsense (a negative depth, a non-numeric
 * MaximumConcurrency), but the law must hold on its own: a NaN that slipped through would give `desired = NaN`.
 * A value that cannot be a rate, a count or a time is unknown, and unknown is missing data, never zero.
 */

const rate = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v >= 0 ? v : undefined);
const positive = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined);
const time = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v : undefined);

/**
 * The applied concurrency: a whole number of executions, or +∞ when nothing bounds the consumer (no reserved
 * concurrency, no mapping maximum). A value that makes no sense (NaN, negative, −∞) is unknown: the law then
 * starts from what the consumer runs, as it does for an unbounded one.
 */
export function saneApplied(value: number): number {
  if (value === Number.POSITIVE_INFINITY) return value;
  if (!Number.isFinite(value) || value < 0) return Number.POSITIVE_INFINITY;
  return Math.round(value);
}

/** A health reading whose value or time is not a number is no reading: no evidence either way. */
function saneHealth(h: QueueSnapshot['downstreamHealth']): QueueSnapshot['downstreamHealth'] {
  if (h === undefined) return undefined;
  const ok =
    Number.isFinite(h.value) && time(h.observedAt) !== undefined && positive(h.periodSeconds) !== undefined;
  return ok ? h : undefined;
}

/** A climb whose every figure makes sense, else none (the reading then assumes the reported rate). */
function saneClimb(c: QueueSnapshot['arrivalsClimbing']): QueueSnapshot['arrivalsClimbing'] {
  if (c === undefined) return undefined;
  const ok =
    positive(c.perPeriod) !== undefined &&
    positive(c.periodSeconds) !== undefined &&
    time(c.observedAt) !== undefined;
  return ok ? c : undefined;
}

export function saneSnapshot(s: QueueSnapshot): QueueSnapshot {
  const age = s.oldestAge;
  return {
    ...s,
    appliedConcurrency: saneApplied(s.appliedConcurrency),
    oldestAge:
      age !== undefined && rate(age.seconds) !== undefined && time(age.observedAt) !== undefined
        ? age
        : undefined,
    visibleMessages: rate(s.visibleMessages),
    inFlightMessages: rate(s.inFlightMessages),
    arrivalRatePerSecond: rate(s.arrivalRatePerSecond),
    peakArrivalRatePerSecond: rate(s.peakArrivalRatePerSecond),
    arrivalsClimbing: saneClimb(s.arrivalsClimbing),
    completionRatePerSecond: rate(s.completionRatePerSecond),
    ratePeriodSeconds: positive(s.ratePeriodSeconds),
    itemSeconds: positive(s.itemSeconds),
    observedConcurrency: rate(s.observedConcurrency),
    downstreamHealth: saneHealth(s.downstreamHealth),
  };
}

export function saneState(s: ControllerState): ControllerState {
  const visible = s.lastVisible;
  const quiet = s.lastQuiet;
  return {
    idleSince: time(s.idleSince),
    lastChangeAt: time(s.lastChangeAt),
    baselineItemSeconds: positive(s.baselineItemSeconds),
    baselineArrivalRate: rate(s.baselineArrivalRate),
    lastVisible:
      visible !== undefined && time(visible.at) !== undefined && rate(visible.messages) !== undefined
        ? saneSample(visible)
        : undefined,
    lastQuiet:
      quiet !== undefined && time(quiet.at) !== undefined && rate(quiet.messages) !== undefined
        ? saneSample(quiet)
        : undefined,
    growthProbe: saneProbe(s.growthProbe),
    tickLeft: saneLeft(s.tickLeft),
    saturation:
      s.saturation !== undefined &&
      positive(s.saturation.ceiling) !== undefined &&
      time(s.saturation.until) !== undefined
        ? s.saturation
        : undefined,
  };
}

/** A depth sample's in-flight count that makes no sense is dropped: the sample says nothing of the workers. */
function saneSample(sample: DepthSample): DepthSample {
  if (sample.inFlight === undefined || rate(sample.inFlight) !== undefined) return sample;
  const { inFlight: _, ...rest } = sample;
  return rest;
}

/** A probe whose every figure makes sense, else none (it judges nothing). */
function saneProbe(p: GrowthProbe | undefined): GrowthProbe | undefined {
  if (p === undefined || time(p.at) === undefined) return undefined;
  const figures = [p.from, p.to, p.completionsBefore, p.itemSecondsBefore];
  if (!(figures.every((v) => positive(v) !== undefined) && p.to > p.from)) return undefined;
  // One that cannot be (not a count, not below where the growth started, left after it) is dropped: `from` stands.
  const left = saneLeft(p.unjudgedFrom);
  if (left !== undefined && left.value < p.from && left.at <= p.at) return p;
  const { unjudgedFrom: _, ...rest } = p;
  return rest;
}

/** A value left and its time, both numbers that make sense, else none. */
function saneLeft(left: LeftApplied | undefined): LeftApplied | undefined {
  if (left === undefined || rate(left.value) === undefined || time(left.at) === undefined) return undefined;
  return { value: left.value, at: left.at };
}
