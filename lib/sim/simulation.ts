import type { ActuatorMode } from '../control/config.ts';
import type { Datapoint, MetricSeries, QueueDepth } from '../control/ports.ts';
import type { ControllerState } from '../control/snapshot.ts';
import type { TickPorts } from '../control/tick.ts';
import type { SimEnvironment } from './environment.ts';
import { EventQueue } from './event-queue.ts';
import { NumberList, TimeFifo } from './fifo.ts';
import { Random } from './random.ts';
import type { Phase } from './scenario.ts';

/**
 * A discrete-event model of SQS → event source mapping → Lambda (or the seed's in-process pool), in virtual
 * time. The controller under test runs on its schedule and sees the system only through the ports a real
 * controller has: late CloudWatch series, real-time depth, and the concurrency it can read and set.
 */

/** What a controller tick reports back for the timeline. */
export interface TickReport {
  readonly reason?: string;
  readonly saturated?: boolean;
}

export interface SimController {
  readonly name: string;
  tick(ports: TickPorts, now: number): Promise<TickReport>;
}

export interface SimulationInput {
  readonly phases: readonly Phase[];
  readonly environment: SimEnvironment;
  readonly controller: SimController;
  readonly tickSeconds: number;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
  readonly actuator: ActuatorMode;
  readonly seed: number;
  /** Called now and then with the fraction of virtual time done. */
  readonly onProgress?: (fraction: number) => void;
}

/** One row of the timeline, taken at every controller tick. */
export interface TimelineSample {
  readonly time: number;
  readonly arrivalsPerSecond: number;
  readonly applied: number;
  readonly headAgeSeconds: number;
  readonly visible: number;
  readonly inFlight: number;
  readonly reason: string;
  readonly saturated: boolean;
}

export interface PhaseTally {
  sent: number;
  readonly waits: NumberList;
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
  /** Seconds at the cap with the true head age above target. */
  readonly saturatedSeconds: number;
}

interface Batch {
  readonly id: number;
  readonly sentAt: number[];
  readonly receiveCount: number[];
}

// AWS: a message received three times or more without being deleted is moved to the back of the queue, and
// ApproximateAgeOfOldestMessage then shows the next one.
const HIDDEN_AFTER_RECEIVES = 3;

type SimEvent =
  | { kind: 'arrival' }
  | { kind: 'receive' }
  | { kind: 'complete'; batch: Batch; receivedAt: number; durationSeconds: number }
  | { kind: 'return'; batch: Batch }
  | { kind: 'slot-free' }
  | { kind: 'tick' }
  | { kind: 'age-sample' }
  | { kind: 'poller-scale' };

/** Returned (received but not deleted) messages that are visible again, oldest first. */
class ReturnedMessages {
  private readonly heap = new EventQueue<number>();
  get length(): number {
    return this.heap.size;
  }
  push(sentAt: number, receiveCount: number): void {
    this.heap.push(sentAt, receiveCount);
  }
  oldest(): number | undefined {
    return this.heap.peekTime();
  }
  pop(): { sentAt: number; receiveCount: number } | undefined {
    const top = this.heap.pop();
    return top && { sentAt: top.time, receiveCount: top.item };
  }
}

interface PeriodMetrics {
  ageMax: number;
  sent: number;
  deleted: number;
  durationMs: number;
  invocations: number;
}

export class Simulation {
  private readonly env: SimEnvironment;
  private readonly random: Random;
  private readonly events = new EventQueue<SimEvent>();
  private readonly fresh = new TimeFifo();
  private readonly returned = new ReturnedMessages();
  /** Returned messages received HIDDEN_AFTER_RECEIVES times or more: at the back, hidden from the age. */
  private readonly hidden = new ReturnedMessages();
  /** In-flight batches by their oldest age-eligible message; entries of finished batches are skipped lazily. */
  private readonly inFlightOldest = new EventQueue<number>();
  private readonly liveBatches = new Set<number>();
  private nextBatchId = 0;
  private readonly periods: PeriodMetrics[] = [];
  private readonly boundaries: number[];
  private readonly end: number;
  private now = 0;

  private reserved: number;
  private eventSourceMax: number | undefined;
  private pollers: number;
  private slots = 0;
  private idleSlots = 0;
  private pendingReceives = 0;
  private running = 0;
  private backlogSeenThisMinute = false;
  private peakBusySlotsThisMinute = 0;

  private sent = 0;
  private completed = 0;
  private inFlightMessages = 0;
  private deadLettered = 0;
  private throttled = 0;
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
    // Event-source mode holds reserved at the cap and moves only the mapping's maximum.
    this.reserved = input.actuator === 'event-source' && this.env.kind === 'lambda' ? input.cap : input.floor;
    this.eventSourceMax = this.drivesEventSource() ? input.floor : undefined;
    this.pollers = this.env.kind === 'lambda' ? this.env.initialPollers : 0;
    this.tally = input.phases.map(() => ({ sent: 0, waits: new NumberList() }));
    let t = 0;
    this.boundaries = input.phases.map((p) => {
      t += p.durationSeconds;
      return t;
    });
    this.end = t;
    this.changes.push([0, input.floor]);
  }

  async run(): Promise<SimulationResult> {
    this.resizeSlots();
    this.scheduleArrival(0);
    this.events.push(this.input.tickSeconds, { kind: 'tick' });
    this.events.push(this.env.ageSampleSeconds, { kind: 'age-sample' });
    if (this.env.kind === 'lambda') this.events.push(60, { kind: 'poller-scale' });
    let nextProgress = 0;
    for (;;) {
      const next = this.events.pop();
      if (next === undefined || next.time > this.end) break;
      this.now = next.time;
      if (this.input.onProgress && this.now >= nextProgress) {
        this.input.onProgress(this.now / this.end);
        nextProgress += this.end / 50;
      }
      const event = next.item;
      switch (event.kind) {
        case 'arrival':
          this.onArrival();
          break;
        case 'receive':
          this.onReceive();
          break;
        case 'complete':
          this.onComplete(event.batch, event.receivedAt, event.durationSeconds);
          break;
        case 'return':
          this.onReturn(event.batch);
          break;
        case 'slot-free':
          this.freeSlot();
          break;
        case 'tick':
          await this.onTick();
          break;
        case 'age-sample':
          this.onAgeSample();
          break;
        case 'poller-scale':
          this.onPollerScale();
          break;
      }
    }
    this.now = this.end;
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
      saturatedSeconds: this.saturatedSeconds,
    };
  }

  // ---- arrivals ------------------------------------------------------------------------------------------

  private phaseIndexAt(time: number): number {
    for (let i = 0; i < this.boundaries.length; i++) if (time < (this.boundaries[i] as number)) return i;
    return this.boundaries.length - 1;
  }

  /** Poisson arrivals: the gap is exponential at the phase's rate; memoryless, so a phase change just redraws. */
  private scheduleArrival(from: number): void {
    let t = from;
    for (let i = this.phaseIndexAt(t); i < this.input.phases.length; i++) {
      const phase = this.input.phases[i] as Phase;
      const phaseEnd = this.boundaries[i] as number;
      if (phase.ratePerSecond > 0) {
        const candidate = t + this.random.exponential(phase.ratePerSecond);
        if (candidate < phaseEnd) {
          this.events.push(candidate, { kind: 'arrival' });
          return;
        }
      }
      t = phaseEnd;
    }
  }

  private onArrival(): void {
    this.sent++;
    (this.tally[this.phaseIndexAt(this.now)] as PhaseTally).sent++;
    this.period(this.now).sent++;
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
      this.inFlightOldest.pop();
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
        const m = this.returned.pop() as { sentAt: number; receiveCount: number };
        sentAt = m.sentAt;
        count = m.receiveCount;
      } else if (freshAt !== undefined) {
        sentAt = this.fresh.shift() as number;
        count = 0;
      } else if (this.hidden.length > 0) {
        // The back of the queue: messages moved there after three receives come last.
        const m = this.hidden.pop() as { sentAt: number; receiveCount: number };
        sentAt = m.sentAt;
        count = m.receiveCount;
      } else break;
      // Redrive: a message already received maxReceiveCount times goes to the DLQ on its next receive.
      if (count >= this.env.maxReceiveCount) {
        this.deadLettered++;
        continue;
      }
      batch.sentAt.push(sentAt);
      batch.receiveCount.push(count + 1);
    }
    this.inFlightMessages += batch.sentAt.length;
    const eligible = batch.sentAt.filter((_, i) => (batch.receiveCount[i] as number) < HIDDEN_AFTER_RECEIVES);
    if (eligible.length > 0) {
      this.liveBatches.add(batch.id);
      this.inFlightOldest.push(Math.min(...eligible), batch.id);
    }
    return batch;
  }

  private finish(batch: Batch): void {
    this.inFlightMessages -= batch.sentAt.length;
    this.liveBatches.delete(batch.id);
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

  private drivesEventSource(): boolean {
    return this.env.kind === 'lambda' && this.input.actuator !== 'reserved';
  }

  /** Concurrent receive-and-invoke loops: the mapping's pollers (bounded by its maximum), or the pool's workers. */
  private allowedSlots(): number {
    if (this.env.kind === 'pool') return this.reserved;
    return Math.min(this.pollers, this.eventSourceMax ?? Number.POSITIVE_INFINITY);
  }

  private resizeSlots(): void {
    const allowed = this.allowedSlots();
    if (allowed > this.slots) {
      this.idleSlots += allowed - this.slots;
      this.slots = allowed;
      this.dispatch();
    } else if (allowed < this.slots) {
      // Idle loops stop now; busy ones finish their batch first (lowering concurrency interrupts nothing).
      const retire = Math.min(this.idleSlots, this.slots - allowed);
      this.idleSlots -= retire;
      this.slots -= retire;
    }
  }

  private dispatch(): void {
    while (this.idleSlots > 0 && this.visibleCount() > this.pendingReceives * this.env.batchSize) {
      this.idleSlots--;
      this.pendingReceives++;
      this.events.push(this.now + this.env.receiveLatencySeconds, { kind: 'receive' });
    }
    if (this.idleSlots === 0 && this.visibleCount() > 0) this.backlogSeenThisMinute = true;
    this.peakBusySlotsThisMinute = Math.max(this.peakBusySlotsThisMinute, this.slots - this.idleSlots);
  }

  private freeSlot(): void {
    if (this.slots > this.allowedSlots()) {
      this.slots--;
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
    if (this.running >= this.reserved) {
      this.throttled++;
      this.events.push(this.now + this.env.visibilityTimeoutSeconds, { kind: 'return', batch });
      this.events.push(this.now + this.env.throttleBackoffSeconds, { kind: 'slot-free' });
      return;
    }
    this.running++;
    const phase = this.input.phases[this.phaseIndexAt(this.now)] as Phase;
    let duration = this.env.invocationOverheadSeconds;
    for (let i = 0; i < batch.sentAt.length; i++)
      duration += this.random.jitter(phase.itemMs / 1000, this.env.itemJitter);
    this.events.push(this.now + duration, {
      kind: 'complete',
      batch,
      receivedAt: this.now,
      durationSeconds: duration,
    });
  }

  private onComplete(batch: Batch, receivedAt: number, durationSeconds: number): void {
    this.running--;
    this.finish(batch);
    this.completed += batch.sentAt.length;
    for (const sentAt of batch.sentAt)
      (this.tally[this.phaseIndexAt(sentAt)] as PhaseTally).waits.push(receivedAt - sentAt);
    const metrics = this.period(this.now);
    metrics.deleted += batch.sentAt.length;
    metrics.durationMs += durationSeconds * 1000;
    metrics.invocations++;
    this.freeSlot();
  }

  /**
   * AWS: the mapping starts at 5 concurrent batches and adds up to 300 a minute while messages wait; with none
   * waiting it scales back down.
   */
  private onPollerScale(): void {
    const limit = Math.min(this.env.maxPollers, this.eventSourceMax ?? this.env.maxPollers);
    // AWS documents scaling "up or down based on workload" but not how it scales down: assumed here that pollers
    // nobody used during the minute are released, down to the starting five.
    const next = this.backlogSeenThisMinute
      ? this.pollers + this.env.pollerStepPerMinute
      : Math.min(this.pollers, this.peakBusySlotsThisMinute);
    this.pollers = Math.max(this.env.initialPollers, Math.min(limit, next));
    this.peakBusySlotsThisMinute = this.slots - this.idleSlots;
    this.backlogSeenThisMinute = false;
    this.resizeSlots();
    this.events.push(this.now + 60, { kind: 'poller-scale' });
  }

  // ---- CloudWatch ----------------------------------------------------------------------------------------

  private period(time: number): PeriodMetrics {
    const k = Math.floor(time / this.env.metricPeriodSeconds + 1e-9);
    while (this.periods.length <= k)
      this.periods.push({ ageMax: 0, sent: 0, deleted: 0, durationMs: 0, invocations: 0 });
    return this.periods[k] as PeriodMetrics;
  }

  private onAgeSample(): void {
    const metrics = this.period(this.now);
    metrics.ageMax = Math.max(metrics.ageMax, this.headAge());
    this.events.push(this.now + this.env.ageSampleSeconds, { kind: 'age-sample' });
  }

  /** The series CloudWatch would return now: only periods published by now (period end + delay). */
  private readSeries(now: number, periodSeconds: number, windowSeconds: number): MetricSeries {
    const p = this.env.metricPeriodSeconds;
    if (periodSeconds !== p)
      throw new Error(`the simulator publishes ${p}-second periods, not ${periodSeconds}`);
    const age: Datapoint[] = [];
    const sent: Datapoint[] = [];
    const deleted: Datapoint[] = [];
    const duration: Datapoint[] = [];
    const invocations: Datapoint[] = [];
    const first = Math.max(0, Math.floor((now - windowSeconds) / p));
    for (let k = first; k < this.periods.length; k++) {
      const timestamp = k * p;
      if (timestamp + p + this.env.metricDelaySeconds > now + 1e-9) break;
      const m = this.periods[k] as PeriodMetrics;
      age.push({ timestamp, value: m.ageMax });
      sent.push({ timestamp, value: m.sent });
      deleted.push({ timestamp, value: m.deleted });
      // Lambda publishes no Duration or Invocations for a period without invocations: an empty period is omitted.
      if (m.invocations > 0) {
        duration.push({ timestamp, value: m.durationMs });
        invocations.push({ timestamp, value: m.invocations });
      }
    }
    const ageSeries = this.env.instantAge ? [{ timestamp: now - p, value: this.headAge() }] : age;
    return {
      ageOfOldestMessage: ageSeries,
      messagesSent: sent,
      messagesDeleted: deleted,
      consumerDurationMs: duration,
      consumerInvocations: invocations,
    };
  }

  // ---- the controller ------------------------------------------------------------------------------------

  private ports(): TickPorts {
    return {
      metrics: { read: async (now, period, window) => this.readSeries(now, period, window) },
      queue: {
        depth: async (): Promise<QueueDepth> => ({
          visible: this.visibleCount(),
          inFlight: this.inFlightMessages,
          delayed: 0,
        }),
      },
      concurrency: {
        applied: async () => (this.input.actuator === 'event-source' ? this.eventSourceMax : this.reserved),
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

  private apply(desired: number): void {
    if (!Number.isInteger(desired) || desired < 1)
      throw new Error(`controller ${this.input.controller.name} applied ${desired}`);
    const previous = this.input.actuator === 'event-source' ? this.eventSourceMax : this.reserved;
    if (desired === previous) return;
    switch (this.input.actuator) {
      case 'lockstep':
        this.reserved = desired;
        this.eventSourceMax = desired;
        break;
      case 'reserved':
        this.reserved = desired;
        break;
      case 'event-source':
        this.reserved = this.input.cap;
        this.eventSourceMax = desired;
        break;
    }
    this.changes.push([this.now, desired]);
    this.resizeSlots();
  }

  private async onTick(): Promise<void> {
    const report = await this.input.controller.tick(this.ports(), this.now);
    const applied = this.input.actuator === 'event-source' ? (this.eventSourceMax as number) : this.reserved;
    const headAge = this.headAge();
    const interval = this.now - this.lastTickAt;
    if (applied >= this.input.cap && headAge > this.input.targetAgeSeconds)
      this.saturatedSeconds += this.input.tickSeconds;
    this.timeline.push({
      time: this.now,
      arrivalsPerSecond: interval > 0 ? (this.sent - this.lastTickSent) / interval : 0,
      applied,
      headAgeSeconds: headAge,
      visible: this.visibleCount(),
      inFlight: this.inFlightMessages,
      reason: report.reason ?? '',
      saturated: report.saturated ?? false,
    });
    this.lastTickSent = this.sent;
    this.lastTickAt = this.now;
    this.events.push(this.now + this.input.tickSeconds, { kind: 'tick' });
  }
}
