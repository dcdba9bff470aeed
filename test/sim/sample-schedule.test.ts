import { describe, expect, it } from 'vitest';
import { resolveScalerConfig } from '../../lib/control/config.ts';
import { sampleTimes } from '../../lib/control/sample-grid.ts';
import type { TickPorts } from '../../lib/control/tick.ts';
import { sharedBudgetController } from '../../lib/sim/budget-controller.ts';
import { sampleCarrierSeconds } from '../../lib/sim/controller-clock.ts';
import { ageLawController } from '../../lib/sim/controllers.ts';
import { LAMBDA_WORLD } from '../../lib/sim/world.ts';

/**
 * The simulator samples on the Lambda's grid (the one behaviour the control loop changed): the times its
 * controllers read the queue between two ticks are `sampleTimes` of the tick's slot, the grid the Lambda's fast
 * loop takes (pinned in test/control/sample-grid.test.ts). Before the control loop the simulator sampled every
 * interval up to the next tick on one grid from the start: at 5 s also at +55, at 7 s at 7, 14, … across ticks.
 */
const TICK = 60;
const T = 600; // a tick of the simulated run, on its schedule

/** Ports over an idle queue at 2 applied that record when the queue is read. */
function recordingPorts(reads: number[], clock: { now: number }): TickPorts {
  let applied = 2;
  return {
    metrics: {
      read: async () => ({
        ageOfOldestMessage: [],
        messagesSent: [],
        messagesDeleted: [],
        consumerDurationMs: [],
      }),
    },
    queue: {
      depth: async () => {
        reads.push(clock.now);
        return { visible: 0, inFlight: 0, delayed: 0 };
      },
    },
    concurrency: {
      applied: async () => applied,
      apply: async (desired) => {
        applied = desired;
      },
    },
    state: { load: async () => ({}), save: async () => {} },
  };
}

/** Every instant the simulator's clock asks for a sample in the tick's slot (the carrier), until the next tick. */
function carrierTimes(interval: number): number[] {
  const step = sampleCarrierSeconds(interval, TICK) as number;
  const times: number[] = [];
  for (let at = T + step; at < T + TICK; at += step) times.push(at);
  return times;
}

describe("the simulator's fast-path schedule is the Lambda's", () => {
  it.each([
    { comment: 'the default 10 s: +10 … +50, as before', interval: 10 },
    { comment: '5 s: stops at +50 now (no +55, within 10 s of the next tick)', interval: 5 },
    { comment: '7 s: restarts at each tick (+7 … +49), not one grid across ticks', interval: 7 },
  ])('a lone scaler: $comment', async ({ interval }) => {
    const config = resolveScalerConfig({ maxConcurrency: 16, fastSampleSeconds: interval });
    const controller = ageLawController(config, LAMBDA_WORLD);
    const reads: number[] = [];
    const clock = { now: T };
    const ports = recordingPorts(reads, clock);
    await controller.tick(ports, T);
    reads.length = 0;
    for (const at of carrierTimes(interval)) {
      clock.now = at;
      await controller.fastSample?.(ports, at);
    }
    expect(reads).toEqual(sampleTimes({ started: T, scheduledAt: T }, config));
  });

  it.each([
    { comment: '10 s', interval: 10 },
    { comment: '5 s', interval: 5 },
    { comment: '7 s', interval: 7 },
  ])("a shared budget's loop, every member on the same grid: $comment", async ({ interval }) => {
    const config = resolveScalerConfig({ maxConcurrency: 16, fastSampleSeconds: interval });
    const members = [
      { name: 'a', config },
      { name: 'b', config },
    ];
    const controller = sharedBudgetController(20, members, LAMBDA_WORLD);
    const reads = { a: [] as number[], b: [] as number[] };
    const clock = { now: T };
    const controlled = [
      { name: 'a', ports: recordingPorts(reads.a, clock) },
      { name: 'b', ports: recordingPorts(reads.b, clock) },
    ];
    await controller.tick(controlled, T);
    reads.a.length = 0;
    reads.b.length = 0;
    for (const at of carrierTimes(interval)) {
      clock.now = at;
      await controller.fastSample?.(controlled, at);
    }
    const grid = sampleTimes({ started: T, scheduledAt: T }, config);
    expect(reads.a).toEqual(grid);
    expect(reads.b).toEqual(grid);
  });
});
