import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { decideFast, type FastDecision, type FastPathContext } from './fast-path.ts';
import { observe } from './observe.ts';
import { decide } from './policy.ts';
import type {
  ActuatorCondition,
  ConcurrencyPort,
  MetricsPort,
  QueueDepth,
  QueuePort,
  StatePort,
} from './ports.ts';
import type { QueueSnapshot } from './snapshot.ts';

export interface TickPorts {
  readonly metrics: MetricsPort;
  readonly queue: QueuePort;
  readonly concurrency: ConcurrencyPort;
  readonly state: StatePort;
}

export interface TickOptions {
  /** The metric period (CloudWatch's SQS metrics: 60 s). */
  readonly periodSeconds: number;
  /** How far back to read: enough for the newest datapoint to be found when it is late. */
  readonly windowSeconds: number;
}

export interface TickResult {
  readonly snapshot: QueueSnapshot;
  readonly decision: Decision;
  /** The value applied before this tick (+∞: nothing bounded the consumer). */
  readonly applied: number;
  /** Whether this tick wrote (a new value, or a repair of values out of step). */
  readonly changed: boolean;
  /** The values were out of step before the tick (lockstep broken): the writes repaired them. */
  readonly repaired: boolean;
}

/**
 * One controller tick, level-based: read the current value, decide, write an absolute target only when it
 * differs or the values are out of step (AWS-FACTS: Lambda's control plane shares 15 requests/second per account;
 * duplicate schedule deliveries must not double-step). Never writes during an operator's pause. The Lambda
 * handler and the simulator both run exactly this.
 */
export async function runTick(
  ports: TickPorts,
  config: ScalerConfig,
  now: number,
  options: TickOptions,
): Promise<TickResult> {
  const [series, depth, current, condition, state] = await Promise.all([
    ports.metrics.read(now, options.periodSeconds, options.windowSeconds),
    ports.queue.depth(),
    ports.concurrency.applied(),
    ports.concurrency.condition?.() ?? Promise.resolve<ActuatorCondition>({}),
    ports.state.load(now),
  ]);
  // Nothing set means nothing bounds the consumer: the law adopts what it runs (never the floor by default).
  const applied = current ?? Number.POSITIVE_INFINITY;
  const snapshot = observe({
    now,
    periodSeconds: options.periodSeconds,
    series,
    depth,
    appliedConcurrency: applied,
    paused: condition.paused,
    peakWindowSeconds: config.scaleDownDelaySeconds,
  });
  const decision = decide(snapshot, state, config);
  const repaired = decision.reason !== 'hold:paused' && (condition.outOfStep ?? false);
  const changed = decision.reason !== 'hold:paused' && (decision.desired !== current || repaired);
  if (changed) await ports.concurrency.apply(decision.desired, applied);
  await ports.state.save(decision.state, now);
  return { snapshot, decision, applied, changed, repaired };
}

export interface FastSampleResult {
  readonly depth: QueueDepth;
  readonly decision: FastDecision;
  /** Whether the sample wrote a larger value. */
  readonly changed: boolean;
}

/**
 * One fast-path sample: read the real-time depth (one GetQueueAttributes, no Lambda read), decide, and apply
 * growth. The Lambda's loop between ticks and the simulator's sampling event both run exactly this.
 */
export async function runFastSample(
  ports: Pick<TickPorts, 'queue' | 'concurrency'>,
  context: FastPathContext,
  config: ScalerConfig,
  now: number,
): Promise<FastSampleResult> {
  const depth = await ports.queue.depth();
  const decision = decideFast({ at: now, messages: depth.visible }, context, config);
  const changed = decision.desired > context.applied;
  if (changed) await ports.concurrency.apply(decision.desired, context.applied);
  return { depth, decision, changed };
}
