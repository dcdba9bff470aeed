import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadSimConfig } from '../lib/sim/config-file.ts';
import { phaseTable, runFooter } from '../lib/sim/phase-table.ts';
import { PRESET_NAMES, PRESETS, type PresetName } from '../lib/sim/presets.ts';
import { CONTROLLER_KINDS, type ControllerKind, runScenario } from '../lib/sim/run.ts';
import { loadPhaseFile, loadScenario, shippedScenarios } from '../lib/sim/scenario.ts';
import { svgChart } from '../lib/sim/svg-chart.ts';
import { terminalChart } from '../lib/sim/terminal-chart.ts';
import { timelineCsv } from '../lib/sim/timeline-csv.ts';
import { parseOptions, runCli, UsageError } from './cli-error.ts';

const HELP = `Replays a load through a model of SQS → Lambda (or the seed article's worker pool) driven by the
queue-age controller, and reports what the controller did.

Usage: npm start -- [options]

Options:
  --scenario NAME     a shipped phase file (default seed-spike): ${shippedScenarios().join(', ')}
  --trace FILE.csv    your own phase file (header duration_s,rate_per_s,item_ms; one row per phase)
  --preset NAME       ${PRESET_NAMES.map((p) => `${p}: ${PRESETS[p].description}`).join('\n                      ')}
                      (default lambda)
  --config FILE.json  control-law settings over the preset's (validated), e.g.
                      {"targetAgeSeconds": 30, "maxConcurrency": 24, "simulator": {"metricDelaySeconds": 60}}
  --controller NAME   ${CONTROLLER_KINDS.join(', ')} (default age-law; the others are the bench's baselines)
  --seed N            random seed for arrivals and item times (default 1)
  --out DIR           where to write <scenario>.svg and <scenario>.csv (default out)
  --json              print one JSON object instead of the table and chart
  --help              this text

Examples:
  npm start
  npm start -- --preset seed --json
  npm start -- --scenario overload --config my-settings.json`;

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
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
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new UsageError(`--seed '${values.seed}': must be a whole number ≥ 0`);
  const scenario =
    values.trace !== undefined ? loadPhaseFile(values.trace) : loadScenario(values.scenario ?? 'seed-spike');
  const file = values.config === undefined ? undefined : loadSimConfig(values.config);

  const showProgress = !values.json && process.stderr.isTTY;
  const run = await runScenario({
    scenario,
    preset: preset as PresetName,
    settings: file?.settings,
    environment: file?.environment,
    controller: controller as ControllerKind,
    seed,
    onProgress: showProgress
      ? (f) => process.stderr.write(`\rsimulating ${scenario.name}: ${(f * 100).toFixed(0)}%`)
      : undefined,
  });
  if (showProgress) process.stderr.write('\r\x1b[K');

  const outDir = values.out ?? 'out';
  mkdirSync(outDir, { recursive: true });
  const svgPath = join(outDir, `${scenario.name}.svg`);
  const csvPath = join(outDir, `${scenario.name}.csv`);
  const title = `${scenario.name} · ${preset} preset · ${run.summary.controller}`;
  writeFileSync(
    svgPath,
    svgChart({
      title,
      timeline: run.result.timeline,
      cap: run.config.maxConcurrency,
      targetAgeSeconds: run.config.targetAgeSeconds,
    }),
  );
  writeFileSync(csvPath, timelineCsv(run.result.timeline));

  if (values.json) {
    console.log(JSON.stringify(run.summary, null, 2));
    return;
  }
  console.log(
    `${title}: floor ${run.config.minConcurrency}, cap ${run.config.maxConcurrency}, target age ${run.config.targetAgeSeconds} s, tick ${run.config.tickSeconds} s, seed ${seed}\n`,
  );
  console.log(phaseTable(run.summary));
  console.log(`\n${runFooter(run.summary)}\n`);
  console.log(
    terminalChart(run.result.timeline, run.config.maxConcurrency, run.config.targetAgeSeconds, {
      color: process.stdout.isTTY && !process.env.NO_COLOR,
    }),
  );
  console.log(`\nwrote ${svgPath} and ${csvPath}`);
}

function parse() {
  return parseArgs({
    options: {
      scenario: { type: 'string' },
      trace: { type: 'string' },
      preset: { type: 'string' },
      config: { type: 'string' },
      controller: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

await runCli('simulate', main);
