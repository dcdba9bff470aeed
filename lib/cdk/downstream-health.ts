import { Stack, Token } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import {
  type DownstreamHealthSpec,
  downstreamHealthProblems,
  type UnhealthyWhen,
} from '../control/downstream-health.ts';

/**
 * A health signal for the downstream: a CloudWatch metric and the threshold past which the downstream is
 * unhealthy. The controller reads it at every tick with the queue's metrics; past the threshold nothing grows, and
 * while the age is above the target the tick holds with `hold:downstream-saturated` and raises `Saturated` (the
 * `-saturated` alarm: shed upstream).
 *
 * @example
 * downstreamHealth: {
 *   metric: new cloudwatch.Metric({ namespace: 'AWS/RDS', metricName: 'DBLoad',
 *     dimensionsMap: { DBInstanceIdentifier: db.instanceIdentifier }, statistic: 'Average',
 *     period: Duration.minutes(1) }),
 *   threshold: 8,   // more active sessions than the instance's 8 vCPUs
 * }
 */
export interface DownstreamHealth {
  /**
   * One metric of this stack's account and region (no math expression): its namespace, name, dimensions,
   * statistic and period are read, each minute, over the tick's last hour. Valid period: whole minutes, 1–60.
   */
  readonly metric: IMetric;
  /** The value past which the downstream is unhealthy. Valid: any finite number. */
  readonly threshold: number;
  /**
   * Which side of the threshold is unhealthy: `'above'` (connections, load, 429s, latency) or `'below'` (free
   * memory, a success rate). The newest datapoint strictly past the threshold counts.
   * @default 'above'
   */
  readonly unhealthyWhen?: UnhealthyWhen;
}

const PROP = 'downstreamHealth';

/** The spec the controller's environment carries, checked; undefined (with the problems added) where invalid. */
export function checkedDownstreamHealth(
  scope: IConstruct,
  health: DownstreamHealth | undefined,
  problems: string[],
): DownstreamHealthSpec | undefined {
  if (health === undefined) return undefined;
  const config = health.metric.toMetricConfig();
  const stat = config.metricStat;
  if (stat === undefined || config.mathExpression !== undefined) {
    problems.push(
      `${PROP}.metric = ${health.metric}: a math expression; give one metric (a cloudwatch.Metric): the controller reads it in its one GetMetricData, and an expression would need the metrics it combines read too`,
    );
    return undefined;
  }
  const stack = Stack.of(scope);
  const same = (given: string | undefined, here: string) =>
    given === undefined ||
    given === here ||
    JSON.stringify(stack.resolve(given)) === JSON.stringify(stack.resolve(here));
  const found: string[] = [];
  if (!same(stat.account, stack.account) || !same(stat.region, stack.region)) {
    found.push(
      `${PROP}.metric = ${health.metric}: in account ${stat.account ?? stack.account}, region ${stat.region ?? stack.region}; the controller reads metrics of its own account and region only (stack ${stack.account}, ${stack.region}): give a metric of this stack's account and region`,
    );
  }
  if (stat.unitFilter !== undefined) {
    found.push(
      `${PROP}.metric = ${health.metric}: a unit filter (${stat.unitFilter}) is not read; leave unit out of the metric`,
    );
  }
  const given = health.unhealthyWhen as string | undefined;
  const spec = {
    namespace: stat.namespace,
    metricName: stat.metricName,
    dimensions: Object.fromEntries((stat.dimensions ?? []).map((d) => [d.name, d.value as string])),
    statistic: stat.statistic,
    periodSeconds: stat.period.toSeconds(),
    threshold: health.threshold,
    unhealthyWhen: (given ?? 'above') as UnhealthyWhen,
  };
  found.push(...downstreamHealthProblems(spec, PROP, (value) => !Token.isUnresolved(value)));
  problems.push(...found);
  return found.length === 0 ? spec : undefined;
}
