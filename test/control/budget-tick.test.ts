import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastGrowthLimit, runBudgetFastSample } from '../../lib/control/budget-fast.ts';
import { type BudgetTickMember, runBudgetTick } from '../../lib/control/budget-tick.ts';
import { resolveScalerConfig, type ScalerConfig } from '../../lib/control/config.ts';
import type { FastPathContext } from '../../lib/control/fast-path.ts';
import type { ActuatorCondition } from '../../lib/control/ports.ts';
import type { ControllerState } from '../../lib/control/snapshot.ts';
import {
  type ConsumerLimits,
  effectiveConcurrency,
  executionCeiling,
  outOfStep,
  overpulls,
  planWrites,
} from '../../lib/control/write-plan.ts';
import { type Load, NOW, OPTIONS, seriesOf } from './budget-load.ts';

/**
 * A lockstep (or provisioned: its config's actuator) consumer whose writes go through the shared write plan, one limit at a time, each of which can be
 * refused (the actuator's call failed): the limits before the refusal stay written, as in AWS.
 */
class FakeConsumer {
  limits: ConsumerLimits;
  /** Decides, per write, whether it is refused. */
  refuse: (target: 'reserved' | 'mapping', value: number) => boolean = () => false;
  readFails = false;
  /** The consumer's function timeout, as the actuator reads it (undefined: unknown). */
  timeoutSeconds: number | undefined = 30;
  state: ControllerState = { baselineItemSeconds: 0.02, baselineArrivalRate: 0 };
  writes = 0;

  constructor(
    readonly name: string,
    readonly config: ScalerConfig,
    applied: number | undefined,
    public load: Load,
  ) {
    this.limits = { reserved: applied, mapping: applied };
  }

  effective(): number | undefined {
    return effectiveConcurrency(this.config.actuator, this.limits);
  }

  member(weight?: number, lastKnown?: number): BudgetTickMember {
    const fail = () => {
      if (this.readFails) throw new Error(`${this.name}: read failed`);
    };
    return {
      name: this.name,
      config: this.config,
      weight,
      lastKnown,
      ports: {
        metrics: {
          read: async () => {
            fail();
            return seriesOf(this.load);
          },
        },
        queue: {
          depth: async () => ({ visible: this.load.visible ?? 0, inFlight: 0, delayed: 0 }),
        },
        concurrency: {
          applied: async () => this.effective(),
          ceiling: async () => executionCeiling(this.config.actuator, this.limits),
          condition: async (): Promise<ActuatorCondition> => {
            fail();
            const paused = this.limits.reserved === 0 ? 'reserved-zero' : undefined;
            return {
              ...(paused ? { paused } : {}),
              outOfStep: !paused && outOfStep(this.config.actuator, this.limits),
              overpull: overpulls(this.config.actuator, this.limits),
            };
          },
          functionTimeoutSeconds: async () => {
            fail();
            return this.timeoutSeconds;
          },
          apply: async (desired) => {
            for (const write of planWrites(
              this.config.actuator,
              this.limits,
              desired,
              this.config.maxConcurrency,
            )) {
              if (this.refuse(write.target, write.value)) throw new Error(`${this.name}: write refused`);
              this.writes++;
              this.limits = { ...this.limits, [write.target]: write.value };
            }
          },
        },
        state: {
          load: async () => this.state,
          save: async (s) => {
            this.state = s;
          },
        },
      },
    };
  }
}

const cfg = (settings: Parameters<typeof resolveScalerConfig>[0]) =>
  resolveScalerConfig({ fastSampleSeconds: 10, ...settings });

/** Orders is late (4 × its target), billing on target, email idle: each asks for what its own law gives. */
function threeMembers() {
  return [
    new FakeConsumer('orders', cfg({ minConcurrency: 5, maxConcurrency: 30 }), 10, {
      ageSeconds: 240,
      ratePerSecond: 900,
      itemSeconds: 0.02,
      visible: 216_000,
    }),
    new FakeConsumer('billing', cfg({ minConcurrency: 5, maxConcurrency: 30 }), 10, {
      ageSeconds: 60,
      ratePerSecond: 600,
      itemSeconds: 0.02,
      visible: 36_000,
    }),
    new FakeConsumer('email', cfg({ minConcurrency: 4, maxConcurrency: 16 }), 8, {
      ageSeconds: 0,
      ratePerSecond: 10,
      itemSeconds: 0.02,
    }),
  ];
}

/** Σ as the budget counts the members: their execution ceilings. */
const total = (consumers: readonly FakeConsumer[]) =>
  consumers.reduce((sum, c) => sum + (executionCeiling('lockstep', c.limits) ?? c.config.maxConcurrency), 0);

describe('runBudgetTick', () => {
  it('gives every member its own law when the demands fit', async () => {
    const consumers = threeMembers();
    const result = await runBudgetTick(
      200,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    for (const o of result.members) {
      expect(o.granted).toBe(o.demand);
      expect(o.reason === 'own-desired' || o.reason === 'floor').toBe(true);
    }
    const orders = result.members.find((o) => o.name === 'orders');
    expect(orders?.granted).toBeGreaterThan(10);
    expect(consumers[0]?.effective()).toBe(orders?.granted);
    expect(result.exhausted).toBe(false);
  });

  it('a member’s lowering the budget wrote binds at once; one refused waits for the pollers (depth-sample.ts)', async () => {
    // GIVEN email idle for ten minutes at 20, its pollers settled, a shrink due; THEN the saved sample is settled
    const idleEmail = () => {
      const email = new FakeConsumer('email', cfg({ minConcurrency: 2, maxConcurrency: 30 }), 20, {
        ageSeconds: 0,
        ratePerSecond: 10,
        itemSeconds: 0.02,
        visible: 0,
      });
      email.state = { ...email.state, idleSince: NOW - 600, lastChangeAt: NOW - 600 };
      return email;
    };
    const written = idleEmail();
    await runBudgetTick(100, [written.member()], NOW, OPTIONS);
    expect(written.effective()).toBeLessThan(20);
    expect(written.state.lastVisible).toMatchObject({ at: NOW, settled: true });
    // WHEN the same shrink's first write is refused, THEN nothing was lowered and the sample proves nothing settled
    const refused = idleEmail();
    refused.refuse = () => true;
    await runBudgetTick(100, [refused.member()], NOW, OPTIONS);
    expect(refused.effective()).toBe(20);
    expect(refused.state.lastVisible?.settled).toBeUndefined();
  });

  it('a member keeps the value the budget left it, not the one its law asked for (its next probe runs from there)', async () => {
    // GIVEN orders far behind at 10, its law asking far more than the budget of 15 grants
    const orders = new FakeConsumer('orders', cfg({ maxConcurrency: 60 }), 10, {
      ageSeconds: 300,
      ratePerSecond: 1_000,
      itemSeconds: 0.02,
      visible: 50_000,
    });
    const result = await runBudgetTick(15, [orders.member()], NOW, OPTIONS);
    const outcome = result.members[0];
    expect(outcome?.demand).toBeGreaterThan(orders.effective() as number);
    expect(orders.state.tickLeft).toEqual({ value: orders.effective(), at: NOW });
  });

  it('is exhausted for a provisioned member starved while what is left is less than a poller', async () => {
    // GIVEN budget 38: imports on provisioned mode (floor 20) 4 × behind its target and asking its cap, 60; email
    // idle in lockstep at its floor 2
    const imports = new FakeConsumer(
      'imports',
      cfg({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 60 }),
      20,
      {
        ageSeconds: 240,
        ratePerSecond: 2000,
        itemSeconds: 0.02,
        visible: 480_000,
      },
    );
    const email = new FakeConsumer('email', cfg({ minConcurrency: 2, maxConcurrency: 30 }), 2, {
      ageSeconds: 0,
      ratePerSecond: 1,
      itemSeconds: 0.02,
    });
    const result = await runBudgetTick(38, [imports.member(), email.member()], NOW, OPTIONS);
    // THEN imports gets one poller above its floor (its share of the pool of 16, 8, is one poller), no more: the 6
    // left are not a poller; the budget is not fully granted, and still exhausted for imports
    expect(result.members.map((o) => [o.name, o.granted])).toEqual([
      ['imports', 30],
      ['email', 2],
    ]);
    expect(result.grantedTotal).toBe(32);
    expect(result.starved).toEqual(['imports']);
    expect(result.exhausted).toBe(true);
    expect(imports.limits).toEqual({ reserved: 30, mapping: 30 });
  });

  it('in a shortfall, the member furthest behind gets the pool, and the budget holds after every write', async () => {
    const consumers = threeMembers();
    const seen: number[] = [];
    const result = await runBudgetTick(
      40,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
      { afterWrite: (counts) => seen.push([...counts.values()].reduce((a, b) => a + b, 0)) },
    );
    expect(result.members.map((o) => o.name)).toEqual(['orders', 'billing', 'email']);
    const [orders, billing, email] = result.members;
    expect(result.grantedTotal).toBe(40);
    expect(orders?.granted).toBeGreaterThan(billing?.granted ?? 0);
    expect(orders?.reason).toBe('shortfall-share');
    // email is idle but its own law still asks 8, within its share (its law shrinks it after its delay).
    expect(email?.granted).toBe(8);
    expect(orders?.starved).toBe(true);
    expect(result.exhausted).toBe(true);
    expect(result.starved).toContain('orders');
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s).toBeLessThanOrEqual(40);
    expect(total(consumers)).toBe(40);
  });

  it('a failed lowering blocks the raise that needed its units', async () => {
    const consumers = threeMembers();
    const [orders, billing, email] = consumers as [FakeConsumer, FakeConsumer, FakeConsumer];
    // Budget 40, all three at the budget already: orders can rise only on what billing and email give up.
    orders.limits = { reserved: 10, mapping: 10 };
    billing.limits = { reserved: 18, mapping: 18 };
    email.limits = { reserved: 12, mapping: 12 };
    billing.refuse = (target) => target === 'mapping';
    email.refuse = (target) => target === 'mapping';
    const result = await runBudgetTick(
      40,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(result.dropped).toContain('orders');
    expect(orders.effective()).toBe(10);
    expect(total(consumers)).toBe(40);
    expect(result.members.find((o) => o.name === 'billing')?.writeError).toBeDefined();
  });

  it('an unreadable member counts at its cap (or its last known value) and is never written', async () => {
    const consumers = threeMembers();
    const [orders, billing, email] = consumers as [FakeConsumer, FakeConsumer, FakeConsumer];
    billing.readFails = true;
    const atCap = await runBudgetTick(
      40,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(billing.writes).toBe(0);
    const b = atCap.members.find((o) => o.name === 'billing');
    expect(b?.reason).toBe('unreadable');
    expect(b?.counted).toBe(30);
    // 30 held leaves 10 for orders' and email's floors of 9: orders gets at most 40 − 30 − 4.
    expect(orders.effective()).toBeLessThanOrEqual(6);
    expect((orders.effective() ?? 0) + (email.effective() ?? 0) + 30).toBeLessThanOrEqual(40);

    const known = threeMembers();
    (known[1] as FakeConsumer).readFails = true;
    await runBudgetTick(
      40,
      known.map((c, i) => c.member(undefined, i === 1 ? 10 : undefined)),
      NOW,
      OPTIONS,
    );
    expect(known[0]?.effective()).toBeGreaterThan(6);
    expect((known[0]?.effective() ?? 0) + (known[2]?.effective() ?? 0) + 10).toBeLessThanOrEqual(40);
  });

  it('when the held counts leave no room for the floors, nothing is raised (rule 4)', async () => {
    const consumers = threeMembers();
    const [orders, billing, email] = consumers as [FakeConsumer, FakeConsumer, FakeConsumer];
    billing.readFails = true; // counted at its cap, 30
    orders.limits = { reserved: 6, mapping: 6 };
    email.limits = { reserved: 8, mapping: 8 };
    const result = await runBudgetTick(
      36,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(result.members.find((o) => o.name === 'orders')?.reason).toBe('lowered-only');
    expect(orders.effective()).toBe(6);
    // email's own law is at or below 8: never raised, maybe lowered.
    expect(email.effective()).toBeLessThanOrEqual(8);
    expect(result.exhausted).toBe(false);
  });

  it('a paused member is granted what its pause holds and never written; its hold still counts', async () => {
    const consumers = threeMembers();
    const [orders, billing] = consumers as [FakeConsumer, FakeConsumer];
    billing.limits = { reserved: 0, mapping: 20 };
    const result = await runBudgetTick(
      40,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(billing.limits).toEqual({ reserved: 0, mapping: 20 });
    expect(result.members.find((o) => o.name === 'billing')?.reason).toBe('paused');
    expect(orders.effective()).toBeLessThanOrEqual(40 - 0 - 4);
    expect(total(consumers)).toBeLessThanOrEqual(40);
  });

  it('repairs a member whose limits are out of step without raising what it counts', async () => {
    const consumers = threeMembers();
    const email = consumers[2] as FakeConsumer;
    // Reserved left above the mapping (a shrink's trailing reserved): effective 4, a repair lowers reserved.
    email.limits = { reserved: 8, mapping: 4 };
    email.load = { ...email.load };
    await runBudgetTick(
      200,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(email.limits.reserved).toBe(email.limits.mapping);
  });

  it('an overpull (the mapping above reserved) is repaired and reported as repaired', async () => {
    const consumers = threeMembers();
    const email = consumers[2] as FakeConsumer;
    email.limits = { reserved: 4, mapping: 8 };
    const result = await runBudgetTick(
      200,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    expect(overpulls('lockstep', email.limits)).toBe(false);
    expect(result.members.find((o) => o.name === 'email')?.repaired).toBe(true);
    expect(result.members.find((o) => o.name === 'orders')?.repaired).toBe(false);
  });

  it('Σ counted ≤ budget after every write, for any loads, failures and starts within the budget', async () => {
    const arbMember = fc.record({
      floor: fc.integer({ min: 2, max: 5 }),
      extra: fc.integer({ min: 0, max: 30 }),
      appliedFraction: fc.double({ min: 0, max: 1, noNaN: true }),
      // Late members with the depth behind their age press on the budget; idle ones give units back.
      age: fc.option(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1200 })), {
        nil: undefined,
        freq: 8,
      }),
      rate: fc.integer({ min: 0, max: 3000 }),
      refuseFraction: fc.constantFrom(0, 0, 0.3, 0.6, 1),
      readFails: fc.boolean(),
      paused: fc.boolean(),
      weight: fc.constantFrom(0.5, 1, 2),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbMember, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        async (specs, slack, seed) => {
          let draws = seed;
          const random = () => {
            draws = (draws * 1_103_515_245 + 12_345) % 2_147_483_648;
            return draws / 2_147_483_648;
          };
          const consumers = specs.map((s, i) => {
            const config = cfg({ minConcurrency: s.floor, maxConcurrency: s.floor + s.extra });
            const applied = Math.round(s.floor + s.appliedFraction * s.extra);
            const c = new FakeConsumer(`m${i}`, config, applied, {
              ageSeconds: s.age,
              ratePerSecond: s.rate,
              itemSeconds: 0.02,
              visible: (s.age ?? 0) * s.rate,
            });
            c.readFails = s.readFails && i > 0;
            if (s.paused && !c.readFails) c.limits = { reserved: 0, mapping: applied };
            c.refuse = () => random() < s.refuseFraction;
            return c;
          });
          // As the budget counts: the execution ceiling (lockstep: the larger limit), the cap when unreadable.
          const counted = (c: FakeConsumer) =>
            c.readFails
              ? c.config.maxConcurrency
              : (executionCeiling('lockstep', c.limits) ?? c.config.maxConcurrency);
          const start = consumers.reduce((sum, c) => sum + counted(c), 0);
          const budget = start + slack;
          let worst = start;
          // Any order of the members: the split and the write order must not depend on it.
          const order = consumers.map((c, i) => ({ c, i, key: random() })).sort((a, b) => a.key - b.key);
          await runBudgetTick(
            budget,
            order.map(({ c, i }) => c.member(specs[i]?.weight)),
            NOW,
            OPTIONS,
            {
              afterWrite: (counts) =>
                (worst = Math.max(
                  worst,
                  [...counts.values()].reduce((a, b) => a + b),
                )),
            },
          );
          expect(worst).toBeLessThanOrEqual(budget);
          expect(consumers.reduce((sum, c) => sum + counted(c), 0)).toBeLessThanOrEqual(budget);
          for (const c of consumers) {
            if (c.limits.reserved === 0) continue;
            const e = c.effective();
            if (e !== undefined && !c.readFails) expect(e).toBeLessThanOrEqual(c.config.maxConcurrency);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Budget 40 fully held (orders 10, billing 18, email 12), one tick run: billing lowered, its reserved trailing. */
async function tickAtFullBudget() {
  const consumers = threeMembers();
  const [orders, billing, email] = consumers as [FakeConsumer, FakeConsumer, FakeConsumer];
  orders.limits = { reserved: 10, mapping: 10 };
  billing.limits = { reserved: 18, mapping: 18 };
  email.limits = { reserved: 12, mapping: 12 };
  const tick = await runBudgetTick(
    40,
    consumers.map((c) => c.member()),
    NOW,
    OPTIONS,
  );
  return { consumers, orders, billing, email, tick };
}

/** One fast sample of billing alone after `tickAtFullBudget`, at NOW + 50 (at its release time). */
async function sampleBilling({ billing, tick }: Awaited<ReturnType<typeof tickAtFullBudget>>) {
  const b = tick.members.find((x) => x.name === 'billing');
  return runBudgetFastSample(
    40,
    [
      {
        name: 'billing',
        ports: billing.member().ports,
        config: billing.config,
        context: b?.fastContext as FastPathContext,
        releaseAt: b?.releaseAt,
        share: b?.share,
      },
    ],
    new Map(tick.members.map((x) => [x.name, x.appliedAfter])),
    NOW + 50,
  );
}

describe('runBudgetFastSample', () => {
  it('grows a member only within what the budget leaves free', async () => {
    const consumers = threeMembers();
    const tick = await runBudgetTick(
      60,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    // A surge on billing after the tick: its depth jumps.
    const billing = consumers[1] as FakeConsumer;
    billing.load = { ...billing.load, visible: 200_000 };
    const counts = new Map(tick.members.map((o) => [o.name, o.appliedAfter]));
    const members = tick.members.flatMap((o) => {
      const c = consumers.find((x) => x.name === o.name) as FakeConsumer;
      const m = c.member();
      return o.fastContext
        ? [{ name: o.name, ports: m.ports, config: c.config, context: o.fastContext }]
        : [];
    });
    const free = 60 - [...counts.values()].reduce((a, b) => a + b, 0);
    const before = billing.effective() ?? 0;
    const sample = await runBudgetFastSample(60, members, counts, NOW + 10);
    expect([...sample.counts.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60);
    expect((billing.effective() ?? 0) - before).toBeLessThanOrEqual(free);
    expect(total(consumers)).toBeLessThanOrEqual(60);
  });

  it('a shrink frees its units only once they are known free: reserved trails, then the deferred raise runs', async () => {
    // GIVEN budget 40 fully held: orders 10 (4 × its target behind), billing 18, email 12
    const { consumers, orders, billing, tick } = await tickAtFullBudget();
    // THEN billing's mapping comes down and its reserved trails (the invocations its old maximum started still
    // run): its units are not free, so orders' raise is deferred, not dropped, and nothing passes 40
    const b = tick.members.find((o) => o.name === 'billing');
    const o = tick.members.find((x) => x.name === 'orders');
    expect(billing.limits.mapping).toBeLessThan(18);
    expect(billing.limits.reserved).toBe(18);
    expect(tick.deferred).toContain('orders');
    expect(tick.dropped).toEqual([]);
    expect(o?.deferredTo).toBe(o?.granted);
    expect(total(consumers)).toBeLessThanOrEqual(40);
    // The release time: the long poll (20 s) and the consumer's timeout (30 s), the longest an invocation runs.
    expect(b?.releaseAt).toBe(NOW + 20 + 30);
    const fastMembers = (at: readonly (typeof tick.members)[number][]) =>
      at.flatMap((x) => {
        const c = consumers.find((k) => k.name === x.name) as FakeConsumer;
        return x.fastContext
          ? [
              {
                name: x.name,
                ports: c.member().ports,
                config: c.config,
                context: x.fastContext,
                releaseAt: x.releaseAt,
                deferredTo: x.deferredTo,
                share: x.share,
              },
            ]
          : [];
      });
    const counts = new Map(tick.members.map((x) => [x.name, x.appliedAfter]));
    // WHEN a sample comes before the release time: nothing is released, orders is not raised
    const early = await runBudgetFastSample(40, fastMembers(tick.members), counts, NOW + 10);
    expect(early.released.size).toBe(0);
    expect(early.raised.size).toBe(0);
    expect(billing.limits.reserved).toBe(18);
    // WHEN one comes after it: billing's reserved comes down to its mapping, and orders gets its grant
    const late = await runBudgetFastSample(40, fastMembers(tick.members), early.counts, NOW + 50);
    expect([...late.released]).toEqual(['billing']);
    expect(billing.limits.reserved).toBe(billing.limits.mapping);
    expect(late.raised.get('orders')).toBe(o?.granted);
    expect(orders.effective()).toBe(o?.granted);
    expect(total(consumers)).toBeLessThanOrEqual(40);
  });

  it('a heavy-tailed consumer’s units are released after its function timeout, not after twice its mean invocation', async () => {
    // GIVEN billing's invocations take 1 s on average (100 items of 10 ms a batch) but may run to its 30 s timeout
    const heavy = async (timeoutSeconds: number | undefined) => {
      const consumers = threeMembers();
      const [orders, billing, email] = consumers as [FakeConsumer, FakeConsumer, FakeConsumer];
      orders.limits = { reserved: 10, mapping: 10 };
      billing.limits = { reserved: 18, mapping: 18 };
      email.limits = { reserved: 12, mapping: 12 };
      billing.load = { ...billing.load, itemSeconds: 0.1 };
      billing.timeoutSeconds = timeoutSeconds;
      const tick = await runBudgetTick(
        40,
        consumers.map((c) => c.member()),
        NOW,
        OPTIONS,
      );
      const b = tick.members.find((o) => o.name === 'billing');
      expect(billing.limits.reserved).toBeGreaterThan(billing.limits.mapping ?? 0);
      return b?.releaseAt;
    };
    // THEN its freed units are known free only once an invocation started under the old maximum has ended
    expect(await heavy(30)).toBe(NOW + 20 + 30);
    // and with its timeout unknown, not before the next tick (no release between ticks), whatever its mean
    expect(await heavy(undefined)).toBeUndefined();
  });

  it('no release over limits someone changed since the tick (an operator’s hand edit is left alone)', async () => {
    const world = await tickAtFullBudget();
    // An operator sets billing's mapping back to 16 by hand after the tick
    world.billing.limits = { reserved: 18, mapping: 16 };
    const sample = await sampleBilling(world);
    expect(sample.released.size).toBe(0);
    expect(world.billing.limits.reserved).toBe(18);
  });

  it('no release over reserved concurrency someone raised since the tick', async () => {
    const world = await tickAtFullBudget();
    // An operator raises billing's reserved concurrency to 25 by hand; the mapping is as the tick left it
    world.billing.limits = { reserved: 25, mapping: world.billing.limits.mapping };
    const sample = await sampleBilling(world);
    expect(sample.released.size).toBe(0);
    expect(world.billing.limits.reserved).toBe(25);
  });

  it('a repair rewrites a member at its grant, not at the lower of its limits', async () => {
    const consumers = threeMembers();
    const email = consumers[2] as FakeConsumer;
    // email's reserved trails its mapping (a shrink not yet released): it counts 8, its grant is 8
    email.limits = { reserved: 8, mapping: 4 };
    const result = await runBudgetTick(
      200,
      consumers.map((c) => c.member()),
      NOW,
      OPTIONS,
    );
    const e = result.members.find((o) => o.name === 'email');
    expect(email.effective()).toBe(e?.granted);
    expect(executionCeiling('lockstep', email.limits)).toBe(e?.granted);
  });

  it('fastGrowthLimit holds the others’ unused shares: a member grows into its own and into what no share holds', () => {
    const c = cfg({ minConcurrency: 2, maxConcurrency: 30 });
    const counts = new Map([
      ['a', 5],
      ['b', 10],
      ['c', 2],
    ]);
    // Free 23; b's share 13 holds 3 more for it, c's 11 more: a may take 9 of the 23.
    const shares = new Map([
      ['a', 13],
      ['b', 13],
      ['c', 13],
    ]);
    expect(fastGrowthLimit(40, counts, 'a', c, shares)).toBe(14);
    // Without shares (a lone scaler's limit), all 23.
    expect(fastGrowthLimit(40, counts, 'a', c)).toBe(28);
  });

  it('fastGrowthLimit: the cap, or the count plus what is free; nothing free is no growth, even below the floor', () => {
    const c = cfg({ minConcurrency: 3, maxConcurrency: 20 });
    expect(
      fastGrowthLimit(
        40,
        new Map([
          ['a', 5],
          ['b', 30],
        ]),
        'a',
        c,
      ),
    ).toBe(10);
    expect(
      fastGrowthLimit(
        100,
        new Map([
          ['a', 5],
          ['b', 30],
        ]),
        'a',
        c,
      ),
    ).toBe(20);
    expect(
      fastGrowthLimit(
        30,
        new Map([
          ['a', 2],
          ['b', 30],
        ]),
        'a',
        c,
      ),
    ).toBe(2);
  });

  it('fastGrowthLimit on provisioned mode: whole pollers within what is free, never a poller rounded up past it', () => {
    const c = cfg({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 60 });
    const counts = (own: number) =>
      new Map([
        ['p', own],
        ['b', 13],
      ]);
    // Free 27 above 20: 47 rounds down to 40 (a fifth poller would make 50, past the budget's 60).
    expect(fastGrowthLimit(60, counts(20), 'p', c)).toBe(40);
    // Free 7: not a poller's worth, no growth.
    expect(fastGrowthLimit(40, counts(20), 'p', c)).toBe(20);
    // Its applied value left between two levels by a hand edit: held there, not lowered.
    expect(fastGrowthLimit(40, counts(25), 'p', c, new Map(), 25)).toBe(25);
  });
});
