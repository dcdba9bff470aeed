import type { HealthSeries } from './downstream-health.ts';
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

/** The law's CloudWatch series by name. */
export type SeriesName = 'ageOfOldestMessage' | 'messagesSent' | 'messagesDeleted' | 'consumerDurationMs';

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
  /**
   * The downstream's health signal, where the user named one (`downstreamHealth`), with its threshold. Absent:
   * none configured; a `PartialData` answer is read as no datapoints (no evidence).
   */
  readonly downstreamHealth?: HealthSeries;
  /** Series CloudWatch marked `PartialData`: treated as missing. */
  readonly partial?: readonly SeriesName[];
  /**
   * The three rates are the ones an earlier tick read, not read at this one (lib/control/rate-reads.ts): they
   * may serve a hold; the tick decides an action on fresh ones.
   */
  readonly ratesReused?: boolean;
}

/** Near real-time depth from `GetQueueAttributes`. */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

export interface MetricsPort {
  /**
   * The series over `[now - windowSeconds, now]` at `periodSeconds` resolution; the rates may be the ones an
   * earlier tick read (`ratesReused`: a quiet queue's) unless `freshRates`.
   */
  read(
    now: number,
    periodSeconds: number,
    windowSeconds: number,
    options?: { readonly freshRates?: boolean },
  ): Promise<MetricSeries>;
}

export interface QueuePort {
  depth(): Promise<QueueDepth>;
}

/** What an actuator found besides the applied value. */
export interface ActuatorCondition {
  /** An operator paused the consumer: reserved concurrency 0, or the mapping disabled. */
  readonly paused?: PauseKind;
  /**
   * The limits disagree with the actuator's contract, so the tick rewrites them even if the law's value is
   * unchanged: an overpull (below), or in lockstep reserved left above the mapping (by design for one tick after a
   * shrink, or by a hand edit).
   */
  readonly outOfStep?: boolean;
  /** The mapping's maximum above reserved concurrency: the pollers pull more than the function may run. */
  readonly overpull?: boolean;
  /**
   * How long the mapping may gather a batch before it invokes (`MaximumBatchingWindowInSeconds`, 0–300), where
   * known: a poll in flight when the maximum drops can still invoke that long after. @default 0
   */
  readonly batchingWindowSeconds?: number;
  /** The mapping's BatchSize (1–10,000), where known: what one execution holds in flight. @default 10 */
  readonly batchSize?: number;
  /**
   * What the actuator keeps warm now, where it warms anything: provisioned mode's `MinimumPollers`, in the
   * invocations they drive (10 a poller). Compared with the scheduled floors' (`warmConcurrency`) at each tick.
   */
  readonly warm?: number;
}

export interface ConcurrencyPort {
  /** The concurrency applied now (undefined when none is set: nothing bounds the consumer). */
  applied(): Promise<number | undefined>;
  /**
   * The most executions the limits as known now let run (`executionCeiling`): what a shared budget counts.
   * @default `applied()`
   */
  ceiling?(): Promise<number | undefined>;
  /** Pause and lockstep findings on the limits as known now (read, then written). @default neither */
  condition?(): Promise<ActuatorCondition>;
  /**
   * The consumer function's timeout, seconds (undefined: unknown): no invocation runs longer, so a shrink's freed
   * units are known free that long after the last poll could invoke (`releaseDelaySeconds`). Asked only by a
   * budget's tick, of a member whose reserved trails a shrink. @default unknown: the units wait for the next tick
   */
  functionTimeoutSeconds?(): Promise<number | undefined>;
  /**
   * Applies an absolute value, repairing whatever is out of step on the way. Called when it differs from
   * `applied()` or the condition says the values are out of step, or what is kept warm differs from `warm` (the
   * scheduled floors' `warmConcurrency`: provisioned mode's MinimumPollers); never while paused. A refused write
   * leaves the old value: `applied()` afterwards says what holds.
   */
  apply(desired: number, applied: number, warm?: number): Promise<void>;
  /**
   * Reads the limits afresh, so `applied()` and `condition()` see what an operator did since the last reading.
   * The fast path calls it before it grows. @default nothing to do: the limits are always current (the simulator)
   */
  refresh?(): Promise<void>;
}

export interface StatePort {
  load(now: number): Promise<ControllerState>;
  save(state: ControllerState, now: number): Promise<void>;
}
