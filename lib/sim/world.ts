import { ConfigError } from '../control/config.ts';

/**
 * The simulated world around the controller (a preset names one, lib/sim/presets.ts; a config file's "simulator"
 * overrides its fields; not the Lambda's environment variables). `lambda` is SQS → event source mapping → Lambda with CloudWatch's
 * late one-minute metrics; `pool` is the seed article's in-process worker pool (a worker takes one item at a
 * time, the controller sees the head age the instant it asks).
 */
export interface SimWorld {
  readonly kind: 'lambda' | 'pool';
  /** Messages one receive returns at most (the mapping's BatchSize; the pool takes 1). */
  readonly batchSize: number;
  /** ReceiveMessage's round trip: messages arriving meanwhile join the batch. */
  readonly receiveLatencySeconds: number;
  /** Time an invocation spends outside the items (runtime, delete call). */
  readonly invocationOverheadSeconds: number;
  /** Each item's time is its phase's item_ms scaled by a uniform factor in [1 - jitter, 1 + jitter]. */
  readonly itemJitter: number;
  /** A received batch is invisible for this long; a throttled or failed one comes back after it (AWS: ≥ 6 × the
   * function timeout, and never below it: Lambda refuses a mapping whose queue's timeout is shorter). */
  readonly visibilityTimeoutSeconds: number;
  /** The consumer function's timeout: an invocation still running then is stopped and its whole batch fails. */
  readonly functionTimeoutSeconds: number;
  /** How long an idle execution environment stays warm before Lambda reclaims it. */
  readonly keepWarmSeconds: number;
  /** Redrive: a message received more often than this goes to the DLQ. */
  readonly maxReceiveCount: number;
  /** The mapping's pollers: start at 5, add up to 300 a minute while messages wait, at most 1,250. */
  readonly initialPollers: number;
  readonly pollerStepPerMinute: number;
  readonly maxPollers: number;
  /**
   * How often the pollers' ramp is applied. AWS gives a rate, "up to 300 more concurrent invokes per minute", not
   * a step: spread over 10 s steps (50 every 10 s) by default, the granularity Lambda documents for its function
   * scaling (1,000 execution environments every 10 s). The same interval releases unused pollers (an assumption
   * either way: AWS documents no scale-down rate). 60 applies it as one step a minute on the simulated clock, the
   * coarsest reading: a surge that starts on a minute then waits a whole minute at 5 pollers or none, by whether
   * the step at its start happened to see a message wait (seed-spike's native p99: 0.00 or 0.66 × the target by
   * seed).
   */
  readonly pollerScaleSeconds: number;
  /** How long a poller waits after a throttled invocation. */
  readonly throttleBackoffSeconds: number;
  /** CloudWatch period and how late each datapoint is published after its period ends. */
  readonly metricPeriodSeconds: number;
  readonly metricDelaySeconds: number;
  /**
   * When the controller first runs on the load's clock. 0: it is running when the load starts, as it is once the
   * stack has deployed: the construct invokes the controller once at deploy (its start trigger), and the schedule
   * every tick after. A later start models traffic that begins before the controller does (a scaler added to a
   * busy queue, or producers sending while the stack still deploys): `tickSeconds` (60) is the schedule's first
   * run a minute after the load starts, the controller blind until then.
   */
  readonly controllerStartSeconds: number;
  /** How often the head age is sampled into the period's Maximum. */
  readonly ageSampleSeconds: number;
  /** The controller reads the head age itself, at the instant it asks (the seed's in-process pool). */
  readonly instantAge: boolean;
  /** How far back the controller reads metrics. */
  readonly metricWindowSeconds: number;
}

export const LAMBDA_WORLD: SimWorld = {
  kind: 'lambda',
  batchSize: 10,
  receiveLatencySeconds: 0.02,
  invocationOverheadSeconds: 0.005,
  itemJitter: 0.25,
  // 6 × a 30 s consumer timeout (AWS: visibility timeout ≥ 6 × the function timeout).
  visibilityTimeoutSeconds: 180,
  functionTimeoutSeconds: 30,
  // Not documented by AWS; measured since July 2019 as ten minutes after the last request (Mikhail Shilkov,
  // "AWS Lambda Cold Starts After 10 Minutes").
  keepWarmSeconds: 600,
  maxReceiveCount: 5,
  initialPollers: 5,
  pollerStepPerMinute: 300,
  maxPollers: 1250,
  pollerScaleSeconds: 10,
  controllerStartSeconds: 0,
  throttleBackoffSeconds: 1,
  metricPeriodSeconds: 60,
  // SQS datapoints typically arrive one to two minutes late: model the pessimistic end.
  metricDelaySeconds: 120,
  ageSampleSeconds: 1,
  instantAge: false,
  metricWindowSeconds: 600,
};

export const POOL_WORLD: SimWorld = {
  kind: 'pool',
  batchSize: 1,
  receiveLatencySeconds: 0,
  invocationOverheadSeconds: 0,
  itemJitter: 0.25,
  visibilityTimeoutSeconds: 180,
  // An in-process pool has no function timeout and keeps its workers: neither applies.
  functionTimeoutSeconds: 900,
  keepWarmSeconds: 0,
  maxReceiveCount: 5,
  initialPollers: 0,
  pollerStepPerMinute: 0,
  maxPollers: 0,
  pollerScaleSeconds: 60,
  controllerStartSeconds: 0,
  throttleBackoffSeconds: 0,
  // Rates over the last 250 ms (5 ticks: 200 arrivals at 800/s, ±7 %); the head age comes straight from the queue.
  metricPeriodSeconds: 0.25,
  metricDelaySeconds: 0,
  ageSampleSeconds: 1,
  instantAge: true,
  metricWindowSeconds: 10,
};

/**
 * Refuses a world the model does not cover. AWS refuses an SQS mapping whose queue's visibility timeout is
 * below the function's timeout ("Queue visibility timeout: 30 seconds is less than Function timeout: 60
 * seconds"), so a message can never reappear while an invocation still processes it, and the model has no such
 * case either.
 */
export function checkWorld(world: SimWorld): void {
  if (world.kind === 'lambda' && world.visibilityTimeoutSeconds < world.functionTimeoutSeconds) {
    throw new ConfigError([
      `simulator.visibilityTimeoutSeconds = ${world.visibilityTimeoutSeconds}: must be at least simulator.functionTimeoutSeconds (${world.functionTimeoutSeconds}); Lambda refuses an SQS mapping whose queue's visibility timeout is below the function timeout (AWS recommends 6 × the function timeout)`,
    ]);
  }
}
