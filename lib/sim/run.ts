import { resolveScalerConfig, type ScalerConfig, type ScalerSettings } from '../control/config.ts';
import { ageLawController, depthController, fixedController, seedStepController } from './controllers.ts';
import type { SimEnvironment } from './environment.ts';
import { PRESETS, type PresetName } from './presets.ts';
import type { Scenario } from './scenario.ts';
import { type SimController, Simulation, type SimulationResult } from './simulation.ts';
import { type RunSummary, summarize } from './summary.ts';

export const CONTROLLER_KINDS = ['age-law', 'fixed-floor', 'fixed-cap', 'seed-step', 'depth'] as const;
export type ControllerKind = (typeof CONTROLLER_KINDS)[number];

export interface RunOptions {
  readonly scenario: Scenario;
  readonly preset: PresetName;
  /** Overrides of the preset's control-law settings (a config file). */
  readonly settings?: ScalerSettings;
  /** Overrides of the preset's modelled environment. */
  readonly environment?: Partial<SimEnvironment>;
  readonly controller?: ControllerKind;
  readonly seed?: number;
  readonly onProgress?: (fraction: number) => void;
}

export interface Run {
  readonly summary: RunSummary;
  readonly result: SimulationResult;
  readonly config: ScalerConfig;
  readonly environment: SimEnvironment;
}

export function configFor(preset: PresetName, settings: ScalerSettings = {}): ScalerConfig {
  return resolveScalerConfig(settings, { defaults: PRESETS[preset].settings });
}

function controllerFor(kind: ControllerKind, config: ScalerConfig, env: SimEnvironment): SimController {
  switch (kind) {
    case 'age-law':
      return ageLawController(config, env);
    case 'fixed-floor':
      return fixedController('fixed at the floor', config.minConcurrency);
    case 'fixed-cap':
      return fixedController('fixed at the cap', config.maxConcurrency);
    case 'seed-step':
      return seedStepController(config, env);
    case 'depth':
      return depthController(config);
  }
}

export async function runScenario(options: RunOptions): Promise<Run> {
  const config = configFor(options.preset, options.settings);
  const environment = { ...PRESETS[options.preset].environment, ...options.environment };
  const controller = controllerFor(options.controller ?? 'age-law', config, environment);
  const seed = options.seed ?? 1;
  const started = performance.now();
  const result = await new Simulation({
    phases: options.scenario.phases,
    environment,
    controller,
    tickSeconds: config.tickSeconds,
    floor: config.minConcurrency,
    cap: config.maxConcurrency,
    targetAgeSeconds: config.targetAgeSeconds,
    actuator: config.actuator,
    seed,
    onProgress: options.onProgress,
  }).run();
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = summarize(result, {
    scenario: options.scenario.name,
    preset: options.preset,
    controller: controller.name,
    seed,
    floor: config.minConcurrency,
    cap: config.maxConcurrency,
    targetAgeSeconds: config.targetAgeSeconds,
    wallSeconds,
  });
  return { summary, result, config, environment };
}
