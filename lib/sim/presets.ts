import { LAMBDA_DEFAULTS } from '../control/config.ts';
import type { PresetSettings } from '../control/settings-table.ts';
import { LAMBDA_WORLD, POOL_WORLD, type SimWorld } from './world.ts';

export interface Preset {
  readonly description: string;
  readonly world: SimWorld;
  /**
   * The control law's defaults in this setting; a config file overrides them. Complete: a setting added to the
   * table without a value here fails the typecheck.
   */
  readonly settings: PresetSettings;
}

export const PRESETS = {
  lambda: {
    description:
      'SQS → event source mapping → Lambda, one controller tick a minute on late CloudWatch metrics',
    world: LAMBDA_WORLD,
    settings: LAMBDA_DEFAULTS,
  },
  seed: {
    description: "the seed article's in-process pool: 50 ms ticks, instantaneous head age, 50 ms target",
    world: POOL_WORLD,
    settings: {
      targetAgeSeconds: 0.05,
      minConcurrency: 2,
      maxConcurrency: 32,
      tickSeconds: 0.05,
      // The article grows by at most 4 per tick and waits 20 idle ticks (1 s) before each shrink of one.
      maxScaleUpStep: 4,
      scaleDownStep: 1,
      scaleDownSurplusFraction: 0,
      scaleDownDelaySeconds: 1,
      scaleDownIntervalSeconds: 1,
      targetUtilization: 0.9,
      // The article's idle tick is an empty queue (head age 0).
      idleAgeFraction: 0,
      slowdownFactor: 1.5,
      backlogDrainSeconds: 1,
      // Ten ticks without a reading is a broken gauge.
      maxDataAgeSeconds: 0.5,
      // The article grows once the head age passes its target, and its controller has no faster loop.
      setpointFraction: 1,
      fastSampleSeconds: 0,
      unconfirmedGrowthFactor: 1.5,
      // An in-process pool has no event source mapping to drive.
      actuator: 'reserved',
    },
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];
