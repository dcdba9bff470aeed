import type { ActuatorMode } from '../control/config.ts';
import { PROVISIONED_MIN_CONCURRENCY } from '../control/config.ts';
import type { ActuatorCondition } from '../control/ports.ts';
import {
  assertWritable,
  type ConsumerLimits,
  effectiveConcurrency,
  executionCeiling,
  outOfStep,
  overpulls,
  planWrites,
} from '../control/write-plan.ts';
import { LevelMeter } from './level-meter.ts';
import { INVOKES_PER_POLLER } from './pollers.ts';

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

/**
 * The consumer's two limits (reserved concurrency, the mapping's MaximumConcurrency) and how a controller's
 * writes move them. The writes come from the Lambda's own write plan (lib/control/write-plan.ts), applied in the
 * same order, so the simulator cannot drift from the deployed actuator: if two places planned writes, one would
 * be wrong. For the in-process pool, `reserved` is the pool's size.
 */
export class ActuatorModel {
  reserved: number | undefined;
  /** The mapping's MaximumConcurrency; undefined: unset (or no mapping). */
  mapping: number | undefined;
  /**
   * Provisioned mode's MinimumPollers as the controller keeps them, in invocations (10 a poller): SQS's least, 2
   * pollers, until a scheduled floor warms more. Undefined for every other consumer.
   */
  warm: number | undefined;
  /** Every change of the applied concurrency: [time, value], starting with the initial value at 0. */
  readonly changes: [number, number][] = [];
  /** Reserved concurrency held: an account has it; the in-process pool has none. */
  private readonly reservedMeter: LevelMeter | undefined;
  /**
   * Told after every write, at its instant: a group of consumers sharing a budget sums their limits then, so a
   * sum over the budget between two writes of one tick is seen, not only the sum once the tick is done.
   */
  onChange: ((now: number) => void) | undefined;

  constructor(
    private readonly consumer: ConsumerMode,
    private readonly lambda: boolean,
    floor: number,
    private readonly cap: number,
    private readonly controllerName: string,
  ) {
    switch (consumer.kind) {
      case 'controlled':
        // Event-source mode holds reserved at the cap and moves only the mapping's maximum.
        this.reserved = consumer.actuator === 'event-source' && lambda ? cap : floor;
        this.mapping = lambda && consumer.actuator !== 'reserved' ? floor : undefined;
        this.warm = lambda && consumer.actuator === 'provisioned' ? PROVISIONED_MIN_CONCURRENCY : undefined;
        this.changes.push([0, floor]);
        break;
      case 'native':
        this.reserved = undefined;
        this.mapping = consumer.maximumConcurrency;
        this.changes.push([0, consumer.maximumConcurrency]);
        break;
      case 'provisioned':
        this.reserved = undefined;
        this.mapping = undefined;
        this.changes.push([0, consumer.maximumPollers * INVOKES_PER_POLLER]);
        break;
    }
    if (lambda) this.reservedMeter = new LevelMeter(this.reserved ?? 0, false);
  }

  /** The concurrency limit in force, for the timeline: what the controller applied, or the mapping's bound. */
  applied(): number {
    const consumer = this.consumer;
    switch (consumer.kind) {
      case 'controlled':
        // Lockstep reserved trails a shrink by a tick: the mapping's maximum is what the pollers work under.
        return consumer.actuator !== 'reserved' && this.lambda
          ? (this.mapping as number)
          : (this.reserved as number);
      case 'native':
        return consumer.maximumConcurrency;
      case 'provisioned':
        return consumer.maximumPollers * INVOKES_PER_POLLER;
    }
  }

  /** What the controller's port reads as applied: undefined when no controller drives the consumer. */
  effective(): number | undefined {
    const consumer = this.consumer;
    if (consumer.kind !== 'controlled') return undefined;
    return effectiveConcurrency(this.actuatorMode(consumer.actuator), this.limits());
  }

  /** The most executions its limits let run (`executionCeiling`): what a shared budget counts it at. */
  ceiling(): number | undefined {
    const consumer = this.consumer;
    if (consumer.kind !== 'controlled') return undefined;
    return executionCeiling(this.actuatorMode(consumer.actuator), this.limits());
  }

  /** Lockstep leaves reserved a tick behind a shrink, as the Lambda's writes do: the next tick lowers it. */
  condition(): ActuatorCondition {
    const consumer = this.consumer;
    if (consumer.kind !== 'controlled') return {};
    const mode = this.actuatorMode(consumer.actuator);
    return {
      outOfStep: outOfStep(mode, this.limits()),
      overpull: overpulls(mode, this.limits()),
      ...(this.warm === undefined ? {} : { warm: this.warm }),
    };
  }

  /**
   * The Lambda's write plan, applied to the model in the same order, at `now`; in provisioned mode MinimumPollers
   * follow `warm` (the scheduled floors'), never above the maximum, as the Lambda's actuator writes them.
   */
  apply(desired: number, now: number, warm?: number): void {
    const consumer = this.consumer;
    if (consumer.kind !== 'controlled')
      throw new Error(`controller ${this.controllerName} wrote concurrency in ${consumer.kind} mode`);
    if (!Number.isInteger(desired) || desired < 1)
      throw new Error(`controller ${this.controllerName} applied ${desired}`);
    const mode = this.actuatorMode(consumer.actuator);
    const before = effectiveConcurrency(mode, this.limits());
    for (const write of planWrites(mode, this.limits(), desired, this.cap)) {
      assertWritable(write, this.cap, mode);
      if (write.target === 'reserved') this.reserved = write.value;
      else this.mapping = write.value;
    }
    if (this.warm !== undefined && this.mapping !== undefined)
      this.warm = Math.min(warm ?? this.warm, this.mapping);
    const after = effectiveConcurrency(mode, this.limits());
    this.reservedMeter?.set(now, this.reserved ?? 0);
    if (after !== undefined && after !== before) this.changes.push([now, after]);
    this.onChange?.(now);
  }

  /**
   * What this consumer counts for against a shared budget: its execution ceiling (lockstep: the larger of its two
   * limits, as the budget counts it), or the mapping's bound without a controller.
   */
  limitInForce(): number {
    return this.ceiling() ?? this.applied();
  }

  /** Reserved concurrency held over the run, in concurrency-seconds; null where there is no account. */
  reservedSeconds(end: number): number | null {
    return this.reservedMeter === undefined ? null : this.reservedMeter.summary(end).integral;
  }

  /** The consumer's two limits, as the Lambda's actuator reads them. */
  private limits(): ConsumerLimits {
    return { reserved: this.reserved, mapping: this.mapping };
  }

  /** In-process pools have no mapping: whatever the actuator, only the pool's size (reserved) is driven. */
  private actuatorMode(actuator: ActuatorMode): ActuatorMode {
    return this.mapping === undefined ? 'reserved' : actuator;
  }
}
