import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetOwner, ownerParameterName, scalerOwner } from '../../lib/consumer-owner.ts';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { BudgetWorld, oneTickMember } from './support/budget-world.ts';
import { busy, CONTROLLER_ENV, FAST_PATH_ENV, IDLE, quietAtTheFloor, repeat } from './support/minutes.ts';
import { World } from './support/world.ts';

/**
 * One owner per consumer at every instant (issue 27 row 9): a scaler that joins or leaves a budget keeps its old
 * controller until CloudFormation's cleanup, and the deploy names the consumer's owner in a parameter
 * (lib/consumer-owner.ts). Against moto's SSM and Lambda: the controller the parameter does not name writes nothing.
 */
let server: MotoServer;
let ssm: SSMClient;
beforeAll(async () => {
  server = await startMotoServer();
  ssm = new SSMClient(server.clientConfig);
});
afterAll(async () => {
  await server?.stop();
});

async function nameOwner(consumer: string, owner: string): Promise<void> {
  await ssm.send(
    new PutParameterCommand({
      Name: ownerParameterName(consumer),
      Value: owner,
      Type: 'String',
      Overwrite: true,
    }),
  );
}

/** Five minutes behind at 3: the law grows. */
async function behindAt3(): Promise<World> {
  const world = await World.create(server, { env: CONTROLLER_ENV, reserved: 3, mappingMax: 3 });
  await world.seed([busy(300), ...repeat(9, busy(30))]);
  await world.sendMessages(30);
  await world.seedControllerHistory(3, 10);
  return world;
}

describe('a lone scaler and the owner parameter', () => {
  it('the parameter names a budget: the lone controller stands down, writing nothing, behind as it is', async () => {
    const world = await behindAt3();
    await nameOwner(world.names.consumer, budgetOwner('orders-db'));
    const outcome = await world.tick();
    expect(outcome).toMatchObject({
      kind: 'skipped',
      reason: 'skip:driven-elsewhere',
      detail: { owner: 'budget:orders-db' },
    });
    expect(world.calls.commands.filter((c) => c.startsWith('Put') || c.startsWith('Update'))).toEqual([]);
    expect(await world.applied()).toEqual({ reserved: 3, mapping: 3 });
  });

  it('the parameter names this scaler (or nothing): it grows; the flip to it is taken at the next tick', async () => {
    const world = await behindAt3();
    await nameOwner(world.names.consumer, budgetOwner('orders-db'));
    expect((await world.tick()).kind).toBe('skipped');
    // WHEN the deploy names this scaler's controller (a member leaving the budget)
    await nameOwner(world.names.consumer, scalerOwner(world.names.scaler));
    world.advance();
    await world.seed([busy(360), ...repeat(9, busy(30))]);
    const outcome = await world.tick();
    // THEN the next tick decides and grows
    expect(outcome.kind).toBe('decided');
    expect((await world.applied()).mapping).toBeGreaterThan(3);
  });
});

describe('the owner parameter unreadable', () => {
  it('denied: the controller drives as before owners were named, and its log line says why the guard is blind', async () => {
    const world = await behindAt3();
    world.ssmFault = (command) =>
      command === 'GetParameterCommand'
        ? Object.assign(new Error('not authorized to perform ssm:GetParameter'), {
            name: 'AccessDeniedException',
            $metadata: {},
          })
        : undefined;
    const outcome = await world.tick();
    expect(outcome.kind).toBe('decided');
    expect((await world.applied()).mapping).toBeGreaterThan(3);
    expect(world.lastLog().fields.ownerReadFault).toBe(
      'AccessDeniedException: not authorized to perform ssm:GetParameter',
    );
  });
});

describe('between ticks', () => {
  it('the deploy names another owner after the tick: the sample that would grow reads it first and writes nothing', async () => {
    // GIVEN a quiet queue held at 2 by this scaler's tick, the samples between ticks on
    const world = await quietAtTheFloor(
      await World.create(server, { env: FAST_PATH_ENV, reserved: 2, mappingMax: 2 }),
    );
    // WHEN, right after it, the budget is named the owner and 200 messages arrive
    let acted = false;
    world.duringSleep = async () => {
      if (acted) return;
      acted = true;
      await nameOwner(world.names.consumer, budgetOwner('orders-db'));
      await world.sendMessages(200);
    };
    await world.tick();
    // THEN the sample wanted to grow, found the consumer driven elsewhere, and the loop stopped with nothing written
    const held = world.fastLogs().filter((l) => l.message === 'fast path');
    expect(held[0]?.fields).toMatchObject({ reason: 'hold:paused', paused: 'driven-elsewhere' });
    expect(world.instants).toEqual([]);
    expect(await world.applied()).toEqual({ reserved: 2, mapping: 2 });
    expect(world.fastLogs().at(-1)).toMatchObject({
      message: 'fast path done',
      fields: { stoppedBy: 'paused' },
    });
  });
});

describe('a budget member and the owner parameter', () => {
  const member = oneTickMember;

  it('a member still named to its lone controller is held at its count, not written; the others share the rest', async () => {
    // GIVEN a budget of 20: orders (a lone scaler joining, its old controller still named) at 12, billing behind
    const world = await BudgetWorld.create(server, 20, [member(12), member(2), member(2)]);
    const [orders, billing, email] = world.members as [World, World, World];
    await orders.seed(repeat(10, IDLE));
    await billing.seed([busy(300), ...repeat(9, busy(30))]);
    await billing.sendMessages(30);
    await email.seed(repeat(10, IDLE));
    for (const m of world.members) await m.seedControllerHistory((await world.effective(m)) ?? 2, 10);
    await nameOwner(orders.names.consumer, scalerOwner(orders.names.scaler));
    await nameOwner(billing.names.consumer, budgetOwner(world.budgetName));
    // WHEN the budget ticks
    const run = await world.tick(orders.event());
    // THEN orders is skipped as a handover and keeps its 12 (an idle member the budget would have shrunk)
    expect(run.members.get(orders.names.scaler)).toMatchObject({
      kind: 'skipped',
      reason: 'skip:driven-elsewhere',
    });
    expect(await orders.applied()).toEqual({ reserved: 12, mapping: 12 });
    // AND billing grows into what orders' 12 leaves, the sum within the budget after every write
    expect(await world.effective(billing)).toBeGreaterThan(2);
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(20);
  });
});
