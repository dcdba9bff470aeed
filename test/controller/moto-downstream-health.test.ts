import { type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { BudgetWorld, oneTickMember } from './support/budget-world.ts';
import { busy, CONTROLLER_ENV, growing, repeat } from './support/minutes.ts';
import { type MinuteOfMetrics, PERIOD, uniqueName, World } from './support/world.ts';

/**
 * The downstream's health signal against moto: the tick reads the user's metric in its one GetMetricData, and
 * past its threshold holds (`hold:downstream-saturated`) with the shed signal; below it the same queue grows.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

const NAMESPACE = 'Test/Downstream';
const METRIC = 'PoolWaits';
// More than 5 waits for a connection in a minute: the pool is saturated.
const THRESHOLD = 5;

/** The pool's waits as a health spec: unhealthy above THRESHOLD, under a dimension of its own. */
const healthSpec = (pool: string) => ({
  namespace: NAMESPACE,
  metricName: METRIC,
  dimensions: { Pool: pool },
  statistic: 'Maximum',
  periodSeconds: PERIOD,
  threshold: THRESHOLD,
  unhealthyWhen: 'above' as const,
});

/** A world whose controller reads the pool's waits (`DOWNSTREAM_HEALTH`), under a dimension no other test uses. */
async function worldWithHealth(
  extraEnv: Record<string, string> = {},
  reserved = 2,
): Promise<{ world: World; pool: string }> {
  const pool = uniqueName('pool');
  const env = {
    ...CONTROLLER_ENV,
    MAX_CONCURRENCY: '20',
    DOWNSTREAM_HEALTH: JSON.stringify(healthSpec(pool)),
    ...extraEnv,
  };
  return { world: await World.create(server, { env, reserved, mappingMax: reserved }), pool };
}

/** Seeds the pool's waits for the minutes before now, as World.seed does the queue's: `values[0]` the newest. */
async function seedHealth(world: World, pool: string, values: readonly number[]): Promise<void> {
  const newest = Math.floor(world.now / PERIOD) * PERIOD - PERIOD;
  const data: MetricDatum[] = values.map((Value, i) => ({
    MetricName: METRIC,
    Dimensions: [{ Name: 'Pool', Value: pool }],
    Timestamp: new Date((newest - i * PERIOD + 1) * 1000),
    Value,
    Unit: 'Count',
  }));
  await world.cloudwatch.send(new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: data }));
}

describe('the downstream health signal (DOWNSTREAM_HEALTH) against moto', () => {
  it('past its threshold the tick holds with hold:downstream-saturated, writes nothing and raises Saturated', async () => {
    // GIVEN a queue 5 minutes behind at the floor, and the pool's waits at 12 (threshold 5) for 3 minutes
    const { world, pool } = await worldWithHealth();
    await growing(world);
    await seedHealth(world, pool, [12, 9, 8]);
    // WHEN one tick runs
    const outcome = await world.tick();
    // THEN it holds at 2, writes nothing, and says why: the downstream is saturated, shed upstream
    expect(outcome.kind).toBe('decided');
    const { fields } = world.lastLog();
    expect(fields).toMatchObject({ reason: 'hold:downstream-saturated', desired: 2, saturated: true });
    expect((fields.inputs as Record<string, unknown>).downstreamHealth).toBe(12);
    expect(await world.applied()).toEqual({ reserved: 2, mapping: 2 });
    expect(world.calls.writes).toBe(0);
    // The health metric rode in the tick's one GetMetricData: no second request.
    expect(world.calls.commands.filter((c) => c === 'GetMetricDataCommand')).toHaveLength(1);
    // The Saturated flag the -saturated alarm reads went out with the tick's EMF.
    expect(world.relay.documents.at(-1)).toMatchObject({ Saturated: 1 });
  });

  it('below its threshold the same queue grows', async () => {
    // GIVEN the same queue, the pool's waits at 1 (threshold 5)
    const { world, pool } = await worldWithHealth();
    await growing(world);
    await seedHealth(world, pool, [1, 0, 2]);
    // WHEN one tick runs
    await world.tick();
    // THEN it grows to the Little's-law need, as without a health signal
    const { reason, desired } = world.lastLog().fields;
    expect(reason).toBe('grow:age-above-target');
    expect(desired).toBeGreaterThanOrEqual(12);
    expect(await world.applied()).toEqual({ reserved: desired, mapping: desired });
  });

  it('with no datapoint for the signal the tick grows: no datapoint is no evidence', async () => {
    const { world } = await worldWithHealth();
    await growing(world);
    await world.tick();
    expect(world.lastLog().fields.reason).toBe('grow:age-above-target');
  });

  it('between ticks nothing grows while the tick saw the downstream unhealthy, even on a surge', async () => {
    // GIVEN a quiet queue at the floor (1/s at 1 s, the head young) with the pool's waits at 12, samples on
    const quiet: MinuteOfMetrics = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };
    const { world, pool } = await worldWithHealth({ FAST_SAMPLE_SECONDS: '10', MAX_CONCURRENCY: '32' });
    await world.seed(repeat(10, quiet));
    await world.seedControllerHistory(2, 10);
    await seedHealth(world, pool, [12, 12, 12]);
    // WHEN 200 messages arrive before the first sample (moto-fast-path.test.ts: healthy, the first sample grows to 22)
    let sent = false;
    world.duringSleep = async () => {
      if (sent) return;
      sent = true;
      await world.sendMessages(200);
    };
    await world.tick();
    // THEN the tick held (not behind) and no sample grew
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    expect(world.fastLogs().filter((l) => l.message === 'fast path')).toHaveLength(0);
    expect(await world.applied()).toEqual({ reserved: 2, mapping: 2 });
  });
});

describe("a budget member's own health signal against moto", () => {
  it('the member whose signal is past its threshold holds; the other, as far behind, grows', async () => {
    // GIVEN a budget of 40 with two members at 2, both 5 minutes behind; orders' pool waits at 12 (threshold 5)
    const pool = uniqueName('pool');
    const world = await BudgetWorld.create(server, 40, [
      { ...oneTickMember(2), downstreamHealth: healthSpec(pool) },
      oneTickMember(2),
    ]);
    const [orders, billing] = world.members as [World, World];
    for (const m of world.members) {
      await m.seed([busy(300), ...repeat(9, busy(30))]);
      await m.sendMessages(30);
      await m.seedControllerHistory(2, 10);
    }
    await seedHealth(orders, pool, [12, 9, 8]);
    // WHEN the budget's controller ticks
    const run = await world.tick();
    // THEN orders holds at 2 with the shed signal, and billing grows
    const decision = (m: World) => {
      const outcome = run.members.get(m.names.scaler);
      if (outcome?.kind !== 'decided') throw new Error(`${m.names.scaler}: not decided`);
      return outcome.result.decision;
    };
    expect(decision(orders)).toMatchObject({
      reason: 'hold:downstream-saturated',
      desired: 2,
      saturated: true,
    });
    expect(decision(billing).reason).toBe('grow:age-above-target');
    expect(await world.effective(orders)).toBe(2);
    expect(await world.effective(billing)).toBeGreaterThan(2);
  });
});
