/**
 * Writes lib/bench/deployed-cost-inputs.json, what the bench's `$ / month` counts, from what is deployed: the
 * example stack's synthesized template (test/cdk/__snapshots__/example-stack.template.json, which the snapshot
 * test keeps current), the controller's GetMetricData queries and its metric names. Run it after a template
 * change; test/bench/cost.test.ts fails until it is run.
 *
 *   npx tsx scripts/cost-inputs.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYED_INPUTS_PATH, deployedFiguresNow, EXAMPLE_TEMPLATE } from '../test/bench/deployed-inputs.ts';

const root = join(import.meta.dirname, '..');
const figures = deployedFiguresNow(JSON.parse(readFileSync(join(root, EXAMPLE_TEMPLATE), 'utf8')));
writeFileSync(join(root, DEPLOYED_INPUTS_PATH), `${JSON.stringify(figures, null, 2)}\n`);
console.log(
  `${DEPLOYED_INPUTS_PATH}: ${figures.alarmMetrics} alarm metrics, ${figures.kmsKeys} KMS key(s), ${figures.customMetricNames.length} metric names, ${figures.metricsPerTick} reads a tick, ${figures.controller.memoryMb} MB ${figures.controller.architecture}`,
);
