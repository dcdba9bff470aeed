import type { ActuatorModel } from './actuator-model.ts';
import type { Arrivals } from './arrivals.ts';
import type { Downstream } from './downstream.ts';
import type { EventQueue } from './event-queue.ts';
import { ExecutionEnvironments } from './execution-environments.ts';
import { LevelMeter } from './level-meter.ts';
import type { Batch, MessageQueue } from './message-queue.ts';
import type { MetricPeriods } from './metric-periods.ts';
import type { Random } from './random.ts';
import { type Invocation, type SimEvent, SLOT_FREE } from './sim-event.ts';
import type { SimWorld } from './world.ts';

export type { Invocation } from './sim-event.ts';

const hasEnded = (invocation: Invocation) => invocation.ended;

/** A level several consumers add to (a group's concurrent executions): told of each change as it happens. */
export interface SharedLevel {
  change(now: number, delta: number): void;
}

/**
 * What Lambda tells the receive loops (lib/sim/receive-loops.ts): a receive a loop started has returned, and a loop
 * is done with its batch. Only these two, so the loops' own module (which pushes receive events) is not needed here.
 */
export interface LoopSlots {
  received(): void;
  freeSlot(now: number): void;
}

/** What an invocation touches: the queue it deletes from, the loop it frees, the meters it reports to. */
export interface InvocationsParts {
  readonly events: EventQueue<SimEvent>;
  readonly queue: MessageQueue;
  readonly loops: LoopSlots;
  readonly arrivals: Arrivals;
  readonly metrics: MetricPeriods;
  readonly downstream: Downstream<Invocation>;
  readonly actuator: ActuatorModel;
  readonly random: Random;
  /** The group's concurrent executions, when this consumer is one of several on a shared downstream. */
  readonly groupExecutions?: SharedLevel;
}

/**
 * Lambda running what the pollers received (or the pool's workers running their items): reserved concurrency's
 * throttle, the function timeout, the items against the downstream, the batch item failures, and the execution
 * environments kept warm. Apart from the receive loops because a loop only fetches: what happens to a batch once
 * received (throttled, run, timed out, partly failed) is Lambda's, and so are the Duration and Invocations that
 * CloudWatch reports.
 */
export class Invocations {
  /** Concurrent executions: invocations running, or busy workers. */
  readonly executions = new LevelMeter(0);
  /** Lambda's execution environments; the pool's workers are its loops. */
  readonly environments: ExecutionEnvironments | undefined;
  completed = 0;
  throttled = 0;
  timedOut = 0;
  failedItems = 0;
  private running = 0;
  private readonly functionTimeoutSeconds: number;
  private readonly events: EventQueue<SimEvent>;
  private readonly queue: MessageQueue;
  private readonly loops: LoopSlots;
  private readonly arrivals: Arrivals;
  private readonly metrics: MetricPeriods;
  private readonly downstream: Downstream<Invocation>;
  private readonly actuator: ActuatorModel;
  private readonly random: Random;
  private readonly groupExecutions: SharedLevel | undefined;

  constructor(
    private readonly world: SimWorld,
    parts: InvocationsParts,
  ) {
    this.events = parts.events;
    this.queue = parts.queue;
    this.loops = parts.loops;
    this.arrivals = parts.arrivals;
    this.metrics = parts.metrics;
    this.downstream = parts.downstream;
    this.actuator = parts.actuator;
    this.random = parts.random;
    this.groupExecutions = parts.groupExecutions;
    const lambda = world.kind === 'lambda';
    // An in-process pool has no function timeout: an item takes as long as it takes.
    this.functionTimeoutSeconds = lambda ? world.functionTimeoutSeconds : Number.POSITIVE_INFINITY;
    if (lambda) this.environments = new ExecutionEnvironments(world.keepWarmSeconds);
  }

  /** Invocations running now. */
  get current(): number {
    return this.running;
  }

  /** A receive a loop started returns at `now`. */
  onReceive(now: number): void {
    this.loops.received();
    const batch = this.queue.receive(this.world.batchSize);
    if (batch.sentAt.length === 0) {
      this.loops.freeSlot(now);
      return;
    }
    // Lambda throttles an invocation beyond reserved concurrency; the batch returns after the visibility timeout.
    const reserved = this.actuator.reserved;
    if (reserved !== undefined && this.running >= reserved) {
      this.throttled++;
      this.returnAfterVisibility(batch, now);
      this.events.push(now + this.world.throttleBackoffSeconds, SLOT_FREE);
      return;
    }
    this.running++;
    this.executions.set(now, this.running);
    this.groupExecutions?.change(now, 1);
    this.environments?.start(now);
    const invocation: Invocation = {
      owner: this,
      batch,
      itemDone: undefined,
      receivedAt: now,
      duration: 0,
      next: 0,
      failed: undefined,
      holdsConnection: false,
      ended: false,
    };
    if (this.downstream.itemwise) {
      if (Number.isFinite(this.functionTimeoutSeconds))
        this.events.push(now + this.functionTimeoutSeconds, { kind: 'timeout', invocation });
      this.startItem(invocation, now);
      return;
    }
    const phase = this.arrivals.phaseAt(now);
    let duration = this.world.invocationOverheadSeconds;
    for (let i = 0; i < batch.sentAt.length; i++)
      duration += this.random.jitter(phase.itemMs / 1000, this.world.itemJitter);
    invocation.duration = duration;
    if (duration > this.functionTimeoutSeconds)
      this.events.push(now + this.functionTimeoutSeconds, { kind: 'timeout', invocation });
    else this.events.push(now + duration, { kind: 'complete', invocation });
  }

  // ---- items against a downstream with a capacity ---------------------------------------------------------

  /** The invocation's next item: a connection first (if the downstream is a pool), then its calls. */
  private startItem(invocation: Invocation, now: number): void {
    if (invocation.next >= invocation.batch.sentAt.length) {
      this.events.push(now + this.world.invocationOverheadSeconds, { kind: 'complete', invocation });
      return;
    }
    if (this.downstream.pooled) {
      if (!this.downstream.acquire(invocation)) {
        this.metrics.at(now).downstreamTrouble++;
        return;
      }
      invocation.holdsConnection = true;
    }
    this.serveItem(invocation, now);
  }

  /**
   * The item `invocation.next` starts against the downstream, its connection (if pooled) already held. Public
   * because a shared pool's connection may be handed over by another consumer (`releaseConnection`).
   */
  serveItem(invocation: Invocation, now: number): void {
    const seconds = this.random.jitter(this.arrivals.phaseAt(now).itemMs / 1000, this.world.itemJitter);
    if (!this.downstream.admits(now)) {
      this.metrics.at(now).downstreamTrouble++;
      invocation.failed ??= new Uint8Array(invocation.batch.sentAt.length);
      invocation.failed[invocation.next] = 1;
    }
    invocation.itemDone ??= { kind: 'item-done', invocation };
    this.events.push(now + seconds, invocation.itemDone);
  }

  onItemDone(invocation: Invocation, now: number): void {
    // Timed out meanwhile: its connection went back at the timeout.
    if (invocation.ended) return;
    if (invocation.holdsConnection) {
      invocation.holdsConnection = false;
      this.releaseConnection(now);
    }
    invocation.next++;
    this.startItem(invocation, now);
  }

  private releaseConnection(now: number): void {
    const next = this.downstream.release(hasEnded);
    if (next !== undefined) {
      next.holdsConnection = true;
      // The waiter may be another consumer's (a pool shared by a group): its item runs in its own consumer.
      next.owner.serveItem(next, now);
    }
  }

  // ---- the end of an invocation ---------------------------------------------------------------------------

  private endInvocation(invocation: Invocation, now: number): void {
    invocation.ended = true;
    this.running--;
    this.executions.set(now, this.running);
    this.groupExecutions?.change(now, -1);
    this.environments?.finish(now);
    const metrics = this.metrics.at(now);
    metrics.durationMs += invocation.duration * 1000;
    metrics.invocations++;
  }

  onComplete(invocation: Invocation, now: number): void {
    if (invocation.ended) return;
    if (this.downstream.itemwise) invocation.duration = now - invocation.receivedAt;
    this.endInvocation(invocation, now);
    const { batch, receivedAt, failed } = invocation;
    const metrics = this.metrics.at(now);
    let retry: Batch | undefined;
    for (let i = 0; i < batch.sentAt.length; i++) {
      const sentAt = batch.sentAt[i] as number;
      if (failed?.[i] === 1) {
        // A batch item failure: not deleted; visible again when the visibility timeout ends.
        this.failedItems++;
        retry ??= this.queue.newBatch();
        retry.sentAt.push(sentAt);
        retry.receiveCount.push(batch.receiveCount[i] as number);
        continue;
      }
      this.completed++;
      metrics.deleted++;
      this.arrivals.recordWait(sentAt, receivedAt);
    }
    this.queue.finish(batch);
    if (retry !== undefined) {
      this.queue.track(retry);
      this.returnAfterVisibility(retry, receivedAt);
    }
    this.loops.freeSlot(now);
  }

  /**
   * The function timeout: Lambda stops the invocation and the whole batch fails (no partial response arrives), so
   * every message returns when its visibility timeout ends, its receive count raised. The visibility timeout is at
   * least the function timeout (AWS refuses a mapping otherwise), so no message reappears while still processed.
   */
  onTimeout(invocation: Invocation, now: number): void {
    if (invocation.ended) return;
    this.timedOut++;
    invocation.duration = now - invocation.receivedAt;
    if (invocation.holdsConnection) {
      invocation.holdsConnection = false;
      this.releaseConnection(now);
    }
    this.endInvocation(invocation, now);
    this.returnAfterVisibility(invocation.batch, invocation.receivedAt);
    this.loops.freeSlot(now);
  }

  /** The visibility timeout of a batch received at `receivedAt` ends: its messages are visible again. */
  private returnAfterVisibility(batch: Batch, receivedAt: number): void {
    this.events.push(receivedAt + this.world.visibilityTimeoutSeconds, { kind: 'return', batch });
  }
}
