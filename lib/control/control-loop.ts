import { type BudgetFastMember, type BudgetFastResult, runBudgetFastSample } from './budget-fast.ts';
import type { BudgetTickResult } from './budget-outcome.ts';
import type { ScalerConfig } from './config.ts';
import { withRisesCarried } from './fast-context.ts';
import { FAST_LOOP_END_BEFORE_TICK_SECONDS, type FastPathContext } from './fast-path.ts';
import { type SampleGrid, sampleGrid, type TickSlot } from './sample-grid.ts';
import { type FastSampleResult, runFastSample, type TickPorts } from './tick.ts';

/**
 * The control loop between two ticks: what carries from a tick to its samples, when the samples fall, and when a
 * member leaves. A lone scaler is a loop of one member with no budget; a shared budget's loop has every member
 * with a fast path, in the tick's grant order, and the budget's counts and shares.
 *
 * Pure of clocks and AWS, like `runTick`: the time is passed in, and the state is plain JSON, so a caller may keep
 * it in memory between samples (the Lambda's sleeping loop, the simulator) or store it between invocations.
 */

/** Why a member stopped sampling before the slot's end. */
export type LeaveReason = 'paused' | 'headroom' | 'error' | 'deadline';

/** One member's part of the loop: its fast-path context, what the tick left it to do, and its tally. */
export interface LoopMember {
  readonly name: string;
  readonly context: FastPathContext;
  /** When its trailing reserved concurrency may come down (the tick's `releaseAt`). */
  readonly releaseAt?: number;
  /** Its grant, while the tick's raise waits for units not free yet (the tick's `deferredTo`). */
  readonly deferredTo?: number;
  readonly samples: number;
  readonly growths: number;
  readonly maxVisible: number;
  /** Set once it left the loop: it is not sampled again until the next tick. */
  readonly left?: LeaveReason;
}

/** A shared budget's part of the loop: its total, every tick member's count and share (sampling or not). */
export interface LoopBudget {
  readonly total: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly shares: Readonly<Record<string, number>>;
}

export interface LoopState {
  /** The slot's sample grid (sample-grid.ts). */
  readonly grid: SampleGrid;
  /** The members that sample, in the order they take free headroom (the tick's grant order). */
  readonly members: readonly LoopMember[];
  readonly budget?: LoopBudget;
  /**
   * The grid time of the last sample taken (not the clock's: a late sample still consumes its own time, so none is
   * skipped): the next sample is the grid's next time after it.
   */
  readonly sampledAt?: number;
}

/** What a tick hands the loop for one member; no context: it has no fast path this minute. */
export interface LoopStart {
  readonly name: string;
  readonly config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>;
  readonly context?: FastPathContext;
  readonly releaseAt?: number;
  readonly deferredTo?: number;
}

/**
 * The loop a tick starts. Every member samples at the shortest interval any of them asks for (sampling more
 * often is harmless); the grid is the tick's slot (`sampleGrid`).
 */
export function startLoop(starts: readonly LoopStart[], slot: TickSlot, budget?: LoopBudget): LoopState {
  const sampling = starts.filter((s) => s.context !== undefined);
  const first = sampling[0] ?? starts[0];
  const interval = Math.min(...sampling.map((s) => s.config.fastSampleSeconds));
  const grid = sampleGrid(slot, {
    tickSeconds: first?.config.tickSeconds ?? 0,
    fastSampleSeconds: sampling.length > 0 ? interval : 0,
  });
  // Undefined fields vanish in JSON: the state stays plain data.
  const members = sampling.map(({ name, context, releaseAt, deferredTo }): LoopMember => {
    return {
      name,
      context: context as FastPathContext,
      releaseAt,
      deferredTo,
      samples: 0,
      growths: 0,
      maxVisible: 0,
    };
  });
  return { grid, members, budget };
}

/**
 * The loop a tick starts, going on from the loop of the tick just before where the caller still holds it (the
 * simulator; the Lambda's warm container): each member keeps the rises it measured (`withRisesCarried`: slow
 * start's, with its busy rise where no fit judged it, and those a growth is judged by).
 * A loop of an earlier slot (a tick skipped, a stale event) carries nothing; neither does a cold start.
 */
export function continuedLoop(state: LoopState, before: LoopState | undefined): LoopState {
  if (before === undefined) return state;
  const adjacent = Math.abs(before.grid.nextTick - state.grid.start) <= FAST_LOOP_END_BEFORE_TICK_SECONDS;
  if (!adjacent || !(before.grid.start < state.grid.start)) return state;
  const previous = new Map(before.members.map((m) => [m.name, m.context]));
  const members = state.members.map((m) => ({
    ...m,
    context: withRisesCarried(m.context, previous.get(m.name)),
  }));
  return { ...state, members };
}

/** A budget tick's loop: its members in the grant order, with the counts and shares the tick left. */
export function startBudgetLoop(
  result: BudgetTickResult,
  configOf: (name: string) => ScalerConfig,
  slot: TickSlot,
): LoopState {
  const starts = result.members.map((o) => ({
    name: o.name,
    config: configOf(o.name),
    context: o.fastContext,
    releaseAt: o.releaseAt,
    deferredTo: o.deferredTo,
  }));
  return startLoop(starts, slot, {
    total: result.budget,
    counts: Object.fromEntries(result.members.map((o) => [o.name, o.appliedAfter])),
    shares: Object.fromEntries(result.members.map((o) => [o.name, o.share])),
  });
}

/** The members still sampling. */
export function activeMembers(state: LoopState): readonly LoopMember[] {
  return state.members.filter((m) => m.left === undefined);
}

/** When the next sample falls; undefined when the loop is over (the slot's grid is done, or nobody samples). */
export function nextSampleAt(state: LoopState): number | undefined {
  if (activeMembers(state).length === 0) return undefined;
  const after = state.sampledAt ?? Number.NEGATIVE_INFINITY;
  return state.grid.times.find((t) => t > after);
}

/** Whether `now` is the loop's next sample time (a caller on a finer clock, the simulator, asks at every step). */
export function sampleDue(state: LoopState, now: number): boolean {
  const next = nextSampleAt(state);
  return next !== undefined && Math.abs(next - now) < 1e-6;
}

/** What the actuator knows of a member's last write in this sample, beyond the limits (the Lambda's `Actuation`). */
export interface WriteVerdict {
  /** `clamped`: the account's headroom refused the growth; `failed`: the write failed (`failure` says how). */
  readonly kind: string;
  /** `deadline`: the write would have landed in the next tick's slot, so it was not sent. */
  readonly failure?: string;
}

export interface LoopMemberPorts extends Pick<TickPorts, 'queue' | 'concurrency'> {
  readonly config: ScalerConfig;
  /** The verdict on its last write in this sample. @default none: a write either lands or shows in the limits */
  lastWrite?(): WriteVerdict;
}

/**
 * One member's sample: its result, whether a limit rose (its own growth, or the tick's deferred raise), and
 * whether that raise ran (then the tick's grant is done).
 */
export type LoopSample =
  | {
      readonly ok: true;
      readonly sample: FastSampleResult;
      readonly grew: boolean;
      readonly raised?: boolean;
    }
  | { readonly ok: false; readonly error: unknown };

export interface LoopStep {
  readonly state: LoopState;
  /** Every active member's sample. */
  readonly results: ReadonlyMap<string, LoopSample>;
  /** The members that left at this sample, and why. */
  readonly left: ReadonlyMap<string, LeaveReason>;
}

/**
 * Why a member leaves after this sample, if it does: a failed sample (nothing is written again this minute: a
 * throttled control plane is not asked again every 10 s; the next tick repairs), a pause found before a growth, a
 * write the deadline kept back (no error: the next tick decides), or a growth the account's headroom refused (it
 * will not have grown in 10 s: the next tick asks again).
 */
export function leaveReason(result: LoopSample, write?: WriteVerdict): LeaveReason | undefined {
  if (!result.ok) return 'error';
  if (result.sample.paused) return 'paused';
  if (write?.kind === 'failed') return write.failure === 'deadline' ? 'deadline' : 'error';
  if (!result.grew && write?.kind === 'clamped') return 'headroom';
  return undefined;
}

/**
 * The loop's next sample, taken at `now` (the clock's time, at or after `nextSampleAt`) by every active member: the
 * loop's state after it, each member's sample, and who left.
 */
export async function sampleLoop(
  state: LoopState,
  ports: ReadonlyMap<string, LoopMemberPorts>,
  now: number,
): Promise<LoopStep> {
  const active = activeMembers(state);
  const portsOf = (name: string) => ports.get(name) as LoopMemberPorts;
  const sampled = state.budget
    ? await budgetSample(state.budget, active, portsOf, now)
    : { results: await loneSamples(active, portsOf, now), counts: undefined };
  const left = new Map<string, LeaveReason>();
  const members = state.members.map((m) => {
    const result = sampled.results.get(m.name);
    if (m.left !== undefined || result === undefined) return m;
    const why = leaveReason(result, portsOf(m.name).lastWrite?.());
    if (why !== undefined) left.set(m.name, why);
    return afterSample(m, result, why);
  });
  const budget = state.budget && sampled.counts ? { ...state.budget, counts: sampled.counts } : state.budget;
  const sampledAt = nextSampleAt(state) ?? now;
  return { state: { ...state, members, sampledAt, budget }, results: sampled.results, left };
}

/** A member after its sample: its new context and tally, and its leaving. */
function afterSample(m: LoopMember, result: LoopSample, why: LeaveReason | undefined): LoopMember {
  if (!result.ok) return { ...m, left: 'error' };
  const { sample, grew } = result;
  // A write that failed is no growth, whatever the sample asked.
  const counted = grew && why !== 'error' && why !== 'deadline';
  const { deferredTo: _ran, ...rest } = m;
  return {
    ...(result.raised ? rest : m),
    context: sample.context,
    samples: m.samples + 1,
    growths: m.growths + (counted ? 1 : 0),
    maxVisible: Math.max(m.maxVisible, sample.depth.visible),
    ...(why === undefined ? {} : { left: why }),
  };
}

/** A lone scaler's sample (or several with no budget between them): each member's own `runFastSample`. */
async function loneSamples(
  active: readonly LoopMember[],
  portsOf: (name: string) => LoopMemberPorts,
  now: number,
): Promise<Map<string, LoopSample>> {
  const results = new Map<string, LoopSample>();
  for (const m of active) {
    const ports = portsOf(m.name);
    try {
      const sample = await runFastSample(ports, m.context, ports.config, now);
      results.set(m.name, { ok: true, sample, grew: sample.changed });
    } catch (error) {
      results.set(m.name, { ok: false, error });
    }
  }
  return results;
}

/** A budget's sample: `runBudgetFastSample` over the active members, within the budget's free headroom. */
async function budgetSample(
  budget: LoopBudget,
  active: readonly LoopMember[],
  portsOf: (name: string) => LoopMemberPorts,
  now: number,
): Promise<{ results: Map<string, LoopSample>; counts: Record<string, number> }> {
  const members = active.map(
    (m): BudgetFastMember => ({
      name: m.name,
      ports: portsOf(m.name),
      config: portsOf(m.name).config,
      context: m.context,
      releaseAt: m.releaseAt,
      deferredTo: m.deferredTo,
      share: budget.shares[m.name],
    }),
  );
  const outcome: BudgetFastResult = await runBudgetFastSample(
    budget.total,
    members,
    new Map(Object.entries(budget.counts)),
    now,
    new Map(Object.entries(budget.shares)),
  );
  const results = new Map<string, LoopSample>();
  for (const m of active) {
    const failure = outcome.failures.get(m.name);
    const sample = outcome.results.get(m.name);
    if (failure !== undefined) results.set(m.name, { ok: false, error: failure });
    else if (sample !== undefined)
      // The tick's deferred raise ran in this sample: a growth like the fast path's own.
      results.set(m.name, {
        ok: true,
        sample,
        grew: sample.changed || outcome.raised.has(m.name),
        raised: outcome.raised.has(m.name),
      });
  }
  return { results, counts: Object.fromEntries(outcome.counts) };
}

/** Each member's tally at the loop's end; those still sampling stop by `stoppedBy` (the slot ended, or time). */
export function loopTallies<S extends string>(
  state: LoopState,
  stoppedBy: S,
): Map<string, { samples: number; growths: number; maxVisible: number; stoppedBy: LeaveReason | S }> {
  return new Map(
    state.members.map((m) => [
      m.name,
      { samples: m.samples, growths: m.growths, maxVisible: m.maxVisible, stoppedBy: m.left ?? stoppedBy },
    ]),
  );
}
