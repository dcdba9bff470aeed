import type { ActuatorModel } from './actuator-model.ts';
import type { SharedLevel } from './invocations.ts';
import { LevelMeter } from './level-meter.ts';

/**
 * What a group of consumers on one downstream adds up to, at every instant: the sum of their concurrency limits
 * (what a shared budget bounds) and the sum of their concurrent executions (what the downstream feels). Apart
 * from each consumer's own meters because a budget is kept or broken by the sum: two consumers each within their
 * share can still be over it together for the instant between one's raise and the other's lowering.
 */

/** Σ concurrent executions: each consumer reports its changes as they happen (+1 as one starts, −1 as one ends). */
export class ExecutionSum implements SharedLevel {
  private level = 0;
  readonly meter = new LevelMeter(0, false);

  change(now: number, delta: number): void {
    this.level += delta;
    this.meter.set(now, this.level);
  }
}

/**
 * Σ limits in force (`ActuatorModel.limitInForce`: what a controller reads as applied, or the mapping's own bound
 * with none), summed again after every write of any member, at that write's instant. A tick's writes land one by
 * one, so the sum is seen between them too: a raise written before the lowering that pays for it shows.
 */
export class LimitSum {
  readonly meter: LevelMeter;

  constructor(private readonly actuators: readonly ActuatorModel[]) {
    this.meter = new LevelMeter(this.sum(), false);
    for (const actuator of actuators) actuator.onChange = (now) => this.meter.set(now, this.sum());
  }

  private sum(): number {
    let total = 0;
    for (const actuator of this.actuators) total += actuator.limitInForce();
    return total;
  }
}
