import { buildMetricQueries } from '../../lib/aws/metric-queries.ts';
import { type DeployedFigures, figuresFromTemplate } from '../../lib/bench/deployed-figures.ts';
import {
  DENSE_CONTROLLER_METRICS,
  SPARSE_CONTROLLER_METRICS,
  WHEN_DIFFERENT_CONTROLLER_METRICS,
} from '../../lib/telemetry.ts';

export const EXAMPLE_TEMPLATE = 'test/cdk/__snapshots__/example-stack.template.json';
export const DEPLOYED_INPUTS_PATH = 'lib/bench/deployed-cost-inputs.json';

/** The figures as the code and the template stand now (what the committed file must equal). */
export function deployedFiguresNow(template: Parameters<typeof figuresFromTemplate>[0]): DeployedFigures {
  const resources = {
    scalerName: 's',
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
    queueName: 'q',
    consumerFunctionName: 'c',
  } as Parameters<typeof buildMetricQueries>[0];
  // A lone scaler's warm tick (a budget member's reads are priced by budgetMonthlyCost).
  const warm = { ownHistory: false, rates: true };
  const count = (needs: Partial<typeof warm>) =>
    buildMetricQueries(resources, 60, { ...warm, ...needs }).length;
  return figuresFromTemplate(template, EXAMPLE_TEMPLATE, {
    metricsPerTick: count({}),
    ownHistoryMetrics: count({ ownHistory: true }) - count({}),
    rateMetrics: count({}) - count({ rates: false }),
    // What a decided tick publishes (test/controller/report.test.ts holds metricsFor to exactly these names).
    customMetricNames: [...DENSE_CONTROLLER_METRICS],
    // Published only when non-zero, or (desired) only where it differs from applied: billed only in those hours.
    sparseMetricNames: [...SPARSE_CONTROLLER_METRICS, ...WHEN_DIFFERENT_CONTROLLER_METRICS],
  });
}
