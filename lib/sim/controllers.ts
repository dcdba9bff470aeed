import type { ScalerConfig } from '../control/config.ts';
import {
  continuedLoop,
  type LoopSample,
  type LoopState,
  sampleDue,
  sampleLoop,
  startLoop,
} from '../control/control-loop.ts';
import { fastPathContext } from '../control/fast-path.ts';
import { observe } from '../control/observe.ts';
import { runTick, type TickPorts, tickOptions } from '../control/tick.ts';
import type { SampleOutcome } from './controller-clock.ts';
import type { SimController, TickReport } from './simulation.ts';
import type { SimWorld } from './world.ts';

/**
 * The controllers the simulator can run. `ageLaw` is the product: the shared `runTick` → `decide`, exactly as
 * the Lambda runs it. The rest are baselines for the bench, each reading the same ports.
 */

/** The metric period and window a tick reads with: the modelled CloudWatch's, by the Lambda's rule. */
export function simTickOptions(config: ScalerConfig, world: SimWorld) {
  return tickOptions(config, world.metricPeriodSeconds, world.metricWindowSeconds);
}

/** The lone scaler's name in its control loop (a loop of one member, no budget). */
const LONE = 'scaler';

export function ageLawController(config: ScalerConfig, world: SimWorld): SimController {
  // The control loop lives from one tick to the next, as in the Lambda's invocation: its samples fall on the
  // tick's slot grid (sampleGrid), and it ends when the member leaves (paused, headroom). The next tick's loop goes on
  // from it (continuedLoop), as the Lambda's warm container's does.
  let loop: LoopState | undefined;
  return {
    name: 'age law (this project)',
    async tick(ports, now) {
      const { decision, snapshot, applied, changed } = await runTick(
        ports,
        config,
        now,
        simTickOptions(config, world),
      );
      const after = changed ? decision.desired : applied;
      const context = fastPathContext(snapshot, decision, after, config);
      // The simulator's event is delivered on time: the slot starts at the tick.
      const started = startLoop([{ name: LONE, config, context }], { started: now, scheduledAt: now });
      loop = continuedLoop(started, loop);
      return { reason: decision.reason, saturated: decision.saturated, shed: decision.shed };
    },
    async fastSample(ports, now) {
      if (loop === undefined || !sampleDue(loop, now)) return { changed: false };
      const step = await sampleLoop(loop, new Map([[LONE, { ...ports, config }]]), now);
      loop = step.state;
      return sampleOutcome(step.results.get(LONE));
    },
  };
}

async function setIfDifferent(ports: TickPorts, desired: number): Promise<void> {
  const applied = await ports.concurrency.applied();
  if (applied !== desired) await ports.concurrency.apply(desired, applied ?? desired);
}

/** A fixed pool: the floor (cheap, slow under load) or the cap (fast, always paying for the peak). */
export function fixedController(name: string, concurrency: number): SimController {
  return {
    name,
    async tick(ports) {
      await setIfDifferent(ports, concurrency);
      return { reason: 'fixed' };
    },
  };
}

/**
 * The seed article's literal rule: age above target → add min(4, room); queue empty for 20 ticks → remove one.
 * It sees the same (late) age datapoint as the age law; "queue empty" is the real-time visible depth.
 */
export function seedStepController(config: ScalerConfig, world: SimWorld): SimController {
  let idleTicks = 0;
  return {
    name: "seed's literal step rule",
    async tick(ports, now): Promise<TickReport> {
      const [series, depth, current] = await Promise.all([
        ports.metrics.read(now, world.metricPeriodSeconds, world.metricWindowSeconds),
        ports.queue.depth(),
        ports.concurrency.applied(),
      ]);
      const applied = current ?? config.minConcurrency;
      const snapshot = observe({
        now,
        periodSeconds: world.metricPeriodSeconds,
        series,
        depth,
        appliedConcurrency: applied,
      });
      const age = snapshot.oldestAge?.seconds;
      let desired = applied;
      if (age !== undefined && age > config.targetAgeSeconds && applied < config.maxConcurrency) {
        desired = applied + Math.min(4, config.maxConcurrency - applied);
        idleTicks = 0;
      } else if (depth.visible === 0 && applied > config.minConcurrency) {
        idleTicks++;
        if (idleTicks >= 20) {
          desired = applied - 1;
          idleTicks = 0;
        }
      }
      if (desired !== applied) await ports.concurrency.apply(desired, applied);
      return { reason: desired > applied ? 'grow' : desired < applied ? 'shrink' : 'hold' };
    },
  };
}

/**
 * A depth-per-worker rule like KEDA's SQS scaler (queueLength 5, in-flight counted) under the HPA's scale-down
 * stabilisation (the highest recommendation over the window; the HPA default is 300 s, here the preset's
 * scale-down delay so both rules wait alike).
 */
export function depthController(config: ScalerConfig, queueLength = 5): SimController {
  const recommendations: { at: number; value: number }[] = [];
  return {
    name: `depth rule (KEDA queueLength ${queueLength})`,
    async tick(ports, now) {
      const [depth, current] = await Promise.all([ports.queue.depth(), ports.concurrency.applied()]);
      const raw = Math.ceil((depth.visible + depth.inFlight) / queueLength);
      const bounded = Math.min(config.maxConcurrency, Math.max(config.minConcurrency, raw));
      recommendations.push({ at: now, value: bounded });
      while (
        recommendations.length > 0 &&
        (recommendations[0]?.at ?? now) < now - config.scaleDownDelaySeconds
      )
        recommendations.shift();
      const desired = Math.max(...recommendations.map((r) => r.value));
      if (desired !== current) await ports.concurrency.apply(desired, current ?? desired);
      return { reason: 'depth' };
    },
  };
}

/**
 * No controller at all: the baselines `native` and `provisioned`, where the event source mapping's own scaling
 * (bounded by its MaximumConcurrency, or by provisioned mode's MaximumPollers) is the whole story.
 */
export function noController(name: string): SimController {
  return {
    name,
    async tick() {
      return { reason: 'none' };
    },
  };
}

/** What a member's sample tells the next tick (`SampleOutcome`): its growth, and its last quiet sample. */
export function sampleOutcome(result: LoopSample | undefined): SampleOutcome {
  if (result?.ok !== true) return { changed: false };
  const quiet = result.sample.context.quiet;
  return { changed: result.grew, ...(quiet === undefined ? {} : { quiet }) };
}
