import { PROVISIONED_MIN_POLLERS } from '../control/config.ts';
import type { ActuatorModel, ConsumerMode } from './actuator-model.ts';
import type { EventQueue } from './event-queue.ts';
import { LevelMeter } from './level-meter.ts';
import type { MessageQueue } from './message-queue.ts';
import { type PollerScaling, ProvisionedPollers, StandardPollers } from './pollers.ts';
import { RECEIVE, type SimEvent } from './sim-event.ts';
import type { SimWorld } from './world.ts';

/**
 * The concurrent receive-and-invoke loops: the event source mapping's pollers, scaled by AWS's ramp and bounded by
 * its MaximumConcurrency, or the in-process pool's workers, as many as its size. Apart from the invocations because
 * the loops decide how fast messages leave the queue, and that bound is not reserved concurrency: pollers above it
 * still receive, and Lambda throttles what they invoke.
 */
export class ReceiveLoops {
  private readonly pollers: PollerScaling | undefined;
  /** The pool's workers (its "warm environments"). */
  readonly workers: LevelMeter | undefined;
  private slots = 0;
  private idleSlots = 0;
  private pendingReceives = 0;
  private backlogSeenThisInterval = false;
  private peakBusySlotsThisInterval = 0;

  constructor(
    private readonly world: SimWorld,
    consumer: ConsumerMode,
    private readonly actuator: ActuatorModel,
    private readonly queue: MessageQueue,
    private readonly events: EventQueue<SimEvent>,
  ) {
    if (world.kind === 'lambda') {
      this.pollers =
        consumer.kind === 'provisioned'
          ? new ProvisionedPollers(consumer.minimumPollers, consumer.maximumPollers, world.pollerScaleSeconds)
          : consumer.kind === 'controlled' && consumer.actuator === 'provisioned'
            ? // The law drives MaximumPollers (the actuator's mapping bound, 10 a poller); MinimumPollers stays at
              // SQS's least.
              new ProvisionedPollers(
                PROVISIONED_MIN_POLLERS,
                Number.POSITIVE_INFINITY,
                world.pollerScaleSeconds,
              )
            : new StandardPollers(
                world.initialPollers,
                world.pollerStepPerMinute,
                world.maxPollers,
                world.pollerScaleSeconds,
              );
    } else {
      this.workers = new LevelMeter(0);
    }
  }

  /** Provisioned mode's MinimumPollers as the controller wrote them (its scheduled floors' warm pollers). */
  warm(pollers: number): void {
    this.pollers?.setMinimum?.(pollers);
  }

  /** Whether the loops scale on their own (the mapping's pollers), every `pollerScaleSeconds`. */
  get scales(): boolean {
    return this.pollers !== undefined;
  }

  /** The loops running now, idle or busy. */
  get count(): number {
    return this.slots;
  }

  /** Concurrent loops allowed: the mapping's pollers (bounded by its maximum), or the pool's size. */
  private allowedSlots(): number {
    if (this.pollers === undefined) return this.actuator.reserved as number;
    return Math.min(this.pollers.capacity, this.actuator.mapping ?? Number.POSITIVE_INFINITY);
  }

  private setSlots(slots: number, now: number): void {
    this.slots = slots;
    this.workers?.set(now, slots);
  }

  /** Matches the loops to what is allowed now (after a write to the limits, or the pollers' scaling). */
  resize(now: number): void {
    const allowed = this.allowedSlots();
    if (allowed > this.slots) {
      this.idleSlots += allowed - this.slots;
      this.setSlots(allowed, now);
      this.dispatch(now);
    } else if (allowed < this.slots) {
      // Idle loops stop now; busy ones finish their batch first (lowering concurrency interrupts nothing).
      const retire = Math.min(this.idleSlots, this.slots - allowed);
      this.idleSlots -= retire;
      this.setSlots(this.slots - retire, now);
    }
  }

  /** Idle loops start receives while visible messages outnumber what the receives under way will take. */
  dispatch(now: number): void {
    while (this.idleSlots > 0 && this.queue.visibleCount() > this.pendingReceives * this.world.batchSize) {
      this.idleSlots--;
      this.pendingReceives++;
      this.events.push(now + this.world.receiveLatencySeconds, RECEIVE);
    }
    if (this.idleSlots === 0 && this.queue.visibleCount() > 0) this.backlogSeenThisInterval = true;
    const busy = this.slots - this.idleSlots;
    if (busy > this.peakBusySlotsThisInterval) this.peakBusySlotsThisInterval = busy;
  }

  /** A receive a loop started has returned (its batch handed on, or empty). */
  received(): void {
    this.pendingReceives--;
  }

  /** A loop is done with its batch: it stops if the loops are above what is allowed, or takes more. */
  freeSlot(now: number): void {
    if (this.slots > this.allowedSlots()) {
      this.setSlots(this.slots - 1, now);
      return;
    }
    this.idleSlots++;
    this.dispatch(now);
  }

  private billedPollerSecondsSoFar = 0;
  private billedUntil = 0;

  private billPollersUntil(now: number): void {
    this.billedPollerSecondsSoFar += (this.pollers?.billedPollers ?? 0) * (now - this.billedUntil);
    this.billedUntil = now;
  }

  /** Provisioned mode's event-poller-seconds up to `end` (0 in standard mode and for the pool). */
  billedPollerSeconds(end: number): number {
    this.billPollersUntil(end);
    return this.billedPollerSecondsSoFar;
  }

  /** Every pollerScaleSeconds (10 s by default) the mapping's pollers scale (standard or provisioned mode). */
  scale(now: number): void {
    const pollers = this.pollers as PollerScaling;
    this.billPollersUntil(now);
    pollers.scale(
      this.backlogSeenThisInterval,
      this.peakBusySlotsThisInterval,
      this.actuator.mapping ?? Number.POSITIVE_INFINITY,
    );
    this.peakBusySlotsThisInterval = this.slots - this.idleSlots;
    this.backlogSeenThisInterval = false;
    this.resize(now);
  }
}
