import type { ControllerState, PauseKind } from './snapshot.ts';

/**
 * The narrow ports a controller tick talks through. The Lambda implements them with the AWS SDK
 * (`functions/controller/`), the simulator with its model of SQS, Lambda and CloudWatch (`lib/sim/`).
 */

/** One CloudWatch datapoint: `timestamp` is the start of its period, in seconds. */
export interface Datapoint {
  readonly timestamp: number;
  readonly value: number;
}

/** The series one `GetMetricData` call returns, each in any order (never trust array position). */
export interface MetricSeries {
  /** `AWS/SQS ApproximateAgeOfOldestMessage`, Maximum, seconds. */
  readonly ageOfOldestMessage: readonly Datapoint[];
  /** `AWS/SQS NumberOfMessagesSent`, Sum. */
  readonly messagesSent: readonly Datapoint[];
  /** `AWS/SQS NumberOfMessagesDeleted`, Sum. */
  readonly messagesDeleted: readonly Datapoint[];
  /** The consumer's `AWS/Lambda Duration`, Sum, milliseconds. */
  readonly consumerDurationMs: readonly Datapoint[];
  /** The consumer's `AWS/Lambda Invocations`, Sum. */
  readonly consumerInvocations: readonly Datapoint[];
  /** Series CloudWatch marked `PartialData`: treated as missing. */
  readonly partial?: readonly (keyof Omit<MetricSeries, 'partial'>)[];
}

/** Near real-time depth from `GetQueueAttributes`. */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

export interface MetricsPort {
  /** The series over `[now - windowSeconds, now]` at `periodSeconds` resolution. */
  read(now: number, periodSeconds: number, windowSeconds: number): Promise<MetricSeries>;
}

export interface QueuePort {
  depth(): Promise<QueueDepth>;
}

/** What an actuator found besides the applied value (the simulator's model has neither). */
export interface ActuatorCondition {
  /** An operator paused the consumer: reserved concurrency 0, or the mapping disabled. */
  readonly paused?: PauseKind;
  /**
   * The values disagree with the actuator's contract (in lockstep: the mapping's maximum above reserved
   * concurrency, or the two apart), by a hand edit or a half-done earlier tick: the tick rewrites them even if
   * the law's value is unchanged.
   */
  readonly outOfStep?: boolean;
}

export interface ConcurrencyPort {
  /** The concurrency applied now (undefined when none is set: nothing bounds the consumer). */
  applied(): Promise<number | undefined>;
  /** Pause and lockstep findings of the same reading. @default neither */
  condition?(): Promise<ActuatorCondition>;
  /**
   * Applies an absolute value, repairing whatever is out of step on the way. Called when it differs from
   * `applied()` or the condition says the values are out of step; never while paused.
   */
  apply(desired: number, applied: number): Promise<void>;
}

export interface StatePort {
  load(now: number): Promise<ControllerState>;
  save(state: ControllerState, now: number): Promise<void>;
}
