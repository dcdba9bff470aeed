import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ScalerSettings } from '../lib/control/config.ts';
import type { SettingName } from '../lib/control/settings-table.ts';
import { readLoadFileAndText, SCENARIO_DIR, shippedScenarios } from '../lib/load-file/load-file.ts';
import { RECOMMEND_CONTROLLERS, type RecommendController, recommend } from '../lib/operator/recommend-run.ts';
import { recommendationLine, recommendText } from '../lib/operator/recommend-view.ts';
import { REPLAY_MESSAGE_ALLOWANCE } from '../lib/operator/replay-limit.ts';
import { traceStartSeconds } from '../lib/operator/trace-start.ts';
import { loadSimConfig } from '../lib/sim/config-file.ts';
import { MAX_SEED } from '../lib/sim/random.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';
import { quietOnClosedPipe } from './sim-options.ts';

const command = invokedAs('recommend');

/** The command line's settings: each option and the setting it gives (validated by the shared validator). */
const SETTING_OPTIONS = {
  target: 'targetAgeSeconds',
  'db-pool': 'dbPoolSize',
  'api-rate': 'apiRatePerSecond',
  'item-time': 'itemTimeSeconds',
  'calls-per-item': 'callsPerItem',
  'max-concurrency': 'maxConcurrency',
} as const satisfies Record<string, SettingName>;
type SettingOption = keyof typeof SETTING_OPTIONS;
const OPTION_OF = new Map<SettingName, string>(
  Object.entries(SETTING_OPTIONS).map(([flag, field]) => [field, `--${flag}`]),
);

const MAX_SEEDS = 20;
const ALLOWANCE = { min: 1000, max: 1_000_000_000 } as const;

const HELP = `What each controller would have done on your traffic, and which to run: replays a load file (typically
exported by trace) through the age law, native and provisioned (the mapping's own modes, no controller) with your
target and cap, lambda preset, on every seed, and prints the choice, its settings and the figures behind it.

Usage: ${command} --trace FILE.csv [options]

Options:
  --trace FILE.csv       the load file (header duration_s,rate_per_s,item_ms, optionally observed_age_s and
                         observed_concurrency, as trace writes them), or a shipped scenario's name; required
  --target SECONDS       the latency target: the oldest message should wait no longer (default 60, the preset's)
  --db-pool N            the cap from the downstream: connections in its database pool
  --api-rate R --item-time S [--calls-per-item C]
                         the cap from a rate-limited API: ⌊R × S ÷ C⌋ (C default 1)
  --max-concurrency N    an explicit cap. The cap is the lowest of these and maxConcurrency (default 32, the
                         preset's), as the construct derives it
  --seeds A-B            the seeds each controller runs (default 1-5; also N, or a list 1,3,7; at most ${MAX_SEEDS})
  --current NAME         the controller you run today, replayed beside what your queue did: ${RECOMMEND_CONTROLLERS.join(', ')}
                         (default native)
  --config FILE.json     settings and the simulator's model as bench and simulate take them; the options above
                         override its settings. A minConcurrency in it is kept as your floor
  --budget N             messages all runs replay together (default ${REPLAY_MESSAGE_ALLOWANCE.toLocaleString('en-US')}: about two
                         minutes on 2 cores); a bigger trace is thinned to fit
  --json                 one JSON object instead of the text
  --help                 this text

The choice: the options that meet the target (p99 wait ≤ target on every seed, no dead letters), then the lowest
exec peak (the worst seed's: the load your downstream takes); peaks within 5 % are a tie, won by the cheaper a
month. With none meeting the target, the least late. fixed-floor, fixed-cap and the step rules are the bench's
yardsticks, not offers: left out.

It prints: the recommendation in one line (and why not the others, plainly: "recommend: native — … the age law
would add $3.83 a month and a peak no lower"); the settings (targetAge, the cap from your limits, a floor: the
quietest hour's need, at least 2); a note where the trace has a daily peak (and a scheduled floor for it, where
the floor does not already hold it); per option the worst p99 ÷ target, exec peak and mean, dead letters, the
monthly cost (the consumer's own compute is the same for all and left out) and the reserved concurrency the age law
holds; and, where the file has observed columns, the observed max age and peak concurrency per hour or day beside
the replay of --current.

A trace longer than 30 days (what one run simulates) is replayed over its last 30 days, and a window line says so;
a file of more than 100,000 rows in those days is refused (pass fewer, longer rows).

A trace bigger than --budget (or than the simulator's 50,000,000 messages a run) is replayed thinned by k < 1:
each replayed message stands for 1/k of yours and does their work (rates × k, item times ÷ k), so the need
(rate × item time), the cap, the floor and the costs stay your trace's; k is printed. Ages and peaks are
approximate below k = 0.1 (burstier arrivals, batches 1/k times longer): docs/operator-tools.md gives the
measured error. A week peaking at 1,000/s (333 million messages) runs at k = 0.012.

Exit status: 0 with a recommendation; 2 for a mistake (one line naming the option, the value and the range).

Examples:
  ${command} --trace my-queue.csv
  ${command} --trace my-queue.csv --target 120 --db-pool 20 --current provisioned
  ${command} --trace my-queue.csv --api-rate 300 --item-time 0.05 --seeds 1-3 --json`;

function parse() {
  return parseArgs({
    options: {
      trace: { type: 'string' },
      target: { type: 'string' },
      'db-pool': { type: 'string' },
      'api-rate': { type: 'string' },
      'item-time': { type: 'string' },
      'calls-per-item': { type: 'string' },
      'max-concurrency': { type: 'string' },
      seeds: { type: 'string' },
      current: { type: 'string' },
      config: { type: 'string' },
      budget: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** `1-5`, `3` or `1,3,7`: whole numbers the generator takes, a range that goes up, at most MAX_SEEDS of them. */
function seedsOption(raw: string | undefined): number[] {
  if (raw === undefined) return [1, 2, 3, 4, 5];
  const fail = (why: string): never => {
    throw new UsageError(`--seeds '${raw}': ${why}`);
  };
  const whole = (text: string) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value > MAX_SEED)
      fail(`seeds are whole numbers in [0; ${MAX_SEED}], written A-B, N or a list A,B,C`);
    return value;
  };
  const range = /^(\d+)-(\d+)$/.exec(raw.trim());
  let seeds: number[];
  if (range !== null) {
    const [from, to] = [whole(range[1] as string), whole(range[2] as string)];
    if (from > to) fail(`the range must go up (${raw} starts above its end: write ${to}-${from})`);
    if (to - from + 1 > MAX_SEEDS) fail(`at most ${MAX_SEEDS} seeds (${to - from + 1} given)`);
    seeds = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  } else {
    seeds = raw.split(',').map((s) => whole(s.trim()));
    if (new Set(seeds).size !== seeds.length) fail('a seed is given twice');
    if (seeds.length > MAX_SEEDS) fail(`at most ${MAX_SEEDS} seeds (${seeds.length} given)`);
  }
  return seeds;
}

function currentOption(raw: string | undefined): RecommendController {
  const value = raw ?? 'native';
  if (!(RECOMMEND_CONTROLLERS as readonly string[]).includes(value))
    throw new UsageError(`--current '${value}': must be one of ${RECOMMEND_CONTROLLERS.join(', ')}`);
  return value as RecommendController;
}

function allowanceOption(raw: string | undefined): number {
  if (raw === undefined) return REPLAY_MESSAGE_ALLOWANCE;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < ALLOWANCE.min || value > ALLOWANCE.max)
    throw new UsageError(
      `--budget '${raw}': must be a whole number of messages in [${ALLOWANCE.min.toLocaleString('en-US')}; ${ALLOWANCE.max.toLocaleString('en-US')}]`,
    );
  return value;
}

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.trace === undefined)
    throw new UsageError(
      '--trace FILE.csv is required: the load file to replay (trace exports one; see --help)',
    );
  const seeds = seedsOption(values.seeds);
  const current = currentOption(values.current);
  const allowance = allowanceOption(values.budget);
  const file = values.config === undefined ? undefined : loadSimConfig(values.config);
  // The command line's values go to the shared validator as given, which names them by their option.
  const given: Partial<Record<SettingName, string>> = {};
  const flags = new Map<SettingName, string>();
  for (const [flag, field] of Object.entries(SETTING_OPTIONS) as [SettingOption, SettingName][]) {
    const raw = values[flag];
    if (raw === undefined) continue;
    given[field] = raw;
    flags.set(field, `--${flag}`);
  }
  const settings: ScalerSettings = { ...file?.settings, ...given };
  // A shipped scenario's name works too (the installed package carries them), as in simulate and bench.
  const path = shippedScenarios().includes(values.trace)
    ? join(SCENARIO_DIR, `${values.trace}.csv`)
    : values.trace;
  const { file: scenario, text } = readLoadFileAndText(path);
  const startSeconds = traceStartSeconds(text);

  const progress = !values.json && process.stderr.isTTY;
  const report = await recommend({
    scenario,
    startSeconds,
    settings,
    world: file?.world,
    downstream: file?.downstream,
    seeds,
    current,
    allowance,
    // A field the config file gave is named as in the file; any other by its option, if it has one.
    label: (field) =>
      flags.get(field) ?? (file?.settings[field] === undefined ? OPTION_OF.get(field) : undefined) ?? field,
    onRun: progress
      ? ({ controller, seed, wallSeconds }) =>
          process.stderr.write(`recommend: ${controller} seed ${seed}: ${wallSeconds.toFixed(1)} s\n`)
      : undefined,
  });
  if (values.json)
    console.log(JSON.stringify({ recommendation: recommendationLine(report), ...report }, null, 2));
  else process.stdout.write(recommendText(report));
}

quietOnClosedPipe();
await runCli('recommend', main);
