import { allocateBudget, type BudgetGrant, type BudgetMember, budgetProblems } from './budget-allocation.ts';
import type { BudgetMemberOutcome, BudgetTickResult } from './budget-outcome.ts';
import { afterFailedLowering, type BudgetWrite, planBudgetWrites } from './budget-writes.ts';
import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { fastPathContext, fastPathOn } from './fast-path.ts';
import type { ControllerState } from './snapshot.ts';
import { readAndDecide, repairedBy, type TickOptions, type TickPorts, type TickReading } from './tick.ts';

/**
 * One tick of a shared budget: every member's own law, then the split, then the writes in the order that keeps
 * Σ applied ≤ budget at every instant. The budget's controller Lambda and the simulator's group controller both
 * run exactly this, as a lone scaler's both run `runTick`.
 *
 * 1. Each member is read and decided as `runTick` does (its own snapshot, state and `decide`). A member that
 *    cannot be read (its reads threw) counts at its last known value, or at its cap: nothing is written to it.
 * 2. A member paused by an operator counts at what its pause holds, and is not written either.
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

/**
 * The longest an SQS poll waits for messages (`WaitTimeSeconds` at most 20): a poll the pollers started before the
 * maximum dropped can return a batch, and invoke, that long after (docs/aws-facts.md, "Event source mapping").
 */
export const LONG_POLL_SECONDS = 20;

/**
 * How long after a lockstep shrink the units it freed are known free: every poll in flight then has returned and
 * invoked (the long poll plus the mapping's batching window), and every invocation the old maximum started has
 * ended (twice the mean invocation time, for the slow ones). Undefined when the invocation time is unknown: then
 * the units wait for the next tick, when reserved comes down anyway.
 */
export function releaseDelaySeconds(
  invocationSeconds: number | undefined,
  batchingWindowSeconds = 0,
): number | undefined {
  if (invocationSeconds === undefined || !Number.isFinite(invocationSeconds) || invocationSeconds < 0) {
    return undefined;
  }
  return LONG_POLL_SECONDS + batchingWindowSeconds + 2 * invocationSeconds;
}

export interface BudgetTickMember {
  /** Unique in the budget. */
  readonly name: string;
  readonly ports: TickPorts;
  /** Its own settings: its floor, cap and target are the budget's floor, cap and lateness for it. */
  readonly config: ScalerConfig;
  /** How much its lateness counts. @default 1 */
  readonly weight?: number;
  /** What it was last known to hold, counted when it cannot be read. @default its cap */
  readonly lastKnown?: number;
}

export interface BudgetTickHooks {
  /** Called after every write with every member's count then (the invariant's tests watch it). */
  afterWrite?(counts: ReadonlyMap<string, number>): void;
}

type OkReading = TickReading & {
  readonly ok: true;
  /** What it counts for: its execution ceiling where the port knows it, else its applied limit. */
  readonly ceiling: number | undefined;
};
type MemberReading = OkReading | { readonly ok: false; readonly error: unknown };

/** A member's reads and its own law, as `runTick` does them; a failed read is kept, not thrown. */
async function readMember(
  member: BudgetTickMember,
  now: number,
  options: TickOptions,
): Promise<MemberReading> {
  try {
    const reading = await readAndDecide(member.ports, member.config, now, options);
    return { ok: true, ...reading, ceiling: await ceilingOf(member.ports.concurrency) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The port's execution ceiling, or its applied limit where it has none (the simulator's pool). */
export function ceilingOf(port: TickPorts['concurrency']): Promise<number | undefined> {
  return port.ceiling ? port.ceiling() : port.applied();
}

/** What a member counts for in the budget: its execution ceiling, or its cap when nothing bounds it. */
export function budgetCount(applied: number | undefined, cap: number): number {
  return applied !== undefined && Number.isFinite(applied) ? applied : cap;
}

/** A member's demand: its own law's value within [floor, cap], as the split takes it. */
function demandOf(decision: Decision, config: ScalerConfig): number {
  return Math.min(config.maxConcurrency, Math.max(config.minConcurrency, decision.desired));
}

/** The age the member's decision used (the datapoint bounded by real-time depth), else the datapoint. */
function ageOf(reading: OkReading): number | undefined {
  return reading.decision.inputs.ageSeconds ?? reading.snapshot.oldestAge?.seconds;
}

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
    };
    if (held(run, m.name)) return { ...base, desired: 0, pausedAt: run.counts.get(m.name) as number };
    const ok = entry(run, m.name).reading as OkReading;
    return { ...base, desired: ok.decision.desired, ageSeconds: ageOf(ok) };
  });
}

/** The split (or rule 4) and the writes it takes, in their safe order. */
function planOf(run: TickRun) {
  const claims = claimsOf(run);
  const split = budgetProblems(run.budget, claims).length === 0;
  const grants = split
    ? allocateBudget(run.budget, claims)
    : loweredOnly(run.members, run.byName, run.counts);
  const heldTotal = run.members
    .filter((m) => held(run, m.name))
    .reduce((s, m) => s + (run.counts.get(m.name) ?? 0), 0);
  const writable = grants.filter((g) => !held(run, g.name));
  const limits = writable.map((g) => {
    const { member, reading } = entry(run, g.name);
    return {
      name: g.name,
      applied: reading.ok ? reading.ceiling : undefined,
      cap: member.config.maxConcurrency,
    };
  });
  // Rule 4 keeps the grants ≤ the counts: no raise, so the plan's budget check does not apply.
  const plan = split
    ? planBudgetWrites(run.budget - heldTotal, limits, writable)
    : writable.flatMap((g): BudgetWrite[] => {
        const from = run.counts.get(g.name) as number;
        return g.granted < from ? [{ name: g.name, kind: 'lower', from, to: g.granted, needs: [] }] : [];
      });
  return { split, grants, writable, plan };
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
 * grant needs no write is rewritten at its grant, which is its count: the count cannot rise.
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
    await write(run, g.name, g.granted);
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
    exhausted: split && grantedTotal >= budget && starved.length > 0,
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
  const saved: ControllerState = { ...decision.state, lastChangeAt: changed ? now : state.lastChangeAt };
  await member.ports.state.save(saved, now);
  const demand = held(run, g.name) ? counted : demandOf(decision, member.config);
  const age = ageOf(reading);
  const starved = g.granted < demand && age !== undefined && age > member.config.targetAgeSeconds;
  // The fast path grows from the member's applied limit (what the law sees), not its count.
  const applied = effective.has(g.name) ? effective.get(g.name) : reading.current;
  const fastContext =
    fastPathOn(member.config) && applied !== undefined && Number.isFinite(applied)
      ? fastPathContext(snapshot, { ...decision, state: saved }, applied, member.config)
      : undefined;
  const trailing = wrote.has(g.name) && applied !== undefined && appliedAfter > applied;
  const delay = releaseDelaySeconds(snapshot.invocationSeconds, condition.batchingWindowSeconds);
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

function countedBefore(member: BudgetTickMember, reading: MemberReading): number {
  return reading.ok
    ? budgetCount(reading.ceiling, member.config.maxConcurrency)
    : (member.lastKnown ?? member.config.maxConcurrency);
}

/** A grant as rule 4 makes it: the split's fields, with the reasons only rule 4 gives. */
interface HeldGrant extends Omit<BudgetGrant, 'reason'> {
  readonly reason: BudgetMemberOutcome['reason'];
}

/**
 * Rule 4: the held counts leave no room for the others' floors. Each member keeps its count, or its own law's
 * value where that is lower; the held ones keep theirs. In the members' order (no lateness to rank by).
 */
function loweredOnly(
  members: readonly BudgetTickMember[],
  byName: ReadonlyMap<string, { member: BudgetTickMember; reading: MemberReading }>,
  counts: ReadonlyMap<string, number>,
): HeldGrant[] {
  return members.map((m) => {
    const reading = byName.get(m.name)?.reading as MemberReading;
    const count = counts.get(m.name) as number;
    if (!reading.ok)
      return {
        name: m.name,
        granted: count,
        share: count,
        reason: 'unreadable' as const,
        lateness: undefined,
      };
    if (reading.decision.reason === 'hold:paused')
      return { name: m.name, granted: count, share: count, reason: 'paused' as const, lateness: undefined };
    return {
      name: m.name,
      granted: Math.min(count, demandOf(reading.decision, m.config)),
      share: count,
      reason: 'lowered-only' as const,
      lateness: undefined,
    };
  });
}
