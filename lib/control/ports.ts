import type { ControllerState } from './snapshot.ts';

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

export interface ConcurrencyPort {
  /** The concurrency applied now (undefined when none is set: unknown). */
  applied(): Promise<number | undefined>;
  /** Applies an absolute value. Only called when it differs from `applied()`. */
  apply(desired: number, applied: number): Promise<void>;
}

export interface StatePort {
  load(now: number): Promise<ControllerState>;
  save(state: ControllerState, now: number): Promise<void>;
}
