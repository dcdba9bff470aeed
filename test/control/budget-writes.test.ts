import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateBudget, BudgetError } from '../../lib/control/budget-allocation.ts';
import {
  afterFailedLowering,
  type BudgetWrite,
  type MemberLimit,
  planBudgetWrites,
} from '../../lib/control/budget-writes.ts';

type Grant = { readonly name: string; readonly granted: number };

const steps = (plan: readonly BudgetWrite[]) => plan.map((s) => [s.name, s.kind, s.from, s.to, s.needs]);

/**
 * Runs a plan as the actuator would: in order, each lowering in `fails` failing (its member stays at its count),
 * each raise in `fails` failing too (nothing to undo). Returns the running Σ counted after each step.
 */
function execute(
  budget: number,
  current: readonly MemberLimit[],
  grants: readonly Grant[],
  fails: ReadonlySet<string>,
) {
  const counts = new Map(current.map((m) => [m.name, m.applied ?? m.cap]));
  const sum = () => [...counts.values()].reduce((s, v) => s + v, 0);
  const trace: { step: BudgetWrite; ok: boolean; sum: number }[] = [];
  let pending = planBudgetWrites(budget, current, grants);
  while (pending.length > 0) {
    const [step, ...rest] = pending as [BudgetWrite, ...BudgetWrite[]];
    const ok = !fails.has(step.name);
    if (ok) counts.set(step.name, step.to);
    trace.push({ step, ok, sum: sum() });
    pending = !ok && step.kind === 'lower' ? afterFailedLowering(rest, step.name) : rest;
  }
  return { trace, start: current.reduce((s, m) => s + (m.applied ?? m.cap), 0), counts };
}

describe('the order of a budget’s writes', () => {
  it.each([
    {
      comment: 'a raise the free headroom covers needs no lowering, and still runs after every lowering',
      budget: 40,
      current: [
        { name: 'a', applied: 10, cap: 32 },
        { name: 'b', applied: 20, cap: 32 },
      ],
      grants: [
        { name: 'a', granted: 18 },
        { name: 'b', granted: 18 },
      ],
      plan: [
        ['b', 'lower', 20, 18, []],
        ['a', 'raise', 10, 18, []],
      ],
    },
    {
      comment: 'a raise beyond the free headroom needs the lowering whose units it uses',
      budget: 40,
      current: [
        { name: 'orders', applied: 30, cap: 32 },
        { name: 'billing', applied: 8, cap: 32 },
      ],
      grants: [
        { name: 'orders', granted: 26 },
        { name: 'billing', granted: 14 },
      ],
      plan: [
        ['orders', 'lower', 30, 26, []],
        ['billing', 'raise', 8, 14, ['orders']],
      ],
    },
    {
      comment: 'the largest lowering first; each raise needs only the lowerings it draws on',
      budget: 20,
      current: [
        { name: 'a', applied: 8, cap: 10 },
        { name: 'b', applied: 6, cap: 10 },
        { name: 'c', applied: 2, cap: 10 },
        { name: 'd', applied: 4, cap: 10 },
      ],
      grants: [
        { name: 'c', granted: 6 },
        { name: 'd', granted: 7 },
        { name: 'a', granted: 4 },
        { name: 'b', granted: 3 },
      ],
      plan: [
        ['a', 'lower', 8, 4, []],
        ['b', 'lower', 6, 3, []],
        ['c', 'raise', 2, 6, ['a']],
        ['d', 'raise', 4, 7, ['b']],
      ],
    },
    {
      comment: 'an unreadable member counts at its cap: the raise needs its lowering',
      budget: 20,
      current: [
        { name: 'dark', cap: 10 },
        { name: 'b', applied: 4, cap: 16 },
      ],
      grants: [
        { name: 'dark', granted: 6 },
        { name: 'b', granted: 14 },
      ],
      plan: [
        ['dark', 'lower', 10, 6, []],
        ['b', 'raise', 4, 14, ['dark']],
      ],
    },
    {
      comment:
        'an unreadable member granted its cap is still written: a change of 0 that makes the count true',
      budget: 20,
      current: [
        { name: 'dark', cap: 10 },
        { name: 'b', applied: 4, cap: 16 },
      ],
      grants: [
        { name: 'dark', granted: 10 },
        { name: 'b', granted: 4 },
      ],
      plan: [['dark', 'raise', 10, 10, []]],
    },
    {
      comment: 'the worked example: 8 over; every raise needs the pay-back, billing also email',
      budget: 40,
      current: [
        { name: 'orders', applied: 30, cap: 32 },
        { name: 'billing', applied: 8, cap: 32 },
        { name: 'email', applied: 6, cap: 16 },
        { name: 'payments', cap: 4 },
      ],
      grants: [
        { name: 'orders', granted: 22 },
        { name: 'billing', granted: 12 },
        { name: 'email', granted: 2 },
        { name: 'payments', granted: 4 },
      ],
      plan: [
        ['orders', 'lower', 30, 22, []],
        ['email', 'lower', 6, 2, []],
        ['billing', 'raise', 8, 12, ['orders', 'email']],
        ['payments', 'raise', 4, 4, ['orders']],
      ],
    },
  ])('$comment', ({ budget, current, grants, plan }) => {
    expect(steps(planBudgetWrites(budget, current, grants))).toEqual(plan);
  });

  const worked = {
    budget: 40,
    current: [
      { name: 'orders', applied: 30, cap: 32 },
      { name: 'billing', applied: 8, cap: 32 },
      { name: 'email', applied: 6, cap: 16 },
      { name: 'payments', cap: 4 },
    ],
    grants: [
      { name: 'orders', granted: 22 },
      { name: 'billing', granted: 12 },
      { name: 'email', granted: 2 },
      { name: 'payments', granted: 4 },
    ],
  };
  const ran = (fails: string[]) =>
    execute(worked.budget, worked.current, worked.grants, new Set(fails))
      .trace.filter((t) => t.ok)
      .map((t) => t.step.name);

  it('a failed lowering drops the raises that needed it, and only those', () => {
    expect(ran([])).toEqual(['orders', 'email', 'billing', 'payments']);
    expect(ran(['email'])).toEqual(['orders', 'payments']);
  });

  it('a failed pay-back lowering blocks every raise: the start was over the budget and still is', () => {
    const { trace } = execute(worked.budget, worked.current, worked.grants, new Set(['orders']));
    expect(trace.map((t) => [t.step.name, t.ok, t.sum])).toEqual([
      ['orders', false, 48],
      ['email', true, 44],
    ]);
  });
});

describe('invalid plans are refused, every problem at once', () => {
  it.each([
    {
      comment: 'grants above the budget',
      grants: [
        { name: 'a', granted: 8 },
        { name: 'b', granted: 8 },
      ],
      message: /the grants sum to 16, above the budget 12/,
    },
    {
      comment: 'a grant above its cap',
      grants: [
        { name: 'a', granted: 11 },
        { name: 'b', granted: 1 },
      ],
      message: /a.granted = 11: must be an integer in \[1; 10\]/,
    },
    {
      comment: 'a grant for no member, and a member without a grant',
      grants: [
        { name: 'a', granted: 2 },
        { name: 'z', granted: 2 },
      ],
      message: /z: granted but has no current limit; b: has a current limit but no grant/,
    },
  ])('$comment', ({ grants, message }) => {
    const current = [
      { name: 'a', applied: 4, cap: 10 },
      { name: 'b', applied: 4, cap: 10 },
    ];
    expect(() => planBudgetWrites(12, current, grants)).toThrow(message);
    expect(() => planBudgetWrites(12, current, grants)).toThrow(BudgetError);
  });
});

// A start anywhere (over the budget, above a cap by a hand edit, unreadable) and grants that fit the budget.
// Half the starts are the grants rotated one member along, and half the budgets exactly the grants' sum: units
// move between members with no free headroom, so every raise must find each unit it uses in a lowering.
const arbPlan = fc
  .uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 6 })
  .chain((names) =>
    fc.record({
      names: fc.constant(names),
      members: fc.tuple(
        ...names.map(() =>
          fc.record({
            cap: fc.integer({ min: 1, max: 20 }),
            applied: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined, freq: 4 }),
            share: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
        ),
      ),
      rotate: fc.boolean(),
      exact: fc.boolean(),
      slack: fc.integer({ min: 0, max: 12 }),
      // One failing write is the common case; any subset is the general one.
      fails: fc.oneof(
        fc.constantFrom(...names).map((n) => [n]),
        fc.subarray(names),
      ),
    }),
  )
  .chain(({ names, members, rotate, exact, slack, fails }) => {
    const grants = members.map((m, i) => ({
      name: names[i] ?? '',
      granted: 1 + Math.floor(m.share * (m.cap - 1)),
    }));
    const current = members.map((m, i) => ({
      name: names[i] ?? '',
      cap: m.cap,
      applied: rotate ? grants[(i + 1) % grants.length]?.granted : m.applied,
    }));
    const total = grants.reduce((s, g) => s + g.granted, 0);
    return fc.record({
      budget: fc.constant(exact ? total : total + slack),
      current: fc.constant(current),
      grants: fc.shuffledSubarray(grants, { minLength: grants.length }),
      fails: fc.constant(new Set(fails)),
    });
  });

describe('budget write invariants', () => {
  const RUNS = { numRuns: 400 };

  it('every raise leaves Σ counted ≤ budget, and a lowering never raises it, whichever lowerings fail', () => {
    fc.assert(
      fc.property(arbPlan, ({ budget, current, grants, fails }) => {
        const lowerings = planBudgetWrites(budget, current, grants)
          .filter((s) => s.kind === 'lower')
          .map((s) => s.name);
        // Every subset of the lowerings failing (at most 2⁶), with the drawn raises failing too.
        for (let subset = 0; subset < 2 ** lowerings.length; subset++) {
          const failedRaises = [...fails].filter((name) => !lowerings.includes(name));
          const failing = new Set([...failedRaises, ...lowerings.filter((_, k) => subset & (1 << k))]);
          const { trace, start } = execute(budget, current, grants, failing);
          let previous = start;
          for (const { step, sum } of trace) {
            if (step.kind === 'raise') expect(sum).toBeLessThanOrEqual(budget);
            else expect(sum).toBeLessThanOrEqual(previous);
            // A start within the budget stays within at every prefix.
            if (start <= budget) expect(sum).toBeLessThanOrEqual(budget);
            previous = sum;
          }
        }
      }),
      RUNS,
    );
  });

  it('lowerings first; with nothing failing every member ends at its grant, within the budget', () => {
    fc.assert(
      fc.property(arbPlan, ({ budget, current, grants }) => {
        const plan = planBudgetWrites(budget, current, grants);
        const firstRaise = plan.findIndex((s) => s.kind === 'raise');
        if (firstRaise >= 0) expect(plan.slice(firstRaise).every((s) => s.kind === 'raise')).toBe(true);
        const { counts } = execute(budget, current, grants, new Set());
        for (const g of grants) expect(counts.get(g.name)).toBe(g.granted);
        expect([...counts.values()].reduce((s, v) => s + v, 0)).toBeLessThanOrEqual(budget);
      }),
      RUNS,
    );
  });

  it('after a failed lowering, no raise that needed it runs, and every raise whose lowerings landed does', () => {
    fc.assert(
      fc.property(arbPlan, ({ budget, current, grants, fails }) => {
        const plan = planBudgetWrites(budget, current, grants);
        const failedLowerings = new Set(
          plan.filter((s) => s.kind === 'lower' && fails.has(s.name)).map((s) => s.name),
        );
        const attempted = new Set(
          execute(budget, current, grants, fails)
            .trace.filter((t) => t.step.kind === 'raise')
            .map((t) => t.step.name),
        );
        for (const raise of plan.filter((s) => s.kind === 'raise')) {
          const blocked = raise.needs.some((n) => failedLowerings.has(n));
          expect(attempted.has(raise.name)).toBe(!blocked);
        }
      }),
      RUNS,
    );
  });
});

describe("an operator's pause, end to end", () => {
  it('a paused member granted what it holds gets no write, and its held value is counted', () => {
    // GIVEN budget 20; 'paused' holds 5 under a disabled mapping, 'late' runs 10 and wants 30
    const grants = allocateBudget(20, [
      { name: 'paused', desired: 12, floor: 2, cap: 32, ageSeconds: 6000, targetSeconds: 60, pausedAt: 5 },
      { name: 'late', desired: 30, floor: 2, cap: 32, ageSeconds: 240, targetSeconds: 60 },
    ]);
    // WHEN the writes are planned
    const plan = planBudgetWrites(
      20,
      [
        { name: 'paused', applied: 5, cap: 32 },
        { name: 'late', applied: 10, cap: 32 },
      ],
      grants,
    );
    // THEN nothing is written to the paused member; the late one is raised to what the pause leaves
    expect(plan.map((w) => `${w.name} ${w.from}→${w.to}`)).toEqual(['late 10→15']);
  });

  it('from a start over the budget, a repair that raises what a member runs under waits for the pay-back', () => {
    // GIVEN budget 20, counted 22 but running 14: 'a' counts 12 (reserved trailing) and runs 4 (its mapping),
    // granted 12; 'b' runs 10, granted 8. Rewriting 'a' at 12 raises its mapping 4 → 12 (Σ applied 14 → 22).
    const plan = planBudgetWrites(
      20,
      [
        { name: 'a', applied: 12, runs: 4, cap: 32 },
        { name: 'b', applied: 10, cap: 32 },
      ],
      [
        { name: 'a', granted: 12 },
        { name: 'b', granted: 8 },
      ],
    );
    // THEN b's lowering first, and a's rewrite is a raise of 0 units that needs it (Σ applied 14 → 12 → 20)
    expect(steps(plan)).toEqual([
      ['b', 'lower', 10, 8, []],
      ['a', 'raise', 12, 12, ['b']],
    ]);
  });

  it('from a start over the budget, a lowering by count that raises what a member runs under is split', () => {
    // GIVEN budget 13, counted 16 but running 13: 'c' counts 8 and runs 5 (reserved 8 over a mapping of 5),
    // granted 6: its one write would lower reserved 8 → 6 and raise the mapping 5 → 6 (Σ applied 13 → 14)
    const plan = planBudgetWrites(
      13,
      [
        { name: 'c', applied: 8, runs: 5, cap: 32 },
        { name: 'd', applied: 8, cap: 32 },
      ],
      [
        { name: 'c', granted: 6 },
        { name: 'd', granted: 7 },
      ],
    );
    // THEN only lowerings until the sum is within (c to what it runs, 5; d to 7), then c's raise 5 → 6, which
    // needs its own lowering and the pay-back
    expect(steps(plan)).toEqual([
      ['c', 'lower', 8, 5, []],
      ['d', 'lower', 8, 7, []],
      ['c', 'raise', 5, 6, ['c', 'd']],
    ]);
    // From a start within the budget the one write is kept: the sum of counts never passes the budget.
    const within = planBudgetWrites(
      16,
      [
        { name: 'c', applied: 8, runs: 5, cap: 32 },
        { name: 'd', applied: 8, cap: 32 },
      ],
      [
        { name: 'c', granted: 6 },
        { name: 'd', granted: 7 },
      ],
    );
    expect(steps(within)).toEqual([
      ['c', 'lower', 8, 6, []],
      ['d', 'lower', 8, 7, []],
    ]);
  });
});
