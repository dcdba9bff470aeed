import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { observe } from './observe.ts';
import { decide } from './policy.ts';
import type { ConcurrencyPort, MetricsPort, QueuePort, StatePort } from './ports.ts';
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
  /** The value applied before this tick. */
  readonly applied: number;
  /** Whether this tick wrote a new value. */
  readonly changed: boolean;
}

/**
 * One controller tick, level-based: read the current value, decide, write an absolute target only when it
 * differs (AWS-FACTS: Lambda's control plane shares 15 requests/second per account; duplicate schedule
 * deliveries must not double-step). The Lambda handler and the simulator both run exactly this.
 */
export async function runTick(
  ports: TickPorts,
  config: ScalerConfig,
  now: number,
  options: TickOptions,
): Promise<TickResult> {
  const [series, depth, current, state] = await Promise.all([
    ports.metrics.read(now, options.periodSeconds, options.windowSeconds),
    ports.queue.depth(),
    ports.concurrency.applied(),
    ports.state.load(now),
  ]);
  // No concurrency set means the consumer runs unreserved: treat it as the floor, which the law then applies.
  const applied = current ?? config.minConcurrency;
  const snapshot = observe({
    now,
    periodSeconds: options.periodSeconds,
    series,
    depth,
    appliedConcurrency: applied,
    peakWindowSeconds: config.scaleDownDelaySeconds,
  });
  const decision = decide(snapshot, state, config);
  const changed = decision.desired !== current;
  if (changed) await ports.concurrency.apply(decision.desired, applied);
  await ports.state.save(decision.state, now);
  return { snapshot, decision, applied, changed };
}
