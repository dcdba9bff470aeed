import { describe, expect, it } from 'vitest';
import type { Phase } from '../../lib/load-file/load-file.ts';
import { ActuatorModel, type ConsumerMode } from '../../lib/sim/actuator-model.ts';
import { ageLawController, noController } from '../../lib/sim/controllers.ts';
import type { DownstreamModel } from '../../lib/sim/downstream.ts';
import { LimitSum } from '../../lib/sim/group-meters.ts';
import { alignedPhases, GroupSimulation, memberSeed } from '../../lib/sim/group-simulation.ts';
import { configFor } from '../../lib/sim/run.ts';
import { Simulation } from '../../lib/sim/simulation.ts';
import { LAMBDA_WORLD } from '../../lib/sim/world.ts';

const lambda = configFor('lambda');
const native = (maximumConcurrency: number): ConsumerMode => ({ kind: 'native', maximumConcurrency });

function member(name: string, phases: Phase[], consumer: ConsumerMode, cap = 32) {
  return {
    name,
    phases,
    controller: noController(name),
    consumer,
    floor: 2,
    cap,
    targetAgeSeconds: 60,
  };
}

describe('a group of queues on one downstream', () => {
  it('shares one pool: together they never hold more connections than it has, and wait when they want more', async () => {
    // GIVEN two queues, each native at MaximumConcurrency 6 with 60/s of 100 ms items (6 busy each), on a pool of 8
    const phases: Phase[] = [{ durationSeconds: 600, ratePerSecond: 60, itemMs: 100 }];
    const pool: DownstreamModel = { connectionPool: 8 };
    const group = await new GroupSimulation({
      members: [member('a', phases, native(6), 6), member('b', phases, native(6), 6)],
      world: LAMBDA_WORLD,
      tickSeconds: 60,
      downstream: pool,
      seed: 1,
    }).run();
    // THEN the pool lends at most 8 connections across both, while up to 12 invocations run and the rest wait
    expect(group.downstream?.peakConnectionsInUse).toBe(8);
    expect(group.connectionWaits).toBeGreaterThan(0);
    expect(group.downstream?.peakWaitingForConnection).toBeGreaterThan(0);
    expect(group.executionSum.peak).toBeGreaterThan(8);
    expect(group.executionSum.peak).toBeLessThanOrEqual(12);
    // AND the pool is the bottleneck for both: 8 connections serve about 8 ÷ 0.1 s = 80 items a second together
    const completed = group.members.reduce((sum, r) => sum + r.completed, 0);
    expect(completed / 600).toBeGreaterThan(0.9 * 80);
    expect(completed / 600).toBeLessThan(80);
    expect(Math.min(...group.members.map((r) => r.completed))).toBeGreaterThan(0.4 * completed);
    // AND a connection handed to the other member's waiter runs that member's item: every message accounted for
    for (const result of group.members) {
      expect(result.sent - result.completed - result.queued - result.inFlight - result.deadLettered).toBe(0);
      expect(result.inFlight).toBeGreaterThanOrEqual(0);
      // (each member's invocations end in its own consumer: none runs more than its MaximumConcurrency of 6)
      expect(result.executions.peak).toBeLessThanOrEqual(6);
      expect(result.executions.peak).toBeGreaterThan(4);
      // (the downstream is the group's: members do not report it)
      expect(result.downstream).toBeUndefined();
    }

    // WHEN each runs alone on its own pool of 8, it can never want more than its 6: no item waits
    const alone = await new Simulation({
      phases,
      world: LAMBDA_WORLD,
      controller: noController('alone'),
      tickSeconds: 60,
      floor: 2,
      cap: 6,
      targetAgeSeconds: 60,
      consumer: native(6),
      downstream: pool,
      seed: 1,
    }).run();
    expect(alone.downstream?.peakConnectionsInUse).toBeLessThanOrEqual(6);
    expect(alone.downstream?.peakWaitingForConnection).toBe(0);
  });

  it("hands a freed connection to another member's waiter, whose item runs and ends in its own consumer", async () => {
    // GIVEN a pool of 1 shared by a slow member (2/s of 400 ms items) and a fast one (20/s of 10 ms items) for
    // 30 s, then two idle minutes in which everything drains
    const member = (name: string, ratePerSecond: number, itemMs: number) => ({
      name,
      phases: [
        { durationSeconds: 30, ratePerSecond, itemMs },
        { durationSeconds: 120, ratePerSecond: 0, itemMs },
      ],
      controller: noController(name),
      consumer: native(5),
      floor: 2,
      cap: 5,
      targetAgeSeconds: 60,
    });
    for (const seed of [1, 2, 3]) {
      const group = await new GroupSimulation({
        members: [member('slow', 2, 400), member('fast', 20, 10)],
        world: LAMBDA_WORLD,
        tickSeconds: 60,
        downstream: { connectionPool: 1 },
        seed,
      }).run();
      // THEN items waited for the one connection, and both members' waiters got it from the other's releases
      expect(group.connectionWaits).toBeGreaterThan(100);
      // AND each member completed exactly its own messages, and its invocations all ended in it: none running at
      // the end, none in flight (a waiter served by the releasing member's consumer would end there: one member
      // would finish more than it sent, and count -1 invocations running)
      for (const result of group.members) {
        expect(result.completed).toBe(result.sent);
        expect(result.inFlight).toBe(0);
        expect(result.timeline.at(-1)?.executions).toBe(0);
        expect(result.executions.integral).toBeGreaterThan(0);
      }
    }
  });

  it.each([
    { what: 'native on a pool', consumer: native(20), downstream: { connectionPool: 10 }, age: false },
    { what: 'the age law on a pool', consumer: undefined, downstream: { connectionPool: 10 }, age: true },
    { what: 'the age law on an API', consumer: undefined, downstream: { apiRatePerSecond: 150 }, age: true },
  ])(
    'of one member is exactly the single simulation it replaces: $what',
    async ({ consumer, downstream, age }) => {
      const phases: Phase[] = [
        { durationSeconds: 300, ratePerSecond: 40, itemMs: 60 },
        { durationSeconds: 300, ratePerSecond: 220, itemMs: 60 },
        { durationSeconds: 300, ratePerSecond: 40, itemMs: 60 },
      ];
      const mode: ConsumerMode = consumer ?? { kind: 'controlled', actuator: lambda.actuator };
      const controller = () => (age ? ageLawController(lambda, LAMBDA_WORLD) : noController('native'));
      const input = {
        phases,
        world: LAMBDA_WORLD,
        tickSeconds: lambda.tickSeconds,
        fastSampleSeconds: lambda.fastSampleSeconds,
        floor: lambda.minConcurrency,
        cap: lambda.maxConcurrency,
        targetAgeSeconds: lambda.targetAgeSeconds,
        consumer: mode,
        seed: 7,
      };
      const single = await new Simulation({ ...input, controller: controller(), downstream }).run();
      const group = await new GroupSimulation({
        members: [{ name: 'only', ...input, controller: controller() }],
        world: LAMBDA_WORLD,
        tickSeconds: input.tickSeconds,
        fastSampleSeconds: input.fastSampleSeconds,
        downstream,
        seed: 7,
      }).run();
      const { downstream: stats, ...rest } = single;
      expect(group.members[0]).toEqual({ ...rest, downstream: undefined });
      expect(group.downstream).toEqual(stats);
      expect(group.executionSum.peak).toBe(single.executions.peak);
      expect(group.executionSum.integral).toBeCloseTo(single.executions.integral, 6);
      expect(single.timeline.length).toBeGreaterThan(10);
    },
  );

  it("pads a shorter member's load with an idle phase, and gives each member its own seed", () => {
    const [a, b] = alignedPhases([
      { phases: [{ durationSeconds: 600, ratePerSecond: 10, itemMs: 20 }] },
      { phases: [{ durationSeconds: 200, ratePerSecond: 10, itemMs: 30 }] },
    ]);
    expect(a).toEqual([{ durationSeconds: 600, ratePerSecond: 10, itemMs: 20 }]);
    expect(b).toEqual([
      { durationSeconds: 200, ratePerSecond: 10, itemMs: 30 },
      { durationSeconds: 400, ratePerSecond: 0, itemMs: 30 },
    ]);
    expect(memberSeed(5, 0)).toBe(5);
    const seeds = new Set(Array.from({ length: 20 }, (_, i) => memberSeed(5, i)));
    expect(seeds.size).toBe(20);
  });
});

describe('the sum of the limits', () => {
  it('is summed after every write, so a raise before the lowering that pays for it shows', () => {
    // GIVEN two controlled consumers at 10 each, a budget of 20 in mind
    const controlled: ConsumerMode = { kind: 'controlled', actuator: 'lockstep' };
    const a = new ActuatorModel(controlled, true, 10, 20, 'a');
    const b = new ActuatorModel(controlled, true, 10, 20, 'b');
    const sum = new LimitSum([a, b]);
    // WHEN a is raised to 15 before b is lowered to 5, in the same instant
    a.apply(15, 60);
    b.apply(5, 60);
    // THEN the sum was 25 between the two writes; after both it is still 25 as a budget counts them: b's mapping
    // came down to 5 but its reserved concurrency trails at 10 (the invocations its old maximum started may run)
    const summary = sum.meter.summary(120);
    expect(summary.peak).toBe(25);
    expect(b.effective()).toBe(5);
    expect(a.limitInForce() + b.limitInForce()).toBe(25);
  });

  it("counts a native consumer at its mapping's bound", () => {
    const sum = new LimitSum([
      new ActuatorModel(native(13), true, 2, 13, 'n1'),
      new ActuatorModel(native(13), true, 2, 13, 'n2'),
    ]);
    expect(sum.meter.summary(60).peak).toBe(26);
  });
});
