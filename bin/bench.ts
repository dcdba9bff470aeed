import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type BenchRow, benchScenario, benchSection } from '../lib/bench/bench.ts';
import { benchDocument } from '../lib/bench/bench-doc.ts';
import {
  type BeyondRow,
  beyond1000Table,
  beyond1000Verdicts,
  runBeyond1000,
} from '../lib/bench/beyond-1000.ts';
import type { ScalerSettings } from '../lib/control/config.ts';
import { type LoadFile, loadScenario, readLoadFile, shippedScenarios } from '../lib/load-file/load-file.ts';
import { loadSimConfig } from '../lib/sim/config-file.ts';
import { checkRunSize, SimulationLimitError } from '../lib/sim/limits.ts';
import { PRESET_NAMES, type PresetName } from '../lib/sim/presets.ts';
import { configFor } from '../lib/sim/run.ts';
import { prepareOutputFile, writeOutputs } from '../lib/views/outputs.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';
import { quietOnClosedPipe, scaled } from './sim-options.ts';

const command = invokedAs('bench');
/** The second reading of the standard mapping's ramp, one step a minute (docs/aws-facts.md). */
const STEP_A_MINUTE_SECONDS = 60;
const HELP = `Runs every shipped scenario through the age law and the baselines and prints a markdown table:
native (no controller: the mapping's MaximumConcurrency at the cap, reserved unset), provisioned (the mapping's
provisioned mode, 2 to cap÷10 pollers), fixed at the floor, fixed at the cap, the seed's literal step rule, a
KEDA-like depth rule.

Usage: ${command} [--preset lambda|seed]... [--scenario NAME]... [--trace FILE.csv]...
                        [--rate-scale X] [--time-scale X] [--config FILE.json] [--out FILE.md] [--doc]
                        [--beyond-1000]

Columns: p99 wait ÷ target and dead letters (how late, how lost); concurrent executions peak, time-weighted p99
and mean, warm execution environments peak and mean (what the downstream feels); reserved concurrency held
(concurrency-seconds of account concurrency held back; native and provisioned hold none); the applied limit's
concurrency-seconds ÷ the clairvoyant's (max(floor, ⌈λ·S⌉) per phase); scale events (controller writes), and per
hour once a flat phase of 25+ minutes has run 15; throttled and timed-out invocations, failed items; simulated
seconds per wall second.

The lambda preset runs twice, under both readings of the standard mapping's ramp ("up to 300 more a minute": AWS
does not say in steps or spread): its pollers stepping every 10 s (the simulator's default), then once a minute
(pollerScaleSeconds 60), a table each; a --config file that sets pollerScaleSeconds runs that reading alone.

Under each table, the dominated controllers: A dominates B when A is no later (p99 ÷ target, counting anything at
or under the target as meeting it; dead letters) and no heavier on the downstream (peak and mean concurrent
executions), and clearly better on one of them (beyond 5 %).

--beyond-1000 adds a table at thousands of concurrent consumers (seed 1, both readings; about 5 minutes): the seed's
spike × 150 and the diurnal day × 100, thinned in time to 0.3, under native (capped at 1,000), provisioned mode on its
own, the age law on the standard mapping (capped at 1,000) and the age law driving provisioned mode (cap 5,000; on the
diurnal day also with a scheduled floor around its peak), with each one's $ a month, and under it whether the age
law on provisioned mode meets the target where provisioned mode does, lighter (lib/bench/beyond-1000.ts). --doc
includes it unless --scenario or --trace picks the scenarios; --rate-scale, --time-scale and --config do not apply
to it.

--rate-scale/--time-scale apply to every scenario, as the load tool applies them. --config applies to every run.
--doc writes docs/benchmarks.md instead (or --out; without --out only in a clone of this project): a header with the date, the machine and the command, the
comparison of the age law with native and provisioned and the prose that reads it (every figure in it from these
runs), the known limits and the full tables. \`${command} --doc\` regenerates the shipped document.
Defaults: both presets (seed preset: seed-spike only, as in the article), every scenario, out/bench.md (checked
before the runs start; the result is printed first, so a late write error loses nothing).`;

/**
 * Every run the bench will make is within the simulator's bounds, checked before the first one: a trace longer than
 * about 14 hours fits the lambda preset's one-minute ticks but not the seed preset's 50 ms ones, and was refused
 * only after minutes of lambda runs, their results lost.
 */
function checkEveryRun(
  presets: readonly PresetName[],
  listFor: (preset: PresetName) => readonly LoadFile[],
  settings: ScalerSettings | undefined,
): void {
  for (const preset of presets) {
    const { tickSeconds } = configFor(preset, settings);
    for (const scenario of listFor(preset)) {
      try {
        checkRunSize(scenario.phases, tickSeconds);
      } catch (error) {
        if (!(error instanceof SimulationLimitError)) throw error;
        const others = presets.filter((p) => p !== preset);
        const hint =
          others.length > 0 ? `; bench it on ${others.map((p) => `--preset ${p}`).join(' ')} alone` : '';
        throw new SimulationLimitError(`${scenario.name} on the ${preset} preset: ${error.message}${hint}`);
      }
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        preset: { type: 'string', multiple: true },
        scenario: { type: 'string', multiple: true },
        trace: { type: 'string', multiple: true },
        'rate-scale': { type: 'string' },
        'time-scale': { type: 'string' },
        config: { type: 'string' },
        out: { type: 'string' },
        doc: { type: 'boolean' },
        'beyond-1000': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }),
  );
  if (values.help) {
    console.log(HELP);
    return;
  }
  const presets = (values.preset ?? PRESET_NAMES) as PresetName[];
  for (const p of presets)
    if (!PRESET_NAMES.includes(p))
      throw new UsageError(`--preset '${p}': must be one of ${PRESET_NAMES.join(', ')}`);
  const chosen = values.scenario !== undefined || values.trace !== undefined;
  const load = (scenario: LoadFile) => scaled(scenario, values['rate-scale'], values['time-scale']);
  const scenarios = [
    ...(values.scenario ?? (chosen ? [] : shippedScenarios())).map((name) => load(loadScenario(name))),
    ...(values.trace ?? []).map((path) => load(readLoadFile(path))),
  ];
  if (values.doc && values.out === undefined && !inThisClone(process.cwd()))
    throw new UsageError(
      "--doc regenerates queue-age-scaler's own docs/benchmarks.md and runs only in a clone of the project; here, write the document elsewhere with --doc --out FILE.md",
    );
  const file = values.config === undefined ? undefined : loadSimConfig(values.config);
  const out = prepareOutputFile('--out', values.out ?? (values.doc ? 'docs/benchmarks.md' : 'out/bench.md'));

  // The seed preset is the article's 50 ms pool: its own spike is the scenario it describes.
  const listFor = (preset: PresetName) =>
    preset === 'seed' && !chosen ? [load(loadScenario('seed-spike'))] : scenarios;
  checkEveryRun(presets, listFor, file?.settings);

  const sections: BenchSectionRun[] = [];
  for (const preset of presets) {
    const list = listFor(preset);
    for (const reading of readingsOf(preset, file?.world)) {
      const world = reading === undefined ? file?.world : { ...file?.world, pollerScaleSeconds: reading };
      const label = reading === undefined ? preset : `${preset} (${reading} s ramp)`;
      const rows: BenchRow[] = [];
      for (const scenario of list) {
        rows.push(
          ...(await benchScenario(
            scenario,
            preset,
            (row) =>
              process.stderr.write(
                `${label} ${row.scenario} ${row.controller}: ${row.summary.wallSeconds.toFixed(1)} s\n`,
              ),
            { settings: file?.settings, world, downstream: file?.downstream },
          )),
        );
      }
      sections.push({ preset, rows, ...(reading === undefined ? {} : { pollerScaleSeconds: reading }) });
    }
  }
  // Thousands of consumers (issue 31): seed 1, both readings; in the full document, elsewhere when asked.
  const beyond: BeyondRow[] =
    (values.doc && !chosen) || values['beyond-1000']
      ? await runBeyond1000({ seeds: [1], onRun: (what) => process.stderr.write(`beyond 1,000: ${what}\n`) })
      : [];
  const markdown = values.doc
    ? benchDocument({
        date: new Date().toISOString().slice(0, 10),
        machine: {
          node: process.version,
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
        },
        command: [command, ...process.argv.slice(2)].join(' '),
        sections,
        beyond,
        settings: file?.settings,
        world: file?.world,
      })
    : `${[
        ...sections.map((s) => benchSection(s.preset, s.rows, s.pollerScaleSeconds)),
        ...(beyond.length === 0 ? [] : [beyond1000Section(beyond)]),
      ].join('\n\n')}\n`;
  console.log(markdown);
  const failures = writeOutputs([{ path: out, content: markdown }]);
  for (const failure of failures) console.error(`bench: ${failure} (the result above is complete)`);
  if (failures.length > 0) process.exitCode = 1;
  else process.stderr.write(`wrote ${out}\n`);
}

quietOnClosedPipe();
await runCli('bench', main);

/** The thousands' table and issue 31's line under it, for a plain run. */
function beyond1000Section(rows: readonly BeyondRow[]): string {
  return ['## Beyond 1,000 (seed 1)', '', beyond1000Table(rows), '', ...beyond1000Verdicts(rows)].join('\n');
}

/** A preset's rows under one reading of the pollers' ramp (undefined: the preset's own). */
interface BenchSectionRun {
  readonly preset: PresetName;
  readonly rows: BenchRow[];
  readonly pollerScaleSeconds?: number;
}

/**
 * The readings a preset runs under: the lambda preset's own (10 s steps) and one step a minute, unless the config
 * file chose one; the seed preset has no mapping.
 */
function readingsOf(
  preset: PresetName,
  world: { pollerScaleSeconds?: number } | undefined,
): (number | undefined)[] {
  if (preset !== 'lambda' || world?.pollerScaleSeconds !== undefined) return [undefined];
  return [undefined, STEP_A_MINUTE_SECONDS];
}

/** Whether `dir` is a clone of this project (its package.json and its sources), not an app that installed it. */
function inThisClone(dir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
    return manifest.name === 'queue-age-scaler' && existsSync(join(dir, 'lib', 'control'));
  } catch {
    return false;
  }
}
