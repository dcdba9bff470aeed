import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { busy, CONTROLLER_ENV, IDLE, repeat } from './support/minutes.ts';
import { World } from './support/world.ts';

/**
 * What each tick pays CloudWatch for (lib/control/rate-reads.ts), the real handler against moto: the age at every
 * tick, the three rates only where the queue was not quiet at the tick before, or where the law would act.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

const RATES = ['sent', 'deleted', 'duration'];

describe('a quiet queue’s ticks reuse the rates', () => {
  it('reads the age alone while the queue is quiet; behind with messages waiting, reads the rates afresh and grows', async () => {
    // GIVEN a quiet queue, held at the floor
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 2, mappingMax: 2 });
    await world.seed(repeat(10, IDLE));
    await world.seedControllerHistory(2, 10);
    // WHEN the first tick runs (a cold container): every metric, its own history too
    await world.tick();
    expect(world.metricQueries.at(-1)).toEqual(expect.arrayContaining(['age', ...RATES, 'appliedmin']));
    // AND the next, a minute later, the queue still empty
    world.advance();
    await world.seed([IDLE]);
    await world.tick();
    // THEN it paid for the age alone, and held
    expect(world.metricQueries.at(-1)).toEqual(['age']);
    expect(world.lastLog().fields.reason).toMatch(/^hold:/);
    // WHEN the queue falls behind: 30 messages, the oldest five minutes old
    world.advance();
    await world.seed([busy(300)]);
    await world.sendMessages(30);
    const before = world.metricQueries.length;
    await world.tick();
    // THEN the tick read the age, found the law would act on the reused rates, and read them afresh before it grew
    expect(world.metricQueries.slice(before)).toEqual([['age'], ['age', ...RATES]]);
    expect(world.lastLog().fields.reason).toBe('grow:age-above-target');
    // AND the tick after a write reads every rate again
    world.advance();
    await world.seed([busy(300)]);
    await world.tick();
    expect(world.metricQueries.at(-1)).toEqual(['age', ...RATES]);
  });

  it('messages waiting at the tick: the next tick reads the rates, though nothing was sent in the newest period', async () => {
    const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 2, mappingMax: 2 });
    await world.seed(repeat(10, IDLE));
    await world.seedControllerHistory(2, 10);
    await world.sendMessages(1);
    await world.tick();
    world.advance();
    await world.seed([IDLE]);
    await world.tick();
    expect(world.metricQueries.at(-1)).toEqual(['age', ...RATES]);
  });
});
