import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { busy, CONTROLLER_ENV, repeat, STEADY } from './support/minutes.ts';
import { type MinuteOfMetrics, World } from './support/world.ts';

/**
 * The lockstep invariant (MaximumConcurrency ≤ reserved after every tick), an operator's pause, and attaching
 * to a live consumer, against moto's real APIs: the handler reads both limits every tick and repairs them.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A quiet queue the controller has held at 5: the law's value stays 5. */
async function heldAt5(world: World): Promise<void> {
  await world.seed([busy(10), ...repeat(9, busy(10))]);
  await world.seedControllerHistory(5, 10);
}

describe('the lockstep invariant, repaired by the first tick that finds it broken', () => {
  it.each([
    {
      comment: 'the mapping raised by hand above reserved (10 over 5): the mapping comes back to 5',
      edit: { mapping: 10 },
      writes: ['UpdateEventSourceMappingCommand'],
      repaired: true,
    },
    {
      comment:
        'reserved lowered by hand under the mapping (3 under 5): 3 is what runs (the rest throttles), so the mapping comes down to it',
      edit: { reserved: 3 },
      writes: ['UpdateEventSourceMappingCommand'],
      repaired: true,
    },
    {
      // Reserved above the mapping overpulls nothing: a write to release account concurrency, not a repair.
      comment: 'reserved raised by hand above the mapping (20 over 5): reserved comes back to 5',
      edit: { reserved: 20 },
      writes: ['PutFunctionConcurrencyCommand'],
      repaired: false,
    },
  ])('$comment', async ({ edit, writes, repaired }) => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 5, mappingMax: 5 });
    await heldAt5(world);
    // GIVEN a hand edit at a load the law holds (hold:steady): only the invariant makes the tick write
    await world.setApplied(edit);
    // WHEN one tick runs
    await world.tick();
    // THEN the limits are in lockstep again, and no write ever put the mapping above reserved
    const value = edit.reserved === 3 ? 3 : 5;
    expect(world.instants.map((i) => i.command)).toEqual(writes);
    expect(await world.applied()).toEqual({ reserved: value, mapping: value });
    for (const i of world.instants) expect(i.mapping).toBeLessThanOrEqual(i.reserved as number);
    expect(world.lastLog().fields).toMatchObject({ desired: value });
    expect(world.lastLog().fields.repaired ?? false).toBe(repaired);
    expect(world.relay.documents.at(-1)?.LockstepRepairs).toBe(repaired ? 1 : undefined);
  });

  it('the mapping raised above reserved is repaired whatever the law decides, and reported', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 3, mappingMax: 10 });
    await world.seed(repeat(10, busy(10)));
    await world.tick();
    const after = await world.applied();
    expect(after.mapping).toBeLessThanOrEqual(after.reserved as number);
    expect(world.relay.documents.at(-1)?.LockstepRepairs).toBe(1);
  });
});

describe('an operator’s pause is held, reported, and alarmed when it overpulls', () => {
  it('reserved 0 (the console’s Throttle) with the mapping polling: no write, Paused and PauseOverpull', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 0, mappingMax: 5 });
    await world.seed(repeat(10, busy(300)));
    await world.sendMessages(30);
    await world.tick();
    expect(world.lastLog().fields).toMatchObject({ reason: 'hold:paused', pauseOverpull: true });
    expect(world.calls.writes).toBe(0);
    expect(await world.applied()).toEqual({ reserved: 0, mapping: 5 });
    expect(world.relay.documents.at(-1)).toMatchObject({ Paused: 1, PauseOverpull: 1 });
  });

  it('the mapping disabled: no write, Paused, no overpull', async () => {
    const world = await World.create(server, {
      env: CONTROLLER_ENV,
      reserved: 5,
      mappingMax: 5,
      mappingEnabled: false,
    });
    await world.seed(repeat(10, busy(300)));
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:paused');
    expect(world.calls.writes).toBe(0);
    expect(world.relay.documents.at(-1)).toMatchObject({ Paused: 1 });
    // No overpull: PauseOverpull, sparse, is not published at 0.
    expect(world.relay.documents.at(-1)?.PauseOverpull).toBeUndefined();
  });

  it('reserved mode, reserved 0: held, not raised to the floor by grow:below-floor', async () => {
    const world = await World.create(server, {
      env: { ...CONTROLLER_ENV, ACTUATOR: 'reserved' },
      reserved: 0,
      mappingMax: 5,
    });
    await world.seed(repeat(10, busy(300)));
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('hold:paused');
    expect((await world.applied()).reserved).toBe(0);
  });

  it('resumed (reserved set back): the next tick scales as usual', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 0, mappingMax: 5 });
    await world.seed(repeat(10, STEADY));
    await world.tick();
    await world.setApplied({ reserved: 5 });
    world.advance();
    await world.seed([STEADY]);
    await world.tick();
    expect(world.lastLog().fields.reason).not.toBe('hold:paused');
  });
});

describe('attaching to a live consumer adopts what it runs', () => {
  // 100 messages/s, 200 ms items, age 30 s: the need is 100 × 0.2 ÷ 0.9 = 22.2 → 23; it ran 20 on average
  // (1,200,000 ms of Duration a minute).
  const live: MinuteOfMetrics = {
    age: 30,
    sent: 6000,
    deleted: 6000,
    durationMs: 1_200_000,
    invocations: 6000,
  };
  it.each<{ comment: string; env: Record<string, string> }>([
    { comment: 'lockstep', env: { ...CONTROLLER_ENV, MAX_CONCURRENCY: '32' } },
    { comment: 'reserved', env: { ...CONTROLLER_ENV, MAX_CONCURRENCY: '32', ACTUATOR: 'reserved' } },
  ])('$comment: nothing set, busy → 23, not the floor; a scale event; the log says so', async ({ env }) => {
    const world = await World.create(server, { env });
    await world.seed(repeat(10, live));
    await world.tick();
    expect(world.lastLog().fields).toMatchObject({
      reason: 'adopt:unbounded',
      unbounded: true,
      applied: null,
      desired: 23,
      appliedAfter: 23,
    });
    const applied = await world.applied();
    expect(applied.reserved).toBe(23);
    if (env.ACTUATOR !== 'reserved') expect(applied.mapping).toBe(23);
    expect(world.relay.documents.at(-1)?.ScaleEvents).toBe(1);
  });
});
