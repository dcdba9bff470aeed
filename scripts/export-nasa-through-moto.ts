/**
 * Plays the NASA-HTTP day (scenarios/trace-nasa-http-1995-07-13.csv) into a private moto server as if a queue had
 * lived it, then exports it back with `trace`: the load file a recommendation demo starts from, made the way a
 * user would make one from a real queue. No call can reach AWS: moto runs on 127.0.0.1 with dummy credentials.
 *
 * The day is placed at the UTC midnight two days ago (CloudWatch takes datapoints up to two weeks old, and a range
 * that starts under 15 days ago is read at one minute). Per minute, with the scenario's item_ms 2000 and a batch
 * size of 1: NumberOfMessagesSent = rate_per_s × 60 (rounded), NumberOfMessagesDeleted = Invocations = that count,
 * Duration = 2000 ms (a minute without requests has no Lambda datapoints, as Lambda sends none). The queue's
 * mapping is created with BatchSize 1, so the export's header names it.
 *
 *   npx tsx scripts/export-nasa-through-moto.ts --out out/nasa-exported.csv
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadScenario, parseScenarioText } from '../lib/load-file/load-file.ts';
import { checkWritable } from '../lib/operator/trace-out.ts';
import { isoSeconds } from '../lib/operator/trace-range.ts';
import { cliEnvironment } from '../test/operator/cli.ts';
import { createConsumer, type HistoryPoint, putHistory } from '../test/operator/support/metric-history.ts';
import { startMotoServer, TEST_REGION } from '../test/support/moto-server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SCENARIO = 'trace-nasa-http-1995-07-13';
const ITEM_MS = 2000;
const DAY = 86_400;

const HELP = `Seeds the NASA-HTTP day (${SCENARIO}) into a private moto server as one minute-by-minute CloudWatch
history of a queue and its consumer, exports it with \`trace\` into --out, and stops moto.

Usage: npx tsx scripts/export-nasa-through-moto.ts --out FILE.csv`;

const { values } = parseArgs({
  options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
if (values.out === undefined) {
  console.error('export-nasa-through-moto: give --out FILE.csv (see --help)');
  process.exit(2);
}
const out = resolve(values.out);
// Before moto starts: a path that cannot be written must not cost the seeding.
checkWritable(out);

const { phases } = loadScenario(SCENARIO);
const start = Math.floor(Date.now() / 1000 / DAY) * DAY - 2 * DAY;
const end = start + phases.length * 60;
const server = await startMotoServer();
try {
  const consumer = await createConsumer(server, {
    queueName: 'nasa-http',
    functionName: 'nasa-http-consumer',
    roleName: 'nasa-http-consumer-role',
    batchSize: 1,
  });
  const points: HistoryPoint[] = [];
  const counts: number[] = [];
  phases.forEach((phase, i) => {
    const count = Math.round(phase.ratePerSecond * phase.durationSeconds);
    counts.push(count);
    // Inside the minute, as CloudWatch stamps a datapoint.
    const at = start + i * 60 + 7;
    points.push({
      namespace: 'AWS/SQS',
      metric: 'NumberOfMessagesSent',
      dimension: 'nasa-http',
      at,
      value: count,
    });
    if (count === 0) return;
    points.push({
      namespace: 'AWS/SQS',
      metric: 'NumberOfMessagesDeleted',
      dimension: 'nasa-http',
      at,
      value: count,
    });
    for (const [metric, value] of [
      ['Invocations', count],
      ['Duration', ITEM_MS],
    ] as const)
      points.push({ namespace: 'AWS/Lambda', metric, dimension: 'nasa-http-consumer', at, value });
  });
  await putHistory(server, points);
  console.error(
    `seeded ${phases.length} minutes (${counts.reduce((a, b) => a + b, 0)} messages) at ${isoSeconds(start)} – ${isoSeconds(end)} into moto at ${server.endpoint}`,
  );

  const trace = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bin', 'trace.ts'),
      '--queue',
      consumer.queueUrl,
      '--function',
      consumer.functionName,
      '--from',
      isoSeconds(start),
      '--to',
      isoSeconds(end),
      '--out',
      out,
      // moto's GetMetricData time grows with the square of a call's size (docs/aws-facts.md): 333 minutes a call.
      '--max-datapoints',
      '2000',
      '--endpoint',
      server.endpoint,
      '--region',
      TEST_REGION,
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      // The tests' environment: dummy credentials, no AWS config, every call to the emulator's endpoint.
      env: cliEnvironment(),
    },
  );
  if (trace.status !== 0) {
    console.error(`export-nasa-through-moto: trace exited with ${trace.status ?? trace.signal}`);
    process.exitCode = 1;
  } else {
    // The export against its source: the scenario's rates are rounded to 4 places, the counts to whole messages.
    const exported = parseScenarioText(readFileSync(out, 'utf8'), out).phases;
    const off = exported.filter((p, i) => Math.abs(p.ratePerSecond - (counts[i] ?? -1) / 60) > 1e-6);
    const items = new Set(exported.map((p) => p.itemMs));
    console.error(
      `checked ${out}: ${exported.length} phases, ${off.length} whose rate differs from the seeded count ÷ 60, item_ms ${[...items].join(', ')}`,
    );
    if (exported.length !== phases.length || off.length > 0 || items.size !== 1 || !items.has(ITEM_MS))
      process.exitCode = 1;
  }
} finally {
  await server.stop();
}
