import {
  ConfigError,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
} from '../control/config.ts';
import type { LoadFile } from '../load-file/load-file.ts';
import {
  ageLawController,
  depthController,
  fixedController,
  noController,
  seedStepController,
} from './controllers.ts';
import { type DownstreamModel, hasCapacity } from './downstream.ts';
import { checkRunSize } from './limits.ts';
import { INVOKES_PER_POLLER } from './pollers.ts';
import { PRESETS, type PresetName } from './presets.ts';
import { MAX_SEED } from './random.ts';
import { type ConsumerMode, type SimController, Simulation, type SimulationResult } from './simulation.ts';
import { type RunSummary, summarize } from './summary.ts';
import { checkWorld, type SimWorld } from './world.ts';

export const CONTROLLER_KINDS = [
  'age-law',
  'native',
  'provisioned',
  'fixed-floor',
  'fixed-cap',
  'seed-step',
  'depth',
] as const;
export type ControllerKind = (typeof CONTROLLER_KINDS)[number];

/** Baselines that are settings of the event source mapping itself: they exist only where there is one. */
export const MAPPING_BASELINES: readonly ControllerKind[] = ['native', 'provisioned'];

// Provisioned mode's documented minimum (and default) MinimumPollers for SQS.
export const MINIMUM_POLLERS = 2;

export interface RunOptions {
  readonly scenario: LoadFile;
  readonly preset: PresetName;
  /** Overrides of the preset's control-law settings (a config file). */
  readonly settings?: ScalerSettings;
  /** Overrides of the preset's modelled world. */
  readonly world?: Partial<SimWorld>;
  /** The downstream's capacity: overrides the scenario's, field by field. */
  readonly downstream?: DownstreamModel;
  readonly controller?: ControllerKind;
  readonly seed?: number;
  readonly onProgress?: (fraction: number) => void;
}

export interface Run {
  readonly summary: RunSummary;
  readonly result: SimulationResult;
  readonly config: ScalerConfig;
  readonly world: SimWorld;
}

export function configFor(preset: PresetName, settings: ScalerSettings = {}): ScalerConfig {
  return resolveScalerConfig(settings, { defaults: PRESETS[preset].settings });
}

/**
 * The provisioned baseline's MaximumPollers: as many pollers as fit under the cap at 10 invokes each, at least the
 * documented minimum of 2 (with a cap under 20 provisioned mode cannot stay under it: only reserved concurrency
 * could, and that would overpull). Cap 32 → 3 pollers → at most 30 concurrent invocations.
 */
export function provisionedMaximumPollers(cap: number): number {
  return Math.max(MINIMUM_POLLERS, Math.floor(cap / INVOKES_PER_POLLER));
}

function consumerFor(kind: ControllerKind, config: ScalerConfig): ConsumerMode {
  switch (kind) {
    case 'native':
      return { kind: 'native', maximumConcurrency: config.maxConcurrency };
    case 'provisioned':
      return {
        kind: 'provisioned',
        minimumPollers: MINIMUM_POLLERS,
        maximumPollers: provisionedMaximumPollers(config.maxConcurrency),
      };
    default:
      return { kind: 'controlled', actuator: config.actuator };
  }
}

function controllerFor(kind: ControllerKind, config: ScalerConfig, world: SimWorld): SimController {
  switch (kind) {
    case 'age-law':
      return ageLawController(config, world);
    case 'native':
      return noController(`native (no controller, MaximumConcurrency ${config.maxConcurrency})`);
    case 'provisioned':
      return noController(
        `provisioned mode (no controller, ${MINIMUM_POLLERS}–${provisionedMaximumPollers(config.maxConcurrency)} pollers)`,
      );
    case 'fixed-floor':
      return fixedController('fixed at the floor', config.minConcurrency);
    case 'fixed-cap':
      return fixedController('fixed at the cap', config.maxConcurrency);
    case 'seed-step':
      return seedStepController(config, world);
    case 'depth':
      return depthController(config);
  }
}

/** The scenario's downstream with the run's overrides on top (a config file's `simulator.downstream`). */
export function downstreamFor(scenario: LoadFile, overrides?: DownstreamModel): DownstreamModel | undefined {
  const merged = { ...scenario.downstream, ...overrides };
  return hasCapacity(merged) ? merged : undefined;
}

export async function runScenario(options: RunOptions): Promise<Run> {
  const config = configFor(options.preset, options.settings);
  const world = { ...PRESETS[options.preset].world, ...options.world };
  checkWorld(world);
  const kind = options.controller ?? 'age-law';
  const downstream = downstreamFor(options.scenario, options.downstream);
  if (world.kind === 'pool') {
    if (MAPPING_BASELINES.includes(kind))
      throw new ConfigError([
        `controller '${kind}' is a setting of Lambda's event source mapping; the ${options.preset} preset models an in-process pool without one (use the lambda preset)`,
      ]);
    if (downstream?.apiRatePerSecond !== undefined)
      throw new ConfigError([
        `a downstream API rate needs a queue that redelivers failed items; the ${options.preset} preset's in-process pool has none (use the lambda preset, or a connection pool)`,
      ]);
  }
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new ConfigError([
      `seed = ${seed}: must be an integer in [0; ${MAX_SEED}] (the generator's state is 32 bits)`,
    ]);
  checkRunSize(options.scenario.phases, config.tickSeconds);
  const controller = controllerFor(kind, config, world);
  const consumer = consumerFor(kind, config);
  const started = performance.now();
  const result = await new Simulation({
    phases: options.scenario.phases,
    world,
    controller,
    tickSeconds: config.tickSeconds,
    floor: config.minConcurrency,
    cap: config.maxConcurrency,
    targetAgeSeconds: config.targetAgeSeconds,
    consumer,
    fastSampleSeconds: config.fastSampleSeconds,
    downstream,
    seed,
    onProgress: options.onProgress,
  }).run();
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = summarize(result, {
    scenario: options.scenario.name,
    preset: options.preset,
    controller: controller.name,
    controllerKind: kind,
    seed,
    rateScale: options.scenario.scale?.rate,
    timeScale: options.scenario.scale?.time,
    downstream,
    floor: config.minConcurrency,
    cap: config.maxConcurrency,
    targetAgeSeconds: config.targetAgeSeconds,
    wallSeconds,
  });
  return { summary, result, config, world };
}
