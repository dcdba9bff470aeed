import type { ControllerState } from './snapshot.ts';

/** Why the controller chose what it chose: one code per rule, logged and published with every decision. */
export const REASON_CODES = [
  'grow:age-above-target',
  'grow:backlog-before-data',
  'grow:below-floor',
  'adopt:unbounded',
  'shrink:above-cap',
  'shrink:sustained-idle',
  'shrink:downstream-saturated',
  'hold:at-cap',
  'hold:downstream-saturated',
  'hold:unconfirmed',
  'hold:settling',
  'hold:probing',
  'hold:paused',
  'hold:no-data',
  'hold:draining',
  'hold:steady',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** The numbers behind a decision, for the decision log. */
export interface DecisionInputs {
  /** The age the decision used: the datapoint, bounded by what real-time depth says now. */
  readonly ageSeconds?: number;
  /** Seconds since the age datapoint's period ended. */
  readonly ageDataLagSeconds?: number;
  /** The arrival rate the need was sized for: the metric, or the depth trend where that is higher. */
  readonly arrivalRatePerSecond?: number;
  readonly itemSeconds?: number;
  /**
   * The per-item time the fast path sizes on until the next tick, where not `itemSeconds`: a time read off the depth in
   * the minute after a lowering sizes the tick's own growth only (lib/control/heavier-items.ts).
   */
  readonly fastItemSeconds?: number;
  /** `itemSeconds` is a time the depth showed (lib/control/heavier-items.ts), not CloudWatch's. */
  readonly itemSecondsShown?: boolean;
  /**
   * Behind only by the age a growth would meet when it binds, not yet by the age now (lib/control/load.ts,
   * `ageWhenGrowthBinds`): the growth records no probe and goes at most as far as the samples' unjudged growth.
   */
  readonly grownAhead?: boolean;
  /** Concurrency for the arrivals at the target utilisation plus draining the backlog over the drain horizon. */
  readonly needConcurrency?: number;
  /** Per-item time ÷ its healthy baseline. */
  readonly slowdownRatio?: number;
  readonly idleSeconds?: number;
  /** The age growth starts above (setpointFraction × target). */
  readonly setpointSeconds?: number;
  /** Arrivals per second the depth trend proves, whatever the per-item time. */
  readonly arrivalsAtLeast?: number;
  /** CloudWatch has confirmed the backlog (its own age datapoint is above the setpoint) or the trend proves a spike. */
  readonly confirmed?: boolean;
  /** The most unconfirmed growth may reach (unconfirmedGrowthFactor × the confirmed need). */
  readonly growthLimit?: number;
  /** The level growth past which bought no throughput (saturation.ts), while it holds. */
  readonly saturationCeiling?: number;
  /** The consumer's busiest recent mean concurrency, when adopting an unbounded one. */
  readonly observedConcurrency?: number;
  /** The downstream's health signal's newest datapoint, where one is configured and read. */
  readonly downstreamHealth?: number;
}

export interface Decision {
  /** The concurrency to apply: always within [floor, cap]. */
  readonly desired: number;
  readonly reason: ReasonCode;
  /** The desired concurrency is the cap. */
  readonly atCap: boolean;
  /**
   * At the cap, or the downstream's health signal past its threshold, with age above target: the shed signal.
   * More concurrency would only hurt the downstream.
   */
  readonly saturated: boolean;
  /**
   * The downstream is saturated (growth bought no throughput: saturation.ts) and the age is above target: shed
   * upstream, more workers would make it worse.
   */
  readonly shed: boolean;
  /**
   * Per-item time above `slowdownFactor` × its healthy baseline with arrivals not up as much: heavier items, or a
   * slower downstream. Not by itself a reason to hold: only `shed` (throughput that did not follow) is.
   */
  readonly downstreamSlower: boolean;
  /**
   * The downstream's health signal is past its threshold (`downstreamHealth`): nothing grows, at the tick or
   * between ticks. @default false (no signal configured, or no recent datapoint)
   */
  readonly downstreamUnhealthy?: boolean;
  readonly inputs: DecisionInputs;
  /** The state to carry to the next tick. */
  readonly state: ControllerState;
}
