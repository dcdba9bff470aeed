import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { readHistories } from '../../lib/aws/metric-history.ts';
import type { ControllerHistory } from '../../lib/aws/metric-queries.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import type { TickerPort } from '../../lib/aws/ticker.ts';
import type { BudgetMemberOutcome } from '../../lib/control/budget-outcome.ts';
import { runBudgetTick } from '../../lib/control/budget-tick.ts';
import { type LoopState, startBudgetLoop, startLoop } from '../../lib/control/control-loop.ts';
import { fastPathContext, fastPathOn, runTick, type TickResult } from '../../lib/control/index.ts';
import { type ConsumerReading, type LambdaActuator, pauseOverpulls } from './actuator.ts';
import { type StateEvidence, scaleEventPeriod } from './carried-state.ts';
import { failed } from './failure.ts';
import { type BudgetOutcome, drivenElsewhereSkip, type SkipReason, type TickOutcome } from './outcome.ts';
import type { BudgetReporter, Reporter } from './report.ts';
import { type BudgetSettings, type ControllerSettings, type MemberSettings, membersOf } from './resources.ts';
import { type LoopMemberRun, type Recorded, recordingAll, Sampler } from './sampler.ts';
import { eventTime, isRepeat, isStale, repeatCheckTime } from './schedule-event.ts';
import { TickMemory } from './tick-memory.ts';
import {
  actuatorFor,
  type ControllerTickPorts,
  createTickPorts,
  historyNeeds,
  lambdaTickOptions,
  METRIC_PERIOD_SECONDS,
  rememberedFor,
} from './tick-ports.ts';
import { isTickerEvent } from './ticker-message.ts';

/**
 * The controller Lambda's handler, for a lone scaler or a shared budget: a lone scaler is a loop of one member with
 * no budget. A scheduled tick reads and decides every member (a lone scaler through `runTick`; a budget's members
 * through one `GetMetricData` and `runBudgetTick`: each member's own law, the split, the writes lowerings first),
 * reports each, then starts the samples between ticks (docs/controller.md, "Between ticks"); a ticker delivery runs
 * one of those samples. Never throws for an AWS failure: a scheduled Lambda that throws is retried and can
 * crash-loop, and a hold is always safe. Only a bug in this code (not an AWS answer) escapes.
 */

interface CommonDependencies {
  readonly clients: AwsClients;
  readonly calls: CallLog;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** The ticker queue the samples between ticks come through; none: the controller only ticks. */
  readonly ticker?: TickerPort;
}

export interface ScalerDependencies extends CommonDependencies {
  readonly settings: ControllerSettings;
  readonly reporter: Reporter;
}

export interface BudgetDependencies extends CommonDependencies {
  readonly settings: BudgetSettings;
  /** Each member's reporter (its metrics under its own ScalerName), by scaler name. */
  readonly reporters: ReadonlyMap<string, Reporter>;
  /** The budget's own metrics and log line. */
  readonly budgetReporter: BudgetReporter;
}

export type ControllerDependencies = ScalerDependencies | BudgetDependencies;

const isBudget = (deps: ControllerDependencies): deps is BudgetDependencies => 'members' in deps.settings;

/** A budget's invocation result: the budget's outcome and each member's. */
export interface BudgetRun {
  readonly budget: BudgetOutcome;
  readonly members: ReadonlyMap<string, TickOutcome>;
}

/** A tick's run: each member's outcome, the budget's (a budget only), and the loop its samples go on with. */
interface TickRun {
  readonly budget?: BudgetOutcome;
  readonly members: ReadonlyMap<string, TickOutcome>;
  readonly fast?: FastStart;
}

/** The fast path after a tick: the control loop, and each member's hands in the Lambda. */
interface FastStart {
  readonly state: LoopState;
  readonly runs: ReadonlyMap<string, LoopMemberRun>;
}

interface MemberRun {
  readonly settings: MemberSettings;
  readonly ports: ControllerTickPorts;
}

const nameOf = (settings: ControllerSettings): string => settings.resources.scalerName;

/** Every member skipped for one reason: the budget decided this slot already, or the event is stale. */
function skippedRun(
  deps: ControllerDependencies,
  reason: Exclude<SkipReason, 'skip:driven-elsewhere'>,
  detail: Record<string, unknown>,
): TickRun {
  const skipped: TickOutcome = { kind: 'skipped', reason, detail };
  const members = new Map(membersOf(deps.settings).map((m) => [nameOf(m), skipped]));
  if (!isBudget(deps)) return { members };
  return { budget: { kind: 'skipped', reason, budgetName: deps.settings.budgetName }, members };
}

/** What changed within the slot already: the mapping's LastModified, or a published scale event. */
function changeOf(evidence: StateEvidence) {
  return { mappingModifiedAt: evidence.mappingModifiedAt, scaleEventPeriod: scaleEventPeriod(evidence) };
}

const repeats = (evidence: StateEvidence, slotAt: number): boolean =>
  isRepeat(slotAt, changeOf(evidence), evidence.periodSeconds);

/** A member's decided tick, as its reporter publishes it. */
function decided(
  result: TickResult,
  { actuation, writes }: Recorded,
  actuator: LambdaActuator,
  settings: ControllerSettings,
  reading: ConsumerReading,
): TickOutcome {
  const appliedAfter = actuator.appliedNow;
  const pauseOverpull = pauseOverpulls(reading);
  const fault = reading.ownerReadFault === undefined ? {} : { ownerReadFault: reading.ownerReadFault };
  return {
    kind: 'decided',
    result,
    actuation,
    writes,
    appliedAfter,
    pauseOverpull,
    ...fault,
    config: settings.config,
  };
}

const UNCHANGED: Recorded = { actuation: { kind: 'unchanged' }, writes: [] };

/** A member's hands between ticks: its actuator (the tick's, or a fresh one), its queue and its reporter. */
function loopMember(
  deps: ControllerDependencies,
  settings: ControllerSettings,
  actuator = actuatorFor(deps.clients, settings.resources, settings.config),
): LoopMemberRun {
  return {
    config: settings.config,
    actuator,
    queue: sqsQueuePort(deps.clients.sqs, settings.resources.queueUrl),
    reporter: reporterOf(deps, nameOf(settings)),
  };
}

function reporterOf(deps: ControllerDependencies, name: string): Reporter | undefined {
  return isBudget(deps) ? deps.reporters.get(name) : deps.reporter;
}

/** The tick's loop, where any member samples: each member's hands are the tick's actuator. */
function fastStart(deps: ControllerDependencies, state: LoopState, runs: readonly MemberRun[]) {
  if (state.members.length === 0) return undefined;
  const byName = new Map(runs.map((r) => [nameOf(r.settings), r]));
  const loopRuns = new Map(
    state.members.map((m) => {
      const run = byName.get(m.name) as MemberRun;
      return [m.name, loopMember(deps, run.settings, run.ports.actuator)] as const;
    }),
  );
  return { state, runs: loopRuns };
}

/** A lone scaler's read-and-decide: its evidence, a handover, a repeat, then `runTick`. */
async function scalerDecides(
  deps: ScalerDependencies,
  run: MemberRun,
  now: number,
  scheduledAt: number | undefined,
): Promise<TickRun> {
  const { settings, ports } = run;
  const one = (outcome: TickOutcome) => new Map([[nameOf(settings), outcome]]);
  try {
    const evidence = await ports.evidence();
    const handover = drivenElsewhereSkip(await ports.actuator.read());
    if (handover) return { members: one(handover) };
    const slotAt = repeatCheckTime(scheduledAt, now, evidence.periodSeconds);
    if (repeats(evidence, slotAt)) {
      return skippedRun(deps, 'skip:repeat', { scheduledAt: slotAt, ...changeOf(evidence) });
    }
    const { config } = settings;
    const tick = () => runTick(ports, config, now, lambdaTickOptions(config));
    const runs = new Map([[nameOf(settings), ports]]);
    const { value: result, recorded } = await recordingAll([nameOf(settings)], runs, tick);
    const recording = recorded.get(nameOf(settings)) ?? UNCHANGED;
    const outcome = decided(result, recording, ports.actuator, settings, await ports.actuator.read());
    const appliedAfter = ports.actuator.appliedNow;
    const context =
      fastPathOn(config) && appliedAfter !== undefined
        ? fastPathContext(result.snapshot, result.decision, appliedAfter, config)
        : undefined;
    const state = startLoop([{ name: nameOf(settings), config, context }], { started: now, scheduledAt });
    return { members: one(outcome), fast: fastStart(deps, state, [run]) };
  } catch (error) {
    return { members: one(failed(error)) };
  }
}

/**
 * One `GetMetricData` for every member (`readHistories`), made once, on the first member's read; a member's own
 * history only where this container does not remember its tick before.
 */
function sharedHistory(
  members: readonly MemberSettings[],
  deps: ControllerDependencies,
  now: number,
  memory: TickMemory,
): (index: number) => Promise<ControllerHistory> {
  const reads = members.map((m) => ({
    resources: m.resources,
    windowSeconds: lambdaTickOptions(m.config).windowSeconds,
    needs: historyNeeds(rememberedFor(memory, m.resources, m.config, now), now),
  }));
  let answer: Promise<ControllerHistory[]> | undefined;
  return async (index) => {
    answer ??= readHistories(deps.clients.cloudwatch, reads, now, METRIC_PERIOD_SECONDS);
    return (await answer)[index] as ControllerHistory;
  };
}

/** A budget member's tick outcome, as a lone scaler's tick reports it. */
async function memberOutcome(
  o: BudgetMemberOutcome,
  run: MemberRun,
  recorded: Recorded,
): Promise<TickOutcome> {
  if (o.snapshot === undefined || o.decision === undefined) return failed(o.readError);
  const reading = await run.ports.actuator.read();
  // Held as a pause by the budget (counted, not written), reported as the handover it is.
  const handover = drivenElsewhereSkip(reading);
  if (handover) return handover;
  const { snapshot, decision, wrote: changed, repaired } = o;
  const result: TickResult = { snapshot, decision, applied: snapshot.appliedConcurrency, changed, repaired };
  return decided(result, recorded, run.ports.actuator, run.settings, reading);
}

/**
 * A budget's read-and-decide: a repeat (any member's evidence skips the whole tick: the budget decided this slot
 * once, for all of them together), then `runBudgetTick`. A member that fails holds, the others go on.
 */
async function budgetDecides(
  deps: BudgetDependencies,
  runs: readonly MemberRun[],
  now: number,
  scheduledAt: number | undefined,
): Promise<TickRun> {
  const { budgetName, budget, members } = deps.settings;
  const slotAt = repeatCheckTime(scheduledAt, now, METRIC_PERIOD_SECONDS);
  const evidence = await Promise.all(runs.map((r) => r.ports.evidence().catch(() => undefined)));
  if (evidence.some((e) => e !== undefined && repeats(e, slotAt))) {
    return skippedRun(deps, 'skip:repeat', { scheduledAt: slotAt });
  }
  const tickMembers = runs.map((r) => ({
    name: nameOf(r.settings),
    ports: r.ports,
    config: r.settings.config,
    weight: r.settings.weight,
  }));
  // Each member's ports serve its own window from the one shared read; these options only size that read.
  const options = {
    periodSeconds: METRIC_PERIOD_SECONDS,
    windowSeconds: Math.max(...members.map((m) => lambdaTickOptions(m.config).windowSeconds)),
  };
  const names = tickMembers.map((m) => m.name);
  const actuators = new Map(tickMembers.map((m) => [m.name, m.ports]));
  const { value: result, recorded } = await recordingAll(names, actuators, () =>
    runBudgetTick(budget, tickMembers, now, options),
  );
  const outcomes = new Map<string, TickOutcome>();
  for (const o of result.members) {
    const run = runs.find((r) => nameOf(r.settings) === o.name) as MemberRun;
    outcomes.set(o.name, await memberOutcome(o, run, recorded.get(o.name) ?? UNCHANGED));
  }
  const configOf = (name: string) =>
    (runs.find((r) => nameOf(r.settings) === name) as MemberRun).settings.config;
  const state = startBudgetLoop(result, configOf, { started: now, scheduledAt });
  return {
    budget: { kind: 'decided', result, budgetName },
    members: outcomes,
    fast: fastStart(deps, state, runs),
  };
}

/** One scheduled tick: a stale event skips it; each member's ports (a budget's share one read), then the decision. */
async function controllerTick(
  deps: ControllerDependencies,
  event: unknown,
  now: number,
  memory: TickMemory,
): Promise<TickRun> {
  const members = membersOf(deps.settings);
  const scheduledAt = eventTime(event);
  const tickSeconds = members[0]?.config.tickSeconds ?? 60;
  if (scheduledAt !== undefined && isStale(scheduledAt, now, tickSeconds)) {
    return skippedRun(deps, 'skip:stale-event', { eventAgeSeconds: now - scheduledAt });
  }
  const history = isBudget(deps) ? sharedHistory(members, deps, now, memory) : undefined;
  const runs: MemberRun[] = members.map((settings, i) => ({
    settings,
    ports: createTickPorts(deps.clients, settings.resources, settings.config, now, {
      memory,
      ...(history ? { sharedHistory: () => history(i) } : {}),
    }),
  }));
  if (isBudget(deps)) return budgetDecides(deps, runs, now, scheduledAt);
  return scalerDecides(deps, runs[0] as MemberRun, now, scheduledAt);
}

/** What the handler answers a ticker delivery (it never fails). */
export type Sampled = { readonly kind: 'sampled' };
/** A lone scaler's answer: its tick's outcome. */
export type ControllerAnswer = TickOutcome | Sampled;
/** A budget's answer: the budget's outcome and each member's. */
export type BudgetAnswer = BudgetRun | Sampled;

/**
 * The Lambda handler's body: a scheduled tick (each member's report, the budget's, then its samples sent to the
 * ticker queue), or one of those samples delivered back; idle queue or busy, so a burst after silence is met within
 * a sample, not a minute later.
 */
export function createHandler(deps: ScalerDependencies): (event: unknown) => Promise<ControllerAnswer>;
export function createHandler(deps: BudgetDependencies): (event: unknown) => Promise<BudgetAnswer>;
export function createHandler(
  deps: ControllerDependencies,
): (event: unknown) => Promise<ControllerAnswer | BudgetAnswer>;
export function createHandler(deps: ControllerDependencies) {
  const byName = new Map(membersOf(deps.settings).map((m) => [nameOf(m), m]));
  // This container's memory of its ticks: the next tick's carried state without reading it back (tick-memory.ts).
  const memory = new TickMemory();
  const sampler = new Sampler({ ...deps, memory }, (names) => {
    const runs = new Map<string, LoopMemberRun>();
    for (const name of names) {
      const settings = byName.get(name);
      if (settings !== undefined) runs.set(name, loopMember(deps, settings));
    }
    return runs;
  });
  return async (event: unknown): Promise<ControllerAnswer | BudgetAnswer> => {
    if (isTickerEvent(event)) {
      await sampler.deliver(event);
      return { kind: 'sampled' };
    }
    deps.calls.reset();
    const now = deps.clock();
    const run = await controllerTick(deps, event, now, memory);
    for (const [name, outcome] of run.members) reporterOf(deps, name)?.report(outcome, deps.calls, now);
    if (isBudget(deps) && run.budget) deps.budgetReporter.report(run.budget, now);
    if (run.fast) await sampler.start(run.fast.state, run.fast.runs);
    if (run.budget) return { budget: run.budget, members: run.members };
    return run.members.get(nameOf(deps.settings as ControllerSettings)) as TickOutcome;
  };
}
