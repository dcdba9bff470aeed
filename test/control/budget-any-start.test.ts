import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BudgetTickMember, runBudgetTick } from '../../lib/control/budget-tick.ts';
import { type ActuatorMode, resolveScalerConfig, type ScalerConfig } from '../../lib/control/config.ts';
import type { ActuatorCondition } from '../../lib/control/ports.ts';
import type { ControllerState } from '../../lib/control/snapshot.ts';
import {
  assertWritable,
  type ConsumerLimits,
  effectiveConcurrency,
  executionCeiling,
  outOfStep,
  overpulls,
  planWrites,
} from '../../lib/control/write-plan.ts';
import { type Load, NOW, OPTIONS, seriesOf } from './budget-load.ts';

/**
 * A shared budget's writes from any starting state (issue 27, rows 4 and 5): counts and applied limits over or
 * under the budget, limits out of step, members paused in the reserved or the lockstep mode, members added or
 * removed between ticks. Each consumer's writes go through the shared write plan one limit at a time, and a
 * monitor sees every single one.
 */

/** Every single limit write, with the members' limits just before and just after it. */
type Watch = (consumer: Consumer, limits: { before: ConsumerLimits; after: ConsumerLimits }) => void;

/**
 * A consumer in the reserved or the lockstep mode, read and written as the Lambda's actuator does: reserved 0 or
 * a disabled mapping is a pause; a paused lockstep member reads as applied at its mapping's maximum.
 */
class Consumer {
  disabled = false;
  readFails = false;
  refuse: () => boolean = () => false;
  state: ControllerState = { baselineItemSeconds: 0.02, baselineArrivalRate: 0 };
  watch: Watch = () => {};
  /** Writes the Lambda's actuator would refuse to send (`assertWritable`): off a provisioned member's pollers, say. */
  readonly unsafe: string[] = [];

  constructor(
    readonly name: string,
    readonly mode: ActuatorMode,
    readonly config: ScalerConfig,
    public limits: ConsumerLimits,
    readonly load: Load,
  ) {}

  /** As the budget counts it: its execution ceiling, its cap when nothing bounds it. */
  count(): number {
    return executionCeiling(this.mode, this.limits) ?? this.config.maxConcurrency;
  }

  paused(): boolean {
    return this.limits.reserved === 0 || this.disabled;
  }

  /** docs/deploy.md, "Pausing and resuming": reserved back at the floor, then the mapping enabled. */
  resume(): void {
    if (this.limits.reserved === 0) this.limits = { ...this.limits, reserved: this.config.minConcurrency };
    this.disabled = false;
  }

  member(): BudgetTickMember {
    const fail = () => {
      if (this.readFails) throw new Error(`${this.name}: read failed`);
    };
    const applied = async () => {
      fail();
      if (this.limits.reserved === 0) return this.mode === 'reserved' ? 0 : this.limits.mapping;
      return effectiveConcurrency(this.mode, this.limits);
    };
    return {
      name: this.name,
      config: this.config,
      ports: {
        metrics: {
          read: async () => {
            fail();
            return seriesOf(this.load);
          },
        },
        queue: {
          depth: async () => ({
            visible: (this.load.ageSeconds ?? 0) * this.load.ratePerSecond,
            inFlight: 0,
            delayed: 0,
          }),
        },
        concurrency: {
          applied,
          ceiling: async () => {
            fail();
            return executionCeiling(this.mode, this.limits);
          },
          condition: async (): Promise<ActuatorCondition> => {
            fail();
            const paused =
              this.limits.reserved === 0 ? 'reserved-zero' : this.disabled ? 'mapping-disabled' : undefined;
            return {
              ...(paused ? { paused } : {}),
              outOfStep: !paused && outOfStep(this.mode, this.limits),
              overpull: overpulls(this.mode, this.limits),
            };
          },
          functionTimeoutSeconds: async () => {
            fail();
            return 30;
          },
          apply: async (desired) => {
            for (const write of planWrites(this.mode, this.limits, desired, this.config.maxConcurrency)) {
              try {
                assertWritable(write, this.config.maxConcurrency, this.mode);
              } catch (error) {
                this.unsafe.push(`${this.name}: ${(error as Error).message}`);
                throw error;
              }
              if (this.refuse()) throw new Error(`${this.name}: write refused`);
              const before = this.limits;
              this.limits = { ...this.limits, [write.target]: write.value };
              this.watch(this, { before, after: this.limits });
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

/** What it runs under: 0 while paused, its applied limit (its cap when nothing bounds it). */
const appliedOf = (c: Consumer) => (c.paused() ? 0 : (effectiveConcurrency(c.mode, c.limits) ?? c.count()));

const unbounded = (v: number | undefined) => v ?? Number.POSITIVE_INFINITY;

/** A limit rose: a raise of what the consumer may run, whatever its count did. */
function raised(before: ConsumerLimits, after: ConsumerLimits): boolean {
  return (
    unbounded(after.reserved) > unbounded(before.reserved) ||
    unbounded(after.mapping) > unbounded(before.mapping)
  );
}

const arbLimit = (floor: number, cap: number) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: fc.integer({ min: floor, max: cap + 4 }) },
  );

/** Provisioned mode's levels: whole pollers of 10 from 20; its mapping's bound is always whole pollers. */
const POLLER = 10;

const arbMember = fc
  .record({
    mode: fc.constantFrom<ActuatorMode>('lockstep', 'reserved', 'provisioned'),
    floor: fc.integer({ min: 2, max: 5 }),
    extra: fc.integer({ min: 0, max: 20 }),
    age: fc.option(fc.integer({ min: 0, max: 1200 }), { nil: undefined, freq: 8 }),
    rate: fc.integer({ min: 0, max: 3000 }),
    pause: fc.constantFrom('none', 'none', 'none', 'reserved-zero', 'mapping-disabled'),
    unreadable: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    refuseFraction: fc.constantFrom(0, 0, 0, 0.3, 1),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  })
  // A provisioned member's floor and cap are whole pollers (its floor 20 or 30, up to 3 pollers above it).
  .map((m) =>
    m.mode === 'provisioned'
      ? { ...m, floor: POLLER * Math.min(m.floor, 3), extra: POLLER * (m.extra % 4) }
      : m,
  )
  .chain((m) =>
    fc.record({
      spec: fc.constant(m),
      reserved: arbLimit(m.floor, m.floor + m.extra),
      // Its MaximumPollers: whole pollers, whatever a hand edit did to reserved.
      mapping: arbLimit(m.floor, m.floor + m.extra).map((v) =>
        v === undefined || m.mode !== 'provisioned'
          ? v
          : Math.max(POLLER * 2, Math.floor(v / POLLER) * POLLER),
      ),
    }),
  );

type MemberArb = typeof arbMember extends fc.Arbitrary<infer T> ? T : never;

function consumerOf({ spec, reserved, mapping }: MemberArb, name: string): Consumer {
  const config = resolveScalerConfig({
    minConcurrency: spec.floor,
    maxConcurrency: spec.floor + spec.extra,
    actuator: spec.mode,
  });
  const limits: ConsumerLimits =
    spec.mode === 'reserved'
      ? { reserved: spec.pause === 'reserved-zero' ? 0 : reserved, mapping: undefined }
      : { reserved: spec.pause === 'reserved-zero' ? 0 : reserved, mapping };
  const c = new Consumer(name, spec.mode, config, limits, {
    ageSeconds: spec.age,
    ratePerSecond: spec.rate,
    itemSeconds: 0.02,
  });
  c.disabled = spec.pause === 'mapping-disabled';
  // An unreadable member is counted at its cap: what it really holds must not be more (its limits within it).
  c.readFails = spec.unreadable && !c.paused() && c.count() <= config.maxConcurrency;
  let draws = spec.seed;
  c.refuse = () => {
    draws = (draws * 1_103_515_245 + 12_345) % 2_147_483_648;
    return draws / 2_147_483_648 < spec.refuseFraction;
  };
  return c;
}

/**
 * One budget tick over `members`, every single write watched: while Σ counted is over the budget a write may only
 * lower limits; a write that raises one leaves Σ counted and Σ applied within it. Σ counted bounds Σ applied (each
 * member's applied limit is at most its execution ceiling).
 */
async function tickWatched(budget: number, members: readonly Consumer[]) {
  const faults: string[] = [];
  const sum = () => members.reduce((s, c) => s + c.count(), 0);
  const applied = () => members.reduce((s, c) => s + appliedOf(c), 0);
  for (const c of members) {
    c.watch = (w, { before, after }) => {
      const now = sum();
      const was =
        now -
        (executionCeiling(w.mode, after) ?? w.config.maxConcurrency) +
        (executionCeiling(w.mode, before) ?? w.config.maxConcurrency);
      const appliedNow = applied();
      if (was > budget && raised(before, after))
        faults.push(
          `${w.name}: ${JSON.stringify(before)} → ${JSON.stringify(after)} raised a limit at Σ ${was} > ${budget}`,
        );
      // A lowering can lift the count a little within one member's writes (lockstep: reserved unset, then set to
      // trail the mapping's old maximum) and still bounds every execution lower: only a raise must keep within.
      if (raised(before, after) && now > budget)
        faults.push(`${w.name}: a raise left Σ counted ${now} > ${budget}`);
      if (raised(before, after) && appliedNow > budget)
        faults.push(`${w.name}: a raise left Σ applied ${appliedNow} > ${budget}`);
    };
  }
  // The budget holds every hold (a pause at least at its floor, an unreadable member at its cap) and the others'
  // floors: the split runs.
  const holds = members.reduce(
    (s, c) =>
      s +
      (c.paused()
        ? Math.max(c.count(), c.config.minConcurrency)
        : c.readFails
          ? c.count()
          : c.config.minConcurrency),
    0,
  );
  const result = await runBudgetTick(
    budget,
    members.map((c) => c.member()),
    NOW,
    OPTIONS,
  );
  // The split ran and every write landed: what the tick held back for the pauses is still free.
  const clean =
    holds <= budget &&
    result.members.every(
      (o) => o.writeError === undefined && o.reason !== 'lowered-only' && o.reason !== 'unreadable',
    );
  for (const c of members) faults.push(...c.unsafe.splice(0));
  return { faults, clean };
}

describe('a shared budget from any starting state', () => {
  it('after every single write Σ applied ≤ budget, or the tick writes only lowerings until it is; a documented resume keeps it (provisioned members among them, written on whole pollers)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbMember, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: -25, max: 10 }),
        fc.option(arbMember, { nil: undefined }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: -10, max: 10 }),
        async (specs, slack, added, removed, slack2) => {
          const consumers = specs.map((s, i) => consumerOf(s, `m${i}`));
          const start = consumers.reduce((s, c) => s + c.count(), 0);
          const budget = Math.max(0, start + slack);
          expect((await tickWatched(budget, consumers)).faults).toEqual([]);
          // A redeploy: one member removed, one added at whatever limits it has, the budget changed.
          const next = consumers.filter((_, i) => specs.length === 1 || i !== removed % specs.length);
          if (added) next.push(consumerOf(added, 'added'));
          for (const c of next) c.readFails = false;
          const budget2 = Math.max(0, budget + slack2);
          const second = await tickWatched(budget2, next);
          expect(second.faults).toEqual([]);
          // A tick whose split ran and whose writes landed holds back what the documented resume of each pause
          // takes: resumed, Σ applied stays within (a shrink's trailing reserved is counted until its release,
          // but the mapping bounds what it runs from the write on).
          if (second.clean) {
            for (const c of next) c.resume();
            expect(next.reduce((s, c) => s + appliedOf(c), 0)).toBeLessThanOrEqual(budget2);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

const make = (
  name: string,
  mode: ActuatorMode,
  floor: number,
  cap: number,
  limits: ConsumerLimits,
  load: Load,
) =>
  new Consumer(
    name,
    mode,
    resolveScalerConfig({ minConcurrency: floor, maxConcurrency: cap, actuator: mode }),
    limits,
    load,
  );
const IDLE: Load = { ratePerSecond: 0, itemSeconds: 0.02 };

describe('a shared budget’s tick over the budget (examples)', () => {
  it('a repair that would raise the limit a member runs under waits while the sum is over the budget', async () => {
    // GIVEN budget 3 and counts of 5: 'steady' at 2, 'late' overpulling (mapping 3 over reserved 2: it counts 3
    // and runs 2), the held counts too high for the split (rule 4: nothing may rise)
    const steady = make('steady', 'lockstep', 2, 12, { reserved: 2, mapping: 2 }, IDLE);
    const late = make(
      'late',
      'lockstep',
      2,
      17,
      { reserved: 2, mapping: 3 },
      {
        ageSeconds: 31,
        ratePerSecond: 242,
        itemSeconds: 0.02,
      },
    );
    // WHEN the tick repairs the overpull
    const { faults } = await tickWatched(3, [steady, late]);
    // THEN it brings the mapping down to reserved, not reserved up to the mapping (which raised Σ applied 4 → 5)
    expect(faults).toEqual([]);
    expect(late.limits).toEqual({ reserved: 2, mapping: 2 });
  });

  it('a paused reserved-mode member holds back its floor: the documented resume keeps the budget', async () => {
    // GIVEN budget 12: 'paused' (reserved mode, floor 2) throttled to 0 by an operator; two late members ask more
    const paused = make('paused', 'reserved', 2, 10, { reserved: 0, mapping: undefined }, IDLE);
    const late = (name: string) =>
      make(
        name,
        'reserved',
        2,
        20,
        { reserved: 2, mapping: undefined },
        {
          ageSeconds: 600,
          ratePerSecond: 2000,
          itemSeconds: 0.02,
        },
      );
    const [a, b] = [late('a'), late('b')];
    const { faults } = await tickWatched(12, [paused, a, b]);
    expect(faults).toEqual([]);
    // THEN the others take 12 − 2 between them, never the paused member's floor
    expect(a.count() + b.count()).toBe(10);
    // WHEN the operator resumes it as docs/deploy.md says (reserved concurrency back at its floor)
    paused.resume();
    // THEN the sum is within the budget before any tick has seen the resume
    expect(a.count() + b.count() + paused.count()).toBeLessThanOrEqual(12);
  });

  it('a paused lockstep member holds back the larger of its mapping and its floor', async () => {
    // GIVEN budget 12: 'paused' (lockstep, floor 4) at reserved 0 over a mapping of 2; two late members
    const paused = make('paused', 'lockstep', 4, 10, { reserved: 0, mapping: 2 }, IDLE);
    const late = (name: string) =>
      make(
        name,
        'lockstep',
        2,
        20,
        { reserved: 2, mapping: 2 },
        { ageSeconds: 600, ratePerSecond: 2000, itemSeconds: 0.02 },
      );
    const [a, b] = [late('a'), late('b')];
    expect((await tickWatched(12, [paused, a, b])).faults).toEqual([]);
    expect(a.count() + b.count()).toBe(8);
    paused.resume();
    expect(a.count() + b.count() + paused.count()).toBeLessThanOrEqual(12);
  });
});
