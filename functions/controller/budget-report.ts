import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  BUDGET_METRICS as B,
  BUDGET_DIMENSION,
  CONTROLLER_LOG_MESSAGES as LOG,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
} from '../../lib/telemetry.ts';
import type { BudgetOutcome, BudgetReporter } from './budget-handler.ts';
import type { DecisionLogger, MetricValue } from './report.ts';

const count = (name: string, value: number): MetricValue => ({ name, unit: MetricUnit.Count, value });

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

/** Metrics in EMF through Powertools under exactly the budget's dimensions (no `service` dimension). */
export function createBudgetMetrics(
  budgetName: string,
  MetricsClass: typeof Metrics = Metrics,
): { budget: Metrics; member: (scalerName: string) => Metrics } {
  const make = (dimensions: Record<string, string>) => {
    const metrics = new MetricsClass({ namespace: METRIC_NAMESPACE });
    metrics.clearDefaultDimensions();
    metrics.setDefaultDimensions(dimensions);
    return metrics;
  };
  const members = new Map<string, Metrics>();
  return {
    budget: make({ [BUDGET_DIMENSION]: budgetName }),
    member: (scalerName) => {
      let m = members.get(scalerName);
      if (m === undefined) {
        m = make({ [BUDGET_DIMENSION]: budgetName, [SCALER_DIMENSION]: scalerName });
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
      const entry = budgetLogEntry(outcome);
      logger.info(entry.message, entry.fields);
      const at = Math.round(now * 1000);
      const own = budgetMetricsFor(outcome);
      if (own.length > 0) {
        for (const m of own) metrics.budget.addMetric(m.name, m.unit, m.value);
        metrics.budget.setTimestamp(at);
        metrics.budget.publishStoredMetrics();
      }
      for (const { scalerName, value } of memberGrantMetrics(outcome)) {
        const m = metrics.member(scalerName);
        m.addMetric(value.name, value.unit, value.value);
        m.setTimestamp(at);
        m.publishStoredMetrics();
      }
    },
  };
}
