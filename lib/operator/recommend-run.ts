import { benchRow } from '../bench/bench.ts';
import { type SeedFigures, seedFigures } from '../bench/seed-figures.ts';
import { maxConcurrencyFor } from '../control/capacity.ts';
import { resolveScalerConfig, type ScalerConfig, type ScalerSettings } from '../control/config.ts';
import type { SettingName } from '../control/settings-table.ts';
import type { LoadFile } from '../load-file/load-file.ts';
import type { DownstreamModel } from '../sim/downstream.ts';
import { PRESETS } from '../sim/presets.ts';
import { type ControllerKind, downstreamFor, runScenario } from '../sim/run.ts';
import type { SimWorld } from '../sim/world.ts';
import {
  chooseFloor,
  type DailyPeak,
  dailyPeak,
  type FloorChoice,
  type FloorProposal,
  floorWindowSeconds,
  hourlyNeeds,
  proposedFloor,
  windowNeeds,
} from './load-windows.ts';
import { chooseController, type Recommendation } from './recommend.ts';
import {
  compareReplay,
  type ReplayComparison,
  type ReplaySeries,
  replaySeries,
} from './replay-comparison.ts';
import {
  checkReplayRows,
  planReplay,
  REPLAY_MESSAGE_ALLOWANCE,
  type ReplayPlan,
  replayWindow,
} from './replay-limit.ts';
import { thin } from './replay-thinning.ts';

/**
 * `recommend`'s replay: the trace through the age law, `native` and `provisioned` (the bench's controllers that a
 * user can run; the fixed and step baselines are yardsticks, not offers) on every seed, with the user's target
 * and cap, in the lambda preset, thinned when it is too big (lib/operator/replay-thinning.ts); then the choice
 * (lib/operator/recommend.ts) and the comparison with what the queue did (lib/operator/replay-comparison.ts).
 */
export const RECOMMEND_CONTROLLERS = [
  'age-law',
  'native',
  'provisioned',
] as const satisfies readonly ControllerKind[];
export type RecommendController = (typeof RECOMMEND_CONTROLLERS)[number];

const PRESET = PRESETS.lambda;

export interface RecommendInput {
  readonly scenario: LoadFile;
  /** Epoch seconds of the trace's start (lib/operator/trace-start.ts); undefined: hours from its start. */
  readonly startSeconds?: number;
  /** A config file's settings with the command line's on top; the lambda preset fills the rest. */
  readonly settings: ScalerSettings;
  readonly world?: Partial<SimWorld>;
  /** The downstream's capacity over the trace's own `@downstream` line, as `bench --config` gives it. */
  readonly downstream?: DownstreamModel;
  readonly seeds: readonly number[];
  /** The controller the user runs today: its replay is set beside what the queue did. */
  readonly current: RecommendController;
  /** Messages all runs may replay together (`--budget`). @default REPLAY_MESSAGE_ALLOWANCE */
  readonly allowance?: number;
  /** How a setting is named in an error (the command's option). */
  readonly label?: (field: SettingName) => string;
  readonly onRun?: (done: { controller: RecommendController; seed: number; wallSeconds: number }) => void;
}

/** Where the cap comes from: each limit given and what it allows. */
export interface CapSource {
  readonly field: 'maxConcurrency' | 'dbPoolSize' | 'apiRatePerSecond';
  readonly value: number;
  /** maxConcurrency only: the preset's default rather than the user's. */
  readonly isDefault?: boolean;
}

export interface RecommendReport {
  readonly trace: {
    readonly name: string;
    readonly phases: number;
    readonly seconds: number;
    readonly messages: number;
    readonly peakRatePerSecond: number;
    readonly itemMs: { readonly min: number; readonly max: number };
    readonly observed: boolean;
    readonly startSeconds?: number;
  };
  readonly seeds: readonly number[];
  readonly plan: ReplayPlan & {
    readonly runs: number;
    /** The replay allowance, as `--json` has always spelled it (after the `--budget` flag). */
    readonly budget: number;
    readonly functionTimeoutRaisedTo?: number;
    /** Set when the trace is longer than a run may be: what was left out before the stretch replayed. */
    readonly window?: { readonly droppedSeconds: number; readonly droppedPhases: number };
  };
  readonly settings: {
    readonly targetAgeSeconds: number;
    readonly cap: number;
    readonly capFrom: readonly CapSource[];
    readonly floor: number;
    /** How the floor was chosen: from the quietest window (hours, mostly), or as the config file gave it. */
    readonly floorFrom: ({ readonly by: 'quietest-window' } & FloorChoice) | { readonly by: 'config' };
  };
  readonly dailyPeak?: DailyPeak;
  /** A scheduled floor for the daily peak (the construct's `floors`), where the floor does not already hold it. */
  readonly floorProposal?: FloorProposal;
  /** In RECOMMEND_CONTROLLERS' order. */
  readonly options: readonly SeedFigures[];
  /** The age law's reserved concurrency held over the trace, concurrency-seconds (the mean of seeds). */
  readonly ageLawReservedSeconds: number;
  readonly choice: Recommendation;
  readonly current: RecommendController;
  /** Undefined: the trace has no observed columns. */
  readonly comparison?: ReplayComparison;
}

function capSources(settings: ScalerSettings, config: ScalerConfig): CapSource[] {
  const sources: CapSource[] = [];
  const given = settings.maxConcurrency !== undefined;
  sources.push({
    field: 'maxConcurrency',
    value:
      maxConcurrencyFor({
        explicitMax: Number(given ? settings.maxConcurrency : PRESET.settings.maxConcurrency),
      }) ?? 0,
    ...(given ? {} : { isDefault: true }),
  });
  if (config.dbPoolSize !== undefined) sources.push({ field: 'dbPoolSize', value: config.dbPoolSize });
  const api = maxConcurrencyFor({
    apiRatePerSecond: config.apiRatePerSecond,
    itemTimeSeconds: config.itemTimeSeconds,
    callsPerItem: config.callsPerItem,
  });
  if (config.apiRatePerSecond !== undefined && api !== undefined)
    sources.push({ field: 'apiRatePerSecond', value: api });
  return sources;
}

/**
 * The settings a run is given: the user's, with the cap and the floor resolved (the downstream limits that gave
 * the cap do not depend on the trace, so they are not replayed again), and the configured item time thinned with
 * the items (the law falls back on it before CloudWatch has a per-item time: lib/control/load.ts).
 */
function runSettings(
  settings: ScalerSettings,
  config: ScalerConfig,
  floor: number,
  k: number,
): ScalerSettings {
  const {
    dbPoolSize: _pool,
    apiRatePerSecond: _api,
    callsPerItem: _calls,
    itemTimeSeconds: _item,
    ...rest
  } = settings;
  // 900 s is the setting's bound (Lambda's 15 minutes): a thinned item time beyond it is clipped, not refused.
  const item =
    config.itemTimeSeconds === undefined
      ? {}
      : { itemTimeSeconds: Math.min(900, config.itemTimeSeconds / k) };
  return { ...rest, ...item, minConcurrency: floor, maxConcurrency: config.maxConcurrency };
}

export async function recommend(input: RecommendInput): Promise<RecommendReport> {
  const { seeds } = input;
  // A trace longer than one run may be is replayed over its latest stretch that fits (replayWindow).
  const window = replayWindow(input.scenario.phases);
  checkReplayRows(window.phases);
  const scenario = { ...input.scenario, phases: window.phases };
  const startSeconds =
    input.startSeconds === undefined ? undefined : input.startSeconds + window.droppedSeconds;
  const resolve = (settings: ScalerSettings) =>
    resolveScalerConfig(settings, { defaults: PRESET.settings, label: input.label });
  const given = resolve(input.settings);
  const seconds = scenario.phases.reduce((s, p) => s + p.durationSeconds, 0);
  const quiet = windowNeeds(scenario.phases, given, floorWindowSeconds(seconds));
  const floorFrom: RecommendReport['settings']['floorFrom'] =
    input.settings.minConcurrency !== undefined
      ? { by: 'config' }
      : { by: 'quietest-window', ...chooseFloor(quiet, given.maxConcurrency) };
  const floor = floorFrom.by === 'config' ? given.minConcurrency : floorFrom.floor;
  const config = resolve({ ...input.settings, minConcurrency: floor });

  const runs = RECOMMEND_CONTROLLERS.length * seeds.length;
  const allowance = input.allowance ?? REPLAY_MESSAGE_ALLOWANCE;
  const plan = planReplay(scenario.phases, runs, allowance);
  const world: SimWorld = { ...PRESET.world, ...input.world };
  const thinning = thin(scenario, world, plan.k, downstreamFor(scenario, input.downstream));
  const settings = runSettings(input.settings, config, floor, plan.k);

  const options: SeedFigures[] = [];
  const series: ReplaySeries[] = [];
  let ageLawReserved = 0;
  for (const controller of RECOMMEND_CONTROLLERS) {
    const rows = [];
    for (const seed of seeds) {
      const run = await runScenario({
        scenario: thinning.scenario,
        preset: 'lambda',
        controller,
        seed,
        settings,
        world: { ...input.world, ...thinning.world },
        downstream: thinning.downstream,
      });
      rows.push(benchRow(scenario.name, 'lambda', controller, run));
      if (controller === input.current) series.push(replaySeries(run.summary, run.result.timeline));
      if (controller === 'age-law') ageLawReserved += (run.summary.reservedSeconds ?? 0) / seeds.length;
      input.onRun?.({ controller, seed, wallSeconds: run.summary.wallSeconds });
    }
    options.push(seedFigures(rows));
  }

  const busy = scenario.phases.filter((p) => p.ratePerSecond > 0);
  const offsetHours = startSeconds === undefined ? 0 : Math.floor((startSeconds % 86_400) / 3600);
  const peak = dailyPeak(hourlyNeeds(scenario.phases, given), offsetHours);
  const proposal =
    peak === undefined ? undefined : proposedFloor(peak, floor, config.maxConcurrency, config.actuator);
  const comparison = compareReplay(scenario.phases, series);
  return {
    trace: {
      name: scenario.name,
      phases: scenario.phases.length,
      seconds,
      messages: plan.traceMessages,
      peakRatePerSecond: extreme(scenario.phases, (p) => p.ratePerSecond, Math.max, 0),
      itemMs: {
        min: extreme(busy.length > 0 ? busy : scenario.phases, (p) => p.itemMs, Math.min, Infinity),
        max: extreme(busy.length > 0 ? busy : scenario.phases, (p) => p.itemMs, Math.max, -Infinity),
      },
      observed: scenario.phases.some((p) => p.observed !== undefined),
      ...(startSeconds === undefined ? {} : { startSeconds }),
    },
    seeds,
    plan: {
      ...plan,
      runs,
      budget: allowance,
      ...(window.droppedSeconds > 0
        ? { window: { droppedSeconds: window.droppedSeconds, droppedPhases: window.droppedPhases } }
        : {}),
      ...(thinning.functionTimeoutRaisedTo === undefined
        ? {}
        : { functionTimeoutRaisedTo: thinning.functionTimeoutRaisedTo }),
    },
    settings: {
      targetAgeSeconds: config.targetAgeSeconds,
      cap: config.maxConcurrency,
      capFrom: capSources(input.settings, config),
      floor,
      floorFrom,
    },
    ...(peak === undefined ? {} : { dailyPeak: peak }),
    ...(proposal === undefined ? {} : { floorProposal: proposal }),
    options,
    ageLawReservedSeconds: ageLawReserved,
    choice: chooseController(options),
    current: input.current,
    ...(comparison === undefined ? {} : { comparison }),
  };
}

/** The largest or smallest of `value` over the phases, by a loop: a spread of 130,000 rows overflows the stack. */
function extreme<T>(
  items: readonly T[],
  value: (item: T) => number,
  pick: (a: number, b: number) => number,
  from: number,
) {
  let best = from;
  for (const item of items) best = pick(best, value(item));
  return best;
}
