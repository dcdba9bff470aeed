import { parseArgs } from 'node:util';
import { shippedGroups } from '../lib/bench/group-file.ts';
import { loadScenario, readLoadFile, shippedScenarios } from '../lib/load-file/load-file.ts';
import { loadSimConfig } from '../lib/sim/config-file.ts';
import { describeDownstream } from '../lib/sim/downstream.ts';
import { PRESET_NAMES, PRESETS, type PresetName } from '../lib/sim/presets.ts';
import { CONTROLLER_KINDS, type ControllerKind, downstreamFor, runScenario } from '../lib/sim/run.ts';
import { prepareOutputDirectory, writeOutputs } from '../lib/views/outputs.ts';
import { phaseTable, runFooter } from '../lib/views/phase-table.ts';
import { svgChart } from '../lib/views/svg-chart.ts';
import { terminalChart } from '../lib/views/terminal-chart.ts';
import { timelineCsv } from '../lib/views/timeline-csv.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';
import { quietOnClosedPipe, scaled, seedOption } from './sim-options.ts';
import { simulateGroup } from './simulate-group.ts';

const command = invokedAs('simulate');
const HELP = `Replays a load through a model of SQS → Lambda (or the seed article's worker pool) driven by the
queue-age controller, and reports what the controller did and what the downstream felt.

Usage: ${command} [options]
       ${command} --group FILE.json [--seed N] [--config FILE.json] [--json]

Options:
  --scenario NAME     a shipped load file (default seed-spike): ${shippedScenarios().join(', ')}
  --trace FILE.csv    your own load file (header duration_s,rate_per_s,item_ms; one row per phase;
                      an optional line "@downstream connection_pool=N" or "@downstream api_rate_per_s=R")
  --rate-scale X      multiply every rate by X (> 0; default 1), as the load tool does: 100 replays 2/s at 200/s
  --time-scale X      multiply every phase's duration by X (> 0; default 1)
  --preset NAME       ${PRESET_NAMES.map((p) => `${p}: ${PRESETS[p].description}`).join('\n                      ')}
                      (default lambda)
  --config FILE.json  control-law settings over the preset's (validated), and the simulator's model, e.g.
                      {"targetAgeSeconds": 30, "maxConcurrency": 24,
                       "simulator": {"metricDelaySeconds": 60, "downstream": {"connectionPool": 20}}};
                      scheduled floors as "floors": [{"schedule": "cron(19 0 * * ? *)",
                      "minConcurrency": 60, "durationSeconds": 600}] (a run starts at 00:00 UTC)
  --controller NAME   ${CONTROLLER_KINDS.join(', ')}
                      (default age-law; the others are the bench's baselines: native = no controller, the
                      mapping's MaximumConcurrency at the cap; provisioned = the mapping's provisioned mode)
  --seed N            random seed for arrivals and item times, 0–4294967295 (default 1)
  --out DIR           where to write <scenario>.svg and <scenario>.csv (default out; checked before the run)
  --json              print one JSON object instead of the table and chart
  --group FILE.json   several queues sharing one downstream (a group scenario: the downstream, the budget, each
                      member's load file), or a shipped group: ${shippedGroups().join(', ')}.
                      Runs it under four controllers on one seed and compares them: native with the static
                      split (MaximumConcurrency budget ÷ n each), native with the full budget each, the age law
                      per queue capped at the static split, and the shared budget (one controller for the
                      group); per member p99 wait ÷ target, peak executions, dead letters; for the group the
                      peak sums of limits and executions against the budget, pool waits, 429s and $ a month.
                      Takes only --seed, --json and --config (its "simulator" settings, e.g. pollerScaleSeconds)
  --help              this text

The run is bounded (at most 50,000,000 messages, 1,000,000 controller ticks, 100,000 phases, 30 days), so that
every accepted run fits in 2 GB; a larger one is refused before it starts, saying which bound and how to shrink it.

Examples:
  ${command.replace(/ --$/, '')}
  ${command} --preset seed --json
  ${command} --scenario trace-nasa-http-1995-07-13 --controller native
  ${command} --scenario overload --config my-settings.json
  ${command} --group pool-40-three-shapes --seed 2`;

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.group !== undefined) {
    const others = ['scenario', 'trace', 'rate-scale', 'time-scale', 'preset', 'controller', 'out'].filter(
      (option) => values[option as keyof typeof values] !== undefined,
    );
    if (others.length > 0)
      throw new UsageError(
        `--group takes only --seed, --json and --config; not ${others.map((o) => `--${o}`).join(', ')}`,
      );
    await simulateGroup({
      group: values.group,
      seed: seedOption(values.seed),
      json: values.json ?? false,
      config: values.config,
    });
    return;
  }
  if (values.scenario !== undefined && values.trace !== undefined)
    throw new UsageError('give --scenario or --trace, not both');
  const preset = values.preset ?? 'lambda';
  if (!PRESET_NAMES.includes(preset as PresetName))
    throw new UsageError(`--preset '${preset}': must be one of ${PRESET_NAMES.join(', ')}`);
  const controller = values.controller ?? 'age-law';
  if (!CONTROLLER_KINDS.includes(controller as ControllerKind)) {
    throw new UsageError(`--controller '${controller}': must be one of ${CONTROLLER_KINDS.join(', ')}`);
  }
  const seed = seedOption(values.seed);
  const scenario = scaled(
    values.trace !== undefined ? readLoadFile(values.trace) : loadScenario(values.scenario ?? 'seed-spike'),
    values['rate-scale'],
    values['time-scale'],
  );
  const file = values.config === undefined ? undefined : loadSimConfig(values.config);
  // Before the run: a wrong --out must not cost a finished result.
  const [svgPath, csvPath] = prepareOutputDirectory('--out', values.out ?? 'out', [
    `${scenario.name}.svg`,
    `${scenario.name}.csv`,
  ]) as [string, string];

  const showProgress = !values.json && process.stderr.isTTY;
  const run = await runScenario({
    scenario,
    preset: preset as PresetName,
    settings: file?.settings,
    world: file?.world,
    downstream: file?.downstream,
    controller: controller as ControllerKind,
    seed,
    onProgress: showProgress
      ? (f) => process.stderr.write(`\rsimulating ${scenario.name}: ${(f * 100).toFixed(0)}%`)
      : undefined,
  });
  if (showProgress) process.stderr.write('\r\x1b[K');

  const title = `${scenario.name} · ${preset} preset · ${run.summary.controller}`;
  // The result first: if a file cannot be written after all, nothing the run computed is lost.
  if (values.json) {
    console.log(JSON.stringify(run.summary, null, 2));
  } else {
    const scale =
      scenario.scale === undefined ? '' : `, rate × ${scenario.scale.rate}, time × ${scenario.scale.time}`;
    console.log(
      `${title}: floor ${run.config.minConcurrency}, cap ${run.config.maxConcurrency}, target age ${run.config.targetAgeSeconds} s, tick ${run.config.tickSeconds} s, seed ${seed}${scale}, downstream ${describeDownstream(downstreamFor(scenario, file?.downstream))}\n`,
    );
    console.log(phaseTable(run.summary));
    console.log(`\n${runFooter(run.summary)}\n`);
    console.log(
      terminalChart(run.result.timeline, run.config.maxConcurrency, run.config.targetAgeSeconds, {
        color: process.stdout.isTTY && !process.env.NO_COLOR,
      }),
    );
  }
  const failures = writeOutputs([
    {
      path: svgPath,
      content: svgChart({
        title,
        timeline: run.result.timeline,
        cap: run.config.maxConcurrency,
        targetAgeSeconds: run.config.targetAgeSeconds,
      }),
    },
    { path: csvPath, content: timelineCsv(run.result.timeline) },
  ]);
  for (const failure of failures) console.error(`simulate: ${failure} (the result above is complete)`);
  if (failures.length > 0) process.exitCode = 1;
  else if (!values.json) console.log(`\nwrote ${svgPath} and ${csvPath}`);
}

function parse() {
  return parseArgs({
    options: {
      scenario: { type: 'string' },
      trace: { type: 'string' },
      'rate-scale': { type: 'string' },
      'time-scale': { type: 'string' },
      preset: { type: 'string' },
      config: { type: 'string' },
      controller: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      group: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

quietOnClosedPipe();
await runCli('simulate', main);
