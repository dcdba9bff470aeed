import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  FAST_SAMPLE_WORST_SECONDS,
  FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS,
} from '../../lib/aws/call-budget.ts';
import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import {
  buildMetricQueries,
  type ControllerHistory,
  metricWindow,
  parseMetricData,
} from '../../lib/aws/metric-queries.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import {
  type BudgetFastMember,
  type BudgetTickResult,
  runBudgetFastSample,
  runBudgetTick,
} from '../../lib/control/budget-tick.ts';
import {
  FAST_LOOP_END_BEFORE_TICK_SECONDS,
  type FastPathContext,
  fastPathOn,
  type TickResult,
} from '../../lib/control/index.ts';
import { type Actuation, pauseOverpulls, type WriteLog } from './actuator.ts';
import type { BudgetMemberSettings, BudgetSettings } from './budget-resources.ts';
import { scaleEventPeriod } from './carried-state.ts';
import { failed, failedWrite, type InvocationContext } from './handler.ts';
import type { FastLoopSummary, FastOutcome, TickOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import { eventTime, isRepeat, isStale } from './schedule-event.ts';
import {
  type ControllerTickPorts,
  createTickPorts,
  METRIC_PERIOD_SECONDS,
  tickOptions,
} from './tick-ports.ts';

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
  readonly sleep?: (seconds: number) => Promise<void>;
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

/** One `GetMetricData` for every member: ids `m0…`, `m1…` keep their queries apart (≤ 500 per request). */
function sharedHistory(deps: BudgetDependencies, now: number): (index: number) => Promise<ControllerHistory> {
  const { members } = deps.settings;
  const period = METRIC_PERIOD_SECONDS;
  const window = Math.max(...members.map((m) => tickOptions(m.config).windowSeconds));
  let response: Promise<ControllerHistory[]> | undefined;
  const read = () => {
    response ??= (async () => {
      const { startTime, endTime } = metricWindow(now, period, window);
      const queries = members.flatMap((m, i) => buildMetricQueries(m.resources, period, `m${i}`));
      const results = [];
      let token: string | undefined;
      // Paged by NextToken; the first page holds all of it at ≤ 20 members (≤ 12,200 datapoints of 100,800).
      for (let page = 0; page < 10; page++) {
        const answer = await deps.clients.cloudwatch.send(
          new GetMetricDataCommand({
            StartTime: startTime,
            EndTime: endTime,
            ScanBy: 'TimestampDescending',
            MetricDataQueries: queries,
            NextToken: token,
          }),
        );
        results.push(...(answer.MetricDataResults ?? []));
        token = answer.NextToken;
        if (token === undefined) break;
      }
      const merged = mergePages(results);
      return members.map((m, i) => {
        const own = metricWindow(now, period, tickOptions(m.config).windowSeconds).startTime.getTime() / 1000;
        return withinWindow(parseMetricData(merged, `m${i}`), own);
      });
    })();
    return response;
  };
  return async (index) => (await read())[index] as ControllerHistory;
}

/** Pages of one request: each query's datapoints may come in several pages; join them by id. */
function mergePages<T extends { Id?: string; Timestamps?: Date[]; Values?: number[]; StatusCode?: string }>(
  results: readonly T[],
): T[] {
  const byId = new Map<string, T>();
  for (const r of results) {
    const seen = byId.get(r.Id ?? '');
    if (seen === undefined) byId.set(r.Id ?? '', { ...r });
    else
      byId.set(r.Id ?? '', {
        ...seen,
        Timestamps: [...(seen.Timestamps ?? []), ...(r.Timestamps ?? [])],
        Values: [...(seen.Values ?? []), ...(r.Values ?? [])],
        // The last page says how the query ended (PartialData on an earlier page means more pages follow).
        StatusCode: r.StatusCode ?? seen.StatusCode,
      });
  }
  return [...byId.values()];
}

/** A member's history cut to its own window, as its own call would have read it. */
function withinWindow(history: ControllerHistory, start: number): ControllerHistory {
  const cut = <P extends { timestamp: number }>(points: readonly P[]) =>
    points.filter((p) => p.timestamp >= start);
  const { series } = history;
  return {
    series: {
      ageOfOldestMessage: cut(series.ageOfOldestMessage),
      messagesSent: cut(series.messagesSent),
      messagesDeleted: cut(series.messagesDeleted),
      consumerDurationMs: cut(series.consumerDurationMs),
      consumerInvocations: cut(series.consumerInvocations),
      ...(series.partial ? { partial: series.partial } : {}),
    },
    appliedMin: cut(history.appliedMin),
    appliedMax: cut(history.appliedMax),
    scaleEvents: cut(history.scaleEvents),
    visible: cut(history.visible),
    visibleOffset: cut(history.visibleOffset),
  };
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

/** Nests every member's recording around the tick, so each gets its own actuation and writes. */
async function recordingAll<T>(
  runs: readonly MemberRun[],
  work: () => Promise<T>,
): Promise<{ value: T; recorded: Map<string, { actuation: Actuation; writes: WriteLog[] }> }> {
  const recorded = new Map<string, { actuation: Actuation; writes: WriteLog[] }>();
  const nest = async (i: number): Promise<T> => {
    const run = runs[i];
    if (run === undefined) return work();
    const { value, actuation, writes } = await run.ports.actuator.recording(() => nest(i + 1));
    recorded.set(run.settings.resources.scalerName, { actuation, writes });
    return value;
  };
  return { value: await nest(0), recorded };
}

/** One scheduled budget tick. Never throws for an AWS failure: a member that fails holds, the others go on. */
export async function budgetTick(
  deps: BudgetDependencies,
  event: unknown,
  now: number,
): Promise<BudgetRun & { readonly fast?: BudgetFastStart }> {
  const { budgetName, budget, members } = deps.settings;
  const tickSeconds = members[0]?.config.tickSeconds ?? 60;
  const scheduledAt = eventTime(event);
  const skipped = (
    reason: 'skip:stale-event' | 'skip:repeat',
    detail: Record<string, unknown>,
  ): BudgetRun => ({
    budget: { kind: 'skipped', reason, budgetName },
    members: new Map(members.map((m) => [m.resources.scalerName, { kind: 'skipped', reason, detail }])),
  });
  if (scheduledAt !== undefined && isStale(scheduledAt, now, tickSeconds)) {
    return skipped('skip:stale-event', { eventAgeSeconds: now - scheduledAt });
  }
  const history = sharedHistory(deps, now);
  const runs: MemberRun[] = members.map((settings, i) => ({
    settings,
    ports: createTickPorts(deps.clients, settings.resources, settings.config, now, () => history(i)),
  }));
  if (scheduledAt !== undefined && (await repeatOf(runs, scheduledAt))) {
    return skipped('skip:repeat', { scheduledAt });
  }
  const { value: result, recorded } = await recordingAll(runs, () =>
    runBudgetTick(
      budget,
      runs.map((r) => ({
        name: r.settings.resources.scalerName,
        ports: r.ports,
        config: r.settings.config,
        weight: r.settings.weight,
      })),
      now,
      // Each member's ports serve its own window from the one shared read; these options only size that read.
      {
        periodSeconds: METRIC_PERIOD_SECONDS,
        windowSeconds: Math.max(...members.map((m) => tickOptions(m.config).windowSeconds)),
      },
    ),
  );
  const outcomes = new Map<string, TickOutcome>();
  const fastMembers: FastMemberStart[] = [];
  for (const o of result.members) {
    const run = runs.find((r) => r.settings.resources.scalerName === o.name) as MemberRun;
    if (o.snapshot === undefined || o.decision === undefined) {
      outcomes.set(o.name, failed(o.readError));
      continue;
    }
    const { actuation, writes } = recorded.get(o.name) ?? { actuation: { kind: 'unchanged' }, writes: [] };
    const reading = await run.ports.actuator.read();
    const tickResult: TickResult = {
      snapshot: o.snapshot,
      decision: o.decision,
      applied: o.snapshot.appliedConcurrency,
      changed: o.wrote,
      repaired: o.repaired,
    };
    outcomes.set(o.name, {
      kind: 'decided',
      result: tickResult,
      actuation,
      writes,
      appliedAfter: run.ports.actuator.appliedNow,
      pauseOverpull: pauseOverpulls(reading),
      config: run.settings.config,
    });
    if (o.fastContext && fastPathOn(run.settings.config)) {
      fastMembers.push({
        run,
        context: o.fastContext,
        releaseAt: o.releaseAt,
        deferredTo: o.deferredTo,
        share: o.share,
      });
    }
  }
  const counts = new Map(result.members.map((o) => [o.name, o.appliedAfter]));
  const shares = new Map(result.members.map((o) => [o.name, o.share]));
  return {
    budget: { kind: 'decided', result, budgetName },
    members: outcomes,
    ...(fastMembers.length > 0 ? { fast: { members: fastMembers, counts, shares } } : {}),
  };
}

interface FastMemberStart {
  readonly run: MemberRun;
  readonly context: FastPathContext;
  /** When its trailing reserved concurrency may come down (the tick's `releaseAt`). */
  readonly releaseAt?: number;
  /** Its grant, when the tick's raise waited for units not free yet (the tick's `deferredTo`). */
  readonly deferredTo?: number;
  /** Its share, held for it between ticks. */
  readonly share: number;
}

/** What the fast path starts from: the members that have one (in the grant order), and every member's count. */
export interface BudgetFastStart {
  readonly members: readonly FastMemberStart[];
  readonly counts: ReadonlyMap<string, number>;
  /** Every tick member's share: held for it while others grow, whether it samples or not. */
  readonly shares: ReadonlyMap<string, number>;
}

/**
 * The fast path over every member, on the slot's grid as a lone scaler's (handler.ts, `fastLoop`): samples every
 * `fastSampleSeconds`, ending 10 s before the next tick, no write within 6 s of it. A member that fails, or is
 * found paused, drops out until the next tick; the others go on.
 */
async function budgetFastLoop(
  deps: BudgetDependencies,
  start: BudgetFastStart,
  slot: { readonly started: number; readonly scheduledAt: number | undefined },
  context: InvocationContext | undefined,
): Promise<void> {
  const first = start.members[0];
  if (first === undefined) return;
  const config = first.run.settings.config;
  // Every member is sampled at the shortest interval any of them asks for (sampling more often is harmless).
  const sampleSeconds = Math.min(...start.members.map((m) => m.run.settings.config.fastSampleSeconds));
  const sleep = deps.sleep ?? ((s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000)));
  const slotStart = Math.min(slot.started, slot.scheduledAt ?? slot.started);
  const nextTick = slotStart + config.tickSeconds;
  const end = nextTick - FAST_LOOP_END_BEFORE_TICK_SECONDS;
  let active = start.members.map((m) => {
    m.run.ports.actuator.writeDeadline = {
      at: nextTick - FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS,
      clock: deps.clock,
    };
    return {
      name: m.run.settings.resources.scalerName,
      run: m.run,
      queue: sqsQueuePort(deps.clients.sqs, m.run.settings.resources.queueUrl),
      context: m.context,
      releaseAt: m.releaseAt,
      deferredTo: m.deferredTo as number | undefined,
      share: m.share,
    };
  });
  let counts: ReadonlyMap<string, number> = start.counts;
  const samples = new Map<string, number>();
  const growths = new Map<string, number>();
  const maxVisible = new Map<string, number>();
  /** Why a member left the loop early; the others stop with the loop. */
  const stopped = new Map<string, FastLoopSummary['stoppedBy']>();
  let stoppedBy: 'deadline' | 'remaining-time' = 'deadline';
  for (let at = slotStart + sampleSeconds; at <= end && active.length > 0; at += sampleSeconds) {
    if (at <= slot.started) continue;
    const wait = Math.max(0, at - deps.clock());
    // Every member's sample must fit in Lambda's time left, each at its worst case.
    const remaining = context?.getRemainingTimeInMillis?.();
    if (
      remaining !== undefined &&
      remaining - wait * 1000 < active.length * FAST_SAMPLE_WORST_SECONDS * 1000
    ) {
      stoppedBy = 'remaining-time';
      break;
    }
    if (wait > 0) await sleep(wait);
    deps.calls.reset();
    const now = deps.clock();
    const members: BudgetFastMember[] = active.map((a) => ({
      name: a.name,
      ports: { queue: a.queue, concurrency: a.run.ports.actuator },
      config: a.run.settings.config,
      context: a.context,
      releaseAt: a.releaseAt,
      deferredTo: a.deferredTo,
      share: a.share,
    }));
    const recordings = new Map<string, { actuation: Actuation; writes: WriteLog[] }>();
    const outcome = await (async () => {
      const nest = async (i: number): Promise<Awaited<ReturnType<typeof runBudgetFastSample>>> => {
        const a = active[i];
        if (a === undefined)
          return runBudgetFastSample(deps.settings.budget, members, counts, now, start.shares);
        const { value, actuation, writes } = await a.run.ports.actuator.recording(() => nest(i + 1));
        recordings.set(a.name, { actuation, writes });
        return value;
      };
      return nest(0);
    })();
    counts = outcome.counts;
    const drop = new Set<string>();
    const leave = (name: string, why: FastLoopSummary['stoppedBy']) => {
      drop.add(name);
      stopped.set(name, why);
    };
    for (const a of active) {
      const reporter = deps.reporters.get(a.name);
      const failure = outcome.failures.get(a.name);
      if (failure !== undefined) {
        reporter?.reportFast(failed(failure), deps.calls, now);
        leave(a.name, 'error');
        continue;
      }
      const sample = outcome.results.get(a.name);
      if (sample === undefined) continue;
      // The tick's deferred raise ran in this sample: a growth like the fast path's own.
      const raised = outcome.raised.has(a.name);
      if (raised) a.deferredTo = undefined;
      samples.set(a.name, (samples.get(a.name) ?? 0) + 1);
      maxVisible.set(a.name, Math.max(maxVisible.get(a.name) ?? 0, sample.depth.visible));
      a.context = sample.context;
      const { actuation, writes } = recordings.get(a.name) ?? {
        actuation: { kind: 'unchanged' },
        writes: [],
      };
      if (sample.paused) {
        reporter?.reportFast({ kind: 'paused', paused: sample.paused, sample }, deps.calls, now);
        leave(a.name, 'paused');
        continue;
      }
      if (actuation.kind === 'failed') {
        const deadline = actuation.failure === 'deadline';
        if (!deadline) reporter?.reportFast(failedWrite(actuation), deps.calls, now);
        leave(a.name, deadline ? 'deadline' : 'error');
        continue;
      }
      const grew = sample.changed || raised;
      if (grew || actuation.kind === 'clamped') {
        if (grew) growths.set(a.name, (growths.get(a.name) ?? 0) + 1);
        const fast: FastOutcome = {
          kind: grew ? 'grew' : 'clamped',
          sample,
          actuation,
          writes,
          applied: sample.applied,
          appliedAfter: a.run.ports.actuator.appliedNow,
          config: a.run.settings.config,
        };
        reporter?.reportFast(fast, deps.calls, now);
        // The account's headroom will not have grown in 10 s: the next tick asks again.
        if (!grew) leave(a.name, 'headroom');
      }
    }
    active = active.filter((a) => !drop.has(a.name));
  }
  for (const m of start.members) {
    const name = m.run.settings.resources.scalerName;
    deps.reporters.get(name)?.reportFastLoop({
      samples: samples.get(name) ?? 0,
      growths: growths.get(name) ?? 0,
      maxVisible: maxVisible.get(name) ?? 0,
      appliedAfter: m.run.ports.actuator.appliedNow,
      stoppedBy: stopped.get(name) ?? stoppedBy,
    });
  }
}

/** The budget controller's handler body: the tick, each member's report and the budget's, then the fast path. */
export function createBudgetHandler(deps: BudgetDependencies) {
  return async (event: unknown, context?: InvocationContext): Promise<BudgetRun> => {
    deps.calls.reset();
    const now = deps.clock();
    // Only a bug in this code escapes: a member's failure is its own (it holds), the others go on.
    const run = await budgetTick(deps, event, now);
    for (const [name, outcome] of run.members) deps.reporters.get(name)?.report(outcome, deps.calls, now);
    deps.budgetReporter.report(run.budget, now);
    if (run.fast)
      await budgetFastLoop(deps, run.fast, { started: now, scheduledAt: eventTime(event) }, context);
    return { budget: run.budget, members: run.members };
  };
}
