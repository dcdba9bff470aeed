import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { readHistories } from '../../lib/aws/metric-history.ts';
import type { ControllerHistory } from '../../lib/aws/metric-queries.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import type { TickerPort } from '../../lib/aws/ticker.ts';
import type { BudgetMemberOutcome, BudgetTickResult } from '../../lib/control/budget-outcome.ts';
import { runBudgetTick } from '../../lib/control/budget-tick.ts';
import { type LoopState, startBudgetLoop } from '../../lib/control/control-loop.ts';
import type { ScalerConfig, TickResult } from '../../lib/control/index.ts';
import { pauseOverpulls } from './actuator.ts';
import type { BudgetMemberSettings, BudgetSettings } from './budget-resources.ts';
import { scaleEventPeriod } from './carried-state.ts';
import { failed } from './failure.ts';
import { drivenElsewhereSkip, type TickOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import { type LoopMemberRun, recordingAll, Sampler } from './sampler.ts';
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
 * A shared budget's controller: every member's tick in one invocation (one `GetMetricData` for all of them, then
 * `runBudgetTick`: each member's own law, the split, the writes lowerings first), then the fast path over every
 * member until 10 s before the next tick, growing each only within the budget's free headroom. The same bundle
 * as a lone scaler's; index.ts picks this when the environment lists members.
 */

export interface BudgetDependencies {
  readonly settings: BudgetSettings;
  readonly clients: AwsClients;
  readonly calls: CallLog;
  /** Each member's reporter (its metrics under its own ScalerName), by scaler name. */
  readonly reporters: ReadonlyMap<string, Reporter>;
  /** The budget's own metrics and log line. */
  readonly budgetReporter: BudgetReporter;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** The ticker queue the samples between ticks come through; none: the controller only ticks. */
  readonly ticker?: TickerPort;
}

/** What a budget tick did, for the budget's own metrics and log line. */
export type BudgetOutcome =
  | { readonly kind: 'decided'; readonly result: BudgetTickResult; readonly budgetName: string }
  | {
      readonly kind: 'skipped';
      readonly reason: 'skip:stale-event' | 'skip:repeat';
      readonly budgetName: string;
    };

export interface BudgetReporter {
  report(outcome: BudgetOutcome, now: number): void;
}

/** The invocation's result: the budget's outcome and each member's. */
export interface BudgetRun {
  readonly budget: BudgetOutcome;
  readonly members: ReadonlyMap<string, TickOutcome>;
}

interface MemberRun {
  readonly settings: BudgetMemberSettings;
  readonly ports: ControllerTickPorts;
}

/**
 * A duplicate delivery of this slot's event, or a concurrent one: a member changed within the slot already (its
 * mapping's LastModified, or a published scale event). Any member's evidence skips the whole tick: the budget
 * decided this slot once, for all of them together.
 */
async function repeatOf(runs: readonly MemberRun[], scheduledAt: number): Promise<boolean> {
  const evidence = await Promise.all(runs.map((r) => r.ports.evidence().catch(() => undefined)));
  return evidence.some(
    (e) =>
      e !== undefined &&
      isRepeat(
        scheduledAt,
        { mappingModifiedAt: e.mappingModifiedAt, scaleEventPeriod: scaleEventPeriod(e) },
        e.periodSeconds,
      ),
  );
}

/**
 * One `GetMetricData` for every member (`readHistories`), made once, on the first member's read; a member's own
 * history only where this container does not remember its tick before.
 */
function sharedHistory(
  deps: BudgetDependencies,
  now: number,
  memory: TickMemory,
): (index: number) => Promise<ControllerHistory> {
  const reads = deps.settings.members.map((m) => ({
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

/** Every member skipped for one reason: the budget decided this slot already, or the event is stale. */
function skippedRun(
  settings: BudgetSettings,
  reason: 'skip:stale-event' | 'skip:repeat',
  detail: Record<string, unknown>,
): BudgetRun {
  return {
    budget: { kind: 'skipped', reason, budgetName: settings.budgetName },
    members: new Map(
      settings.members.map((m) => [m.resources.scalerName, { kind: 'skipped', reason, detail }]),
    ),
  };
}

/** A member's tick outcome, as a lone scaler's tick reports it. */
async function memberOutcome(
  o: BudgetMemberOutcome,
  run: MemberRun,
  recorded: Awaited<ReturnType<typeof recordingAll>>['recorded'],
): Promise<TickOutcome> {
  if (o.snapshot === undefined || o.decision === undefined) return failed(o.readError);
  const { actuation, writes } = recorded.get(o.name) ?? { actuation: { kind: 'unchanged' }, writes: [] };
  const reading = await run.ports.actuator.read();
  // Held as a pause by the budget (counted, not written), reported as the handover it is.
  const handover = drivenElsewhereSkip(reading);
  if (handover) return handover;
  const result: TickResult = {
    snapshot: o.snapshot,
    decision: o.decision,
    applied: o.snapshot.appliedConcurrency,
    changed: o.wrote,
    repaired: o.repaired,
  };
  return {
    kind: 'decided',
    result,
    actuation,
    writes,
    appliedAfter: run.ports.actuator.appliedNow,
    pauseOverpull: pauseOverpulls(reading),
    config: run.settings.config,
  };
}

/** The budget's fast path after its tick: the control loop, and each member's hands in the Lambda. */
interface BudgetFastStart {
  readonly state: LoopState;
  readonly runs: ReadonlyMap<string, LoopMemberRun>;
}

function fastStart(
  deps: BudgetDependencies,
  result: BudgetTickResult,
  runs: readonly MemberRun[],
  slot: { readonly started: number; readonly scheduledAt: number | undefined },
): BudgetFastStart | undefined {
  const byName = new Map(runs.map((r) => [r.settings.resources.scalerName, r]));
  const configOf = (name: string): ScalerConfig => (byName.get(name) as MemberRun).settings.config;
  const state = startBudgetLoop(result, configOf, slot);
  if (state.members.length === 0) return undefined;
  const loopRuns = new Map(
    state.members.map((m) => {
      const run = byName.get(m.name) as MemberRun;
      return [m.name, loopMember(deps, run.settings, run.ports.actuator)] as const;
    }),
  );
  return { state, runs: loopRuns };
}

/** A member's hands between ticks: its actuator (the tick's, or a fresh one), its queue and its reporter. */
function loopMember(
  deps: BudgetDependencies,
  settings: BudgetMemberSettings,
  actuator = actuatorFor(deps.clients, settings.resources, settings.config),
): LoopMemberRun {
  return {
    config: settings.config,
    actuator,
    queue: sqsQueuePort(deps.clients.sqs, settings.resources.queueUrl),
    reporter: deps.reporters.get(settings.resources.scalerName),
  };
}

/** One scheduled budget tick. Never throws for an AWS failure: a member that fails holds, the others go on. */
export async function budgetTick(
  deps: BudgetDependencies,
  event: unknown,
  now: number,
  memory: TickMemory = new TickMemory(),
): Promise<BudgetRun & { readonly fast?: BudgetFastStart }> {
  const { budgetName, budget, members } = deps.settings;
  const tickSeconds = members[0]?.config.tickSeconds ?? 60;
  const scheduledAt = eventTime(event);
  if (scheduledAt !== undefined && isStale(scheduledAt, now, tickSeconds)) {
    return skippedRun(deps.settings, 'skip:stale-event', { eventAgeSeconds: now - scheduledAt });
  }
  const history = sharedHistory(deps, now, memory);
  const runs: MemberRun[] = members.map((settings, i) => ({
    settings,
    ports: createTickPorts(deps.clients, settings.resources, settings.config, now, {
      memory,
      sharedHistory: () => history(i),
    }),
  }));
  const slotAt = repeatCheckTime(scheduledAt, now, METRIC_PERIOD_SECONDS);
  if (await repeatOf(runs, slotAt)) {
    return skippedRun(deps.settings, 'skip:repeat', { scheduledAt: slotAt });
  }
  const tickMembers = runs.map((r) => ({
    name: r.settings.resources.scalerName,
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
  const actuators = new Map(runs.map((r) => [r.settings.resources.scalerName, r.ports]));
  const { value: result, recorded } = await recordingAll(names, actuators, () =>
    runBudgetTick(budget, tickMembers, now, options),
  );
  const outcomes = new Map<string, TickOutcome>();
  for (const o of result.members) {
    const run = runs.find((r) => r.settings.resources.scalerName === o.name) as MemberRun;
    outcomes.set(o.name, await memberOutcome(o, run, recorded));
  }
  const fast = fastStart(deps, result, runs, { started: now, scheduledAt });
  return {
    budget: { kind: 'decided', result, budgetName },
    members: outcomes,
    ...(fast ? { fast } : {}),
  };
}

/** What the budget's handler answers: the tick's run, or that a ticker delivery was handled (it never fails). */
export type BudgetAnswer = BudgetRun | { readonly kind: 'sampled' };

/**
 * The budget controller's handler body: a scheduled tick (each member's report and the budget's, then its samples
 * sent to the ticker queue), or one of those samples delivered back.
 */
export function createBudgetHandler(deps: BudgetDependencies) {
  const byName = new Map(deps.settings.members.map((m) => [m.resources.scalerName, m]));
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
  return async (event: unknown): Promise<BudgetAnswer> => {
    if (isTickerEvent(event)) {
      await sampler.deliver(event);
      return { kind: 'sampled' };
    }
    deps.calls.reset();
    const now = deps.clock();
    // Only a bug in this code escapes: a member's failure is its own (it holds), the others go on.
    const run = await budgetTick(deps, event, now, memory);
    for (const [name, outcome] of run.members) deps.reporters.get(name)?.report(outcome, deps.calls, now);
    deps.budgetReporter.report(run.budget, now);
    if (run.fast) await sampler.start(run.fast.state, run.fast.runs);
    return { budget: run.budget, members: run.members };
  };
}
