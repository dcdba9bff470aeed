import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { BEHIND, CONTROLLER_ENV, growing, idling, repeat, STEADY } from './support/minutes.ts';
import { World } from './support/world.ts';

/** The three actuator modes, and the order of the writes, observed in the emulator after every single write. */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('lockstep: MaximumConcurrency ≤ reserved at every instant', () => {
  it('growing raises reserved first, then the mapping', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 3, mappingMax: 3 });
    await growing(world);
    await world.tick();
    const desired = world.lastLog().fields.desired as number;
    expect(desired).toBeGreaterThan(3);
    expect(world.instants).toEqual([
      { command: 'PutFunctionConcurrencyCommand', reserved: desired, mapping: 3 },
      { command: 'UpdateEventSourceMappingCommand', reserved: desired, mapping: desired },
    ]);
  });

  it('shrinking lowers the mapping first; reserved follows it down at the next tick', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 7, mappingMax: 7 });
    await idling(world, 7);
    await world.tick();
    expect(world.instants).toEqual([{ command: 'UpdateEventSourceMappingCommand', reserved: 7, mapping: 6 }]);
    // The next tick: a minute later, the queue no longer idle, the law holds 6; reserved comes down to the mapping.
    world.advance();
    await world.seed([STEADY]);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    expect(world.instants.at(-1)).toEqual({
      command: 'PutFunctionConcurrencyCommand',
      reserved: 6,
      mapping: 6,
    });
    for (const i of world.instants) expect(i.mapping).toBeLessThanOrEqual(i.reserved as number);
  });

  it('a first tick with nothing set on an idle queue adopts the floor (the need is none), the mapping capped first', async () => {
    // Unset is unbounded on both sides (the mapping's pollers scale to ~1,250): bounding it is a shrink.
    const world = await World.create(server, { env: CONTROLLER_ENV });
    await world.seed(repeat(10, { age: 0, sent: 0, deleted: 0 }));
    await world.tick();
    expect(world.lastLog().fields).toMatchObject({ reason: 'adopt:unbounded', unbounded: true });
    expect(world.instants).toEqual([
      { command: 'UpdateEventSourceMappingCommand', mapping: 2 },
      { command: 'PutFunctionConcurrencyCommand', reserved: 2, mapping: 2 },
    ]);
    expect(await world.applied()).toEqual({ reserved: 2, mapping: 2 });
  });

  it('a first tick with nothing set on a busy queue adopts its need, still capping the mapping first', async () => {
    // Reserved first would leave the pollers unbounded above reserved if the mapping write then failed.
    const world = await World.create(server, { env: CONTROLLER_ENV });
    await world.seed(repeat(10, BEHIND));
    await world.sendMessages(30);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('adopt:unbounded');
    expect(world.instants.map((i) => i.command)).toEqual([
      'UpdateEventSourceMappingCommand',
      'PutFunctionConcurrencyCommand',
    ]);
    const applied = await world.applied();
    // 0.1/s at 100 s per item needs 12; it ran 10 concurrent on average (60,000 s of Duration a minute).
    expect(applied.mapping).toBe(12);
    expect(applied.reserved).toBe(applied.mapping);
  });
});

describe("reserved: the function's reserved concurrency only", () => {
  const env = { ...CONTROLLER_ENV, ACTUATOR: 'reserved' };

  it('grows reserved and leaves the mapping alone, reading reserved concurrency', async () => {
    const world = await World.create(server, { env, reserved: 3, mappingMax: 5 });
    await growing(world);
    await world.tick();
    const desired = world.lastLog().fields.desired as number;
    expect(desired).toBeGreaterThan(3);
    expect(await world.applied()).toEqual({ reserved: desired, mapping: 5 });
    // The mapping is read too (its State shows an operator's pause), never written.
    expect(world.calls.commands).toEqual([
      'GetMetricDataCommand',
      'GetFunctionConcurrencyCommand',
      'GetEventSourceMappingCommand',
      // Who drives the consumer (docs/deploy.md, "One owner per consumer")
      'GetParameterCommand',
      'GetQueueAttributesCommand',
      'PutFunctionConcurrencyCommand',
    ]);
  });

  it('shrinks reserved one step after sustained idleness', async () => {
    const world = await World.create(server, { env, reserved: 7, mappingMax: 5 });
    await idling(world, 7);
    await world.tick();
    expect(await world.applied()).toEqual({ reserved: 6, mapping: 5 });
    expect(world.calls.writes).toBe(1);
  });
});

describe("event-source: the mapping's MaximumConcurrency only; reserved concurrency is the template's", () => {
  const env = { ...CONTROLLER_ENV, ACTUATOR: 'event-source' };

  it('growing raises the mapping alone and leaves a reserved concurrency above the cap as it is', async () => {
    // The template reserves 50 (synth requires at least the cap, 16): the controller must not lower it.
    const world = await World.create(server, { env, reserved: 50, mappingMax: 3 });
    await growing(world);
    await world.tick();
    const desired = world.lastLog().fields.desired as number;
    expect(desired).toBeGreaterThan(3);
    expect(world.instants).toEqual([
      { command: 'UpdateEventSourceMappingCommand', reserved: 50, mapping: desired },
    ]);
  });

  it('growing never raises the mapping above a reserved concurrency lowered by hand', async () => {
    const world = await World.create(server, { env, reserved: 4, mappingMax: 3 });
    await growing(world);
    await world.tick();
    expect(world.lastLog().fields.desired as number).toBeGreaterThan(4);
    expect(await world.applied()).toEqual({ reserved: 4, mapping: 4 });
    expect(world.calls.commands).not.toContain('PutFunctionConcurrencyCommand');
  });

  it('shrinking lowers only the mapping, in one write', async () => {
    const world = await World.create(server, { env, reserved: 16, mappingMax: 7 });
    await idling(world, 7);
    await world.tick();
    expect(await world.applied()).toEqual({ reserved: 16, mapping: 6 });
    expect(world.instants.map((i) => i.command)).toEqual(['UpdateEventSourceMappingCommand']);
  });
});

describe('provisioned: reserved concurrency and MaximumPollers (10 invocations a poller), the pollers ≤ reserved at every instant', () => {
  const env = {
    ...CONTROLLER_ENV,
    ACTUATOR: 'provisioned',
    MIN_CONCURRENCY: '20',
    MAX_CONCURRENCY: '100',
  };
  // 0.5 message/s at 100 s an item, the head 5 minutes old: the need is 50 ÷ the target utilization → 6 pollers.
  const heavy = { age: 300, sent: 30, deleted: 30, durationMs: 30 * 100_000, invocations: 30 };
  const pollersAtMost = (i: { reserved?: number; maximumPollers?: number }) =>
    expect((i.maximumPollers ?? 0) * 10).toBeLessThanOrEqual(i.reserved ?? Number.POSITIVE_INFINITY);

  it('growing raises reserved first, then MaximumPollers, in whole pollers', async () => {
    const world = await World.create(server, { env, reserved: 20, pollers: { minimum: 2, maximum: 2 } });
    await world.seed(repeat(10, heavy));
    await world.sendMessages(150);
    await world.tick();
    const desired = world.lastLog().fields.desired as number;
    expect(desired).toBeGreaterThan(20);
    expect(desired % 10).toBe(0);
    expect(world.instants).toEqual([
      {
        command: 'PutFunctionConcurrencyCommand',
        reserved: desired,
        minimumPollers: 2,
        maximumPollers: 2,
      },
      {
        command: 'UpdateEventSourceMappingCommand',
        reserved: desired,
        minimumPollers: 2,
        maximumPollers: desired / 10,
      },
    ]);
    // Provisioned mode cannot be combined with MaximumConcurrency: the controller never sets one.
    for (const i of world.instants) expect(i.mapping).toBeUndefined();
  });

  it('shrinking lowers MaximumPollers first (a MinimumPollers above it with it); reserved follows at the next tick', async () => {
    const world = await World.create(server, { env, reserved: 40, pollers: { minimum: 4, maximum: 4 } });
    await idling(world, 40);
    await world.tick();
    expect(world.instants).toEqual([
      {
        command: 'UpdateEventSourceMappingCommand',
        reserved: 40,
        minimumPollers: 3,
        maximumPollers: 3,
      },
    ]);
    world.advance();
    await world.seed([STEADY]);
    await world.tick();
    expect(world.instants.at(-1)).toEqual({
      command: 'PutFunctionConcurrencyCommand',
      reserved: 30,
      minimumPollers: 3,
      maximumPollers: 3,
    });
    for (const i of world.instants) pollersAtMost(i);
  });

  // A floor of 60 starting every minute for a minute (on at any instant), and one whose only year has passed.
  const floorAlwaysOn = JSON.stringify([
    { schedule: 'cron(* * * * ? *)', minConcurrency: 60, durationSeconds: 60 },
  ]);
  const floorNeverOn = JSON.stringify([
    { schedule: 'cron(0 9 * * ? 2020)', minConcurrency: 60, durationSeconds: 3600 },
  ]);

  it('a scheduled floor that comes on: reserved first, then MaximumPollers and MinimumPollers together (the pollers warm)', async () => {
    const world = await World.create(server, {
      env: { ...env, SCHEDULED_FLOORS: floorAlwaysOn },
      reserved: 20,
      pollers: { minimum: 2, maximum: 2 },
    });
    await world.seed(repeat(10, STEADY));
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('grow:below-floor');
    expect(world.instants).toEqual([
      { command: 'PutFunctionConcurrencyCommand', reserved: 60, minimumPollers: 2, maximumPollers: 2 },
      { command: 'UpdateEventSourceMappingCommand', reserved: 60, minimumPollers: 6, maximumPollers: 6 },
    ]);
  });

  it('once no floor is on, MinimumPollers come back to 2 at once, alone; the maximum waits for the law’s shrink', async () => {
    const world = await World.create(server, {
      env: { ...env, SCHEDULED_FLOORS: floorNeverOn },
      reserved: 60,
      pollers: { minimum: 6, maximum: 6 },
    });
    await world.seed(repeat(10, STEADY));
    await world.tick();
    expect(world.instants).toEqual([
      { command: 'UpdateEventSourceMappingCommand', reserved: 60, minimumPollers: 2, maximumPollers: 6 },
    ]);
    // The next tick has nothing to write
    world.advance();
    await world.seed([STEADY]);
    await world.tick();
    expect(world.instants).toHaveLength(1);
  });

  it('a pause (the mapping disabled) is held: nothing written', async () => {
    const world = await World.create(server, {
      env,
      reserved: 20,
      pollers: { minimum: 2, maximum: 2 },
      mappingEnabled: false,
    });
    await world.seed(repeat(10, heavy));
    await world.sendMessages(150);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:paused');
    expect(world.calls.writes).toBe(0);
    expect(await world.applied()).toMatchObject({ reserved: 20, maximumPollers: 2 });
  });
});
