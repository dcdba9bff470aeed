import type { ActuatorMode } from '../control/config.ts';
import type { QueueDepth } from '../control/ports.ts';
import type { ControllerState } from '../control/snapshot.ts';
import type { TickPorts } from '../control/tick.ts';
import {
  assertWritable,
  type ConsumerLimits,
  effectiveConcurrency,
  outOfStep,
  overpulls,
  planWrites,
} from '../control/write-plan.ts';
import { ConnectionPool, type DownstreamModel, RateLimiter } from './downstream.ts';
import type { SimEnvironment } from './environment.ts';
import { EventQueue } from './event-queue.ts';
import { ExecutionEnvironments } from './execution-environments.ts';
import { TimeFifo } from './fifo.ts';
import { LevelMeter, type LevelSegment, type LevelSummary } from './level-meter.ts';
import { MessageHeap } from './message-heap.ts';
import { MetricPeriods } from './metric-periods.ts';
import { PhaseLocator, phaseEnds } from './phase-locator.ts';
import { INVOKES_PER_POLLER, type PollerScaling, ProvisionedPollers, StandardPollers } from './pollers.ts';
import { Random } from './random.ts';
import type { Phase } from './scenario.ts';
import { WaitStats } from './wait-stats.ts';

/**
 * A discrete-event model of SQS → event source mapping → Lambda (or the seed article's in-process pool), in virtual
 * time. The controller under test runs on its schedule and sees the system only through the ports a real
 * controller has: late CloudWatch series, real-time depth, and the concurrency it can read and set.
 */

/** What a controller tick reports back for the timeline. */
export interface TickReport {
  readonly reason?: string;
  readonly saturated?: boolean;
  /** The downstream got slower with the age above target: the shed signal. */
  readonly shed?: boolean;
}

export interface SimController {
  readonly name: string;
  tick(ports: TickPorts, now: number): Promise<TickReport>;
  /**
   * A sub-tick sample of the real-time depth (the fast path), when the controller has one and the last tick
   * started it. Reports whether it changed the applied concurrency.
   */
  fastSample?(ports: TickPorts, now: number): Promise<{ changed: boolean }>;
}

/**
 * What bounds the consumer's concurrency.
 * - `controlled`: a controller drives reserved concurrency and/or the mapping's MaximumConcurrency (the actuator).
 * - `native`: no controller; MaximumConcurrency fixed, reserved concurrency unset (AWS's own recommendation).
 * - `provisioned`: the mapping's provisioned mode, MinimumPollers–MaximumPollers, reserved unset (provisioned mode
 *   cannot be combined with MaximumConcurrency).
 */
export type ConsumerMode =
  | { readonly kind: 'controlled'; readonly actuator: ActuatorMode }
  | { readonly kind: 'native'; readonly maximumConcurrency: number }
  | { readonly kind: 'provisioned'; readonly minimumPollers: number; readonly maximumPollers: number };

export interface SimulationInput {
  readonly phases: readonly Phase[];
  readonly environment: SimEnvironment;
  readonly controller: SimController;
  readonly tickSeconds: number;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
  readonly consumer: ConsumerMode;
  /** The fast path's sampling interval between ticks; 0, or a tick or more: none. */
  readonly fastSampleSeconds?: number;
  /** What the items call; absent: a downstream that takes any concurrency at the same per-item time. */
  readonly downstream?: DownstreamModel;
  readonly seed: number;
  /** Called now and then with the fraction of virtual time done. */
  readonly onProgress?: (fraction: number) => void;
}

/** One row of the timeline, taken at every controller tick. */
export interface TimelineSample {
  readonly time: number;
  readonly arrivalsPerSecond: number;
  /** The concurrency limit in force: what the controller applied, or the mapping's fixed bound. */
  readonly applied: number;
  /** Invocations (or busy workers) running at the tick: what the downstream feels. */
  readonly executions: number;
  /** Execution environments kept warm (the pool's workers). */
  readonly warm: number;
  readonly headAgeSeconds: number;
  readonly visible: number;
  readonly inFlight: number;
  readonly reason: string;
  readonly saturated: boolean;
  readonly shed: boolean;
}

export interface PhaseTally {
  sent: number;
  readonly waits: WaitStats;
}

export interface DownstreamStats {
  readonly connectionPool?: number;
  readonly peakConnectionsInUse?: number;
  readonly peakWaitingForConnection?: number;
  readonly apiRatePerSecond?: number;
  readonly apiCalls?: number;
  readonly rejectedCalls?: number;
}

export interface SimulationResult {
  readonly phases: readonly Phase[];
  readonly tally: readonly PhaseTally[];
  readonly timeline: readonly TimelineSample[];
  /** Every change of the applied concurrency: [time, value], starting with the initial value at 0. */
  readonly concurrencyChanges: readonly (readonly [number, number])[];
  readonly simulatedSeconds: number;
  readonly sent: number;
  readonly completed: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly deadLettered: number;
  readonly throttledInvocations: number;
  /** Invocations stopped by the function timeout: their whole batch returns after the visibility timeout. */
  readonly timedOutInvocations: number;
  /** Items reported as batch item failures (a downstream call refused): each message returns. */
  readonly failedItems: number;
  /** Seconds at the cap with the true head age above target. */
  readonly saturatedSeconds: number;
  /** Concurrent executions (invocations running, or busy workers) over the run. */
  readonly executions: LevelSummary;
  /** The same, per phase. */
  readonly phaseExecutions: readonly LevelSegment[];
  readonly warmEnvironments: LevelSummary;
  /** Reserved concurrency held, in concurrency-seconds; null where there is no account (the in-process pool). */
  readonly reservedSeconds: number | null;
  readonly downstream?: DownstreamStats;
}

interface Batch {
  readonly id: number;
  readonly sentAt: number[];
  readonly receiveCount: number[];
}

/** One invocation (or one worker's item) in progress. */
interface Invocation {
  readonly batch: Batch;
  /** Its item-done event, made once and pushed for each item (no allocation per item). */
  itemDone: SimEvent | undefined;
  readonly receivedAt: number;
  /** The invocation's duration: planned up front without a downstream model, measured with one. */
  duration: number;
  /** With a downstream model: the next item to start, and which items failed. */
  next: number;
  failed: Uint8Array | undefined;
  holdsConnection: boolean;
  /** Completed or timed out: later events for it are void. */
  ended: boolean;
}

// AWS: a message received three times or more without being deleted is moved to the back of the queue, and
// ApproximateAgeOfOldestMessage then shows the next one.
const HIDDEN_AFTER_RECEIVES = 3;

type SimEvent =
  | { readonly kind: 'arrival' }
  | { readonly kind: 'receive' }
  | { readonly kind: 'slot-free' }
  | { readonly kind: 'complete'; readonly invocation: Invocation }
  | { readonly kind: 'timeout'; readonly invocation: Invocation }
  | { readonly kind: 'item-done'; readonly invocation: Invocation }
  | { readonly kind: 'return'; readonly batch: Batch }
  | { readonly kind: 'periodic'; readonly task: number };

const hasEnded = (invocation: Invocation) => invocation.ended;

const ARRIVAL: SimEvent = { kind: 'arrival' };
const RECEIVE: SimEvent = { kind: 'receive' };
const SLOT_FREE: SimEvent = { kind: 'slot-free' };

/**
 * Something that happens every `everySeconds` of virtual time, first at `everySeconds`. The controller's tick, the
 * CloudWatch age sample and the pollers' scaling are the three today; another periodic sampler (a sub-minute read
 * of the queue's depth, say) is one more entry in `periodicTasks()`.
 */
interface PeriodicTask {
  readonly name: string;
  readonly everySeconds: number;
  run(): void | Promise<void>;
}

export class Simulation {
  private readonly env: SimEnvironment;
  private readonly random: Random;
  private readonly events = new EventQueue<SimEvent>();
  private readonly fresh = new TimeFifo();
  private readonly returned = new MessageHeap();
  /** Returned messages received HIDDEN_AFTER_RECEIVES times or more: at the back, hidden from the age. */
  private readonly hidden = new MessageHeap();
  /** In-flight batches by their oldest age-eligible message; entries of finished batches are skipped lazily. */
  private readonly inFlightOldest = new EventQueue<number>();
  private readonly liveBatches = new Set<number>();
  private nextBatchId = 0;
  private readonly metrics: MetricPeriods;
  private readonly ends: Float64Array;
  /** The phase of the clock (it only moves forward) and the phase of a message's send time. */
  private readonly clockPhase: PhaseLocator;
  private readonly sentPhase: PhaseLocator;
  private readonly end: number;
  private now = 0;
  /** The phase whose segment the meters are in. */
  private meteredPhase = 0;

  private reserved: number | undefined;
  private eventSourceMax: number | undefined;
  private readonly pollers: PollerScaling | undefined;
  private slots = 0;
  private idleSlots = 0;
  private pendingReceives = 0;
  private running = 0;
  private backlogSeenThisInterval = false;
  private peakBusySlotsThisInterval = 0;
  private readonly functionTimeoutSeconds: number;

  private readonly executions = new LevelMeter(0);
  private readonly environments: ExecutionEnvironments | undefined;
  /** The pool's workers (its "warm environments"). */
  private readonly workers: LevelMeter | undefined;
  private readonly reservedMeter: LevelMeter | undefined;
  private readonly connections: ConnectionPool<Invocation> | undefined;
  private readonly rateLimit: RateLimiter | undefined;
  private readonly callsPerItem: number;

  private sent = 0;
  private completed = 0;
  private inFlightMessages = 0;
  private deadLettered = 0;
  private throttled = 0;
  private timedOut = 0;
  private failedItems = 0;
  private saturatedSeconds = 0;
  private state: ControllerState = {};
  private readonly tally: PhaseTally[];
  private readonly timeline: TimelineSample[] = [];
  private readonly changes: [number, number][] = [];
  private lastTickSent = 0;
  private lastTickAt = 0;

  constructor(private readonly input: SimulationInput) {
    this.env = input.environment;
    this.random = new Random(input.seed);
    this.metrics = new MetricPeriods(this.env);
    this.ends = phaseEnds(input.phases.map((p) => p.durationSeconds));
    this.clockPhase = new PhaseLocator(this.ends);
    this.sentPhase = new PhaseLocator(this.ends);
    this.end = this.ends[this.ends.length - 1] ?? 0;
    this.tally = input.phases.map(() => ({ sent: 0, waits: new WaitStats() }));
    const lambda = this.env.kind === 'lambda';
    // An in-process pool has no function timeout: an item takes as long as it takes.
    this.functionTimeoutSeconds = lambda ? this.env.functionTimeoutSeconds : Number.POSITIVE_INFINITY;

    const consumer = input.consumer;
    switch (consumer.kind) {
      case 'controlled':
        // Event-source mode holds reserved at the cap and moves only the mapping's maximum.
        this.reserved = consumer.actuator === 'event-source' && lambda ? input.cap : input.floor;
        this.eventSourceMax = lambda && consumer.actuator !== 'reserved' ? input.floor : undefined;
        this.changes.push([0, input.floor]);
        break;
      case 'native':
        this.reserved = undefined;
        this.eventSourceMax = consumer.maximumConcurrency;
        this.changes.push([0, consumer.maximumConcurrency]);
        break;
      case 'provisioned':
        this.reserved = undefined;
        this.eventSourceMax = undefined;
        this.changes.push([0, consumer.maximumPollers * INVOKES_PER_POLLER]);
        break;
    }
    if (lambda) {
      this.pollers =
        consumer.kind === 'provisioned'
          ? new ProvisionedPollers(
              consumer.minimumPollers,
              consumer.maximumPollers,
              this.env.pollerScaleSeconds,
            )
          : new StandardPollers(
              this.env.initialPollers,
              this.env.pollerStepPerMinute,
              this.env.maxPollers,
              this.env.pollerScaleSeconds,
            );
      this.environments = new ExecutionEnvironments(this.env.keepWarmSeconds);
      this.reservedMeter = new LevelMeter(this.reserved ?? 0, false);
    } else {
      this.workers = new LevelMeter(0);
    }
    const downstream = input.downstream;
    this.connections =
      downstream?.connectionPool === undefined ? undefined : new ConnectionPool(downstream.connectionPool);
    this.callsPerItem = downstream?.callsPerItem ?? 1;
    this.rateLimit =
      downstream?.apiRatePerSecond === undefined
        ? undefined
        : new RateLimiter(downstream.apiRatePerSecond, this.callsPerItem);
  }

  private get itemwise(): boolean {
    return this.connections !== undefined || this.rateLimit !== undefined;
  }

  private periodicTasks(): PeriodicTask[] {
    const tasks: PeriodicTask[] = [
      { name: 'controller tick', everySeconds: this.input.tickSeconds, run: () => this.onTick() },
      { name: 'age sample', everySeconds: this.env.ageSampleSeconds, run: () => this.onAgeSample() },
    ];
    // The fast path's samples between ticks, as the Lambda's loop takes them (one at a tick's own instant is the
    // tick's: skipped).
    const fast = this.input.fastSampleSeconds ?? 0;
    if (this.input.controller.fastSample && fast > 0 && fast < this.input.tickSeconds)
      tasks.push({ name: 'fast-path sample', everySeconds: fast, run: () => this.onFastSample() });
    if (this.pollers !== undefined)
      tasks.push({
        name: 'poller scaling',
        // AWS gives the pollers' ramp as a rate per minute, applied in pollerScaleSeconds steps (10 s by default).
        everySeconds: this.env.pollerScaleSeconds,
        run: () => this.onPollerScale(),
      });
    return tasks;
  }

  async run(): Promise<SimulationResult> {
    this.resizeSlots();
    this.scheduleArrival(0);
    const tasks = this.periodicTasks();
    const taskEvents: SimEvent[] = tasks.map((_, task) => ({ kind: 'periodic', task }));
    tasks.forEach((task, i) => {
      this.events.push(task.everySeconds, taskEvents[i] as SimEvent);
    });
    const events = this.events;
    const last = this.ends.length - 1;
    let nextProgress = 0;
    for (;;) {
      const time = events.peekTime();
      if (time === undefined || time > this.end) break;
      const event = events.peekItem() as SimEvent;
      events.removeTop();
      this.now = time;
      while (this.meteredPhase < last && time >= (this.ends[this.meteredPhase] as number)) this.cutPhase();
      if (this.input.onProgress && time >= nextProgress) {
        this.input.onProgress(time / this.end);
        nextProgress += this.end / 50;
      }
      switch (event.kind) {
        case 'arrival':
          this.onArrival();
          break;
        case 'receive':
          this.onReceive();
          break;
        case 'slot-free':
          this.freeSlot();
          break;
        case 'complete':
          this.onComplete(event.invocation);
          break;
        case 'timeout':
          this.onTimeout(event.invocation);
          break;
        case 'item-done':
          this.onItemDone(event.invocation);
          break;
        case 'return':
          this.onReturn(event.batch);
          break;
        case 'periodic': {
          const task = tasks[event.task] as PeriodicTask;
          await task.run();
          events.push(time + task.everySeconds, event);
          break;
        }
      }
    }
    this.now = this.end;
    while (this.meteredPhase < last) this.cutPhase();
    this.executions.cut(this.end);
    this.environments?.expire(this.end);
    return {
      phases: this.input.phases,
      tally: this.tally,
      timeline: this.timeline,
      concurrencyChanges: this.changes,
      simulatedSeconds: this.end,
      sent: this.sent,
      completed: this.completed,
      queued: this.visibleCount(),
      inFlight: this.inFlightMessages,
      deadLettered: this.deadLettered,
      throttledInvocations: this.throttled,
      timedOutInvocations: this.timedOut,
      failedItems: this.failedItems,
      saturatedSeconds: this.saturatedSeconds,
      executions: this.executions.summary(this.end),
      phaseExecutions: this.executions.closedSegments(),
      warmEnvironments: (this.environments?.warm ?? (this.workers as LevelMeter)).summary(this.end),
      reservedSeconds:
        this.reservedMeter === undefined ? null : this.reservedMeter.summary(this.end).integral,
      downstream: this.downstreamStats(),
    };
  }

  private cutPhase(): void {
    this.executions.cut(this.ends[this.meteredPhase] as number);
    this.meteredPhase++;
  }

  private downstreamStats(): DownstreamStats | undefined {
    if (this.connections === undefined && this.rateLimit === undefined) return undefined;
    return {
      connectionPool: this.connections?.size,
      peakConnectionsInUse: this.connections?.peakInUse,
      peakWaitingForConnection: this.connections?.peakWaiting,
      apiRatePerSecond: this.input.downstream?.apiRatePerSecond,
      apiCalls: this.rateLimit?.calls,
      rejectedCalls: this.rateLimit?.rejected,
    };
  }

  // ---- arrivals ------------------------------------------------------------------------------------------

  /** Poisson arrivals: the gap is exponential at the phase's rate; memoryless, so a phase change just redraws. */
  private scheduleArrival(from: number): void {
    let t = from;
    const phases = this.input.phases;
    for (let i = this.clockPhase.indexAt(t); i < phases.length; i++) {
      const phase = phases[i] as Phase;
      const phaseEnd = this.ends[i] as number;
      if (phase.ratePerSecond > 0) {
        const candidate = t + this.random.exponential(phase.ratePerSecond);
        if (candidate < phaseEnd) {
          this.events.push(candidate, ARRIVAL);
          return;
        }
      }
      t = phaseEnd;
    }
  }

  private onArrival(): void {
    this.sent++;
    (this.tally[this.clockPhase.indexAt(this.now)] as PhaseTally).sent++;
    this.metrics.at(this.now).sent++;
    this.fresh.push(this.now);
    this.dispatch();
    this.scheduleArrival(this.now);
  }

  // ---- the queue -----------------------------------------------------------------------------------------

  private visibleCount(): number {
    return this.fresh.length + this.returned.length + this.hidden.length;
  }

  /**
   * ApproximateAgeOfOldestMessage: the oldest message not yet deleted, visible or in flight (a throttled batch
   * waiting out its visibility timeout counts), except those received three times or more, which hide. The
   * seed's pool reads the head of its in-process queue: an item a worker took is no longer there.
   */
  private headAge(): number {
    while (this.inFlightOldest.size > 0 && !this.liveBatches.has(this.inFlightOldest.peekItem() as number)) {
      this.inFlightOldest.removeTop();
    }
    const oldest = Math.min(
      this.fresh.peek() ?? Number.POSITIVE_INFINITY,
      this.returned.oldest() ?? Number.POSITIVE_INFINITY,
      (this.env.kind === 'lambda' ? this.inFlightOldest.peekTime() : undefined) ?? Number.POSITIVE_INFINITY,
    );
    return Number.isFinite(oldest) ? this.now - oldest : 0;
  }

  private take(max: number): Batch {
    const batch: Batch = { id: this.nextBatchId++, sentAt: [], receiveCount: [] };
    while (batch.sentAt.length < max) {
      const returnedAt = this.returned.oldest();
      const freshAt = this.fresh.peek();
      let sentAt: number;
      let count: number;
      if (returnedAt !== undefined && (freshAt === undefined || returnedAt <= freshAt)) {
        sentAt = returnedAt;
        count = this.returned.oldestReceiveCount();
        this.returned.removeOldest();
      } else if (freshAt !== undefined) {
        sentAt = this.fresh.shift() as number;
        count = 0;
      } else if (this.hidden.length > 0) {
        // The back of the queue: messages moved there after three receives come last.
        sentAt = this.hidden.oldest() as number;
        count = this.hidden.oldestReceiveCount();
        this.hidden.removeOldest();
      } else break;
      // Redrive: a message already received maxReceiveCount times goes to the DLQ on its next receive.
      if (count >= this.env.maxReceiveCount) {
        this.deadLettered++;
        continue;
      }
      batch.sentAt.push(sentAt);
      batch.receiveCount.push(count + 1);
    }
    this.track(batch);
    return batch;
  }

  /** A batch goes in flight: invisible, counted in the age until deleted or returned. */
  private track(batch: Batch): void {
    this.inFlightMessages += batch.sentAt.length;
    let oldestEligible = Number.POSITIVE_INFINITY;
    for (let i = 0; i < batch.sentAt.length; i++) {
      if ((batch.receiveCount[i] as number) < HIDDEN_AFTER_RECEIVES)
        oldestEligible = Math.min(oldestEligible, batch.sentAt[i] as number);
    }
    if (Number.isFinite(oldestEligible)) {
      this.liveBatches.add(batch.id);
      this.inFlightOldest.push(oldestEligible, batch.id);
    }
  }

  private finish(batch: Batch): void {
    this.inFlightMessages -= batch.sentAt.length;
    this.liveBatches.delete(batch.id);
  }

  /** The visibility timeout of a batch received at `receivedAt` ends: its messages are visible again. */
  private returnAfterVisibility(batch: Batch, receivedAt: number): void {
    this.events.push(receivedAt + this.env.visibilityTimeoutSeconds, { kind: 'return', batch });
  }

  private onReturn(batch: Batch): void {
    this.finish(batch);
    for (let i = 0; i < batch.sentAt.length; i++) {
      const count = batch.receiveCount[i] as number;
      (count >= HIDDEN_AFTER_RECEIVES ? this.hidden : this.returned).push(batch.sentAt[i] as number, count);
    }
    this.dispatch();
  }

  // ---- pollers / workers ---------------------------------------------------------------------------------

  /** Concurrent receive-and-invoke loops: the mapping's pollers (bounded by its maximum), or the pool's workers. */
  private allowedSlots(): number {
    if (this.pollers === undefined) return this.reserved as number;
    return Math.min(this.pollers.capacity, this.eventSourceMax ?? Number.POSITIVE_INFINITY);
  }

  private setSlots(slots: number): void {
    this.slots = slots;
    this.workers?.set(this.now, slots);
  }

  private resizeSlots(): void {
    const allowed = this.allowedSlots();
    if (allowed > this.slots) {
      this.idleSlots += allowed - this.slots;
      this.setSlots(allowed);
      this.dispatch();
    } else if (allowed < this.slots) {
      // Idle loops stop now; busy ones finish their batch first (lowering concurrency interrupts nothing).
      const retire = Math.min(this.idleSlots, this.slots - allowed);
      this.idleSlots -= retire;
      this.setSlots(this.slots - retire);
    }
  }

  private dispatch(): void {
    while (this.idleSlots > 0 && this.visibleCount() > this.pendingReceives * this.env.batchSize) {
      this.idleSlots--;
      this.pendingReceives++;
      this.events.push(this.now + this.env.receiveLatencySeconds, RECEIVE);
    }
    if (this.idleSlots === 0 && this.visibleCount() > 0) this.backlogSeenThisInterval = true;
    const busy = this.slots - this.idleSlots;
    if (busy > this.peakBusySlotsThisInterval) this.peakBusySlotsThisInterval = busy;
  }

  private freeSlot(): void {
    if (this.slots > this.allowedSlots()) {
      this.setSlots(this.slots - 1);
      return;
    }
    this.idleSlots++;
    this.dispatch();
  }

  private onReceive(): void {
    this.pendingReceives--;
    const batch = this.take(this.env.batchSize);
    if (batch.sentAt.length === 0) {
      this.freeSlot();
      return;
    }
    // Lambda throttles an invocation beyond reserved concurrency; the batch returns after the visibility timeout.
    if (this.reserved !== undefined && this.running >= this.reserved) {
      this.throttled++;
      this.returnAfterVisibility(batch, this.now);
      this.events.push(this.now + this.env.throttleBackoffSeconds, SLOT_FREE);
      return;
    }
    this.running++;
    this.executions.set(this.now, this.running);
    this.environments?.start(this.now);
    const invocation: Invocation = {
      batch,
      itemDone: undefined,
      receivedAt: this.now,
      duration: 0,
      next: 0,
      failed: undefined,
      holdsConnection: false,
      ended: false,
    };
    if (this.itemwise) {
      if (Number.isFinite(this.functionTimeoutSeconds))
        this.events.push(this.now + this.functionTimeoutSeconds, { kind: 'timeout', invocation });
      this.startItem(invocation);
      return;
    }
    const phase = this.input.phases[this.clockPhase.indexAt(this.now)] as Phase;
    let duration = this.env.invocationOverheadSeconds;
    for (let i = 0; i < batch.sentAt.length; i++)
      duration += this.random.jitter(phase.itemMs / 1000, this.env.itemJitter);
    invocation.duration = duration;
    if (duration > this.functionTimeoutSeconds)
      this.events.push(this.now + this.functionTimeoutSeconds, { kind: 'timeout', invocation });
    else this.events.push(this.now + duration, { kind: 'complete', invocation });
  }

  // ---- items against a downstream with a capacity ---------------------------------------------------------

  /** The invocation's next item: a connection first (if the downstream is a pool), then its calls. */
  private startItem(invocation: Invocation): void {
    if (invocation.next >= invocation.batch.sentAt.length) {
      this.events.push(this.now + this.env.invocationOverheadSeconds, { kind: 'complete', invocation });
      return;
    }
    if (this.connections !== undefined) {
      if (!this.connections.acquire(invocation)) return;
      invocation.holdsConnection = true;
    }
    this.serveItem(invocation);
  }

  private serveItem(invocation: Invocation): void {
    const phase = this.input.phases[this.clockPhase.indexAt(this.now)] as Phase;
    const seconds = this.random.jitter(phase.itemMs / 1000, this.env.itemJitter);
    if (this.rateLimit !== undefined && !this.rateLimit.tryCall(this.now, this.callsPerItem)) {
      invocation.failed ??= new Uint8Array(invocation.batch.sentAt.length);
      invocation.failed[invocation.next] = 1;
    }
    invocation.itemDone ??= { kind: 'item-done', invocation };
    this.events.push(this.now + seconds, invocation.itemDone);
  }

  private onItemDone(invocation: Invocation): void {
    // Timed out meanwhile: its connection went back at the timeout.
    if (invocation.ended) return;
    if (invocation.holdsConnection) {
      invocation.holdsConnection = false;
      this.releaseConnection();
    }
    invocation.next++;
    this.startItem(invocation);
  }

  private releaseConnection(): void {
    const next = this.connections?.release(hasEnded);
    if (next !== undefined) {
      next.holdsConnection = true;
      this.serveItem(next);
    }
  }

  // ---- the end of an invocation ---------------------------------------------------------------------------

  private endInvocation(invocation: Invocation): void {
    invocation.ended = true;
    this.running--;
    this.executions.set(this.now, this.running);
    this.environments?.finish(this.now);
    const metrics = this.metrics.at(this.now);
    metrics.durationMs += invocation.duration * 1000;
    metrics.invocations++;
  }

  private onComplete(invocation: Invocation): void {
    if (invocation.ended) return;
    if (this.itemwise) invocation.duration = this.now - invocation.receivedAt;
    this.endInvocation(invocation);
    const { batch, receivedAt, failed } = invocation;
    const metrics = this.metrics.at(this.now);
    let retry: Batch | undefined;
    for (let i = 0; i < batch.sentAt.length; i++) {
      const sentAt = batch.sentAt[i] as number;
      if (failed?.[i] === 1) {
        // A batch item failure: not deleted; visible again when the visibility timeout ends.
        this.failedItems++;
        retry ??= { id: this.nextBatchId++, sentAt: [], receiveCount: [] };
        retry.sentAt.push(sentAt);
        retry.receiveCount.push(batch.receiveCount[i] as number);
        continue;
      }
      this.completed++;
      metrics.deleted++;
      (this.tally[this.sentPhase.indexAt(sentAt)] as PhaseTally).waits.record(receivedAt - sentAt);
    }
    this.finish(batch);
    if (retry !== undefined) {
      this.track(retry);
      this.returnAfterVisibility(retry, receivedAt);
    }
    this.freeSlot();
  }

  /**
   * The function timeout: Lambda stops the invocation and the whole batch fails (no partial response arrives), so
   * every message returns when its visibility timeout ends, its receive count raised. The visibility timeout is at
   * least the function timeout (AWS refuses a mapping otherwise), so no message reappears while still processed.
   */
  private onTimeout(invocation: Invocation): void {
    if (invocation.ended) return;
    this.timedOut++;
    invocation.duration = this.now - invocation.receivedAt;
    if (invocation.holdsConnection) {
      invocation.holdsConnection = false;
      this.releaseConnection();
    }
    this.endInvocation(invocation);
    this.returnAfterVisibility(invocation.batch, invocation.receivedAt);
    this.freeSlot();
  }

  /** Every pollerScaleSeconds (10 s by default) the mapping's pollers scale (standard or provisioned mode). */
  private onPollerScale(): void {
    const pollers = this.pollers as PollerScaling;
    pollers.scale(
      this.backlogSeenThisInterval,
      this.peakBusySlotsThisInterval,
      this.eventSourceMax ?? Number.POSITIVE_INFINITY,
    );
    this.peakBusySlotsThisInterval = this.slots - this.idleSlots;
    this.backlogSeenThisInterval = false;
    this.resizeSlots();
  }

  // ---- CloudWatch ----------------------------------------------------------------------------------------

  private onAgeSample(): void {
    const metrics = this.metrics.at(this.now);
    metrics.ageMax = Math.max(metrics.ageMax, this.headAge());
  }

  // ---- the controller ------------------------------------------------------------------------------------

  private appliedNow(): number {
    const consumer = this.input.consumer;
    switch (consumer.kind) {
      case 'controlled':
        // Lockstep reserved trails a shrink by a tick: the mapping's maximum is what the pollers work under.
        return consumer.actuator !== 'reserved' && this.env.kind === 'lambda'
          ? (this.eventSourceMax as number)
          : (this.reserved as number);
      case 'native':
        return consumer.maximumConcurrency;
      case 'provisioned':
        return consumer.maximumPollers * INVOKES_PER_POLLER;
    }
  }

  private ports(): TickPorts {
    return {
      metrics: {
        read: async (now, period, window) =>
          this.metrics.read(now, period, window, this.env.instantAge ? this.headAge() : undefined),
      },
      queue: {
        depth: async (): Promise<QueueDepth> => ({
          visible: this.visibleCount(),
          inFlight: this.inFlightMessages,
          delayed: 0,
        }),
      },
      concurrency: {
        applied: async () => {
          const consumer = this.input.consumer;
          if (consumer.kind !== 'controlled') return undefined;
          return effectiveConcurrency(this.actuatorMode(consumer.actuator), this.limits());
        },
        // Lockstep leaves reserved a tick behind a shrink, as the Lambda's writes do: the next tick lowers it.
        condition: async () => {
          const consumer = this.input.consumer;
          if (consumer.kind !== 'controlled') return {};
          const mode = this.actuatorMode(consumer.actuator);
          return { outOfStep: outOfStep(mode, this.limits()), overpull: overpulls(mode, this.limits()) };
        },
        apply: async (desired) => this.apply(desired),
      },
      state: {
        load: async () => this.state,
        save: async (state) => {
          this.state = state;
        },
      },
    };
  }

  /** The consumer's two limits, as the Lambda's actuator reads them. */
  private limits(): ConsumerLimits {
    return { reserved: this.reserved, mapping: this.eventSourceMax };
  }

  /** In-process pools have no mapping: whatever the actuator, only the pool's size (reserved) is driven. */
  private actuatorMode(actuator: ActuatorMode): ActuatorMode {
    return this.eventSourceMax === undefined ? 'reserved' : actuator;
  }

  /** The Lambda's write plan (lib/control/write-plan.ts), applied to the model in the same order. */
  private apply(desired: number): void {
    const consumer = this.input.consumer;
    if (consumer.kind !== 'controlled')
      throw new Error(`controller ${this.input.controller.name} wrote concurrency in ${consumer.kind} mode`);
    if (!Number.isInteger(desired) || desired < 1)
      throw new Error(`controller ${this.input.controller.name} applied ${desired}`);
    const mode = this.actuatorMode(consumer.actuator);
    const before = effectiveConcurrency(mode, this.limits());
    for (const write of planWrites(mode, this.limits(), desired, this.input.cap)) {
      assertWritable(write, this.input.cap);
      if (write.target === 'reserved') this.reserved = write.value;
      else this.eventSourceMax = write.value;
    }
    const after = effectiveConcurrency(mode, this.limits());
    this.reservedMeter?.set(this.now, this.reserved ?? 0);
    if (after !== undefined && after !== before) this.changes.push([this.now, after]);
    this.resizeSlots();
  }

  private async onTick(): Promise<void> {
    const report = await this.input.controller.tick(this.ports(), this.now);
    const applied = this.appliedNow();
    const headAge = this.headAge();
    const interval = this.now - this.lastTickAt;
    if (applied >= this.input.cap && headAge > this.input.targetAgeSeconds)
      this.saturatedSeconds += this.input.tickSeconds;
    this.environments?.expire(this.now);
    this.timeline.push({
      time: this.now,
      arrivalsPerSecond: interval > 0 ? (this.sent - this.lastTickSent) / interval : 0,
      applied,
      executions: this.running,
      warm: this.environments?.warm.current ?? this.slots,
      headAgeSeconds: headAge,
      visible: this.visibleCount(),
      inFlight: this.inFlightMessages,
      reason: report.reason ?? '',
      saturated: report.saturated ?? false,
      shed: report.shed ?? false,
    });
    this.lastTickSent = this.sent;
    this.lastTickAt = this.now;
  }

  private async onFastSample(): Promise<void> {
    if (this.now === this.lastTickAt) return;
    const result = await this.input.controller.fastSample?.(this.ports(), this.now);
    // The Lambda learns of its own fast-path write from the mapping's LastModified at the next tick: so does the
    // carried state here.
    if (result?.changed) this.state = { ...this.state, lastChangeAt: this.now };
  }
}
