import { allocateBudget, type BudgetGrant, type BudgetMember, budgetProblems } from './budget-allocation.ts';
import {
  ageOf,
  type BudgetTickHooks,
  type BudgetTickMember,
  budgetCount,
  ceilingOf,
  countedBefore,
  demandOf,
  type MemberReading,
  type OkReading,
  readMember,
  releaseDelaySeconds,
} from './budget-member.ts';
import type { BudgetMemberOutcome, BudgetTickResult } from './budget-outcome.ts';
import { afterFailedLowering, type BudgetWrite, planBudgetWrites } from './budget-writes.ts';
import { capInSteps, concurrencyStep } from './config.ts';
import { fastPathContext, fastPathOn } from './fast-path.ts';
import { leftByTick } from './saturation.ts';
import type { ControllerState } from './snapshot.ts';
import { repairedBy, type TickOptions } from './tick.ts';

export {
  type BudgetTickHooks,
  type BudgetTickMember,
  budgetCount,
  ceilingOf,
  LONG_POLL_SECONDS,
  releaseDelaySeconds,
} from './budget-member.ts';

/**
 * One tick of a shared budget: every member's own law, then the split, then the writes in the order that keeps
 * Σ applied ≤ budget at every instant. The budget's controller Lambda and the simulator's group controller both
 * run exactly this, as a lone scaler's both run `runTick`.
 *
 * 1. Each member is read and decided as `runTick` does (its own snapshot, state and `decide`). A member that
 *    cannot be read (its reads threw) counts at its last known value, or at its cap: nothing is written to it.
 * 2. A member paused by an operator counts at what its pause holds, at least its floor (what the documented resume
 *    puts back), and is not written either.
 * 3. `allocateBudget` splits the budget among the others by lateness; `planBudgetWrites` orders the writes,
 *    lowerings first; a lowering that did not land drops the raises that needed it (`afterFailedLowering`).
 * 4. When the held counts leave too little for the others' floors (a member unreadable at its cap, say), nothing
 *    is raised this tick: each member is only lowered to its own law's value where that is lower. The sum can
 *    only fall, and the next tick, with the member readable again, splits afresh.
 *
 * A member counts at its effective limit (lockstep: the lower of the mapping's maximum and reserved concurrency;
 * what bounds the executions, and so what its consumer can put on the downstream). Lockstep raises reserved
 * before the mapping and lowers the mapping first, so the effective limit never passes the planned value on the
 * way (write-plan.ts).
 */

interface Entry {
  readonly member: BudgetTickMember;
  readonly reading: MemberReading;
}

/** One budget tick in progress: every member's reading, and every member's count as the writes go. */
interface TickRun {
  readonly budget: number;
  readonly members: readonly BudgetTickMember[];
  readonly byName: ReadonlyMap<string, Entry>;
  readonly counts: Map<string, number>;
  readonly now: number;
  readonly hooks: BudgetTickHooks;
  readonly wrote: Set<string>;
  readonly writeErrors: Map<string, unknown>;
  /** Each written member's applied limit after its last write (the law's value, not its count). */
  readonly effective: Map<string, number | undefined>;
}

/** Held: unreadable, or paused by an operator. It counts at what it holds and is not written. */
function held(run: TickRun, name: string): boolean {
  const reading = run.byName.get(name)?.reading;
  return reading === undefined || !reading.ok || reading.decision.reason === 'hold:paused';
}

/**
 * What a held member takes of the budget: its count, and a paused one at least its floor. The documented resume
 * (docs/deploy.md, "Pausing and resuming") puts reserved concurrency back at the floor, which a reserved-mode member
 * paused at 0 does not count yet: held back, the resume lands within the budget before any tick has seen it.
 */
function heldAt(run: TickRun, name: string): number {
  const { member, reading } = entry(run, name);
  const count = run.counts.get(name) as number;
  return reading.ok ? Math.max(count, member.config.minConcurrency) : count;
}

/**
 * The member's unit of grant: a poller's 10 in provisioned mode. A budget whose rest is less than a starved member's
 * step is exhausted for it (with every step 1: fully granted).
 */
function stepOf(run: TickRun, name: string): number {
  return concurrencyStep(entry(run, name).member.config.actuator);
}

function entry(run: TickRun, name: string): Entry {
  return run.byName.get(name) as Entry;
}

async function readAll(
  budget: number,
  members: readonly BudgetTickMember[],
  now: number,
  options: TickOptions,
  hooks: BudgetTickHooks,
): Promise<TickRun> {
  const readings = await Promise.all(members.map((m) => readMember(m, now, options)));
  const byName = new Map(
    members.map((m, i) => [m.name, { member: m, reading: readings[i] as MemberReading }]),
  );
  const counts = new Map<string, number>();
  for (const [name, { member, reading }] of byName) counts.set(name, countedBefore(member, reading));
  const [wrote, writeErrors, effective] = [new Set<string>(), new Map(), new Map()];
  return { budget, members, byName, counts, now, hooks, wrote, writeErrors, effective };
}

/** Each member's claim on the budget: its law's value and age, or (held) what it holds. */
function claimsOf(run: TickRun): BudgetMember[] {
  return run.members.map((m) => {
    const base = {
      name: m.name,
      floor: m.config.minConcurrency,
      cap: m.config.maxConcurrency,
      targetSeconds: m.config.targetAgeSeconds,
      weight: m.weight,
      // Provisioned mode's levels are whole pollers: its grants too (budget-allocation.ts, rule 6).
      step: concurrencyStep(m.config.actuator),
    };
    if (held(run, m.name)) return { ...base, desired: 0, pausedAt: heldAt(run, m.name) };
    const ok = entry(run, m.name).reading as OkReading;
    return { ...base, desired: ok.decision.desired, ageSeconds: ageOf(ok) };
  });
}

/** The split (or rule 4) and the writes it takes, in their safe order. */
function planOf(run: TickRun) {
  const claims = claimsOf(run);
  const split = budgetProblems(run.budget, claims).length === 0;
  const grants = split ? allocateBudget(run.budget, claims) : loweredOnly(run);
  const heldTotal = run.members.filter((m) => held(run, m.name)).reduce((s, m) => s + heldAt(run, m.name), 0);
  const writable = grants.filter((g) => !held(run, g.name));
  const limits = writable.map((g) => {
    const { member, reading } = entry(run, g.name);
    return {
      name: g.name,
      applied: reading.ok ? reading.ceiling : undefined,
      cap: member.config.maxConcurrency,
      runs: runsAt(run, g.name),
    };
  });
  // Rule 4 keeps the grants ≤ the counts and ≤ what each runs under: no limit rises, so the plan's budget check
  // does not apply.
  const plan = split
    ? planBudgetWrites(run.budget - heldTotal, limits, writable)
    : writable.flatMap((g): BudgetWrite[] => {
        const from = run.counts.get(g.name) as number;
        const to = Math.min(g.granted, runsAt(run, g.name) ?? g.granted);
        return to < from ? [{ name: g.name, kind: 'lower', from, to, needs: [] }] : [];
      });
  return { split, grants, writable, plan };
}

/**
 * The limit a readable member runs under (its applied limit, below its count where lockstep's limits differ),
 * never below its floor: a limit set by hand under the floor is written no lower than the floor. On its levels
 * (whole pollers in provisioned mode, rounded down): a hand edit between two is written at the lower.
 */
function runsAt(run: TickRun, name: string): number | undefined {
  const { member, reading } = entry(run, name);
  if (!reading.ok || reading.current === undefined || !Number.isFinite(reading.current)) return undefined;
  return Math.max(capInSteps(reading.current, member.config.actuator), member.config.minConcurrency);
}

/** One write to a member, then its limits read back: returns its count after. */
async function write(run: TickRun, name: string, value: number): Promise<number> {
  const { member, reading } = entry(run, name);
  // What it holds before this write: as read, or as the previous write to it left it.
  const applied =
    run.wrote.has(name) || !reading.ok
      ? (run.counts.get(name) as number)
      : (reading.current ?? Number.POSITIVE_INFINITY);
  try {
    await member.ports.concurrency.apply(value, applied);
  } catch (error) {
    run.writeErrors.set(name, error);
  }
  const after = budgetCount(await ceilingOf(member.ports.concurrency), member.config.maxConcurrency);
  run.effective.set(name, await member.ports.concurrency.applied());
  run.counts.set(name, after);
  if (!run.writeErrors.has(name)) run.wrote.add(name);
  run.hooks.afterWrite?.(run.counts);
  return after;
}

/**
 * Repairs first: a member whose limits are out of step (an overpull, reserved left above the mapping) but whose
 * grant needs no write is rewritten at its grant, which is its count, or at what it runs under where that is lower
 * (rule 4): no limit rises, so a repair is a lowering and may run while the sum is over the budget. One that would
 * raise the limit it runs under is in the plan, as a raise after the pay-back (`planBudgetWrites`).
 */
async function repairOutOfStep(
  run: TickRun,
  writable: readonly { name: string; granted: number }[],
  plan: readonly BudgetWrite[],
) {
  const planned = new Set(plan.map((w) => w.name));
  for (const g of writable) {
    const reading = run.byName.get(g.name)?.reading;
    if (!reading?.ok || planned.has(g.name) || !(reading.condition.outOfStep ?? false)) continue;
    await write(run, g.name, Math.min(g.granted, runsAt(run, g.name) ?? g.granted));
  }
}

/** The plan's writes in order; a lowering not free yet holds back the raises that needed it. */
async function runPlan(run: TickRun, plan: readonly BudgetWrite[]) {
  let steps = [...plan];
  const dropped: string[] = [];
  const deferred: string[] = [];
  while (steps.length > 0) {
    const step = steps.shift() as BudgetWrite;
    const after = await write(run, step.name, step.to);
    if (step.kind !== 'lower' || after <= step.to) continue;
    // Not free yet: the write failed, or (lockstep) the mapping came down and reserved trails it by a tick while
    // the invocations the old maximum started finish. Either way the raises that needed it wait.
    const landed =
      !run.writeErrors.has(step.name) &&
      (run.effective.get(step.name) ?? Number.POSITIVE_INFINITY) <= step.to;
    const kept = afterFailedLowering(steps, step.name);
    for (const s of steps) {
      if (!kept.includes(s) && s.kind === 'raise') (landed ? deferred : dropped).push(s.name);
    }
    steps = kept;
  }
  return { dropped, deferred };
}

export async function runBudgetTick(
  budget: number,
  members: readonly BudgetTickMember[],
  now: number,
  options: TickOptions,
  hooks: BudgetTickHooks = {},
): Promise<BudgetTickResult> {
  const run = await readAll(budget, members, now, options, hooks);
  const { split, grants, writable, plan } = planOf(run);
  await repairOutOfStep(run, writable, plan);
  const { dropped, deferred } = await runPlan(run, plan);
  const outcomes: BudgetMemberOutcome[] = [];
  for (const g of grants) outcomes.push(await outcomeOf(run, g, deferred));
  const grantedTotal = grants.reduce((sum, g) => sum + g.granted, 0);
  const starved = outcomes.filter((o) => o.starved).map((o) => o.name);
  return {
    budget,
    members: outcomes,
    plan,
    dropped,
    deferred,
    grantedTotal,
    exhausted:
      split && starved.length > 0 && starved.every((name) => stepOf(run, name) > budget - grantedTotal),
    starved,
  };
}

/** An unreadable member's outcome: held at its count, nothing written. */
function unreadableOutcome(run: TickRun, g: HeldGrant, counted: number, error: unknown): BudgetMemberOutcome {
  return {
    name: g.name,
    readError: error,
    counted,
    demand: counted,
    granted: g.granted,
    share: g.share,
    reason: 'unreadable',
    appliedAfter: run.counts.get(g.name) as number,
    wrote: false,
    repaired: false,
    starved: false,
  };
}

/**
 * The member's state to carry: its change dated now, the value the budget left it (not the one its law asked for),
 * and a lowering that binds at once (depth-sample.ts) only where the budget wrote a lowering (a deferred write, or
 * one the budget made a raise, waits for the pollers as any change).
 */
function carriedState(
  decided: ControllerState,
  before: ControllerState,
  write: Pick<ControllerState, 'tickLeft'> & Readonly<{ now: number; changed: boolean; lowered: boolean }>,
): ControllerState {
  const sample = decided.lastVisible;
  const lastChangeAt = write.changed ? write.now : before.lastChangeAt;
  const { tickLeft } = write;
  if (sample?.settled !== true || write.lowered) return { ...decided, lastChangeAt, tickLeft };
  const { settled: _, ...unproven } = sample;
  return { ...decided, lastChangeAt, tickLeft, lastVisible: unproven };
}

/** A member's outcome after the writes: its state saved, its fast path's start, its release and deferral. */
async function outcomeOf(
  run: TickRun,
  g: HeldGrant,
  deferred: readonly string[],
): Promise<BudgetMemberOutcome> {
  const { member, reading } = entry(run, g.name);
  const { now, wrote, effective } = run;
  const counted = countedBefore(member, reading);
  // appliedAfter is the member's count: its execution ceiling.
  const appliedAfter = run.counts.get(g.name) as number;
  if (!reading.ok) return unreadableOutcome(run, g, counted, reading.error);
  const { snapshot, decision, state, condition } = reading;
  const after =
    condition.overpull && wrote.has(g.name) ? await member.ports.concurrency.condition?.() : undefined;
  const changed = wrote.has(g.name) && effective.has(g.name) && effective.get(g.name) !== reading.current;
  const lowered =
    changed && reading.current !== undefined && (effective.get(g.name) as number) < reading.current;
  // The fast path grows from the member's applied limit (what the law sees), not its count.
  const applied = effective.has(g.name) ? effective.get(g.name) : reading.current;
  const tickLeft = leftByTick(state.tickLeft, applied, reading.current, now);
  const saved = carriedState(decision.state, state, { now, changed, lowered, tickLeft });
  await member.ports.state.save(saved, now);
  const demand = held(run, g.name) ? counted : demandOf(decision, member.config);
  const age = ageOf(reading);
  const starved = g.granted < demand && age !== undefined && age > member.config.targetAgeSeconds;
  const fastContext =
    fastPathOn(member.config) && applied !== undefined && Number.isFinite(applied)
      ? fastPathContext(snapshot, { ...decision, state: saved }, applied, member.config)
      : undefined;
  const trailing = wrote.has(g.name) && applied !== undefined && appliedAfter > applied;
  const timeout = trailing ? await member.ports.concurrency.functionTimeoutSeconds?.() : undefined;
  const delay = releaseDelaySeconds(timeout, condition.batchingWindowSeconds);
  const releaseAt = trailing && delay !== undefined ? now + delay : undefined;
  const deferredTo = deferred.includes(g.name) && g.granted > appliedAfter ? g.granted : undefined;
  return {
    name: g.name,
    snapshot,
    decision,
    ...(releaseAt === undefined ? {} : { releaseAt }),
    ...(deferredTo === undefined ? {} : { deferredTo }),
    ...(run.writeErrors.has(g.name) ? { writeError: run.writeErrors.get(g.name) } : {}),
    counted,
    demand,
    granted: g.granted,
    share: g.share,
    reason: g.reason,
    lateness: g.lateness,
    appliedAfter,
    wrote: wrote.has(g.name),
    repaired: repairedBy(condition, after),
    starved,
    ...(fastContext ? { fastContext } : {}),
  };
}

/** A grant as rule 4 makes it: the split's fields, with the reasons only rule 4 gives. */
interface HeldGrant extends Omit<BudgetGrant, 'reason'> {
  readonly reason: BudgetMemberOutcome['reason'];
}

/**
 * Rule 4: the held counts leave no room for the others' floors. Each member keeps its count, or its own law's
 * value where that is lower; the held ones keep theirs. In the members' order (no lateness to rank by).
 */
function loweredOnly(run: TickRun): HeldGrant[] {
  return run.members.map((m) => {
    const reading = entry(run, m.name).reading;
    const count = run.counts.get(m.name) as number;
    if (!reading.ok)
      return {
        name: m.name,
        granted: count,
        share: count,
        reason: 'unreadable' as const,
        lateness: undefined,
      };
    // A paused member's share holds back what its resume takes, from the fast path too (`heldAt`).
    if (reading.decision.reason === 'hold:paused') {
      const share = heldAt(run, m.name);
      return { name: m.name, granted: count, share, reason: 'paused' as const, lateness: undefined };
    }
    return {
      name: m.name,
      granted: Math.min(count, demandOf(reading.decision, m.config)),
      share: count,
      reason: 'lowered-only' as const,
      lateness: undefined,
    };
  });
}
