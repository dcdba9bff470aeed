import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { busy, CONTROLLER_ENV, IDLE, repeat } from './support/minutes.ts';
import { type MinuteOfMetrics, World } from './support/world.ts';

const ENV = { ...CONTROLLER_ENV, MAX_CONCURRENCY: '20' };

/**
 * The real handler, real SDK clients, moto's real APIs: the decisions land in the emulator's reserved
 * concurrency and the mapping's MaximumConcurrency. Lockstep (the default) unless a test says otherwise.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

/**
 * 0.1 message/s arriving (6 a minute) and 100 s per item: Little's law needs 0.1 × 100 ÷ 0.9 = 11.1 → 12 at
 * steady state. A queue whose oldest message is `age` seconds old at 0.1/s holds about `age ÷ 10` messages: the
 * tests send them, since the law checks the late age datapoint against the real-time depth.
 */

describe('the controller against moto (lockstep)', () => {
  it("grows to the Little's-law need when the age is above the target, in 5 reads and 2 writes", async () => {
    // GIVEN a consumer at the floor and a queue whose oldest message is 5 minutes old
    const world = await World.create(server, { env: ENV, reserved: 2, mappingMax: 2 });
    await world.seed([busy(300), ...repeat(9, busy(30))]);
    await world.sendMessages(30);
    // WHEN one tick runs
    const outcome = await world.tick();
    // THEN both values moved to the law's desired value (at least the steady need of 12), reserved first
    expect(outcome.kind).toBe('decided');
    const { reason, desired } = world.lastLog().fields;
    expect(reason).toBe('grow:age-above-target');
    expect(desired).toBeGreaterThanOrEqual(12);
    expect(desired).toBeLessThanOrEqual(20);
    expect(await world.applied()).toEqual({ reserved: desired, mapping: desired });
    // Both limits are read every tick, so a hand edit is seen (the lockstep invariant).
    expect(world.calls.commands).toEqual([
      'GetMetricDataCommand',
      'GetFunctionConcurrencyCommand',
      'GetEventSourceMappingCommand',
      // Who drives the consumer (docs/deploy.md, "One owner per consumer")
      'GetParameterCommand',
      'GetQueueAttributesCommand',
      'PutFunctionConcurrencyCommand',
      'UpdateEventSourceMappingCommand',
    ]);
  });

  it('holds below the setpoint with no write at all: the quiet tick is 5 reads', async () => {
    const world = await World.create(server, { env: ENV, reserved: 12, mappingMax: 12 });
    await world.seed([busy(20), ...repeat(9, busy(20))]);
    await world.sendMessages(2);
    await world.seedControllerHistory(12, 10);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    expect(await world.applied()).toEqual({ reserved: 12, mapping: 12 });
    expect(world.calls.writes).toBe(0);
    // GetMetricData, GetQueueAttributes, GetFunctionConcurrency, GetEventSourceMapping and the owner's GetParameter
    expect(world.calls.reads).toBe(5);
  });

  it('shrinks one step only after sustained idleness, one step per tick', async () => {
    // GIVEN a consumer at 10 that the controller has held there, and 2 idle minutes
    const world = await World.create(server, { env: ENV, reserved: 10, mappingMax: 10 });
    await world.seed([IDLE, IDLE, busy(120), ...repeat(7, busy(120))]);
    await world.seedControllerHistory(10, 10);
    // WHEN a tick runs: 2 minutes is not the 3 the delay asks for
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    expect(await world.applied()).toEqual({ reserved: 10, mapping: 10 });

    // GIVEN 10 idle minutes
    const later = await World.create(server, { env: ENV, reserved: 10, mappingMax: 10 });
    await later.seed(repeat(10, IDLE));
    await later.seedControllerHistory(10, 10);
    // WHEN a tick runs THEN one step down: the mapping only; reserved stays a tick behind, so a poll in flight
    // when the maximum drops is not throttled
    await later.tick();
    expect(later.lastLog().fields.reason).toBe('shrink:sustained-idle');
    expect(await later.applied()).toEqual({ reserved: 10, mapping: 9 });
    expect(later.instants.map((i) => i.command)).toEqual(['UpdateEventSourceMappingCommand']);
    // WHEN the next minute's tick runs (still idle) THEN one more step, not two, and reserved follows to 9
    later.advance();
    await later.seed([IDLE]);
    await later.tick();
    expect(await later.applied()).toEqual({ reserved: 9, mapping: 8 });
    // AND reserved trailing the mapping by design is no repair: the metric counts overpull found, not this
    expect(later.lastLog().fields.repaired).toBeUndefined();
    // No repair: LockstepRepairs, sparse, is not published at 0.
    expect(later.relay.documents.at(-1)?.LockstepRepairs).toBeUndefined();
  });

  it('pinned at the cap with the age above target: holds and reports Saturated', async () => {
    const world = await World.create(server, {
      env: { ...ENV, MAX_CONCURRENCY: '8' },
      reserved: 8,
      mappingMax: 8,
    });
    await world.seed([busy(400), ...repeat(9, busy(300))]);
    await world.sendMessages(40);
    await world.seedControllerHistory(8, 10);
    await world.tick();
    expect(world.lastLog().fields).toMatchObject({ reason: 'hold:at-cap', atCap: true, saturated: true });
    expect(await world.applied()).toEqual({ reserved: 8, mapping: 8 });
    const emf = world.relay.documents.at(-1);
    expect(emf?.Saturated).toBe(1);
    expect(emf?.AtCap).toBe(1);
  });

  it.each([
    { comment: 'no datapoints at all', minutes: [] as (MinuteOfMetrics | undefined)[] },
    {
      comment: 'only datapoints older than maxDataAgeSeconds',
      minutes: [...repeat(6, undefined), ...repeat(4, IDLE)],
    },
  ])('missing data holds and never shrinks: $comment', async ({ minutes }) => {
    const world = await World.create(server, { env: ENV, reserved: 10, mappingMax: 10 });
    await world.seed(minutes);
    await world.seedControllerHistory(10, 10);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:no-data');
    expect(await world.applied()).toEqual({ reserved: 10, mapping: 10 });
    // Nothing waits: an idle queue without datapoints is SQS's normal state, so NoData (the -no-data alarm's
    // metric: no age data with messages waiting) is not published (test/controller/report.test.ts: with a backlog).
    expect(world.relay.documents.at(-1)).toHaveProperty('AppliedConcurrency', 10);
    expect(world.relay.documents.at(-1)).not.toHaveProperty('NoData');
    expect(world.calls.writes).toBe(0);
  });

  it('a slower per-item time alone is heavier work: it grows, flagged DownstreamSlower, and probes the growth', async () => {
    const world = await World.create(server, { env: ENV, reserved: 6, mappingMax: 6 });
    const slow: MinuteOfMetrics = { age: 300, sent: 6, deleted: 6, durationMs: 6 * 300_000, invocations: 6 };
    const healthy: MinuteOfMetrics = {
      age: 20,
      sent: 6,
      deleted: 6,
      durationMs: 6 * 100_000,
      invocations: 6,
    };
    await world.seed([slow, slow, ...repeat(10, healthy)]);
    await world.sendMessages(30);
    await world.seedControllerHistory(6, 12);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('grow:age-above-target');
    expect((await world.applied()).mapping).toBeGreaterThan(6);
    expect(world.relay.documents.at(-1)?.DownstreamSlower).toBe(1);
  });

  it('a growth that bought no throughput is taken back at the next tick that sees it (the probe in memory)', async () => {
    // GIVEN 6 busy workers behind, 0.1 message/s each at 60 s items, 20 messages waiting
    const world = await World.create(server, { env: ENV, reserved: 6, mappingMax: 6 });
    const behind: MinuteOfMetrics = { age: 300, sent: 6, deleted: 6, durationMs: 6 * 60_000, invocations: 6 };
    await world.seed(repeat(10, behind));
    await world.sendMessages(20);
    await world.seedControllerHistory(6, 10);
    await world.tick();
    const grown = (await world.applied()).mapping as number;
    expect(world.lastLog().fields.reason).toBe('grow:age-above-target');
    // WHEN the minutes after the growth show every worker busy and the same 6 items a minute: each item now takes
    // grown × 10 s (they wait on the downstream). The first is from before the growth's minute ended: the tick waits
    const after: MinuteOfMetrics = {
      age: 400,
      sent: 6,
      deleted: 6,
      durationMs: grown * 60_000,
      invocations: 6,
    };
    world.advance();
    await world.seed([after]);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:probing');
    world.advance();
    await world.seed([after]);
    await world.tick();
    // THEN the growth goes back to where it started, with the shed signal
    expect(world.lastLog().fields.reason).toBe('shrink:downstream-saturated');
    expect((await world.applied()).mapping).toBe(6);
    expect(world.relay.documents.at(-1)?.Shed).toBe(1);
  });
});
