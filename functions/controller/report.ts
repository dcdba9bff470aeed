import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { CallLog } from '../../lib/aws/clients.ts';
import {
  BUDGET_METRICS as B,
  BUDGET_DIMENSION,
  CONTROLLER_LOG_MESSAGES as LOG,
  CONTROLLER_METRICS as M,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
  SPARSE_CONTROLLER_METRICS,
} from '../../lib/telemetry.ts';
import type { BudgetOutcome, FastLoopSummary, FastOutcome, TickOutcome } from './outcome.ts';

export interface MetricValue {
  readonly name: string;
  readonly unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  readonly value: number;
}

const flag = (b: boolean) => (b ? 1 : 0);
const count = (name: string, value: number): MetricValue => ({ name, unit: MetricUnit.Count, value });

/**
 * The metrics one tick publishes. Pure, so what the dashboards, the alarms and the carried state read is
 * tested without Powertools. Every decided tick publishes the dense state (lib/telemetry.ts
 * DENSE_CONTROLLER_METRICS: applied; a budget's member also the age and its target while it is behind,
 * `memberAges`: BUDGET_MEMBER_BEHIND_METRICS), and the desired value where it differs; `AppliedConcurrency` and `ScaleEvents` are
 * also the controller's memory (carried-state.ts). The flags describe what is applied after the tick's writes, not
 * what the law wanted: a raise refused by the account's headroom is not "at cap". Each "behind and the controller
 * cannot act" flag comes with its age condition folded in (`Saturated`, `Shed`, `PausedAboveTarget`,
 * `ClampedAboveTarget`, `NoData` with messages waiting), so each alarm reads one metric, not the flag and the
 * queue's age: CloudWatch bills an alarm per metric it references.
 */
export function metricsFor(outcome: TickOutcome, options: { memberAges?: boolean } = {}): MetricValue[] {
  if (outcome.kind === 'skipped') return [count(M.skippedTicks, 1)];
  if (outcome.kind === 'failed') return [count(M.errors, 1)];
  const { result, actuation, config } = outcome;
  const { decision, snapshot } = result;
  const age = decision.inputs.ageSeconds ?? snapshot.oldestAge?.seconds;
  const ageAboveTarget = age !== undefined && age > config.targetAgeSeconds;
  const atCap = outcome.appliedAfter !== undefined && outcome.appliedAfter >= config.maxConcurrency;
  const paused = decision.reason === 'hold:paused';
  const clamped = actuation.kind === 'clamped';
  const out: MetricValue[] = [
    ...desiredOf(decision.desired, outcome.appliedAfter),
    count(M.atCap, flag(atCap)),
    // Saturated: at the cap, or the downstream's health signal past its threshold, with the age above target; or
    // shed (a growth that bought no throughput, behind): one state, one alarm (-saturated).
    count(
      M.saturated,
      flag(((atCap || (decision.downstreamUnhealthy ?? false)) && ageAboveTarget) || decision.shed),
    ),
    count(M.scaleEvents, flag(outcome.appliedAfter !== result.applied && outcome.appliedAfter !== undefined)),
    count(M.downstreamSlower, flag(decision.downstreamSlower)),
    count(M.shed, flag(decision.shed)),
    count(M.noData, flag(noDataWithBacklog(outcome))),
    count(M.paused, flag(paused)),
    count(M.pausedAboveTarget, flag(paused && ageAboveTarget)),
    count(M.pauseOverpull, flag(outcome.pauseOverpull)),
    count(M.lockstepRepairs, flag(result.repaired)),
    count(M.errors, flag(actuation.kind === 'failed')),
    count(M.clampedByAccountHeadroom, flag(clamped)),
    count(M.clampedAboveTarget, flag(clamped && ageAboveTarget)),
  ];
  // Published only by a clean tick: the -controller-unhealthy alarm counts the periods that have it (alarms.ts).
  if (outcome.appliedAfter !== undefined && actuation.kind !== 'failed') {
    out.push(count(M.appliedConcurrency, outcome.appliedAfter));
  }
  // A budget's member: its age and target only while it is behind (BUDGET_MEMBER_BEHIND_METRICS): a minute without
  // them, with the applied value, reads as at or under target.
  // A tick with no age publishes the target alone: status --budget reads that minute as unknown, not on target.
  if (options.memberAges && (ageAboveTarget || age === undefined)) {
    out.push({ name: M.targetAgeSeconds, unit: MetricUnit.Seconds, value: config.targetAgeSeconds });
    if (age !== undefined) out.push({ name: M.headAgeSeconds, unit: MetricUnit.Seconds, value: age });
  }
  return withoutQuietFlags(out);
}

/**
 * The law's desired value, only where it differs from what is applied after the writes
 * (WHEN_DIFFERENT_CONTROLLER_METRICS): a lone scaler's and a budget's member's alike (a member's differs when its
 * grant is less than its law asks: the minutes `status --budget` looks for).
 */
function desiredOf(desired: number, appliedAfter: number | undefined): MetricValue[] {
  return desired !== appliedAfter
    ? [{ name: M.desiredConcurrency, unit: MetricUnit.Count, value: desired }]
    : [];
}

/**
 * No age data while the real-time depth shows messages waiting: the `-no-data` alarm's condition. An idle queue
 * with no datapoint is SQS's normal state (it stops publishing for a queue inactive for ~6 h), not a fault: left
 * out, it would also bill the flag in every idle hour.
 */
function noDataWithBacklog(outcome: Extract<TickOutcome, { kind: 'decided' }>): boolean {
  const { decision, snapshot } = outcome.result;
  const noData = decision.reason === 'hold:no-data' || decision.reason === 'grow:backlog-before-data';
  return noData && snapshot.visibleMessages !== undefined && snapshot.visibleMessages > 0;
}

/** The sparse metrics' zeros left out (SPARSE_CONTROLLER_METRICS): billed only in the hours they are non-zero. */
function withoutQuietFlags(metrics: readonly MetricValue[]): MetricValue[] {
  return metrics.filter((m) => !(SPARSE_CONTROLLER_METRICS.has(m.name) && m.value === 0));
}

/**
 * The metrics a fast-path sample publishes when it grew, was refused by the account's headroom, or failed (a
 * sample that only looked, or found a pause, publishes nothing: the next tick publishes the pause). A growth
 * counts only where a limit rose.
 */
export function metricsForFast(outcome: FastOutcome): MetricValue[] {
  if (outcome.kind === 'failed') return [count(M.errors, 1)];
  if (outcome.kind === 'paused') return [];
  const out: MetricValue[] = [
    ...desiredOf(outcome.sample.decision.desired, outcome.appliedAfter),
    count(M.fastPathGrowths, flag(outcome.kind === 'grew')),
    count(M.errors, flag(outcome.actuation.kind === 'failed')),
    count(M.clampedByAccountHeadroom, flag(outcome.actuation.kind === 'clamped')),
  ];
  if (outcome.appliedAfter !== undefined && outcome.actuation.kind !== 'failed') {
    out.push(count(M.appliedConcurrency, outcome.appliedAfter));
    out.push(count(M.scaleEvents, flag(outcome.appliedAfter !== outcome.applied)));
    out.push(count(M.atCap, flag(outcome.appliedAfter >= outcome.config.maxConcurrency)));
  }
  return withoutQuietFlags(out);
}

/** The one structured log line per tick: the reason code and every number behind it. */
export function logEntryFor(
  outcome: TickOutcome,
  calls: CallLog,
): { message: string; fields: Record<string, unknown> } {
  const awsCalls = { reads: calls.reads, writes: calls.writes, commands: [...calls.commands] };
  switch (outcome.kind) {
    case 'skipped':
      return { message: LOG.tickSkipped, fields: { reason: outcome.reason, ...outcome.detail, awsCalls } };
    case 'failed':
      return {
        message: LOG.tickFailed,
        fields: { reason: `error:${outcome.failure}`, error: outcome.error, hint: outcome.hint, awsCalls },
      };
    case 'decided': {
      const { decision, snapshot, applied, repaired } = outcome.result;
      return {
        message: LOG.decision,
        fields: {
          reason: decision.reason,
          // JSON has no infinity: a consumer nothing bounded is logged as null with `unbounded: true`.
          applied: Number.isFinite(applied) ? applied : null,
          ...(Number.isFinite(applied) ? {} : { unbounded: true }),
          desired: decision.desired,
          appliedAfter: outcome.appliedAfter,
          atCap: decision.atCap,
          saturated: decision.saturated,
          shed: decision.shed,
          ...(repaired ? { repaired: true } : {}),
          ...(outcome.pauseOverpull ? { pauseOverpull: true } : {}),
          ...(outcome.ownerReadFault === undefined ? {} : { ownerReadFault: outcome.ownerReadFault }),
          inputs: decision.inputs,
          // The settings the tick ran under: no longer published as metrics (they are constants of the
          // deployment); `status` reads the cap and the floor from here.
          settings: {
            targetAgeSeconds: outcome.config.targetAgeSeconds,
            maxConcurrency: outcome.config.maxConcurrency,
            minConcurrency: outcome.config.minConcurrency,
          },
          snapshot,
          state: decision.state,
          actuation: outcome.actuation,
          writes: outcome.writes,
          awsCalls,
        },
      };
    }
  }
}

/** What the reporter needs of Powertools' Logger (structured: a message and one object of fields). */
export interface DecisionLogger {
  info(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/** The log line of a fast-path sample that grew or failed. */
export function logEntryForFast(
  outcome: FastOutcome,
  calls: CallLog,
): { message: string; fields: Record<string, unknown> } {
  const awsCalls = { reads: calls.reads, writes: calls.writes, commands: [...calls.commands] };
  if (outcome.kind === 'failed') {
    return {
      message: LOG.fastPathFailed,
      fields: { reason: `error:${outcome.failure}`, error: outcome.error, hint: outcome.hint, awsCalls },
    };
  }
  const { decision } = outcome.sample;
  if (outcome.kind === 'paused') {
    return {
      message: LOG.fastPath,
      fields: {
        reason: 'hold:paused',
        paused: outcome.paused,
        applied: outcome.sample.applied,
        wanted: decision.desired,
        inputs: decision.inputs,
        depth: outcome.sample.depth,
        awsCalls,
      },
    };
  }
  return {
    message: LOG.fastPath,
    fields: {
      // A growth the account's headroom refused is no growth: logged as the hold it was.
      reason: outcome.kind === 'grew' ? decision.reason : 'hold:fast-headroom',
      applied: outcome.applied,
      desired: decision.desired,
      appliedAfter: outcome.appliedAfter,
      inputs: decision.inputs,
      depth: outcome.sample.depth,
      actuation: outcome.actuation,
      writes: outcome.writes,
      awsCalls,
    },
  };
}

export interface Reporter {
  /** `now`: the tick's time, epoch seconds; the metrics are stamped with it. */
  report(outcome: TickOutcome, calls: CallLog, now: number): void;
  /** A fast-path sample that grew or failed, stamped with the sample's time. */
  reportFast(outcome: FastOutcome, calls: CallLog, now: number): void;
  /** The fast loop's one summary line. */
  reportFastLoop(summary: FastLoopSummary): void;
}

/**
 * Metrics under the one namespace with exactly these dimensions. Powertools adds a `service` dimension by default;
 * CloudWatch matches dimension sets exactly, so with it the next tick's query for `ScalerName` alone would find none
 * of the history the carried state is rebuilt from.
 */
function dimensioned(dimensions: Record<string, string>, MetricsClass: typeof Metrics): Metrics {
  const metrics = new MetricsClass({ namespace: METRIC_NAMESPACE });
  metrics.clearDefaultDimensions();
  metrics.setDefaultDimensions(dimensions);
  return metrics;
}

/** A scaler's metrics: exactly one dimension, `ScalerName`. */
export function createMetrics(scalerName: string, MetricsClass: typeof Metrics = Metrics): Metrics {
  return dimensioned({ [SCALER_DIMENSION]: scalerName }, MetricsClass);
}

/**
 * Publishes in EMF through Powertools (no PutMetricData call: the metrics ride on the log line), stamped with the
 * tick's or the sample's time, so the period the next tick reads them from is the one they describe.
 */
function publish(metrics: Metrics, values: readonly MetricValue[], now: number): void {
  for (const m of values) metrics.addMetric(m.name, m.unit, m.value);
  metrics.setTimestamp(Math.round(now * 1000));
  metrics.publishStoredMetrics();
}

/** The line at its level: a failure's as an error. */
function log(
  logger: DecisionLogger,
  failed: boolean,
  entry: { message: string; fields: Record<string, unknown> },
) {
  if (failed) logger.error(entry.message, entry.fields);
  else logger.info(entry.message, entry.fields);
}

export function powertoolsReporter(
  metrics: Metrics,
  logger: DecisionLogger,
  options: { memberAges?: boolean } = {},
): Reporter {
  return {
    report(outcome, calls, now) {
      log(logger, outcome.kind === 'failed', logEntryFor(outcome, calls));
      publish(metrics, metricsFor(outcome, options), now);
    },
    reportFast(outcome, calls, now) {
      log(logger, outcome.kind === 'failed', logEntryForFast(outcome, calls));
      publish(metrics, metricsForFast(outcome), now);
    },
    reportFastLoop(summary) {
      logger.info(LOG.fastPathDone, { ...summary });
    },
  };
}

/** A shared budget's own reporter: its metrics (dimension BudgetName), each member's grant, and its log line. */
export interface BudgetReporter {
  report(outcome: BudgetOutcome, now: number): void;
}

/**
 * The budget's own metrics after a tick (dimension BudgetName): the budget, Σ granted, whether it is exhausted
 * (fully granted with a member starved: behind its target and granted less than its own law asked), and how many
 * are starved. Pure, so the alarm's input is tested without Powertools. A skipped tick publishes nothing: the
 * members' SkippedTicks say so. Exhausted and starved are 0 almost always: published only when non-zero, as the
 * scalers' flags are (billed only in the hours they say something; the `-budget-exhausted` alarm treats missing
 * data as not breaching, and `status --budget` reads a missing minute as 0).
 */
export function budgetMetricsFor(outcome: BudgetOutcome): MetricValue[] {
  if (outcome.kind === 'skipped') return [];
  const { result } = outcome;
  const sparse = [
    count(B.exhausted, result.exhausted ? 1 : 0),
    count(B.starvedMembers, result.starved.length),
  ];
  return [
    count(B.limit, result.budget),
    count(B.granted, result.grantedTotal),
    ...sparse.filter((m) => m.value !== 0),
  ];
}

/** Each member's grant (dimensions BudgetName and ScalerName): the dashboard's stacked shares. */
export function memberGrantMetrics(outcome: BudgetOutcome): { scalerName: string; value: MetricValue }[] {
  if (outcome.kind === 'skipped') return [];
  return outcome.result.members.map((m) => ({ scalerName: m.name, value: count(B.memberGrant, m.granted) }));
}

/** The budget's one log line per tick: every member's demand, grant and why, and who is starved. */
export function budgetLogEntry(outcome: BudgetOutcome): { message: string; fields: Record<string, unknown> } {
  if (outcome.kind === 'skipped') {
    return { message: LOG.budget, fields: { budget: outcome.budgetName, reason: outcome.reason } };
  }
  const { result } = outcome;
  return {
    message: result.exhausted ? LOG.budgetExhausted : LOG.budget,
    fields: {
      budget: outcome.budgetName,
      limit: result.budget,
      granted: result.grantedTotal,
      exhausted: result.exhausted,
      starved: result.starved,
      dropped: result.dropped,
      members: result.members.map((m) => ({
        name: m.name,
        counted: m.counted,
        demand: m.demand,
        granted: m.granted,
        reason: m.reason,
        lateness: m.lateness,
        appliedAfter: m.appliedAfter,
        ...(m.readError === undefined ? {} : { readError: String(m.readError) }),
        ...(m.writeError === undefined ? {} : { writeError: String(m.writeError) }),
      })),
    },
  };
}

/** A budget's metrics under exactly its dimensions: its own (BudgetName), and each member's grant (and ScalerName). */
export function createBudgetMetrics(
  budgetName: string,
  MetricsClass: typeof Metrics = Metrics,
): { budget: Metrics; member: (scalerName: string) => Metrics } {
  const members = new Map<string, Metrics>();
  return {
    budget: dimensioned({ [BUDGET_DIMENSION]: budgetName }, MetricsClass),
    member: (scalerName) => {
      let m = members.get(scalerName);
      if (m === undefined) {
        m = dimensioned({ [BUDGET_DIMENSION]: budgetName, [SCALER_DIMENSION]: scalerName }, MetricsClass);
        members.set(scalerName, m);
      }
      return m;
    },
  };
}

export function powertoolsBudgetReporter(
  metrics: ReturnType<typeof createBudgetMetrics>,
  logger: DecisionLogger,
): BudgetReporter {
  return {
    report(outcome, now) {
      log(logger, false, budgetLogEntry(outcome));
      const own = budgetMetricsFor(outcome);
      if (own.length > 0) publish(metrics.budget, own, now);
      for (const { scalerName, value } of memberGrantMetrics(outcome)) {
        publish(metrics.member(scalerName), [value], now);
      }
    },
  };
}
