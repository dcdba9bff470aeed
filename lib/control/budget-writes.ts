import { BudgetError } from './budget-allocation.ts';

/**
 * The order in which a shared budget's grants are written, so that Σ applied ≤ budget holds at every instant,
 * not only once every write has landed. Pure: the actuator sends the steps, the simulator could apply them.
 *
 * - A member's count is its applied limit, or its cap when it cannot be read: the cap is the most this
 *   controller ever writes to it (only a hand edit above the cap would be undercounted, and the law's
 *   `shrink:above-cap` corrects that once it can read it).
 * - Lowering writes go first, the largest first (so a start over the budget is back within in the fewest
 *   writes), ties by name. Raising writes follow, in the grants' order (`allocateBudget` lists the members
 *   furthest behind first, so they use the free headroom first).
 * - Each raise records the lowerings it needs: the headroom it uses is taken first from what the budget leaves
 *   free before any write, then from the lowerings' freed units in their order, each unit used by one raise only.
 *   A start over the budget must first be paid back: every raise then also needs the lowerings that pay it, so
 *   nothing is raised until the sum is within.
 * - A lowering that fails leaves its member at its count: `afterFailedLowering` drops the raises that needed it.
 *   Every other raise still fits, because it used only the free headroom and units of lowerings that landed.
 *
 * Worked example: budget 40; orders applied 30 → granted 22, billing 8 → 12, email 6 → 2, payments unreadable
 * (counted at its cap, 4) → 4. Counted 48: 8 over. Lowerings: orders −8 (sum 40), then email −4 (36); orders'
 * 8 units pay the excess, email's 4 are free. Raises: billing +4 uses email's 4 and needs orders (the pay-back)
 * and email (40); payments is written at 4, a change of 0 that needs orders only (still 40). If email's lowering
 * fails, billing's raise is dropped, payments' write still runs, and the sum stays 40. If orders' fails, no
 * write that could raise runs: the sum, 44 after email's lowering, is still over.
 */

/** A member's limit now; `applied` undefined: it could not be read. */
export interface MemberLimit {
  readonly name: string;
  /** What it counts for: its execution ceiling (lockstep: the larger of its two limits). */
  readonly applied?: number;
  readonly cap: number;
  /**
   * The limit it runs under, where lower than `applied` (lockstep: reserved trailing the mapping, or the mapping
   * above reserved). Writing it to any value above this raises a limit even when its count falls, so such a write
   * waits for the pay-back like a raise. @default `applied`
   */
  readonly runs?: number;
}

/** One write of a member's limit. */
export interface BudgetWrite {
  readonly name: string;
  readonly kind: 'lower' | 'raise';
  /** What the member counts for before the write: its applied limit, or its cap when unreadable. */
  readonly from: number;
  readonly to: number;
  /** The lowerings (member names) whose freed units this raise uses; a raise runs only if all of them landed. */
  readonly needs: readonly string[];
}

/**
 * The writes that take every member to its grant, lowerings first. A member already at its grant gets no write,
 * except an unreadable one granted its cap: it is counted at its cap already, and the write makes that true.
 *
 * @example
 * planBudgetWrites(
 *   40,
 *   [{ name: 'orders', applied: 30, cap: 32 }, { name: 'billing', applied: 8, cap: 32 }],
 *   [{ name: 'orders', granted: 26 }, { name: 'billing', granted: 14 }],
 * ); // orders 30 → 26 (lower); billing 8 → 14 (raise, needs orders: only 2 units were free)
 */
export function planBudgetWrites(
  budget: number,
  current: readonly MemberLimit[],
  grants: readonly { readonly name: string; readonly granted: number }[],
): BudgetWrite[] {
  const problems = planProblems(budget, current, grants);
  if (problems.length > 0) throw new BudgetError(problems);
  let free = budget - current.reduce((sum, m) => sum + (m.applied ?? m.cap), 0);
  const { lowers, raises } = movesOf(current, grants, free < 0);
  const payBack: string[] = [];
  const freed: { name: string; left: number }[] = [];
  for (const w of lowers) {
    const pay = Math.min(w.from - w.to, Math.max(0, -free));
    if (pay > 0) payBack.push(w.name);
    free += pay;
    freed.push({ name: w.name, left: w.from - w.to - pay });
  }
  const steps: BudgetWrite[] = lowers.map((w) => ({ ...w, kind: 'lower', needs: [] }));
  for (const w of raises) {
    let wanted = w.to - w.from;
    const fromFree = Math.min(wanted, free);
    free -= fromFree;
    wanted -= fromFree;
    const needs = new Set(w.self ? [...payBack, w.name] : payBack);
    for (const f of freed) {
      if (wanted === 0) break;
      const used = Math.min(wanted, f.left);
      if (used === 0) continue;
      f.left -= used;
      wanted -= used;
      needs.add(f.name);
    }
    // Unreachable once the grants are checked to fit: Σ raises ≤ free + Σ freed.
    if (wanted > 0) throw new Error(`unreachable: no headroom left for ${w.name}'s raise`);
    steps.push({ name: w.name, from: w.from, to: w.to, kind: 'raise', needs: [...needs] });
  }
  return steps;
}

interface Move {
  readonly name: string;
  readonly from: number;
  readonly to: number;
  /** A raise that follows the member's own lowering (a split, below): it needs that lowering too. */
  readonly self?: boolean;
}

/**
 * Each member's move from its count to its grant, as lowerings and raises. A move that raises a limit the member
 * runs under (`runs` below the grant) is a raise in what it runs, whatever its count does:
 * - its count unchanged (a repair at its grant: reserved trailing at 12 over a mapping of 4, granted 12, raises the
 *   mapping 4 → 12): a raise of 0 units, which waits for the pay-back;
 * - its count falling while the start is over the budget (reserved 8 over a mapping of 5, granted 6: reserved
 *   comes down, the mapping goes up): split into a lowering to what it runs (every limit down) and a raise from
 *   there, so that until the sum is within nothing but lowerings is written. From a start within the budget the
 *   one write is kept: Σ counted holds after it, and what it runs stays within what it counts.
 */
function movesOf(
  current: readonly MemberLimit[],
  grants: readonly { readonly name: string; readonly granted: number }[],
  over: boolean,
): { lowers: Move[]; raises: Move[] } {
  const limits = new Map(current.map((m) => [m.name, m]));
  const lowers: Move[] = [];
  const raises: Move[] = [];
  for (const g of grants) {
    const m = limits.get(g.name);
    if (m === undefined) continue;
    const from = m.applied ?? m.cap;
    const runs = Math.min(from, m.runs ?? from);
    const to = g.granted;
    if (to > from || (to === from && (m.applied === undefined || runs < to)))
      raises.push({ name: g.name, from, to });
    else if (to < from && over && runs < to) {
      lowers.push({ name: g.name, from, to: runs });
      raises.push({ name: g.name, from: runs, to, self: true });
    } else if (to < from) lowers.push({ name: g.name, from, to });
  }
  lowers.sort(byFreedThenName);
  return { lowers, raises };
}

/**
 * The steps still to run once the lowering of `failed` has failed: the rest, less every raise that needed it.
 * Pass the steps not yet run; the member stays at its count, so the raises that used its freed units must not.
 */
export function afterFailedLowering(remaining: readonly BudgetWrite[], failed: string): BudgetWrite[] {
  return remaining.filter(
    (s) => !(s.kind === 'lower' && s.name === failed) && !(s.kind === 'raise' && s.needs.includes(failed)),
  );
}

function byFreedThenName(a: { name: string; from: number; to: number }, b: typeof a): number {
  const d = b.from - b.to - (a.from - a.to);
  if (d !== 0) return d;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Every problem at once: one entry per member, grants within [1, cap] that fit the budget. */
export function planProblems(
  budget: number,
  current: readonly MemberLimit[],
  grants: readonly { readonly name: string; readonly granted: number }[],
): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(budget) || budget < 0) problems.push(`budget = ${budget}: must be an integer ≥ 0`);
  const limits = new Map<string, MemberLimit>();
  for (const m of current) {
    if (limits.has(m.name)) problems.push(`${m.name}: listed twice in the current limits`);
    limits.set(m.name, m);
    if (!Number.isInteger(m.cap) || m.cap < 1)
      problems.push(`${m.name}.cap = ${m.cap}: must be an integer ≥ 1`);
    if (m.applied !== undefined && !(Number.isInteger(m.applied) && m.applied >= 0)) {
      problems.push(`${m.name}.applied = ${m.applied}: must be an integer ≥ 0, or undefined when unreadable`);
    }
  }
  const granted = new Set<string>();
  for (const g of grants) {
    const m = limits.get(g.name);
    if (granted.has(g.name)) problems.push(`${g.name}: granted twice`);
    granted.add(g.name);
    if (m === undefined) problems.push(`${g.name}: granted but has no current limit`);
    else if (!Number.isInteger(g.granted) || g.granted < 1 || g.granted > m.cap) {
      problems.push(`${g.name}.granted = ${g.granted}: must be an integer in [1; ${m.cap}]`);
    }
  }
  for (const name of limits.keys()) {
    if (!granted.has(name)) problems.push(`${name}: has a current limit but no grant`);
  }
  const total = grants.reduce((sum, g) => sum + g.granted, 0);
  if (total > budget) problems.push(`the grants sum to ${total}, above the budget ${budget}`);
  return problems;
}
