import type { ScalerConfig } from './config.ts';
import { batchOf, DEPTH_NOISE_MESSAGES, type DepthSample, lagSinceGrowth } from './depth-trend.ts';
import { INVOKES_PER_POLLER, PROVISIONED_RAMP_PER_MINUTE } from './poller-grid.ts';

/**
 * Slow start ahead of provisioned mode's pollers: how far a sample that finds them behind may still double.
 *
 * Slow start doubles per sample while the depth rises with every allowed worker busy, and waits while the executions
 * lag the applied value (`lagSinceGrowth`): on the standard mapping its pollers add "up to 300 a minute", more than a
 * cap of tens, so a limit raised ahead of them becomes executions at once, on a guess, and winds up to the cap.
 * Provisioned mode's pollers add up to 1,000 concurrent invocations a minute (docs/aws-facts.md, "Provisioned mode")
 * and, without the law, do so whenever messages wait: waiting there means a doubling per poller step, once a minute
 * under the one-step reading, where the 10 s reading's pollers follow every sample's doubling. So on provisioned
 * mode, with no per-item time to size on (slow start's domain), a sample that finds the depth still rising and the
 * executions behind a recent growth doubles on, up to what the pollers reach by their next step (those running plus
 * 1,000): never past what provisioned mode alone would run, and under either reading the limit the pollers step to
 * is the one the 10 s reading's doubling would have reached.
 * The price, under the one-step reading: a small need is overshot until the step (a need of 30 can see 640 for the
 * seconds the backlog takes to drain), as provisioned mode alone overshoots it (1,020). And the lag cannot say why
 * fewer run than allowed: where it is the consumer's own (a FIFO queue's few message groups), the limit still
 * doubles to the reach, as each growth restarts the lag's two minutes; it is bounded by that reach (no more
 * executions than the consumer can run) and lasts only while no per-item time is known (CloudWatch's first
 * Duration datapoints, a few minutes in).
 * Worked example (the diurnal day × 100 from cold, 5,000/s of 20 ms items, pollers stepping once a minute): 20 → 40
 * at 10 s; 18 still run; 80, 160, 320, 640 by 50 s; at 60 s the pollers step to 640 and the 246,000 waiting drain in
 * 10 s, where waiting for each step took until 300 s to reach 650 (p99 1.76 → 0.85 × the target).
 */
export function slowStartAheadOfPollers(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  lastChangeAt: number | undefined,
  batchSize: number | undefined,
  config: ScalerConfig,
): number | undefined {
  if (config.actuator !== 'provisioned' || previous === undefined || !(sample.at > previous.at))
    return undefined;
  if (!(sample.messages - previous.messages > DEPTH_NOISE_MESSAGES)) return undefined;
  if (!lagSinceGrowth(sample, applied, lastChangeAt, batchSize)) return undefined;
  // The executions running at least: the messages in flight in whole batches (each holds at most one).
  const running = Math.ceil((sample.inFlight ?? 0) / batchOf(batchSize));
  const reach = running + PROVISIONED_RAMP_PER_MINUTE;
  // In whole pollers, rounded down: a reach a few invocations past the applied value is no step to take (rounded up,
  // each sample would add a poller and restart the lag's two minutes).
  const target = Math.floor(Math.min(2 * applied, reach) / INVOKES_PER_POLLER) * INVOKES_PER_POLLER;
  return target > applied ? target : undefined;
}
