import { afterAll, beforeAll, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { BEHIND, STEADY } from './support/minutes.ts';
import { World } from './support/world.ts';

/**
 * The account's unreserved floor, as moto models it when MOTO_LAMBDA_CONCURRENCY_QUOTA is set: a quota of 110
 * and the floor of 100 leave this consumer at most 10. moto does not implement GetAccountSettings, so the
 * headroom is unknown and the controller keeps the value it knows fits. (With GetAccountSettings answering,
 * the clamp to the headroom is tested with aws-sdk-client-mock in faults.test.ts.)
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer({ env: { MOTO_LAMBDA_CONCURRENCY_QUOTA: '110' } });
});
afterAll(async () => {
  await server?.stop();
});

it('the unreserved floor refuses the raise: the mapping stays, the clamp is reported, nothing throws', async () => {
  const world = await World.create(server, {
    env: { TARGET_AGE_SECONDS: '60', MIN_CONCURRENCY: '2', MAX_CONCURRENCY: '16', FAST_SAMPLE_SECONDS: '0' },
    reserved: 3,
    mappingMax: 3,
  });
  await world.seed([BEHIND, ...Array.from({ length: 9 }, () => STEADY)]);
  await world.sendMessages(30);
  const outcome = await world.tick();
  expect(outcome.kind).toBe('decided');
  expect(world.lastLog().fields.actuation).toMatchObject({ kind: 'clamped', unreservedFloor: 100, value: 3 });
  expect(world.relay.documents.at(-1)?.ClampedByAccountHeadroom).toBe(1);
  expect(world.relay.documents.at(-1)?.ControllerErrors).toBeUndefined();
  // The mapping was never raised above reserved: the refused write was the first one.
  expect(await world.applied()).toEqual({ reserved: 3, mapping: 3 });
  expect(world.calls.commands).toContain('GetAccountSettingsCommand');
});

it('a refused raise with the mapping above reserved (12 over 3 by hand): the mapping comes down to 3 in the same tick', async () => {
  // GIVEN the state the resume procedure or a deploy of the template's MaximumConcurrency leaves: reserved 3,
  // the mapping at 12, the queue behind (the law wants 12: reserved 12 is over the 10 the quota leaves)
  const world = await World.create(server, {
    env: { TARGET_AGE_SECONDS: '60', MIN_CONCURRENCY: '2', MAX_CONCURRENCY: '16', FAST_SAMPLE_SECONDS: '0' },
    reserved: 3,
    mappingMax: 12,
  });
  await world.seed([BEHIND, ...Array.from({ length: 9 }, () => STEADY)]);
  await world.sendMessages(30);
  await world.tick();
  // THEN the raise is refused, the headroom unknown (moto has no GetAccountSettings), and the mapping follows
  // the reserved concurrency actually held: no overpull left, and the repair reported is a real one
  expect(world.lastLog().fields.actuation).toMatchObject({ kind: 'clamped', unreservedFloor: 100, value: 3 });
  expect(await world.applied()).toEqual({ reserved: 3, mapping: 3 });
  for (const i of world.instants) expect(i.mapping).toBeLessThanOrEqual(i.reserved as number);
  expect(world.lastLog().fields.repaired).toBe(true);
  expect(world.relay.documents.at(-1)?.LockstepRepairs).toBe(1);
  // AND the next tick, refused again, finds nothing to repair
  world.advance();
  await world.tick();
  expect(await world.applied()).toEqual({ reserved: 3, mapping: 3 });
  expect(world.relay.documents.at(-1)?.LockstepRepairs).toBeUndefined();
});
