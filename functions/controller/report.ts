import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { CallLog } from '../../lib/aws/clients.ts';
import { CONTROLLER_METRICS as M, METRIC_NAMESPACE, SCALER_DIMENSION } from '../../lib/telemetry.ts';
import type { TickOutcome } from './outcome.ts';

export interface MetricValue {
  readonly name: string;
  readonly unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  readonly value: number;
}

const flag = (b: boolean) => (b ? 1 : 0);

/**
 * The metrics one tick publishes. Pure, so what the dashboards, the alarms and the carried state read is
 * tested without Powertools. `AppliedConcurrency`, `ScaleEvents` and `VisibleMessages` are also the controller's
 * memory: the next tick rebuilds its state from them (carried-state.ts).
 */
export function metricsFor(outcome: TickOutcome): MetricValue[] {
  const count = (name: string, value: number) => ({ name, unit: MetricUnit.Count, value });
  if (outcome.kind === 'skipped') return [count(M.skippedTicks, 1)];
  if (outcome.kind === 'failed') return [count(M.errors, 1)];
  const { result, actuation, config } = outcome;
  const { decision, snapshot } = result;
  const out: MetricValue[] = [
    count(M.desiredConcurrency, decision.desired),
    count(M.cap, config.maxConcurrency),
    count(M.floor, config.minConcurrency),
    { name: M.targetAgeSeconds, unit: MetricUnit.Seconds, value: config.targetAgeSeconds },
    count(M.atCap, flag(decision.atCap)),
    count(M.saturated, flag(decision.saturated)),
    count(M.scaleEvents, flag(outcome.appliedAfter !== undefined && outcome.appliedAfter !== result.applied)),
    count(M.downstreamSlower, flag(decision.reason === 'hold:downstream-slower')),
    count(M.noData, flag(decision.reason === 'hold:no-data')),
    count(M.errors, flag(actuation.kind === 'failed')),
    count(M.clampedByAccountHeadroom, flag(actuation.kind === 'clamped')),
  ];
  if (outcome.appliedAfter !== undefined) out.push(count(M.appliedConcurrency, outcome.appliedAfter));
  const age = decision.inputs.ageSeconds ?? snapshot.oldestAge?.seconds;
  if (age !== undefined) out.push({ name: M.headAgeSeconds, unit: MetricUnit.Seconds, value: age });
  if (snapshot.visibleMessages !== undefined) out.push(count(M.visibleMessages, snapshot.visibleMessages));
  if (snapshot.inFlightMessages !== undefined) out.push(count(M.inFlightMessages, snapshot.inFlightMessages));
  return out;
}

/** The one structured log line per tick: the reason code and every number behind it. */
export function logEntryFor(
  outcome: TickOutcome,
  calls: CallLog,
): { message: string; fields: Record<string, unknown> } {
  const awsCalls = { reads: calls.reads, writes: calls.writes, commands: [...calls.commands] };
  switch (outcome.kind) {
    case 'skipped':
      return { message: 'tick skipped', fields: { reason: outcome.reason, ...outcome.detail, awsCalls } };
    case 'failed':
      return {
        message: 'tick failed: holding',
        fields: { reason: `error:${outcome.failure}`, error: outcome.error, hint: outcome.hint, awsCalls },
      };
    case 'decided': {
      const { decision, snapshot, applied } = outcome.result;
      return {
        message: 'decision',
        fields: {
          reason: decision.reason,
          applied,
          desired: decision.desired,
          appliedAfter: outcome.appliedAfter,
          atCap: decision.atCap,
          saturated: decision.saturated,
          inputs: decision.inputs,
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

export interface Reporter {
  /** `now`: the tick's time, epoch seconds; the metrics are stamped with it. */
  report(outcome: TickOutcome, calls: CallLog, now: number): void;
}

/**
 * Metrics under the one namespace with exactly one dimension, `ScalerName`. Powertools adds a `service`
 * dimension by default; CloudWatch matches dimension sets exactly, so with it the next tick's query for
 * `ScalerName` alone would find none of the history the carried state is rebuilt from.
 */
export function createMetrics(scalerName: string, MetricsClass: typeof Metrics = Metrics): Metrics {
  const metrics = new MetricsClass({ namespace: METRIC_NAMESPACE });
  metrics.clearDefaultDimensions();
  metrics.setDefaultDimensions({ [SCALER_DIMENSION]: scalerName });
  return metrics;
}

/** Publishes in EMF through Powertools (no PutMetricData call: the metrics ride on the log line). */
export function powertoolsReporter(metrics: Metrics, logger: DecisionLogger): Reporter {
  return {
    report(outcome, calls, now) {
      const entry = logEntryFor(outcome, calls);
      if (outcome.kind === 'failed') logger.error(entry.message, entry.fields);
      else logger.info(entry.message, entry.fields);
      for (const m of metricsFor(outcome)) metrics.addMetric(m.name, m.unit, m.value);
      // Stamped with the tick's time, so the period the next tick reads them from is the one they describe.
      metrics.setTimestamp(Math.round(now * 1000));
      metrics.publishStoredMetrics();
    },
  };
}
