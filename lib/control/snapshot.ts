import type { DepthSample } from './depth-trend.ts';
import type { HealthReading } from './downstream-health.ts';

/**
 * What the controller knows at one tick. The Lambda builds it from CloudWatch and SQS, the simulator from its
 * model of them; the control law sees nothing else.
 */
export interface QueueSnapshot {
  /** When the snapshot was taken, in seconds (epoch seconds in Lambda, virtual seconds in the simulator). */
  readonly now: number;
  /**
   * The concurrency the consumer can run now: the lower of what bounds it. +∞ when nothing does (no reserved
   * concurrency and no mapping maximum: a consumer the scaler has just been attached to).
   */
  readonly appliedConcurrency: number;
  /**
   * An operator has paused the consumer: reserved concurrency 0 (the console's "Throttle"), or its event source
   * mapping disabled. The controller holds and writes nothing until the pause is lifted.
   */
  readonly paused?: PauseKind;
  /**
   * The newest `ApproximateAgeOfOldestMessage` datapoint and the time it describes (the end of its period).
   * Absent when CloudWatch returned none: missing data.
   */
  readonly oldestAge?: { readonly seconds: number; readonly observedAt: number };
  /** `ApproximateNumberOfMessages`, near real time from `GetQueueAttributes`. */
  readonly visibleMessages?: number;
  /** `ApproximateNumberOfMessagesNotVisible`. */
  readonly inFlightMessages?: number;
  /** Messages sent per second over the newest complete metric period (`NumberOfMessagesSent`). */
  readonly arrivalRatePerSecond?: number;
  /**
   * The highest per-period arrival rate over the recent window (the scale-down delay): a shrink must cover the
   * busiest recent period, not the latest sample, as the Kubernetes HPA's scale-down stabilisation does.
   */
  readonly peakArrivalRatePerSecond?: number;
  /**
   * The seconds each rate here was counted over (the metric period). A rate counted over T seconds is a count of
   * λ·T arrivals, uncertain by about its square root: 800/s over 250 ms is 200 ± 14, over a minute 48,000 ± 219.
   */
  readonly ratePeriodSeconds?: number;
  /**
   * Arrivals still climbing when CloudWatch last counted them: the newest period's rate above the one before it beyond
   * both counts' noise (observe.ts, `arrivalsClimbing`). Absent where they held, fell, or a period is missing.
   */
  readonly arrivalsClimbing?: ArrivalsClimbing;
  /** Messages deleted per second over the newest complete metric period (`NumberOfMessagesDeleted`). */
  readonly completionRatePerSecond?: number;
  /** Concurrency-seconds one item costs: the consumer's `Duration` sum ÷ the items it processed. */
  readonly itemSeconds?: number;
  /**
   * The consumer's mean concurrent executions in its busiest recent period (`Duration` sum ÷ the period): what it
   * demonstrably runs, from which an unbounded consumer is adopted.
   */
  readonly observedConcurrency?: number;
  /**
   * The event source mapping's BatchSize, where the adapter read it: what makes a worker busy while a backlog
   * waits (`busyMessagesPerWorker`). @default 10 (SQS's)
   */
  readonly batchSize?: number;
  /**
   * The downstream's health signal's newest complete datapoint, judged against its threshold, where one is
   * configured and CloudWatch returned a datapoint. Absent: no evidence either way.
   */
  readonly downstreamHealth?: HealthReading;
}

/**
 * Why nothing may be written: an operator paused the consumer (reserved 0, the mapping disabled), or the deploy
 * names another controller as its owner (a handover when a scaler joins or leaves a budget: lib/consumer-owner.ts).
 * Either way the tick holds what is there, and a budget counts it as held.
 */
/** How fast the arrivals climbed between CloudWatch's two newest periods, and when the newer one ended. */
export interface ArrivalsClimbing {
  /** Arrivals per second the newest period counted above the one before it. */
  readonly perPeriod: number;
  readonly periodSeconds: number;
  /** The end of the newest period, seconds. */
  readonly observedAt: number;
}

export type PauseKind = 'reserved-zero' | 'mapping-disabled' | 'driven-elsewhere';

/**
 * What one tick hands the next. Small on purpose: the Lambda rebuilds it from CloudWatch history, the simulator
 * keeps it in memory.
 */
export interface ControllerState {
  /** Since when the queue has been idle without a break (age at or below the idle threshold). */
  readonly idleSince?: number;
  /** When the applied concurrency last changed. */
  readonly lastChangeAt?: number;
  /** The per-item time while the downstream was healthy. */
  readonly baselineItemSeconds?: number;
  /** The arrival rate when the baseline was taken. */
  readonly baselineArrivalRate?: number;
  /** The visible depth at the previous tick, for a real-time arrival estimate between late datapoints. */
  readonly lastVisible?: DepthSample;
  /**
   * The last sample between ticks that showed no backlog (lib/control/quiet-sample.ts): where a rise began within the
   * minute, the tick reads the per-item time over the rise alone, not averaged over the minute.
   */
  readonly lastQuiet?: DepthSample;
  /** A growth made while behind, waiting for the period that shows what it bought (saturation.ts). */
  readonly growthProbe?: GrowthProbe;
  /**
   * The value the last tick left applied, and when. Growth past it before the next tick is the samples'
   * (fast-path.ts), which no probe of theirs judges: the next tick's probe judges it with its own
   * (`GrowthProbe.unjudgedFrom`).
   */
  readonly tickLeft?: LeftApplied;
  /** Growth past a level bought no throughput: held off until a time (saturation.ts). */
  readonly saturation?: SaturationCeiling;
}

export const INITIAL_STATE: ControllerState = {};

/** A growth made while behind, waiting for the CloudWatch period that shows what it bought. */
export interface GrowthProbe {
  /** When the growth was written. */
  readonly at: number;
  readonly from: number;
  readonly to: number;
  /**
   * The value the tick before left, where the samples grew past it to `from` since, on evidence no probe judged
   * (saturation.ts): the growth judged runs from there. A saturated verdict goes back to it at the least, and the
   * per-item time before the growth is the lightest CloudWatch showed since it was left (the samples' workers may
   * already have waited on the downstream in a later period).
   */
  readonly unjudgedFrom?: LeftApplied;
  /** Items completed per second, and the per-item time, in the newest period before the growth. */
  readonly completionsBefore: number;
  readonly itemSecondsBefore: number;
  /**
   * The figures before the growth are what the real-time depth showed (lib/control/heavier-items.ts), not a
   * CloudWatch period: good enough to say the growth bought throughput, too rough to call the downstream saturated.
   */
  readonly shownByDepth?: boolean;
}

/** A value a tick left applied, and when. */
export interface LeftApplied {
  readonly value: number;
  readonly at: number;
}

/** Growth past `ceiling` bought no throughput: held off until `until`, and while the queue stays behind. */
export interface SaturationCeiling {
  readonly ceiling: number;
  readonly until: number;
  /**
   * What the finding saw with the growth's workers running: when, how many ran, and the per-item time they took.
   * Once the workers are back under the ceiling, a saturated downstream's per-item time falls with them; one that
   * stays is the items' own (lib/control/saturation.ts, `refuted`).
   */
  readonly contended?: { readonly at: number; readonly executions: number; readonly itemSeconds: number };
  /** Set by refused items in flight rather than a probe's verdict (lib/control/refusals.ts): lifted step by step. */
  readonly refused?: boolean;
}
