import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateBudget, BudgetError, type BudgetMember } from '../../lib/control/budget-allocation.ts';

/**
 * A budget whose members move in different steps: provisioned mode's whole pollers (10 invocations) beside the
 * lockstep actuator's single workers (budget-allocation.ts, rule 6).
 */

const member = (name: string, over: Partial<BudgetMember> = {}): BudgetMember => ({
  name,
  desired: 10,
  floor: 2,
  cap: 60,
  ageSeconds: 60,
  targetSeconds: 60,
  ...over,
});

const poller = (name: string, over: Partial<BudgetMember> = {}) =>
  member(name, { floor: 20, step: 10, desired: 20, ...over });

const granted = (budget: number, members: readonly BudgetMember[]) =>
  Object.fromEntries(allocateBudget(budget, members).map((g) => [g.name, g.granted]));

describe('a budget mixing steps', () => {
  it('a provisioned member is granted whole pollers; the units a poller cannot use go to a single-step member', () => {
    // GIVEN budget 45: provisioned (floor 20, desired 40, most late) beside lockstep (floor 2, desired 30)
    const grants = granted(45, [
      poller('provisioned', { desired: 40, ageSeconds: 600 }),
      member('lockstep', { desired: 30, ageSeconds: 120 }),
    ]);
    // THEN the pool of 23: the poller's part, 11.5, is one poller (10); lockstep shares the 13 left: 30 and 15, Σ 45
    expect(grants).toEqual({ provisioned: 30, lockstep: 15 });
  });

  it('a provisioned member’s share is its part in the nearest whole pollers: a part of 9 is one poller, not none', () => {
    // GIVEN budget 40: provisioned (floor 20, desired 30) and lockstep (floor 2, desired 14), both behind
    const grants = granted(40, [
      poller('provisioned', { desired: 30, ageSeconds: 600 }),
      member('lockstep', { desired: 14, ageSeconds: 300 }),
    ]);
    // THEN the pool of 18 is shared 10 | 8, not 0 | 9 (a share rounded down to no poller would leave the member
    // most behind at its floor while the other takes all it asks)
    expect(grants).toEqual({ provisioned: 30, lockstep: 10 });
    // AND where two pollers' parts do not both fit, the least late gives its step back
    expect(
      granted(38, [
        poller('a', { floor: 10, desired: 40, ageSeconds: 900 }),
        poller('b', { floor: 10, desired: 40, ageSeconds: 600 }),
      ]),
    ).toEqual({ a: 20, b: 10 });
  });

  it('a desired between two levels asks for the higher; a cap between two, the lower', () => {
    expect(granted(100, [poller('p', { desired: 31, cap: 60 })])).toEqual({ p: 40 });
    expect(granted(100, [poller('p', { desired: 80, cap: 55 })])).toEqual({ p: 50 });
  });

  it('a floor off its levels is refused, named', () => {
    expect(() => allocateBudget(40, [poller('p', { floor: 25 })])).toThrow(BudgetError);
    expect(() => allocateBudget(40, [poller('p', { floor: 25 })])).toThrow(
      /p\.floor = 25: must be a multiple of its step, 10/,
    );
    expect(() => allocateBudget(40, [poller('p', { step: 0 })])).toThrow(
      /p\.step = 0: must be an integer ≥ 1/,
    );
  });

  it('a step that no longer fits leaves the rest to whoever can use it, and none of it is lost', () => {
    // GIVEN budget 30: a provisioned member at floor 10 (step 10, most late), a lockstep one behind and one idle
    const grants = granted(30, [
      poller('a', { floor: 10, desired: 40, ageSeconds: 900 }),
      member('c', { floor: 1, desired: 40, ageSeconds: 60 }),
      member('d', { floor: 1, desired: 1, ageSeconds: 0 }),
    ]);
    // THEN the pool of 18: a's part of 6 is one poller (10); c and d share the 8 left, 4 each; d uses none, and its 4
    // (no poller's step fits them) go to c, not held back: a 20, c 9, d 1, Σ 30
    expect(grants).toEqual({ a: 20, c: 9, d: 1 });
  });
});

// Members with a step of 1 or 10, their floors on their levels; budgets just above the floors' sum.
const arbMember = (name: string) =>
  fc
    .record({
      step: fc.constantFrom(1, 10),
      floorSteps: fc.integer({ min: 1, max: 3 }),
      room: fc.integer({ min: 0, max: 40 }),
      desired: fc.integer({ min: 0, max: 70 }),
      ageSeconds: fc.option(fc.constantFrom(0, 30, 60, 120, 600), { nil: undefined }),
      targetSeconds: fc.constantFrom(30, 60),
      weight: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
    })
    .map(({ step, floorSteps, room, ...m }): BudgetMember => {
      const floor = floorSteps * step;
      return { name, ...m, step, floor, cap: floor + room };
    });

const arbBudget = fc
  .integer({ min: 1, max: 5 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbMember(`m${i}`))))
  .chain((members) => {
    const floors = members.reduce((s, m) => s + m.floor, 0);
    return fc.record({
      members: fc.shuffledSubarray(members, { minLength: members.length }),
      budget: fc.integer({ min: floors, max: floors + 80 }),
    });
  });

const stepOf = (m: BudgetMember) => m.step ?? 1;
/** The member's demand on its levels: the desired rounded up to a level, within the cap's highest level. */
function demandOf(m: BudgetMember): number {
  const step = stepOf(m);
  const top = m.floor + Math.floor((m.cap - m.floor) / step) * step;
  return Math.min(top, Math.max(m.floor, m.floor + Math.ceil((m.desired - m.floor) / step) * step));
}
const rankOf = (m: BudgetMember) =>
  m.ageSeconds === undefined ? -Infinity : ((m.weight ?? 1) * m.ageSeconds) / m.targetSeconds;

describe('allocation invariants with steps', () => {
  const RUNS = { numRuns: 600 };

  it('Σ granted ≤ the budget, and what is left is less than the step of every member still short', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const grants = granted(budget, members);
        const left = budget - members.reduce((s, m) => s + (grants[m.name] ?? 0), 0);
        expect(left).toBeGreaterThanOrEqual(0);
        for (const m of members) {
          if ((grants[m.name] ?? 0) < demandOf(m)) expect(left).toBeLessThan(stepOf(m));
        }
      }),
      RUNS,
    );
  });

  it('every grant is its floor plus whole steps, within [floor, its demand]', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const grants = granted(budget, members);
        for (const m of members) {
          const g = grants[m.name] ?? Number.NaN;
          expect((g - m.floor) % stepOf(m)).toBe(0);
          expect(g).toBeGreaterThanOrEqual(m.floor);
          expect(g).toBeLessThanOrEqual(demandOf(m));
          expect(g).toBeLessThanOrEqual(m.cap);
        }
      }),
      RUNS,
    );
  });

  it('every member gets at least its share in whole steps, where its demand asks for it', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const all = allocateBudget(budget, members);
        for (const g of all) {
          const m = members.find((x) => x.name === g.name) as BudgetMember;
          expect((g.share - m.floor) % stepOf(m)).toBe(0);
          expect(g.granted).toBeGreaterThanOrEqual(Math.min(demandOf(m), g.share));
        }
        expect(all.reduce((s, g) => s + g.share, 0)).toBeLessThanOrEqual(budget);
      }),
      RUNS,
    );
  });

  it('order: a less-late member beyond its share passes a later one still short only with units that one could not take', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const all = allocateBudget(budget, members);
        const grants = Object.fromEntries(all.map((g) => [g.name, g]));
        const left = budget - all.reduce((s, g) => s + g.granted, 0);
        for (const i of members) {
          for (const j of members) {
            const gi = grants[i.name];
            const gj = grants[j.name];
            if (gi === undefined || gj === undefined) continue;
            const [extraI, extraJ] = [demandOf(i) - i.floor, demandOf(j) - j.floor];
            const [metI, metJ] = [gi.granted - i.floor, gj.granted - j.floor];
            const beyondShare = gj.granted > Math.min(demandOf(j), gj.share);
            if (beyondShare && rankOf(j) < rankOf(i) && metI < extraI && metJ * extraI > metI * extraJ) {
              // j's last step was placed when i's step did not fit what was left then.
              expect(left + stepOf(j)).toBeLessThan(stepOf(i));
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('with every step 1, the same grants as before steps existed (step 1 given or left out)', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        const unit = members.map((m) => ({ ...m, step: 1 }));
        const left = unit.map(({ step: _, ...m }) => m);
        expect(allocateBudget(budget, unit)).toEqual(allocateBudget(budget, left));
      }),
      RUNS,
    );
  });

  it('deterministic, whatever the order the members arrive in', () => {
    fc.assert(
      fc.property(arbBudget, ({ budget, members }) => {
        expect(allocateBudget(budget, [...members].reverse())).toEqual(allocateBudget(budget, members));
      }),
      RUNS,
    );
  });
});
