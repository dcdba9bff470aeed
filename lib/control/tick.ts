import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { decideFast, type FastDecision, type FastPathContext } from './fast-path.ts';
import { observe } from './observe.ts';
import { decide } from './policy.ts';
import type {
  ActuatorCondition,
  ConcurrencyPort,
  MetricSeries,
  MetricsPort,
  QueueDepth,
  QueuePort,
  StatePort,
} from './ports.ts';
import { warmConcurrency, withScheduledFloor } from './scheduled-floors.ts';
import type { ControllerState, PauseKind, QueueSnapshot } from './snapshot.ts';

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

/**
 * How far back a tick reads, for the Lambda and the simulator alike: the reader's own span (the Lambda's hour of
 * baselines, the simulator's modelled window), and never less than the idle run a shrink waits for on top of the
 * longest delay a datapoint may have.
 */
export function tickOptions(
  config: Pick<ScalerConfig, 'scaleDownDelaySeconds' | 'maxDataAgeSeconds'>,
  periodSeconds: number,
  spanSeconds: number,
): TickOptions {
  const idleRun = config.scaleDownDelaySeconds + config.maxDataAgeSeconds + 2 * periodSeconds;
  return { periodSeconds, windowSeconds: Math.max(spanSeconds, idleRun) };
}

export interface TickResult {
  readonly snapshot: QueueSnapshot;
  readonly decision: Decision;
  /** The value applied before this tick (+∞: nothing bounded the consumer). */
  readonly applied: number;
  /** Whether this tick wrote (a new value, or a repair of values out of step). */
  readonly changed: boolean;
  /** The mapping was found above reserved concurrency, and the tick's writes brought it back within it. */
  readonly repaired: boolean;
}

/** What one tick read, and its own law's decision on it. */
export interface TickReading {
  readonly snapshot: QueueSnapshot;
  readonly decision: Decision;
  readonly state: ControllerState;
  /** The applied value as read (undefined: nothing bounds the consumer). */
  readonly current: number | undefined;
  readonly condition: ActuatorCondition;
}

/** A tick's reads, all at once, and `decide` on them: a lone scaler's tick and each budget member's. */
export async function readAndDecide(
  ports: TickPorts,
  config: ScalerConfig,
  now: number,
  options: TickOptions,
): Promise<TickReading> {
  const [series, depth, current, condition, state] = await Promise.all([
    ports.metrics.read(now, options.periodSeconds, options.windowSeconds),
    ports.queue.depth(),
    ports.concurrency.applied(),
    ports.concurrency.condition?.() ?? Promise.resolve<ActuatorCondition>({}),
    ports.state.load(now),
  ]);
  // A scheduled floor on now is the floor (scheduled-floors.ts): every rule of the law sees it.
  const floored = withScheduledFloor(config, now);
  const decideOn = (read: MetricSeries) => {
    const snapshot = observe({
      now,
      periodSeconds: options.periodSeconds,
      series: read,
      depth,
      appliedConcurrency: current ?? Number.POSITIVE_INFINITY,
      paused: condition.paused,
      batchSize: condition.batchSize,
      peakWindowSeconds: config.scaleDownDelaySeconds,
    });
    return { snapshot, decision: decide(snapshot, state, floored) };
  };
  let decided = decideOn(series);
  // Rates reused from an earlier tick serve a hold; an action is decided on fresh ones (rate-reads.ts).
  if (series.ratesReused && !decided.decision.reason.startsWith('hold:')) {
    const fresh = await ports.metrics.read(now, options.periodSeconds, options.windowSeconds, {
      freshRates: true,
    });
    decided = decideOn(fresh);
  }
  return { ...decided, state, current, condition };
}

/** "Repaired" is what the limits are after the writes, not what was planned: a refused write repairs nothing. */
export function repairedBy(before: ActuatorCondition, after: ActuatorCondition | undefined): boolean {
  return (before.overpull ?? false) && after !== undefined && !(after.overpull ?? false);
}

/**
 * One controller tick, level-based: read the current value, decide, write an absolute target only when it
 * differs or the values are out of step (Lambda's control plane shares 15 requests/second per account; duplicate
 * schedule deliveries must not double-step: docs/aws-facts.md, "Lambda control plane" and
 * "EventBridge schedules"). Never writes during an operator's pause. The Lambda handler and the simulator both
 * run exactly this.
 */
export async function runTick(
  ports: TickPorts,
  config: ScalerConfig,
  now: number,
  options: TickOptions,
): Promise<TickResult> {
  const { snapshot, decision, current, condition } = await readAndDecide(ports, config, now, options);
  // Nothing set means nothing bounds the consumer: the law adopts what it runs (never the floor by default).
  const applied = current ?? Number.POSITIVE_INFINITY;
  const paused = decision.reason === 'hold:paused';
  // Provisioned mode's MinimumPollers follow the scheduled floors (warm before a peak, back to 2 after it).
  const warm = warmConcurrency(config, now, decision.desired);
  const warmMoves = warm !== undefined && condition.warm !== undefined && condition.warm !== warm;
  const changed = !paused && (decision.desired !== current || (condition.outOfStep ?? false) || warmMoves);
  if (changed) await ports.concurrency.apply(decision.desired, applied, warm);
  const after = changed ? ((await ports.concurrency.condition?.()) ?? {}) : condition;
  const repaired = repairedBy(condition, after);
  await ports.state.save(decision.state, now);
  return { snapshot, decision, applied, changed, repaired };
}

export interface FastSampleResult {
  readonly depth: QueueDepth;
  readonly decision: FastDecision;
  /** The concurrency applied before the sample's writes (as read afresh where the port reads). */
  readonly applied: number;
  /** Whether a limit rose: a refused, clamped-to-nothing or failed write is no growth. */
  readonly changed: boolean;
  /** The consumer was found paused before the growth: nothing was written. */
  readonly paused?: PauseKind;
  /** The context for the next sample: the decision's, with what really holds. */
  readonly context: FastPathContext;
}

/**
 * One fast-path sample: read the real-time depth (one GetQueueAttributes), decide, and apply growth. Before a
 * growth write it reads the limits afresh where the port can (`refresh`, two Lambda reads on growth only): an
 * operator's pause since the tick is held, never undone, and a hand edit is planned from, not over. The Lambda's
 * loop between ticks and the simulator's sampling event both run exactly this.
 */
export async function runFastSample(
  ports: Pick<TickPorts, 'queue' | 'concurrency'>,
  context: FastPathContext,
  config: ScalerConfig,
  now: number,
): Promise<FastSampleResult> {
  const depth = await ports.queue.depth();
  const decision = decideFast(
    { at: now, messages: depth.visible, inFlight: depth.inFlight },
    context,
    withScheduledFloor(config, now),
  );
  const held = (applied: number, paused?: PauseKind): FastSampleResult => ({
    depth,
    decision,
    applied,
    changed: false,
    ...(paused ? { paused } : {}),
    context: {
      ...decision.context,
      applied,
      // A value someone else changed (an operator, a refused raise) is a change: intervals across it are not held.
      lastChangeAt: applied === context.applied ? context.lastChangeAt : now,
      // A growth that did not land leaves the evidence of a rise at the value still applied, and the value the last
      // growth that did land started from (a value changed by someone else started from the one this loop knew).
      roseAtApplied:
        decision.desired > context.applied ? context.roseAtApplied : decision.context.roseAtApplied,
      grownFrom:
        decision.desired > context.applied
          ? applied === context.applied
            ? context.grownFrom
            : context.applied
          : decision.context.grownFrom,
      ...(paused ? { frozen: 'paused' as const } : {}),
    },
  });
  if (decision.desired <= context.applied) return held(context.applied);
  let applied = context.applied;
  if (ports.concurrency.refresh) {
    await ports.concurrency.refresh();
    const [fresh, condition] = await Promise.all([
      ports.concurrency.applied(),
      ports.concurrency.condition?.() ?? Promise.resolve<ActuatorCondition>({}),
    ]);
    if (condition.paused) return held(fresh ?? applied, condition.paused);
    applied = fresh ?? Number.POSITIVE_INFINITY;
    // An operator raised it meanwhile: nothing to grow.
    if (decision.desired <= applied) return held(applied);
  }
  await ports.concurrency.apply(decision.desired, applied);
  const after = (await ports.concurrency.applied()) ?? Number.POSITIVE_INFINITY;
  if (!(after > applied)) return held(after);
  return {
    depth,
    decision,
    applied,
    changed: true,
    context: { ...decision.context, applied: after, lastChangeAt: now, grownFrom: applied },
  };
}
