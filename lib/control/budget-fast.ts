import { budgetCount, ceilingOf } from './budget-member.ts';
import { capInSteps, type ScalerConfig } from './config.ts';
import type { FastPathContext } from './fast-path.ts';
import type { ActuatorCondition } from './ports.ts';
import { type FastSampleResult, runFastSample, type TickPorts } from './tick.ts';

/**
 * A shared budget's fast path between ticks: the releases of trailing reserved concurrency, the tick's deferred
 * raises, then each member's own sample within what the budget leaves free. The control loop (control-loop.ts)
 * runs it at every sample time of a budget's loop.
 */

export interface BudgetFastMember {
  readonly name: string;
  readonly ports: Pick<TickPorts, 'queue' | 'concurrency'>;
  readonly config: ScalerConfig;
  readonly context: FastPathContext;
  /** The tick's `releaseAt` for it, if any. */
  readonly releaseAt?: number;
  /** The tick's `deferredTo` for it, if any. */
  readonly deferredTo?: number;
  /** Its share (`BudgetMemberOutcome.share`): what the others' fast paths leave free for it. @default none held */
  readonly share?: number;
}

export interface BudgetFastResult {
  readonly results: ReadonlyMap<string, FastSampleResult>;
  /** Members whose sample threw: they count at their cap until the next tick reads them. */
  readonly failures: ReadonlyMap<string, unknown>;
  /** Every member's count after the samples. */
  readonly counts: ReadonlyMap<string, number>;
  /** The members whose trailing reserved concurrency came down in this sample (their units are free now). */
  readonly released: ReadonlySet<string>;
  /** The members whose deferred raise ran in this sample, and the value it reached. */
  readonly raised: ReadonlyMap<string, number>;
}

/**
 * The most a member's fast path may grow to now: its cap, or what the budget leaves free above its count, if
 * less, less the part of the others' shares they are not using. Between ticks nobody knows whether another
 * member is about to need its share (two bursts that coincide), so the fast path lends none of it: a member grows
 * at once into its own share and into what no share holds; the others' unused shares are lent only by the tick,
 * which weighs every member's own law. The fast path only grows.
 */
export function fastGrowthLimit(
  budget: number,
  counts: ReadonlyMap<string, number>,
  name: string,
  config: ScalerConfig,
  shares: ReadonlyMap<string, number> = new Map(),
  applied?: number,
): number {
  let total = 0;
  for (const c of counts.values()) total += c;
  let held = 0;
  for (const [other, share] of shares) {
    if (other !== name) held += Math.max(0, share - (counts.get(other) ?? share));
  }
  // From what it runs under, not what it counts for: a member whose reserved trails a shrink must not grow its
  // mapping back over the tick's split into units it has not given up yet.
  const own =
    applied !== undefined && Number.isFinite(applied) ? applied : (counts.get(name) ?? config.maxConcurrency);
  const free = Math.max(0, budget - total - held);
  // Never above what is free, not even to the floor: a member below its floor (a hand edit) waits for the tick.
  const limit = Math.min(config.maxConcurrency, own + free);
  // On its levels (whole pollers in provisioned mode), rounded down: a level rounded up would pass what is free.
  // Never below what it runs under, which a hand edit may have left between two levels: then it does not grow.
  return Math.max(capInSteps(limit, config.actuator), Math.min(own, limit));
}

/** The config a sample runs under: its cap lowered to `limit` (and its floor with it, where the limit is lower). */
function limitedConfig(config: ScalerConfig, limit: number): ScalerConfig {
  if (limit >= config.maxConcurrency) return config;
  return { ...config, maxConcurrency: limit, minConcurrency: Math.min(config.minConcurrency, limit) };
}

/**
 * One fast-path sample of every member in order (the tick's grant order: most behind first, so they take the
 * free headroom first), each growing only within what the budget leaves free (`fastGrowthLimit`). `counts` holds
 * every member's count, sampled or not (a paused or unreadable member counts as the tick left it).
 */
export async function runBudgetFastSample(
  budget: number,
  members: readonly BudgetFastMember[],
  counts: ReadonlyMap<string, number>,
  now: number,
  allShares?: ReadonlyMap<string, number>,
): Promise<BudgetFastResult> {
  const step: FastStep = {
    budget,
    now,
    next: new Map(counts),
    results: new Map(),
    failures: new Map(),
    released: new Set(),
    raised: new Map(),
    contexts: new Map(),
  };
  // Every tick member's share, sampled or not (a member that left the loop, or has no fast path, keeps its share).
  const shares =
    allShares ?? new Map(members.flatMap((m) => (m.share === undefined ? [] : [[m.name, m.share] as const])));
  // Releases first: the units they free go to the growths below, most behind first.
  for (const m of members) await releaseStep(step, m);
  // Then the tick's deferred raises, most behind first, within what is free now: the tick's own decision,
  // carried out once the units it waited for are free (over limits as the tick left them only).
  for (const m of members) await raiseStep(step, m);
  for (const m of members) await sampleStep(step, m, shares);
  const { results, failures, next, released, raised } = step;
  return { results, failures, counts: next, released, raised };
}

/** One budget fast sample in progress: every member's count as the writes go, and what each did. */
interface FastStep {
  readonly budget: number;
  readonly now: number;
  readonly next: Map<string, number>;
  readonly results: Map<string, FastSampleResult>;
  readonly failures: Map<string, unknown>;
  readonly released: Set<string>;
  readonly raised: Map<string, number>;
  /** The contexts a deferred raise moved on. */
  readonly contexts: Map<string, FastPathContext>;
}

const countNow = async (m: BudgetFastMember) =>
  budgetCount(await ceilingOf(m.ports.concurrency), m.config.maxConcurrency);

async function releaseStep(step: FastStep, m: BudgetFastMember): Promise<void> {
  const { next } = step;
  if (m.releaseAt === undefined || step.now < m.releaseAt) return;
  if ((next.get(m.name) ?? 0) <= m.context.applied) return;
  try {
    if (await releaseTrailing(m, next.get(m.name) ?? 0)) {
      step.released.add(m.name);
      next.set(m.name, await countNow(m));
    }
  } catch (error) {
    step.failures.set(m.name, error);
  }
}

async function raiseStep(step: FastStep, m: BudgetFastMember): Promise<void> {
  const { next } = step;
  if (step.failures.has(m.name) || m.deferredTo === undefined) return;
  const count = next.get(m.name) ?? m.config.maxConcurrency;
  // The tick lent it the others' unused shares already: only what is free bounds it, no share is held here.
  const free = fastGrowthLimit(step.budget, next, m.name, m.config, new Map(), m.context.applied);
  const target = Math.min(m.deferredTo, free);
  if (target <= count) return;
  try {
    const after = await raiseDeferred(m, target);
    // A raise half done (reserved written, the mapping refused) still holds what was written: count it.
    next.set(m.name, Math.max(count, await countNow(m)));
    if (after === undefined) return;
    step.raised.set(m.name, after);
    step.contexts.set(m.name, {
      ...m.context,
      applied: after,
      tickApplied: after,
      lastChangeAt: step.now,
      grownFrom: m.context.applied,
    });
  } catch (error) {
    step.failures.set(m.name, error);
    next.set(m.name, m.config.maxConcurrency);
  }
}

async function sampleStep(
  step: FastStep,
  m: BudgetFastMember,
  shares: ReadonlyMap<string, number>,
): Promise<void> {
  const { next, now } = step;
  if (step.failures.has(m.name)) return;
  const context = step.contexts.get(m.name) ?? m.context;
  const limit = fastGrowthLimit(step.budget, next, m.name, m.config, shares, context.applied);
  const before = next.get(m.name) ?? m.config.maxConcurrency;
  try {
    const result = await runFastSample(m.ports, context, limitedConfig(m.config, limit), now);
    step.results.set(m.name, result);
    const after = await countNow(m);
    // A growth rewrites a trailing reserved down with it (lockstep plans reserved = the new value): until the
    // release time the invocations the old maximum started may still run, so it still counts at the old value.
    const trailing =
      before > context.applied &&
      !step.released.has(m.name) &&
      (m.releaseAt === undefined || now < m.releaseAt);
    next.set(m.name, trailing ? Math.max(before, after) : after);
  } catch (error) {
    // A write may have landed before the error: count the most it could hold.
    step.failures.set(m.name, error);
    next.set(m.name, m.config.maxConcurrency);
  }
}

/**
 * The tick's deferred raise of one member to `target`, over limits as the tick left them: read afresh first; a
 * pause or a hand edit since the tick is left alone. Returns the applied value after, undefined when nothing rose.
 */
async function raiseDeferred(m: BudgetFastMember, target: number): Promise<number | undefined> {
  const port = m.ports.concurrency;
  await port.refresh?.();
  const [applied, condition] = await Promise.all([
    port.applied(),
    port.condition?.() ?? Promise.resolve<ActuatorCondition>({}),
  ]);
  if (condition.paused || applied === undefined || applied !== m.context.applied || target <= applied) {
    return undefined;
  }
  await port.apply(target, applied);
  const after = await port.applied();
  return after !== undefined && after > applied ? after : undefined;
}

/**
 * Brings a lockstep member's trailing reserved concurrency down to its mapping's maximum, once the units are known
 * free (`releaseAt`). Only over limits exactly as this controller left them: the limits are read afresh first, and
 * a pause, a hand edit (a value other than the one the tick applied) or limits already in step are left alone. The
 * write lowers reserved to the mapping: never an overpull, and what runs does not change.
 */
async function releaseTrailing(m: BudgetFastMember, counted: number): Promise<boolean> {
  const port = m.ports.concurrency;
  await port.refresh?.();
  const [applied, ceiling, condition] = await Promise.all([
    port.applied(),
    ceilingOf(port),
    port.condition?.() ?? Promise.resolve<ActuatorCondition>({}),
  ]);
  if (condition.paused || applied === undefined || applied !== m.context.applied) return false;
  // Reserved as the tick left it, too: a hand edit of either limit is the operator's.
  if (ceiling === undefined || ceiling !== counted || ceiling <= applied) return false;
  await port.apply(applied, applied);
  const after = await ceilingOf(port);
  return after !== undefined && after < ceiling;
}
