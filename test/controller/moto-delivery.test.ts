import { DeleteEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { CONTROLLER_ENV, IDLE, repeat } from './support/minutes.ts';
import { PERIOD, World } from './support/world.ts';

/** At-least-once schedules, concurrent ticks and vanished resources, against the emulator. */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

async function idleAt(applied: number, env: Record<string, string> = CONTROLLER_ENV): Promise<World> {
  const world = await World.create(server, { env, reserved: applied, mappingMax: applied });
  await world.seed(repeat(10, IDLE));
  await world.seedControllerHistory(applied, 10);
  return world;
}

describe('schedule delivery', () => {
  it('an event older than 1.5 periods is a no-op without a single AWS call', async () => {
    const world = await idleAt(10);
    const outcome = await world.tick(world.event(world.now - 91));
    expect(outcome).toMatchObject({ kind: 'skipped', reason: 'skip:stale-event' });
    expect(world.calls.commands).toEqual([]);
    expect(await world.applied()).toEqual({ reserved: 10, mapping: 10 });
    expect(world.relay.documents.at(-1)?.SkippedTicks).toBe(1);
  });

  it('an event 1.4 periods old still runs', async () => {
    const world = await idleAt(10);
    const outcome = await world.tick(world.event(world.now - 84));
    expect(outcome.kind).toBe('decided');
  });

  it.each([
    { comment: 'lockstep', env: CONTROLLER_ENV },
    { comment: 'reserved', env: { ...CONTROLLER_ENV, ACTUATOR: 'reserved' } },
  ])('the same event twice steps once ($comment)', async ({ env }) => {
    const world = await idleAt(10, env);
    const event = world.event();
    await world.tick(event);
    const second = await world.tick(event);
    expect(second).toMatchObject({ kind: 'skipped', reason: 'skip:repeat' });
    // One step: lockstep lowers the mapping (reserved follows next tick), reserved mode lowers reserved.
    const applied = await world.applied();
    expect(env.ACTUATOR === 'reserved' ? applied.reserved : applied.mapping).toBe(9);
  });

  it('a duplicate of a step-limited growth does not step again', async () => {
    const world = await World.create(server, {
      env: { ...CONTROLLER_ENV, MAX_SCALE_UP_STEP: '2' },
      reserved: 3,
      mappingMax: 3,
    });
    await world.seed([
      { age: 300, sent: 6, deleted: 6, durationMs: 600_000 },
      ...repeat(9, { age: 30, sent: 6, deleted: 6, durationMs: 600_000 }),
    ]);
    await world.sendMessages(30);
    const event = world.event();
    await world.tick(event);
    await world.tick(event);
    expect(await world.applied()).toEqual({ reserved: 5, mapping: 5 });
  });

  it('two concurrent ticks of one event end in the state one tick gives', async () => {
    const world = await idleAt(10);
    const event = world.event();
    const outcomes = await Promise.all([world.handler(event), world.handler(event)]);
    await world.relay.flush();
    expect(outcomes.some((o) => o.kind === 'decided')).toBe(true);
    expect(await world.applied()).toEqual({ reserved: 10, mapping: 9 });
  });
});

describe('the start run at deploy (an invocation without an event time)', () => {
  // A step-limited growth: two decisions within one slot would step twice (3 -> 5 -> 7).
  async function growingAtSlotStart(): Promise<{ world: World; slot: number }> {
    const world = await World.create(server, {
      env: { ...CONTROLLER_ENV, MAX_SCALE_UP_STEP: '2' },
      reserved: 3,
      mappingMax: 3,
    });
    world.advance(PERIOD - (world.now % PERIOD));
    const slot = world.now;
    await world.seed([
      { age: 300, sent: 6, deleted: 6, durationMs: 600_000 },
      ...repeat(9, { age: 30, sent: 6, deleted: 6, durationMs: 600_000 }),
    ]);
    await world.sendMessages(30);
    return { world, slot };
  }

  it("after the slot's scheduled tick stepped, the start run (another container) is its repeat: one step", async () => {
    const { world, slot } = await growingAtSlotStart();
    world.now = slot + 1;
    expect(await world.tick(world.event(slot))).toMatchObject({ kind: 'decided' });
    // The trigger invokes a version of the controller: a container of its own, with no memory of the tick.
    world.rewire();
    world.now = slot + 3;
    expect(await world.tick({})).toMatchObject({ kind: 'skipped', reason: 'skip:repeat' });
    expect(await world.applied()).toEqual({ reserved: 5, mapping: 5 });
  });

  it("a start run that stepped takes its slot: the slot's late scheduled delivery skips, the next slot's tick decides", async () => {
    const { world, slot } = await growingAtSlotStart();
    world.now = slot + 2;
    expect(await world.tick({})).toMatchObject({ kind: 'decided' });
    world.rewire();
    world.now = slot + 4;
    expect(await world.tick(world.event(slot))).toMatchObject({ kind: 'skipped', reason: 'skip:repeat' });
    expect(await world.applied()).toEqual({ reserved: 5, mapping: 5 });
    world.now = slot + PERIOD + 1;
    await world.seed([{ age: 60, sent: 6, deleted: 6, durationMs: 600_000 }]);
    expect(await world.tick(world.event(slot + PERIOD))).toMatchObject({ kind: 'decided' });
  });
});

describe('a late delivery and the fast path', () => {
  it('an event delivered 30 s late samples what is left of its slot: the next tick runs, not skip:repeat', async () => {
    const env = { ...CONTROLLER_ENV, MAX_CONCURRENCY: '32', FAST_SAMPLE_SECONDS: '10' };
    const world = await World.create(server, { env, reserved: 2, mappingMax: 2 });
    // A quiet queue (1/s at 1 s items): busy enough to start the loop, held at 2
    const quiet = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };
    world.advance(PERIOD - (world.now % PERIOD));
    const slot = world.now;
    await world.seed(repeat(10, quiet));
    await world.seedControllerHistory(2, 10);
    // WHEN the event for T arrives at T+30 (a retry behind a long invocation), and a surge comes at T+60
    let surged = false;
    const surge = async () => {
      if (surged) return;
      surged = true;
      await world.sendMessages(200);
    };
    world.duringSleep = async (now) => {
      if (now >= slot + PERIOD) await surge();
    };
    world.advance(30);
    await world.tick(world.event(slot));
    // THEN its loop sampled T+40 and T+50 only, and ended before the next tick's slot
    expect(world.fastLogs().at(-1)).toMatchObject({
      message: 'fast path done',
      fields: { samples: 2, growths: 0, stoppedBy: 'deadline' },
    });
    expect(world.now).toBeLessThan(slot + PERIOD);
    // AND the tick for T+60 decides (a loop still growing at T+60 would take its slot: skip:repeat)
    world.now = slot + PERIOD;
    await surge();
    const next = await world.tick(world.event(slot + PERIOD));
    expect(next.kind).toBe('decided');
    expect(world.lastLog().fields.reason).not.toBe('skip:repeat');
  });
});

describe('vanished resources', () => {
  it('a deleted mapping: an error metric, a clear log line, no throw, and the next tick the same', async () => {
    const world = await idleAt(10);
    await world.lambda.send(new DeleteEventSourceMappingCommand({ UUID: world.mappingUuid }));
    for (let i = 0; i < 2; i++) {
      const outcome = await world.tick();
      expect(outcome).toMatchObject({ kind: 'failed', failure: 'not-found' });
      expect(world.lastLog().message).toBe('tick failed: holding');
      expect(world.lastLog().fields.hint).toMatch(/EVENT_SOURCE_MAPPING_UUID/);
      expect(world.relay.documents.at(-1)?.ControllerErrors).toBe(1);
      world.advance();
    }
  });

  it('a deleted queue: the same', async () => {
    const world = await idleAt(10);
    const { DeleteQueueCommand } = await import('@aws-sdk/client-sqs');
    await world.sqs.send(new DeleteQueueCommand({ QueueUrl: world.queueUrl }));
    const outcome = await world.tick();
    expect(outcome).toMatchObject({ kind: 'failed', failure: 'not-found' });
    expect((await world.applied()).reserved).toBe(10);
  });
});
