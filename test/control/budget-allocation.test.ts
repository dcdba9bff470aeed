import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateBudget, BudgetError, type BudgetMember } from '../../lib/control/budget-allocation.ts';

/** A member at target 60 s with floor 2 and cap 32, unless changed. */
const member = (name: string, over: Partial<BudgetMember> = {}): BudgetMember => ({
  name,
  desired: 10,
  floor: 2,
  cap: 32,
  ageSeconds: 60,
  targetSeconds: 60,
  ...over,
});

const granted = (budget: number, members: readonly BudgetMember[]) =>
  Object.fromEntries(allocateBudget(budget, members).map((g) => [g.name, g.granted]));

describe('the allocation rule', () => {
  it.each([
    {
      comment: 'the demands fit: each member gets its own desired value, the rest of the budget stays unused',
      budget: 40,
      members: [member('a', { desired: 12, ageSeconds: 600 }), member('b', { desired: 8, ageSeconds: 0 })],
      expected: { a: 12, b: 8 },
    },
    {
      comment:
        'floors, then shares: an idle member keeps what its own law still asks, up to its share, until the law shrinks it',
      budget: 10,
      members: [
        member('late', { desired: 20, ageSeconds: 600 }),
        member('idle', { desired: 6, floor: 4, ageSeconds: 0 }),
      ],
      // Floors 2 + 4 leave a pool of 4: a share of 2 each; idle asks 2 above its floor, late 18.
      expected: { late: 4, idle: 6 },
    },
    {
      comment: 'an idle member asking less than its share leaves the rest to the late one',
      budget: 20,
      members: [
        member('late', { desired: 20, ageSeconds: 600 }),
        member('idle', { desired: 3, ageSeconds: 0 }),
      ],
      // Pool 16, shares 8: idle takes 1 of its 8, late its 8 and the 7 left.
      expected: { late: 17, idle: 3 },
    },
    {
      comment:
        'the shortfall goes by age ÷ target: the same age is four times later against a target a quarter as long',
      budget: 30,
      members: [
        member('short-target', { desired: 22, ageSeconds: 60, targetSeconds: 15 }),
        member('long-target', { desired: 22, ageSeconds: 60, targetSeconds: 60 }),
        member('quiet', { desired: 2, ageSeconds: 0 }),
      ],
      // Floors 6, pool 24, shares 8: quiet takes none of its; the two late ones have 8 each, 8 left over for
      // extras of 20 at lateness 4 and 1: pressure 4 × (20 − m)/20 = 1 × (20 − 8)/20 first at m = 17, then the
      // rest side by side, the order guard keeping long-target's fraction at most short-target's: 18 + 10 ahead.
      expected: { 'short-target': 2 + 16, 'long-target': 2 + 8, quiet: 2 },
    },
    {
      comment:
        'weight scales the share and the lateness: weight 2 at the same age and target gets twice the share',
      budget: 22,
      members: [member('heavy', { desired: 22, weight: 2 }), member('plain', { desired: 22 })],
      // Pool 18 by weight 2 : 1: 12 and 6.
      expected: { heavy: 2 + 12, plain: 2 + 6 },
    },
    {
      comment: 'never above its own desired: the latest member stops at 6, the rest of the pool goes on',
      budget: 30,
      members: [
        member('latest', { desired: 6, ageSeconds: 6000 }),
        member('later', { desired: 40, ageSeconds: 120 }),
      ],
      expected: { latest: 6, later: 24 },
    },
    {
      comment:
        'an unknown age keeps its share and ranks last for the rest: what is left goes to the late member first',
      budget: 30,
      members: [
        member('unknown', { desired: 20, ageSeconds: undefined }),
        member('idle', { desired: 8, ageSeconds: 0 }),
        member('late', { desired: 16, ageSeconds: 120 }),
      ],
      // Floors 6, pool 24, shares 8: late 8, idle 6 (all it asks), unknown 8; the 2 left go to late.
      expected: { late: 12, idle: 8, unknown: 10 },
    },
    {
      comment:
        'a value that cannot be an age (NaN, negative) is unknown, not zero: it ranks below an idle member',
      budget: 13,
      members: [
        member('nan', { desired: 10, ageSeconds: Number.NaN }),
        member('idle', { desired: 10, ageSeconds: 0 }),
      ],
      // Pool 9, shares 4 each; the odd unit goes to idle (lateness 0 ranks above unknown).
      expected: { idle: 7, nan: 6 },
    },
    {
      comment:
        'order guard: a unit never lifts a less-late member above the fraction met of one further behind',
      // Shares of a pool of 2 are 0 at weight 0.1 against 1. Pressure alone would give the second unit to
      // `small` (1.0 × 1/1 against 1.1 × 9/10 = 0.99): lateness 0.1 × 600 ÷ 60 = 1 and 66 ÷ 60 = 1.1.
      budget: 4,
      members: [
        member('small', { desired: 2, floor: 1, ageSeconds: 600, weight: 0.1 }),
        member('large', { desired: 11, floor: 1, ageSeconds: 66 }),
      ],
      expected: { small: 1, large: 3 },
    },
    {
      comment: 'equal lateness and extras: the odd unit goes by name, whatever order the members arrive in',
      budget: 9,
      members: [member('b', { desired: 10 }), member('a', { desired: 10 })],
      expected: { a: 5, b: 4 },
    },
    {
      comment: 'a desired below the floor gets the floor; one above the cap gets the cap',
      budget: 40,
      members: [member('low', { desired: 1, floor: 3 }), member('high', { desired: 50, cap: 20 })],
      expected: { low: 3, high: 20 },
    },
  ])('$comment', ({ budget, members, expected }) => {
    expect(granted(budget, members)).toEqual(expected);
  });

  it('the worked example: budget 40 split 19 / 13 / 8 by shares, then lateness 4, 2 and 0', () => {
    const grants = allocateBudget(40, [
      member('email', { desired: 8, floor: 4, cap: 16, ageSeconds: 0 }),
      member('billing', { desired: 21, floor: 5, ageSeconds: 60, targetSeconds: 30 }),
      member('orders', { desired: 29, floor: 5, ageSeconds: 240 }),
    ]);
    // Most behind first: the order the write planner raises them in.
    // Floors 14, pool 26, shares 8: orders 8, billing 8, email 4 (all its law asks); the 6 left go to orders,
    // whose pressure 4 × (24 − 8)/24 stays above billing's 2 × (16 − 8)/16 = 1 for all six.
    expect(grants).toEqual([
      { name: 'orders', granted: 19, share: 13, reason: 'shortfall-share', lateness: 4 },
      { name: 'billing', granted: 13, share: 13, reason: 'share', lateness: 2 },
      { name: 'email', granted: 8, share: 12, reason: 'own-desired', lateness: 0 },
    ]);
  });

  it('a member whose desired fell frees its units to the others in the same call', () => {
    const late = member('late', { desired: 30, ageSeconds: 300 });
    // 30 + 20 > 40: above the floors of 2, shares of 18 each. The cooling member (lateness 0.5) asks exactly its
    // floor and share, 20, and keeps them: the late one (lateness 5) cannot take a member's share from it.
    expect(granted(40, [late, member('cooling', { desired: 20, ageSeconds: 30 })])).toEqual({
      late: 20,
      cooling: 20,
    });
    // Its law shrank it to 10: the share it held goes back at once, the late member gets its own.
    expect(granted(40, [late, member('cooling', { desired: 10, ageSeconds: 30 })])).toEqual({
      late: 30,
      cooling: 10,
    });
  });

  it.each([
    { comment: 'a member fully served', budget: 40, m: member('a', { desired: 8 }), reason: 'own-desired' },
    {
      comment: 'a member held at its floor',
      budget: 3,
      m: member('a', { desired: 8, floor: 3 }),
      reason: 'floor',
    },
    { comment: 'a member at its share', budget: 5, m: member('a', { desired: 8 }), reason: 'share' },
  ])('reason: $comment', ({ budget, m, reason }) => {
    expect(allocateBudget(budget, [m])[0]?.reason).toBe(reason);
  });
});

describe('invalid input is refused, every problem at once', () => {
  it('a budget below the sum of the floors names the members and the figures', () => {
    const members = [
      member('orders', { floor: 20 }),
      member('billing', { floor: 15 }),
      member('email', { floor: 10 }),
    ];
    expect(() => allocateBudget(40, members)).toThrow(
      /budget 40 is below the sum of the floors, 45 \(orders 20, billing 15, email 10\)/,
    );
    expect(() => allocateBudget(40, members)).toThrow(BudgetError);
  });

  it.each([
    {
      comment: 'a fractional budget',
      budget: 40.5,
      members: [member('a')],
      message: /budget = 40.5: must be an integer ≥ 0/,
    },
    {
      comment: 'a floor of 0',
      budget: 40,
      members: [member('a', { floor: 0 })],
      message: /a.floor = 0: must be an integer ≥ 1/,
    },
    {
      comment: 'a cap under the floor',
      budget: 40,
      members: [member('a', { floor: 5, cap: 4 })],
      message: /a.cap = 4: must be an integer ≥ its floor \(5\)/,
    },
    {
      comment: 'a fractional desired value',
      budget: 40,
      members: [member('a', { desired: 2.5 })],
      message: /a.desired = 2.5/,
    },
    {
      comment: 'a target of 0',
      budget: 40,
      members: [member('a', { targetSeconds: 0 })],
      message: /a.targetSeconds = 0: must be a number > 0/,
    },
    {
      comment: 'a negative weight',
      budget: 40,
      members: [member('a', { weight: -1 })],
      message: /a.weight = -1: must be a number > 0/,
    },
    {
      comment: 'a name twice',
      budget: 40,
      members: [member('a'), member('a')],
      message: /a: the name appears twice/,
    },
  ])('$comment', ({ budget, members, message }) => {
    expect(() => allocateBudget(budget, members)).toThrow(message);
  });

  it('collects every problem before throwing', () => {
    const error = (() => {
      try {
        allocateBudget(1, [member('a', { floor: 0 }), member('b', { weight: 0 }), member('c', { floor: 3 })]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(BudgetError);
    expect((error as BudgetError).problems).toHaveLength(3);
  });
});

// Few names, small figures and ages drawn from a few values, so that ties and equal lateness are common.
const arbMember = (name: string) =>
  fc
    .record({
      floor: fc.integer({ min: 1, max: 5 }),
      room: fc.integer({ min: 0, max: 30 }),
      desired: fc.integer({ min: 0, max: 40 }),
      ageSeconds: fc.option(
        fc.oneof(fc.constantFrom(0, 30, 60, 120), fc.double({ min: 0, max: 900, noNaN: true })),
        {
          nil: undefined,
        },
      ),
      targetSeconds: fc.constantFrom(15, 30, 60, 90),
      weight: fc.option(fc.constantFrom(0.5, 1, 2, 3), { nil: undefined }),
    })
    .map(({ room, ...m }): BudgetMember => ({ name, ...m, cap: m.floor + room }));

const arbBudget = fc
  .integer({ min: 1, max: 6 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbMember(`m${i}`))))
  .chain((members) => {
    const floors = members.reduce((s, m) => s + m.floor, 0);
    return fc.record({
      members: fc.shuffledSubarray(members, { minLength: members.length }),
      budget: fc.integer({ min: floors, max: floors + 100 }),
    });
  });

const demandOf = (m: BudgetMember) => Math.min(m.cap, Math.max(m.floor, m.desired));
/** A member's share of the pool above the floors, by weight (the pool the allocation splits first). */
function shareOf(m: BudgetMember, budget: number, members: readonly BudgetMember[]): number {
  const pool = budget - members.reduce((sum, x) => sum + (x.pausedAt ?? x.floor), 0);
  const weights = members
    .filter((x) => x.pausedAt === undefined)
    .reduce((sum, x) => sum + (x.weight ?? 1), 0);
  return Math.floor((pool * (m.weight ?? 1)) / weights + 1e-9);
}

const rankOf = (m: BudgetMember) =>
  m.ageSeconds === undefined ? -Infinity : ((m.weight ?? 1) * m.ageSeconds) / m.targetSeconds;

describe('allocation invariants', () => {
  const RUNS = { numRuns: 400 };

  it('Σ granted never exceeds the budget, and is min(budget, Σ demand): the pool is never held back', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const total = allocateBudget(budget, members).reduce((s, g) => s + g.granted, 0);
        expect(total).toBeLessThanOrEqual(budget);
        expect(total).toBe(
          Math.min(
            budget,
            members.reduce((s, m) => s + demandOf(m), 0),
          ),
        );
      }),
      RUNS,
    );
  });

  it('every grant is an integer in [floor, min(cap, max(desired, floor))]', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const grants = granted(budget, members);
        for (const m of members) {
          const g = grants[m.name] ?? Number.NaN;
          expect(Number.isInteger(g)).toBe(true);
          expect(g).toBeGreaterThanOrEqual(m.floor);
          expect(g).toBeLessThanOrEqual(Math.min(m.cap, Math.max(m.desired, m.floor)));
        }
      }),
      RUNS,
    );
  });

  it('every member gets at least its share: min(its demand, floor + its weight’s part of the pool above the floors)', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const grants = granted(budget, members);
        for (const m of members) {
          expect(grants[m.name]).toBeGreaterThanOrEqual(
            Math.min(demandOf(m), m.floor + shareOf(m, budget, members)),
          );
        }
      }),
      RUNS,
    );
  });

  it('order: beyond its share, a less-late member never has a larger fraction of its extra met than a later one still short', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const grants = granted(budget, members);
        for (const i of members) {
          for (const j of members) {
            const extraI = demandOf(i) - i.floor;
            const extraJ = demandOf(j) - j.floor;
            const metI = (grants[i.name] ?? 0) - i.floor;
            const metJ = (grants[j.name] ?? 0) - j.floor;
            const beyondShare = metJ > Math.min(extraJ, shareOf(j, budget, members));
            if (beyondShare && rankOf(j) < rankOf(i) && metI < extraI) {
              // metJ / extraJ ≤ metI / extraI, cross-multiplied to stay in integers.
              expect(metJ * extraI).toBeLessThanOrEqual(metI * extraJ);
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('deterministic, whatever the order the members arrive in', () => {
    fc.assert(
      fc.property(arbBudget, fc.integer(), ({ budget, members }, seed) => {
        const reversed = [...members].reverse();
        const rotated = members.map((_, k) => members[(k + Math.abs(seed)) % members.length] as BudgetMember);
        expect(allocateBudget(budget, reversed)).toEqual(allocateBudget(budget, members));
        expect(allocateBudget(budget, rotated)).toEqual(allocateBudget(budget, members));
      }),
      RUNS,
    );
  });

  it('a member whose desired falls never lowers another member’s grant: its units return to the pool', () => {
    fc.assert(
      fc.property(arbBudget, fc.nat(), fc.integer({ min: 1, max: 40 }), ({ budget, members }, pick, fall) => {
        const k = pick % members.length;
        const fallen = members.map((m, i) =>
          i === k ? { ...m, desired: Math.max(0, m.desired - fall) } : m,
        );
        const before = granted(budget, members);
        const after = granted(budget, fallen);
        for (const [i, m] of members.entries()) {
          if (i !== k) expect(after[m.name]).toBeGreaterThanOrEqual(before[m.name] ?? 0);
        }
      }),
      RUNS,
    );
  });
});

describe("an operator's pause in a budget", () => {
  it('a paused member is granted what it holds, takes no floor and no share, and what it holds still counts', () => {
    // GIVEN budget 20: a paused member holding 5 under a disabled mapping, and a late member wanting 30
    const grants = allocateBudget(20, [
      member('paused', { pausedAt: 5, desired: 12, ageSeconds: 6000 }),
      member('late', { desired: 30, ageSeconds: 240 }),
    ]);
    // THEN the pause is left as it is (no write lands on it), and the late member gets the rest: 20 − 5
    expect(grants.find((g) => g.name === 'paused')).toMatchObject({ granted: 5, reason: 'paused' });
    expect(grants.find((g) => g.name === 'late')).toMatchObject({ granted: 15, reason: 'share' });
  });

  it('reserved 0 is a pause at 0: its floor is not held for it', () => {
    expect(granted(10, [member('stopped', { pausedAt: 0 }), member('busy', { desired: 10 })])).toEqual({
      stopped: 0,
      busy: 10,
    });
  });

  it('what the pauses hold and the floors must fit the budget', () => {
    expect(() => allocateBudget(6, [member('paused', { pausedAt: 5 }), member('b')])).toThrow(
      /below the sum of the floors, 7 \(paused 5 \(paused\), b 2\)/,
    );
  });

  it('a desired at or below its floor is granted the floor, and says so', () => {
    expect(allocateBudget(40, [member('quiet', { desired: 1 })])[0]).toMatchObject({
      granted: 2,
      reason: 'floor',
    });
  });
});
