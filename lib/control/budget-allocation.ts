/**
 * A shared concurrency budget: several queues' consumers use one downstream (a database's 40 connections, say),
 * so the sum of their applied limits must never exceed the budget, however each member's own law sizes it. Pure:
 * the members' desired values come from their own `decide`, and the result is only the split.
 *
 * The rule:
 * 1. Each member asks for its own law's value, its demand, taken within [floor, cap] (the law already returns
 *    one there; the clamp keeps both bounds whatever the caller passes).
 * 2. Every floor is granted first: a floor is the least that member runs with, and the budget was checked to hold
 *    them all (a budget below the sum of the floors is refused).
 * 3. Then every member's share: the pool above the floors split by weight (equal weights: the static split), each
 *    member taking of its share only what its demand asks. A member the static split would have kept on target
 *    keeps that here: no one is cut below its share to feed another, however late. (With steps, rule 6, a
 *    provisioned member's share is rounded to whole pollers, so the single-worker members' shares move with it.)
 * 4. What is left, the shares some members did not need, goes one unit at a time to whoever is furthest behind,
 *    never past a member's demand. Lateness is weight × age ÷ target (2 means twice its target behind; weight 2
 *    ranks a member at half its target with another at its target). A member's pressure is its lateness × the
 *    fraction of its extra (demand − floor) it still lacks; the next unit goes to the highest pressure. Ties: the
 *    smaller fraction met, then the later member, then the name. Arrival order plays no part.
 * 5. The order guard: a unit never goes where it would give a member a larger fraction of its extra than a
 *    later member that is still short has. Pressure alone would, in units this coarse: extras of 1 and 10, at
 *    lateness 1.0 and 1.1, two units to share: the second unit goes to the 10, not the 1, which is less late.
 * 6. Steps: a member whose actuator moves in steps (provisioned mode: whole pollers of 10 invocations) is granted
 *    whole steps above its floor, which is one of its levels. Its share is its part of the pool in the nearest whole
 *    steps (a part of 6 is one poller, of 4 none), as many as the pool holds; the members of single units share
 *    what is left (`poolShares`). Its demand is its law's value (a level already) within its cap's whole steps, and
 *    in rules 4–5 its next unit is a whole step, taken only while that much is left in the pool. A later member whose
 *    step does not fit what is left does not hold the rest back: those units go to members whose steps fit (the
 *    guard of rule 5 counts only the members that could still take a step). No step is granted past the budget.
 *
 * When the demands fit the budget, every member gets its own. Otherwise the leftover fills a level L: a member at
 * lateness p gets about 1 − L ÷ p of its extra (at least its share), a member at or below L its share only. The
 * split is continuous in lateness, so two members close in lateness get close shares and a tick's small change in
 * age moves a few units, not the whole pool (a winner-takes-all order would swing the pool to whichever is ahead
 * by 0.1 each tick, and every swing is a pair of writes).
 *
 * What the rule guarantees, for every input it accepts (test/control/budget-allocation.test.ts):
 * - Σ granted ≤ budget, and Σ granted = min(budget, Σ demand): the pool is never held back. With steps: Σ granted
 *   ≤ budget, and what is left is less than the step of every member still short (nothing usable is held back).
 * - floor ≤ granted ≤ demand ≤ max(desired, floor), and granted ≤ cap; with a step, granted − floor is whole steps
 *   and the demand is the desired rounded up to a level (31 asks 40), so it may pass max(desired, floor).
 * - Every member gets at least min(demand, floor + its share).
 * - The order (precisely): if member j got more than its share and is less late than member i, and i is short of
 *   its demand, then j's fraction of its extra met is at most i's: (granted_j − floor_j) ÷ extra_j ≤
 *   (granted_i − floor_i) ÷ extra_i. Beyond the shares, a less-late member is never fed at the expense of one
 *   further behind. With steps this holds only where i's step fitted what was left when j took its last unit: a
 *   provisioned member whose part of the pool rounds to no poller can stay at its floor while a less-late member
 *   takes the units (budget 36: a provisioned member 10 × behind at 20, a lockstep one 2 × behind at 14, an idle one
 *   at 2; docs/design.md, "Steps", says so).
 * - It keeps no memory: a member whose desired fell gets at most the new value, and the units it freed go to the
 *   others in the same call. An idle member (age 0) has no pressure: in a shortfall it keeps what its own law asks
 *   up to its share, and its law shrinks that within its scale-down delay, returning the units to the pool.
 *
 * An unknown age (no fresh datapoint) ranks last for the leftover, below an idle member: its lateness cannot be
 * compared, and a metric outage usually means a broken pipeline, not a late queue. Its own law holds on missing
 * data (`hold:no-data`); it keeps what that asks up to its share, and takes nothing from a member measured late.
 *
 * Worked example: budget 40; orders (age 240 s, target 60 s: lateness 4; floor 5, desired 29), billing
 * (60 s of 30 s: 2; floor 5, desired 21), email (idle: 0; floor 4, desired 8, its law not yet shrunk).
 * Demands sum to 58 > 40. Floors 5 + 5 + 4 = 14 leave a pool of 26: shares of 8 each. Orders takes 8 of its
 * extra of 24, billing 8 of 16, email 4 (all it asks). The 6 left go to orders: its pressure, 4 × 16/24, stays
 * above billing's 2 × 8/16 = 1. Grants: orders 19, billing 13, email 8; Σ 40.
 *
 * @example
 * allocateBudget(40, [
 *   { name: 'orders', desired: 29, floor: 5, cap: 32, ageSeconds: 240, targetSeconds: 60 },
 *   { name: 'billing', desired: 21, floor: 5, cap: 32, ageSeconds: 60, targetSeconds: 30 },
 *   { name: 'email', desired: 8, floor: 4, cap: 16, ageSeconds: 0, targetSeconds: 60 },
 * ]); // orders 19 (shortfall-share), billing 13 (share), email 8 (own-desired)
 */

export interface BudgetMember {
  /** Unique in the budget: ties are broken by it. */
  readonly name: string;
  /** Its own law's value (`decide(...).desired`). */
  readonly desired: number;
  /** Its floor (`minConcurrency`), granted first: an integer ≥ 1 (0 is an operator's pause, never ours). */
  readonly floor: number;
  /** Its cap (`maxConcurrency`): an integer ≥ floor. */
  readonly cap: number;
  /** Age of its oldest message; undefined (or not a non-negative number): unknown, ranks last. */
  readonly ageSeconds?: number;
  /** Its target age, > 0. */
  readonly targetSeconds: number;
  /** Its share of the budget and how much its lateness counts, > 0. @default 1 */
  readonly weight?: number;
  /**
   * The step its actuator moves by (`concurrencyStep`: 10 in provisioned mode, a poller's invocations): it is granted
   * its floor plus whole steps. Its floor must be a multiple of it. @default 1
   */
  readonly step?: number;
  /**
   * An operator's pause (reserved concurrency 0, or a disabled mapping): the value the member holds now. It is
   * granted exactly that, so no write lands on it (a pause is never written over), and it takes no floor and no
   * share; what it holds still counts against the budget.
   */
  readonly pausedAt?: number;
}

/**
 * `own-desired`: its demand in full; `floor`: its floor only (a desired at or below the floor included); `share`:
 * its share of the budget, short of its demand; `shortfall-share`: more than its share, short of its demand;
 * `paused`: what an operator's pause holds.
 */
export type GrantReason = 'own-desired' | 'floor' | 'share' | 'shortfall-share' | 'paused';

export interface BudgetGrant {
  readonly name: string;
  readonly granted: number;
  /**
   * Its floor plus its share of the pool above the floors (by weight), whatever it asked: what it may take back at
   * any time. Between ticks the fast path lends no member's unused share to another (budget-tick.ts).
   */
  readonly share: number;
  readonly reason: GrantReason;
  /** weight × age ÷ target; undefined: the age is unknown. */
  readonly lateness: number | undefined;
}

export class BudgetError extends Error {
  override name = 'BudgetError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid concurrency budget: ${problems.join('; ')}`);
  }
}

/** A member as the split sees it: extra = demand − floor, rank = lateness, −∞ when unknown. */
interface Claim {
  readonly name: string;
  readonly paused: boolean;
  readonly weight: number;
  /** Its unit of grant: 1, or a poller's 10. */
  readonly step: number;
  readonly floor: number;
  readonly extra: number;
  readonly lateness: number | undefined;
  readonly rank: number;
}

/**
 * Each member's grant, most behind first (lateness descending, unknown last, ties by name): the order in which
 * `planBudgetWrites` raises them, so the members furthest behind use the free headroom first.
 */
export function allocateBudget(budget: number, members: readonly BudgetMember[]): BudgetGrant[] {
  const problems = budgetProblems(budget, members);
  if (problems.length > 0) throw new BudgetError(problems);
  const shares: Share[] = members
    .map(claimOf)
    .sort(byRank)
    .map((claim) => ({ claim, met: 0, guaranteed: 0, pooled: 0 }));
  let pool = budget - shares.reduce((sum, s) => sum + s.claim.floor, 0);
  // Rule 3: each member's share of the pool by weight, as far as its own law asks for it.
  const sharing = shares.filter((s) => !s.claim.paused);
  poolShares(sharing, pool);
  for (const s of sharing) {
    s.guaranteed = Math.min(s.claim.extra, s.pooled);
    s.met = s.guaranteed;
    pool -= s.guaranteed;
  }
  for (let next = nextUnit(shares, pool); next !== undefined; next = nextUnit(shares, pool)) {
    next.met += next.claim.step;
    pool -= next.claim.step;
  }
  return shares.map(grantOf);
}

/** Every problem at once, each naming the member, the field and the value (the config validator's way). */
export function budgetProblems(budget: number, members: readonly BudgetMember[]): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(budget) || budget < 0) problems.push(`budget = ${budget}: must be an integer ≥ 0`);
  const seen = new Set<string>();
  for (const m of members) {
    const who = m.name === '' ? '(unnamed)' : m.name;
    if (m.name === '') problems.push('a member has an empty name: names break ties and must be unique');
    else if (seen.has(m.name)) problems.push(`${who}: the name appears twice: names must be unique`);
    seen.add(m.name);
    if (!Number.isInteger(m.floor) || m.floor < 1) {
      problems.push(`${who}.floor = ${m.floor}: must be an integer ≥ 1`);
    }
    if (!Number.isInteger(m.cap) || m.cap < m.floor) {
      problems.push(`${who}.cap = ${m.cap}: must be an integer ≥ its floor (${m.floor})`);
    }
    if (!Number.isInteger(m.desired) || m.desired < 0) {
      problems.push(`${who}.desired = ${m.desired}: must be an integer ≥ 0`);
    }
    if (!(Number.isFinite(m.targetSeconds) && m.targetSeconds > 0)) {
      problems.push(`${who}.targetSeconds = ${m.targetSeconds}: must be a number > 0`);
    }
    const weight = m.weight ?? 1;
    if (!(Number.isFinite(weight) && weight > 0)) {
      problems.push(`${who}.weight = ${weight}: must be a number > 0`);
    }
    const step = m.step ?? 1;
    if (!Number.isInteger(step) || step < 1) {
      problems.push(`${who}.step = ${step}: must be an integer ≥ 1`);
    } else if (Number.isInteger(m.floor) && m.floor % step !== 0) {
      problems.push(`${who}.floor = ${m.floor}: must be a multiple of its step, ${step} (one of its levels)`);
    }
    if (m.pausedAt !== undefined && !(Number.isInteger(m.pausedAt) && m.pausedAt >= 0)) {
      problems.push(`${who}.pausedAt = ${m.pausedAt}: must be an integer ≥ 0`);
    }
  }
  // A paused member holds its value instead of its floor.
  const held = (m: BudgetMember) => m.pausedAt ?? m.floor;
  const floors = members.reduce((sum, m) => sum + held(m), 0);
  if (Number.isFinite(budget) && budget < floors) {
    const each = members
      .map((m) => `${m.name} ${held(m)}${m.pausedAt === undefined ? '' : ' (paused)'}`)
      .join(', ');
    problems.push(
      `budget ${budget} is below the sum of the floors, ${floors} (${each}): raise the budget or lower a floor`,
    );
  }
  return problems;
}

/**
 * Each member's share of the pool above the floors (rule 3), by weight. A member with a step takes the nearest whole
 * steps of its part (half up), as many of those as the pool holds (where they do not all fit, the one rounded up
 * most gives a step back first, then the least late); the members of single units split what is left by their
 * weights. With no steps, each share is ⌊pool × weight ÷ Σ weights⌋.
 */
function poolShares(sharing: readonly Share[], shareable: number): void {
  const weights = sharing.reduce((sum, s) => sum + s.claim.weight, 0);
  const part = (s: Share) => (shareable * s.claim.weight) / weights;
  const stepped = sharing.filter((s) => s.claim.step > 1);
  for (const s of stepped) s.pooled = Math.round(part(s) / s.claim.step + 1e-9) * s.claim.step;
  let over = stepped.reduce((sum, s) => sum + s.pooled, 0) - shareable;
  while (over > 0) {
    // `sharing` is in rank order: the last of equal excess is the least late.
    const back = stepped
      .filter((s) => s.pooled > 0)
      .reduce((a, b) => (b.pooled - part(b) >= a.pooled - part(a) ? b : a));
    back.pooled -= back.claim.step;
    over -= back.claim.step;
  }
  const single = sharing.filter((s) => s.claim.step === 1);
  const rest = shareable - stepped.reduce((sum, s) => sum + s.pooled, 0);
  const singleWeights = single.reduce((sum, s) => sum + s.claim.weight, 0);
  for (const s of single) s.pooled = Math.floor((rest * s.claim.weight) / singleWeights + 1e-9);
}

function claimOf(m: BudgetMember): Claim {
  if (m.pausedAt !== undefined) {
    return {
      name: m.name,
      paused: true,
      weight: m.weight ?? 1,
      step: 1,
      floor: m.pausedAt,
      extra: 0,
      lateness: undefined,
      rank: -Infinity,
    };
  }
  const step = m.step ?? 1;
  // Its levels: the floor plus whole steps, the highest within the cap (a desired between two takes the higher).
  const demand = Math.min(
    m.floor + wholeSteps(m.cap - m.floor, step),
    Math.max(m.floor, m.floor + Math.ceil((m.desired - m.floor) / step) * step),
  );
  // Age is data, not configuration: a value that cannot be an age is unknown, as the law's sanitize treats it.
  const known = m.ageSeconds !== undefined && Number.isFinite(m.ageSeconds) && m.ageSeconds >= 0;
  const lateness = known ? ((m.weight ?? 1) * (m.ageSeconds ?? 0)) / m.targetSeconds : undefined;
  return {
    name: m.name,
    paused: false,
    weight: m.weight ?? 1,
    step,
    floor: m.floor,
    extra: demand - m.floor,
    lateness,
    rank: lateness ?? -Infinity,
  };
}

/** A claim and the units of the pool it has been given so far (its guaranteed share first). */
interface Share {
  readonly claim: Claim;
  met: number;
  guaranteed: number;
  /** Its whole share of the pool (by weight), asked for or not. */
  pooled: number;
}

const short = (s: Share) => s.met < s.claim.extra;

/** `units` rounded down to whole steps. */
const wholeSteps = (units: number, step: number) => Math.floor(units / step) * step;

/** Short, and its next step fits what is left in the pool. */
const feedable = (s: Share, pool: number) => short(s) && s.claim.step <= pool;

/** Most behind first; equal lateness (two unknown ages included) by name. */
function byRank(a: Claim, b: Claim): number {
  if (a.rank !== b.rank) return a.rank > b.rank ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Lateness × the fraction of its extra still lacking: 0 for an idle member (age 0), −∞ for an unknown age. */
const pressure = ({ claim, met }: Share) =>
  claim.rank === -Infinity ? -Infinity : (claim.rank * (claim.extra - met)) / claim.extra;

/**
 * The share the next unit (its step) goes to, or undefined when no member short of its extra has a step that fits
 * the pool. The highest-ranked feedable share always qualifies (no later member could take a step), so a unit is
 * always placed while anyone's step fits: the pool is never held back.
 */
function nextUnit(shares: readonly Share[], pool: number): Share | undefined {
  let best: Share | undefined;
  for (const s of shares) {
    if (!feedable(s, pool) || !keepsOrder(shares, s, pool)) continue;
    if (best === undefined || before(s, best)) best = s;
  }
  return best;
}

/** One more step for j leaves its fraction met at most that of every later member that could still take one. */
function keepsOrder(shares: readonly Share[], j: Share, pool: number): boolean {
  return shares.every(
    (i) =>
      i.claim.rank <= j.claim.rank ||
      !feedable(i, pool) ||
      (j.met + j.claim.step) * i.claim.extra <= i.met * j.claim.extra,
  );
}

/** Higher pressure; then the smaller fraction met after the step; then rank order (`shares` is sorted by it). */
function before(j: Share, k: Share): boolean {
  const pj = pressure(j);
  const pk = pressure(k);
  if (pj !== pk) return pj > pk;
  return (j.met + j.claim.step) * k.claim.extra < (k.met + k.claim.step) * j.claim.extra;
}

function grantOf({ claim, met, guaranteed, pooled }: Share): BudgetGrant {
  const reason: GrantReason = claim.paused
    ? 'paused'
    : met === claim.extra && met > 0
      ? 'own-desired'
      : met === 0
        ? 'floor'
        : met === guaranteed
          ? 'share'
          : 'shortfall-share';
  return {
    name: claim.name,
    granted: claim.floor + met,
    share: claim.floor + pooled,
    reason,
    lateness: claim.lateness,
  };
}
