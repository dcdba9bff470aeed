import { DeleteFunctionCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import {
  type BudgetMemberSpec,
  BudgetWorld,
  ONE_TICK_MEMBER_SETTINGS,
  oneTickMember,
} from './support/budget-world.ts';
import { busy, IDLE, repeat } from './support/minutes.ts';
import type { World } from './support/world.ts';

/**
 * A shared budget of 20 over three members against moto's real APIs: the real budget handler, one GetMetricData
 * for all three, the writes in the budget's order. After every write the emulator's limits are read back and
 * summed: Σ effective ≤ budget at every instant, not only at the end.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

const BUDGET = 20;
// Each member: target 60 s, floor 2, cap 16; one tick per test (the fast path off).
const SETTINGS = ONE_TICK_MEMBER_SETTINGS;
const member = oneTickMember;

/**
 * orders 5 minutes behind and billing 2 minutes behind (0.1 message/s at 100 s per item: each alone needs 12),
 * email idle: 12 + 12 + 2 = 26 does not fit in 20.
 */
async function seedShortfall(world: BudgetWorld): Promise<void> {
  const [orders, billing, email] = world.members as [World, World, World];
  await orders.seed([busy(300), ...repeat(9, busy(30))]);
  await orders.sendMessages(30);
  await billing.seed([busy(120), ...repeat(9, busy(30))]);
  await billing.sendMessages(12);
  await email.seed(repeat(10, IDLE));
  for (const m of world.members) await m.seedControllerHistory((await world.effective(m)) ?? 2, 10);
}

const grants = (world: BudgetWorld) =>
  Object.fromEntries(
    (world.lastBudgetLog().fields.members as { name: string; granted: number }[]).map((m) => [
      m.name,
      m.granted,
    ]),
  );

describe('a budget of 20 shared by three members, against moto', () => {
  it('splits a shortfall by lateness, within the budget after every write, and says who is starved', async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(2), member(2)]);
    const [orders, billing, email] = world.members as [World, World, World];
    await seedShortfall(world);
    await world.tick();
    expect(world.sums.length).toBeGreaterThan(0);
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    const granted = grants(world);
    expect(granted[orders.names.scaler]).toBeGreaterThan(granted[billing.names.scaler] as number);
    expect(granted[email.names.scaler]).toBe(2);
    expect(await world.sum()).toBe(BUDGET);
    expect(await world.effective(orders)).toBe(granted[orders.names.scaler]);
    // Exhausted: fully granted, orders behind its target and short of its own 12.
    const log = world.lastBudgetLog();
    expect(log.message).toMatch(/^budget exhausted/);
    expect(log.fields.starved).toContain(orders.names.scaler);
    const budgetDoc = world.relay.documents.find(
      (d) => d.BudgetName === world.budgetName && 'BudgetExhausted' in d,
    );
    expect(budgetDoc).toMatchObject({ BudgetLimit: 20, BudgetGranted: 20, BudgetExhausted: 1 });
    // Each member's own metrics still go under its own ScalerName (its alarms and dashboard are unchanged).
    const ordersDoc = world.relay.documents.find(
      (d) => d.ScalerName === orders.names.scaler && 'AppliedConcurrency' in d,
    );
    expect(ordersDoc?.AppliedConcurrency).toBe(granted[orders.names.scaler]);
  });

  it('when the demands fit, each member gets its own law', async () => {
    const world = await BudgetWorld.create(server, 48, [member(2), member(2), member(2)]);
    await seedShortfall(world);
    const run = await world.tick();
    for (const m of world.members) {
      const outcome = run.members.get(m.names.scaler);
      if (outcome?.kind !== 'decided') throw new Error(`${m.names.scaler}: not decided`);
      expect(await world.effective(m)).toBe(outcome.result.decision.desired);
    }
    expect(await world.effective(world.members[0] as World)).toBeGreaterThan(2);
    expect(world.lastBudgetLog().message).toBe('budget');
  });

  it('a lowering that fails blocks the raise that needed it; the sum never passes the budget', async () => {
    // billing holds 14 at 2 minutes behind, orders 2 at 5 minutes behind, email 4 idle: orders' raise needs
    // units billing gives up.
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(14), member(4)]);
    const [orders, billing] = world.members as [World, World, World];
    await seedShortfall(world);
    world.fault = (command, input) =>
      command === 'UpdateEventSourceMappingCommand' && input.UUID === billing.mappingUuid
        ? Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException', $metadata: {} })
        : undefined;
    await world.tick();
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    expect(await world.effective(billing)).toBe(14);
    const fields = world.lastBudgetLog().fields;
    expect(fields.dropped).toContain(orders.names.scaler);
    expect(await world.sum()).toBeLessThanOrEqual(BUDGET);
  });

  it('a member deleted counts at its cap and is not written; the others share what is left', async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(2), member(2)]);
    const [orders, billing, email] = world.members as [World, World, World];
    await seedShortfall(world);
    await billing.lambda.send(new DeleteFunctionCommand({ FunctionName: billing.names.consumer }));
    await world.tick();
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    const entry = (
      world.lastBudgetLog().fields.members as { name: string; reason: string; counted: number }[]
    ).find((m) => m.name === billing.names.scaler);
    expect(entry).toMatchObject({ reason: 'unreadable', counted: 16 });
    // 20 − 16 leaves exactly the floors of the other two.
    expect(await world.effective(orders)).toBe(2);
    expect(await world.effective(email)).toBe(2);
  });

  it('a member paused by its operator (reserved 0) is never written; what its mapping holds still counts', async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(8), member(2)]);
    const [orders, billing] = world.members as [World, World, World];
    await seedShortfall(world);
    await billing.setApplied({ reserved: 0 });
    const before = await billing.applied();
    await world.tick();
    expect(world.sums.length).toBeGreaterThan(0);
    expect(await billing.applied()).toEqual(before);
    // 20 − 8 held by billing's mapping − email's floor 2 = 10 at most for orders.
    expect(await world.effective(orders)).toBeLessThanOrEqual(10);
    const entry = (world.lastBudgetLog().fields.members as { name: string; reason: string }[]).find(
      (m) => m.name === billing.names.scaler,
    );
    expect(entry?.reason).toBe('paused');
  });

  it('a member paused at reserved 0 with no mapping maximum holds back its floor: the documented resume keeps the budget', async () => {
    // GIVEN a budget of 14; billing paused by its operator (reserved 0) over a mapping with no MaximumConcurrency:
    // it counts 0, and docs/deploy.md's resume puts reserved concurrency back at its floor, 2
    const capped = { ...SETTINGS, maxConcurrency: 14 };
    const spec = (reserved: number, mappingMax?: number): BudgetMemberSpec => ({
      settings: capped,
      reserved,
      mappingMax,
    });
    const world = await BudgetWorld.create(server, 14, [spec(2, 2), spec(0), spec(2, 2)]);
    const [orders, billing, email] = world.members as [World, World, World];
    await seedShortfall(world);
    await world.tick();
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(14);
    // THEN orders (needing 12) is given no more than 14 − billing's floor − email's floor
    expect(await world.effective(orders)).toBeLessThanOrEqual(10);
    // WHEN the operator resumes billing as documented, before any tick sees it
    await billing.setApplied({ reserved: 2 });
    // THEN the sum is within the budget
    expect(
      (await world.effective(orders)) + (await world.effective(billing)) + (await world.effective(email)),
    ).toBeLessThanOrEqual(14);
  });

  it('two overlapping invocations of the same event keep the sum within the budget at every write', async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(14), member(4)]);
    await seedShortfall(world);
    const event = (world.members[0] as World).event();
    await Promise.all([world.handler(event), world.handler(event)]);
    await world.relay.flush();
    expect(world.sums.length).toBeGreaterThan(0);
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    expect(await world.sum()).toBeLessThanOrEqual(BUDGET);
  });

  it('a duplicate delivery of a slot that already wrote is skipped for every member', async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(2), member(2)]);
    await seedShortfall(world);
    const event = (world.members[0] as World).event();
    await world.tick(event);
    const writes = world.sums.length;
    world.advance(5);
    const again = await world.tick(event);
    expect(again.budget).toMatchObject({ kind: 'skipped', reason: 'skip:repeat' });
    expect(world.sums.length).toBe(writes);
  });

  it("the start run at deploy (no event time) after the slot's scheduled tick wrote is its repeat", async () => {
    const world = await BudgetWorld.create(server, BUDGET, [member(2), member(2), member(2)]);
    await seedShortfall(world);
    await world.tick((world.members[0] as World).event());
    const writes = world.sums.length;
    expect(writes).toBeGreaterThan(0);
    // Within the same slot (the minute the scheduled tick ran in)
    const now = (world.members[0] as World).now;
    world.advance(Math.min(5, 59 - (now % 60)));
    const start = await world.tick({});
    expect(start.budget).toMatchObject({ kind: 'skipped', reason: 'skip:repeat' });
    expect(world.sums.length).toBe(writes);
  });

  it('the fast path between ticks grows a surging member only into its share and what no share holds', async () => {
    // Three quiet members at 2 each (1 message/s at 1 s items: 2 workers hold each), the fast path on.
    const fast = { ...SETTINGS, maxConcurrency: 10, fastSampleSeconds: 10 };
    const spec = (): BudgetMemberSpec => ({ settings: fast, reserved: 2, mappingMax: 2 });
    const world = await BudgetWorld.create(server, 12, [spec(), spec(), spec()]);
    const quiet = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };
    for (const m of world.members) {
      await m.seed(repeat(10, quiet));
      await m.seedControllerHistory(2, 10);
    }
    const orders = world.members[0] as World;
    // WHEN 200 messages reach orders in the first 10 s (alone it would grow to 22, at most its cap of 10)
    let sent = false;
    world.duringSleep = async () => {
      if (sent) return;
      sent = true;
      await orders.sendMessages(200);
    };
    await world.tick();
    // THEN it grew between ticks into its own share and no further: floors 2 each, the pool of 6 gives each a share
    // of 2 more, and the others' unused shares (2 each) are held for them (their bursts may coincide); the tick
    // lends them once it weighs every member's own law.
    const grew = world.logs.filter((l) => l.message === 'fast path');
    expect(grew.length).toBeGreaterThan(0);
    expect(await world.effective(orders)).toBe(4);
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(12);
    expect(await world.sum()).toBe(8);
  });

  it.each([1, 3, 8])(
    'between ticks every one of %i members is sampled at every grid time, one short invocation each (issue 27 row 1)',
    async (count) => {
      // GIVEN quiet members (2 workers hold 1 message/s at 1 s items), the fast path on
      const fast = { ...SETTINGS, maxConcurrency: 10, fastSampleSeconds: 10 };
      const spec = (): BudgetMemberSpec => ({ settings: fast, reserved: 2, mappingMax: 2 });
      const world = await BudgetWorld.create(
        server,
        Math.max(10, 2 * count + 4),
        Array.from({ length: count }, spec),
      );
      const quiet = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };
      for (const m of world.members) {
        await m.seed(repeat(10, quiet));
        await m.seedControllerHistory(2, 10);
      }
      // WHEN one tick runs and its five ticker messages come back
      await world.tick();
      // THEN each member's loop took all five samples and ended at the slot's deadline, not for want of time
      const done = world.logs.filter((l) => l.message === 'fast path done').map((l) => l.fields);
      expect(done).toHaveLength(count);
      for (const summary of done) expect(summary).toMatchObject({ samples: 5, stoppedBy: 'deadline' });
      expect(world.ticker.sent).toHaveLength(5);
    },
  );

  it('between ticks the Lambda releases a lowered member once its units are free, then runs the deferred raise', async () => {
    // Fast path on; 10 messages/s of 1 s items, 10 a batch (10 s an invocation): a release 20 s + the consumer's
    // 30 s timeout after the tick, within its minute (the actuator reads the timeout with the limits). Orders 2 minutes behind (1,200 waiting), billing on target at 14, email idle.
    const fast = { ...SETTINGS, fastSampleSeconds: 10 };
    const spec = (reserved: number): BudgetMemberSpec => ({ settings: fast, reserved, mappingMax: reserved });
    const world = await BudgetWorld.create(server, BUDGET, [spec(2), spec(14), spec(4)]);
    const [orders, billing, email] = world.members as [World, World, World];
    const minute = (age: number) => ({
      age,
      sent: 600,
      deleted: 600,
      durationMs: 600_000,
      invocations: 60,
    });
    await orders.seed([minute(120), ...repeat(9, minute(30))]);
    await orders.sendMessages(1200);
    await billing.seed(repeat(10, minute(20)));
    await billing.sendMessages(200);
    await email.seed(repeat(10, IDLE));
    for (const m of world.members) await m.seedControllerHistory((await world.effective(m)) ?? 2, 10);
    await world.tick();
    const log = world.lastBudgetLog().fields as {
      deferred?: string[];
      members: { name: string; granted: number; counted: number; appliedAfter: number }[];
    };
    const grant = log.members.find((m) => m.name === orders.names.scaler)?.granted as number;
    // THEN the sum never passed 20 at any write, tick or fast path
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    // and the tick lowered billing (its share, 6) and deferred orders' raise: billing's reserved trailed, then came
    // down within the minute, and orders was raised into what that freed. Whatever still trails at the last sample
    // (email's unit, if it was lowered) still counts, so orders stops at its grant or at exactly what is free.
    expect(grant).toBeGreaterThan(2);
    const b = await billing.applied();
    expect(b.mapping).toBeLessThan(14);
    expect(b.reserved).toBe(b.mapping);
    // As the budget counts them: the larger of each member's two limits (a trailing reserved still counts).
    const ceiling = async (m: World) => {
      const { reserved, mapping } = await m.applied();
      return Math.max(reserved ?? 0, mapping ?? 0);
    };
    const others = (await ceiling(billing)) + (await ceiling(email));
    expect(await world.effective(orders)).toBe(Math.min(grant, BUDGET - others));
    expect(await world.effective(orders)).toBeGreaterThan(2);
    expect((await ceiling(orders)) + others).toBe(BUDGET);
  });

  it('between ticks a lowered member is released only after its function timeout, however short its mean invocation', async () => {
    // As above, but billing's invocations take 0.1 s on average (60 a minute, 6 s in all): twice the mean would
    // release its trailing reserved 20.2 s after the tick, while an invocation its old maximum started may run to
    // the consumer's 30 s timeout. The release must wait for 20 s + 30 s.
    const fast = { ...SETTINGS, fastSampleSeconds: 10 };
    const spec = (reserved: number): BudgetMemberSpec => ({ settings: fast, reserved, mappingMax: reserved });
    const world = await BudgetWorld.create(server, BUDGET, [spec(2), spec(14), spec(4)]);
    const [orders, billing, email] = world.members as [World, World, World];
    const minute = (age: number, durationMs = 600_000) => ({
      age,
      sent: 600,
      deleted: 600,
      durationMs,
      invocations: 60,
    });
    await orders.seed([minute(120), ...repeat(9, minute(30))]);
    await orders.sendMessages(1200);
    await billing.seed(repeat(10, minute(20, 6_000)));
    await billing.sendMessages(200);
    await email.seed(repeat(10, IDLE));
    for (const m of world.members) await m.seedControllerHistory((await world.effective(m)) ?? 2, 10);
    const start = world.now;
    const seen: { after: number; reserved?: number; mapping?: number }[] = [];
    world.duringSleep = async (now) => {
      seen.push({ after: now - start, ...(await billing.applied()) });
    };
    await world.tick();
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(BUDGET);
    // THEN billing's mapping came down and its reserved trailed at every sample before 50 s, then came down to it
    // THEN billing's mapping came down at the tick and its reserved trailed: each record is taken before that
    // time's sample, so the samples at 10–40 s released nothing
    const lowered = seen.filter((s) => (s.mapping ?? 14) < 14);
    expect(lowered.map((s) => s.after)).toEqual([10, 20, 30, 40, 50]);
    for (const s of lowered) expect(s.reserved).toBeGreaterThan(s.mapping ?? 0);
    // and the one at 50 s, 20 s + the 30 s timeout after the tick, did
    const after = await billing.applied();
    expect(after.reserved).toBe(after.mapping);
  }, 60_000);
});

describe('a budget mixing a provisioned member and a lockstep one, against moto', () => {
  it('grants the provisioned member whole pollers, written as MaximumPollers with reserved, within the budget after every write', async () => {
    // GIVEN budget 40: imports on provisioned mode (floor 20: two pollers; cap 30) three times orders' arrivals
    // (0.3/s at 100 s items: a need of 34), 5 minutes behind; orders in lockstep (floor 2, cap 16) 2 minutes behind
    const provisioned: BudgetMemberSpec = {
      settings: { ...SETTINGS, actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 30 },
      reserved: 20,
      pollers: { minimum: 2, maximum: 2 },
    };
    const world = await BudgetWorld.create(server, 40, [provisioned, member(2)]);
    const [imports, orders] = world.members as [World, World];
    const heavy = (age: number) => ({ ...busy(age), sent: 18, deleted: 18, durationMs: 18 * 100_000 });
    await imports.seed([heavy(300), ...repeat(9, heavy(30))]);
    await imports.sendMessages(90);
    await orders.seed([busy(120), ...repeat(9, busy(30))]);
    await orders.sendMessages(12);
    for (const m of world.members) await m.seedControllerHistory((await world.effective(m)) ?? 2, 10);
    // WHEN the budget ticks
    await world.tick();
    // THEN Σ ≤ 40 after every single write, and the provisioned member moved by a whole poller: floors 22 leave 18,
    // its part (9) is one poller, orders takes the 8 left
    for (const s of world.sums) expect(s.sum).toBeLessThanOrEqual(40);
    expect(grants(world)).toEqual({ [imports.names.scaler]: 30, [orders.names.scaler]: 10 });
    expect(await imports.applied()).toEqual({ reserved: 30, minimumPollers: 2, maximumPollers: 3 });
    expect(await world.effective(orders)).toBe(10);
    expect(await world.sum()).toBe(40);
  });
});
