import type { TickPorts } from '../control/tick.ts';
import type { Phase } from '../load-file/load-file.ts';
import { ActuatorModel, type ConsumerMode } from './actuator-model.ts';
import { Arrivals, type PhaseTally } from './arrivals.ts';
import {
  ControllerClock,
  type SampleOutcome,
  type SimController,
  type TickReport,
} from './controller-clock.ts';
import { Downstream, type DownstreamModel, type DownstreamStats } from './downstream.ts';
import { EventQueue } from './event-queue.ts';
import { type Invocation, Invocations, type SharedLevel } from './invocations.ts';
import type { LevelMeter, LevelSegment, LevelSummary } from './level-meter.ts';
import { MessageQueue } from './message-queue.ts';
import { MetricPeriods } from './metric-periods.ts';
import { Random } from './random.ts';
import { ReceiveLoops } from './receive-loops.ts';
import { ARRIVAL, type SimEvent } from './sim-event.ts';
import { Timeline, type TimelineSample } from './timeline.ts';
import type { SimWorld } from './world.ts';

/**
 * A discrete-event model of SQS → event source mapping → Lambda (or the seed article's in-process pool), in virtual
 * time. The controller under test runs on its schedule and sees the system only through the ports a real
 * controller has: late CloudWatch series, real-time depth, and the concurrency it can read and set.
 *
 * This file wires the parts and runs the one event loop they share; each part is its own file: the load
 * (arrivals.ts), the queue (message-queue.ts), the receive loops (receive-loops.ts), Lambda's invocations
 * (invocations.ts), the downstream (downstream.ts), CloudWatch (metric-periods.ts), the consumer's limits
 * (actuator-model.ts), the controller's schedule and ports (controller-clock.ts) and the timeline (timeline.ts).
 */

export type { ConsumerMode } from './actuator-model.ts';
export type { PhaseTally } from './arrivals.ts';
export type { SimController, TickReport } from './controller-clock.ts';
export type { DownstreamStats } from './downstream.ts';
export type { TimelineSample } from './timeline.ts';

export interface SimulationInput {
  readonly phases: readonly Phase[];
  readonly world: SimWorld;
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
  /**
   * As one of a group's consumers (lib/sim/group-simulation.ts): the downstream the whole group calls (its pool
   * and rate limit shared), and the group's sum of concurrent executions to add to. Absent: its own downstream.
   */
  readonly shared?: {
    readonly downstream: Downstream<Invocation>;
    readonly executions: SharedLevel;
  };
  /**
   * A controller outside this simulation drives it (a group's shared budget, one controller for every queue, as
   * its Lambda will be): no tick or fast-path sample of its own; the group calls `controlPorts` and `recordTick`.
   * `controller` then only names it.
   */
  readonly externallyControlled?: boolean;
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
  /** Provisioned mode's event-poller-seconds (billed per EPU-hour); 0 in standard mode. */
  readonly billedPollerSeconds: number;
  /**
   * Of the controller's ticks that read CloudWatch, the share that read the three rates (the rest reused a quiet
   * queue's: lib/control/rate-reads.ts); 1 where none read.
   */
  readonly rateReadShare: number;
  /** The downstream's figures; absent with none, or when it is a group's (the group reports it once). */
  readonly downstream?: DownstreamStats;
}

/**
 * Something that happens every `everySeconds` of virtual time, first at `firstAt` (`everySeconds` unless given).
 * The controller's tick, the
 * CloudWatch age sample, the fast path's samples and the pollers' scaling today; another periodic sampler is one
 * more entry in `periodicTasks()`.
 */
interface PeriodicTask {
  readonly name: string;
  readonly everySeconds: number;
  readonly firstAt?: number;
  run(now: number): void | Promise<void>;
}

export class Simulation {
  private readonly world: SimWorld;
  /** One queue for every part's events: ties keep insertion order, so the run is deterministic. */
  private readonly events = new EventQueue<SimEvent>();
  private readonly arrivals: Arrivals;
  private readonly queue: MessageQueue;
  private readonly metrics: MetricPeriods;
  private readonly downstream: Downstream<Invocation>;
  private readonly actuator: ActuatorModel;
  private readonly loops: ReceiveLoops;
  private readonly invocations: Invocations;
  private readonly clock: ControllerClock;
  private readonly timeline: Timeline;
  /** The phase whose segment the meters are in. */
  private meteredPhase = 0;
  private tasks: PeriodicTask[] = [];
  private nextProgress = 0;

  constructor(private readonly input: SimulationInput) {
    const world = input.world;
    const lambda = world.kind === 'lambda';
    this.world = world;
    // One generator for the arrivals and the item times: their draws interleave in event order.
    const random = new Random(input.seed);
    this.arrivals = new Arrivals(input.phases, random);
    this.queue = new MessageQueue(world.maxReceiveCount, lambda);
    this.metrics = new MetricPeriods(world, input.downstream?.healthThreshold);
    this.downstream = input.shared?.downstream ?? new Downstream(input.downstream);
    this.actuator = new ActuatorModel(input.consumer, lambda, input.floor, input.cap, input.controller.name);
    this.loops = new ReceiveLoops(world, input.consumer, this.actuator, this.queue, this.events);
    this.invocations = new Invocations(world, {
      events: this.events,
      queue: this.queue,
      loops: this.loops,
      arrivals: this.arrivals,
      metrics: this.metrics,
      downstream: this.downstream,
      actuator: this.actuator,
      random,
      groupExecutions: input.shared?.executions,
    });
    this.clock = new ControllerClock(input.controller, input.tickSeconds, input.fastSampleSeconds, {
      metrics: this.metrics,
      queue: this.queue,
      actuator: this.actuator,
      loops: this.loops,
      instantAge: world.instantAge,
      batchSize: world.batchSize,
      functionTimeoutSeconds: world.kind === 'lambda' ? world.functionTimeoutSeconds : undefined,
      targetAgeSeconds: input.targetAgeSeconds,
    });
    this.timeline = new Timeline(input.cap, input.targetAgeSeconds, input.tickSeconds);
  }

  private periodicTasks(): PeriodicTask[] {
    const external = this.input.externallyControlled === true;
    const tasks: PeriodicTask[] = [];
    if (!external)
      tasks.push({
        name: 'controller tick',
        everySeconds: this.input.tickSeconds,
        firstAt: this.world.controllerStartSeconds,
        run: (now) => this.onTick(now),
      });
    tasks.push({
      name: 'age sample',
      everySeconds: this.world.ageSampleSeconds,
      run: (now) => this.metrics.recordAge(now, this.queue.headAge(now)),
    });
    // The control loop picks its own sample times (the Lambda's grid) among these instants.
    const fast = this.clock.sampleCarrierSeconds;
    if (fast !== undefined && !external)
      tasks.push({
        name: 'fast-path sample',
        everySeconds: fast,
        firstAt: this.world.controllerStartSeconds + fast,
        run: (now) => this.clock.fastSample(now),
      });
    if (this.loops.scales)
      tasks.push({
        name: 'poller scaling',
        // AWS gives the pollers' ramp as a rate per minute, applied in pollerScaleSeconds steps (10 s by default).
        everySeconds: this.world.pollerScaleSeconds,
        run: (now) => this.loops.scale(now),
      });
    return tasks;
  }

  /** The whole run: start, every event in time order, finish. */
  async run(): Promise<SimulationResult> {
    this.start();
    while (this.nextTime() !== undefined) {
      const pending = this.step();
      if (pending !== undefined) await pending;
    }
    return this.finish();
  }

  /**
   * Before the first event: the loops sized, the first arrival and every periodic task scheduled. `run` and a
   * group (which steps several simulations in one virtual-time loop) both start so.
   */
  start(): void {
    this.loops.resize(0);
    this.scheduleArrival(0);
    this.tasks = this.periodicTasks();
    this.tasks.forEach((task, i) => {
      this.events.push(task.firstAt ?? task.everySeconds, { kind: 'periodic', task: i });
    });
  }

  /** The time of the next event, or undefined when the run is over (nothing left, or past the load's end). */
  nextTime(): number | undefined {
    const time = this.events.peekTime();
    return time === undefined || time > this.arrivals.end ? undefined : time;
  }

  /**
   * Handles the next event (call only when `nextTime` gave one). A promise only for a periodic task (the
   * controller's ports are async): every other event is handled before it returns, with no await on the
   * message path.
   */
  step(): Promise<void> | undefined {
    const events = this.events;
    const time = events.peekTime() as number;
    const event = events.peekItem() as SimEvent;
    events.removeTop();
    const ends = this.arrivals.ends;
    const last = ends.length - 1;
    while (this.meteredPhase < last && time >= (ends[this.meteredPhase] as number)) this.cutPhase();
    if (this.input.onProgress && time >= this.nextProgress) {
      const end = this.arrivals.end;
      this.input.onProgress(time / end);
      this.nextProgress += end / 50;
    }
    switch (event.kind) {
      case 'arrival':
        this.onArrival(time);
        return undefined;
      case 'receive':
        this.invocations.onReceive(time);
        return undefined;
      case 'slot-free':
        this.loops.freeSlot(time);
        return undefined;
      case 'complete':
        this.invocations.onComplete(event.invocation, time);
        return undefined;
      case 'timeout':
        this.invocations.onTimeout(event.invocation, time);
        return undefined;
      case 'item-done':
        this.invocations.onItemDone(event.invocation, time);
        return undefined;
      case 'return':
        this.queue.makeVisible(event.batch);
        this.loops.dispatch(time);
        return undefined;
      case 'periodic':
        return this.runPeriodic(event, time);
    }
  }

  /** A periodic task, then its next run: scheduled after what the task itself scheduled (ties keep that order). */
  private async runPeriodic(event: SimEvent & { kind: 'periodic' }, time: number): Promise<void> {
    const task = this.tasks[event.task] as PeriodicTask;
    await task.run(time);
    this.events.push(time + task.everySeconds, event);
  }

  /** After the last event: the meters closed at the load's end, and the run's figures. */
  finish(): SimulationResult {
    const end = this.arrivals.end;
    const last = this.arrivals.ends.length - 1;
    while (this.meteredPhase < last) this.cutPhase();
    const invocations = this.invocations;
    invocations.executions.cut(end);
    invocations.environments?.expire(end);
    return {
      phases: this.input.phases,
      tally: this.arrivals.tally,
      timeline: this.timeline.samples,
      concurrencyChanges: this.actuator.changes,
      simulatedSeconds: end,
      sent: this.arrivals.sent,
      completed: invocations.completed,
      queued: this.queue.visibleCount(),
      inFlight: this.queue.inFlight,
      deadLettered: this.queue.deadLettered,
      throttledInvocations: invocations.throttled,
      timedOutInvocations: invocations.timedOut,
      failedItems: invocations.failedItems,
      saturatedSeconds: this.timeline.saturatedSeconds,
      executions: invocations.executions.summary(end),
      phaseExecutions: invocations.executions.closedSegments(),
      warmEnvironments: (invocations.environments?.warm ?? (this.loops.workers as LevelMeter)).summary(end),
      reservedSeconds: this.actuator.reservedSeconds(end),
      billedPollerSeconds: this.loops.billedPollerSeconds(end),
      rateReadShare: this.clock.rateReads.share(),
      downstream: this.input.shared === undefined ? this.downstream.stats() : undefined,
    };
  }

  // ---- driven from outside (a group's shared budget) ---------------------------------------------------------

  /** The consumer's limits, for a group to sum: what it counts for against a shared budget. */
  get limits(): ActuatorModel {
    return this.actuator;
  }

  /** The ports an outside controller ticks or samples through at `now` (its writes land then). */
  controlPorts(now: number): TickPorts {
    return this.clock.portsAt(now);
  }

  /** An outside controller's fast path wrote at `now`: the carried state learns of it, as its own sample's does. */
  fastPathSampled(now: number, outcome: SampleOutcome): void {
    this.clock.fastPathSampled(now, outcome);
  }

  /** An outside controller's tick at `now` is done: the timeline's row, as this simulation's own tick records it. */
  recordTick(now: number, report: TickReport): void {
    this.record(now, report);
  }

  private cutPhase(): void {
    this.invocations.executions.cut(this.arrivals.ends[this.meteredPhase] as number);
    this.meteredPhase++;
  }

  private scheduleArrival(from: number): void {
    const at = this.arrivals.nextAfter(from);
    if (at !== undefined) this.events.push(at, ARRIVAL);
  }

  private onArrival(now: number): void {
    this.arrivals.arrive(now);
    this.metrics.at(now).sent++;
    this.queue.send(now);
    this.loops.dispatch(now);
    this.scheduleArrival(now);
  }

  private async onTick(now: number): Promise<void> {
    this.record(now, await this.clock.tick(now));
  }

  private record(now: number, report: TickReport): void {
    const applied = this.actuator.applied();
    const headAgeSeconds = this.queue.headAge(now);
    this.invocations.environments?.expire(now);
    this.timeline.record(now, report, {
      applied,
      executions: this.invocations.current,
      warm: this.invocations.environments?.warm.current ?? this.loops.count,
      headAgeSeconds,
      visible: this.queue.visibleCount(),
      inFlight: this.queue.inFlight,
      sent: this.arrivals.sent,
    });
  }
}
