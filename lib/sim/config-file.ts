import { readFileSync } from 'node:fs';
import { ConfigError, type ScalerSettings, shown } from '../control/config.ts';
import type { SimEnvironment } from './environment.ts';

/**
 * A simulator config file: the control law's settings (validated by the shared validator when the run resolves
 * them) and, under "simulator", overrides of the modelled environment.
 *
 *   { "targetAgeSeconds": 30, "maxConcurrency": 24, "simulator": { "metricDelaySeconds": 60 } }
 */
export interface SimConfigFile {
  readonly settings: ScalerSettings;
  readonly environment: Partial<SimEnvironment>;
}

const ENVIRONMENT_LIMITS: Partial<
  Record<keyof SimEnvironment, { min: number; max: number; integer?: boolean }>
> = {
  batchSize: { min: 1, max: 10_000, integer: true },
  receiveLatencySeconds: { min: 0, max: 20 },
  invocationOverheadSeconds: { min: 0, max: 900 },
  itemJitter: { min: 0, max: 0.99 },
  visibilityTimeoutSeconds: { min: 0, max: 43_200 },
  maxReceiveCount: { min: 1, max: 1000, integer: true },
  throttleBackoffSeconds: { min: 0, max: 900 },
  metricDelaySeconds: { min: 0, max: 3600 },
};

export function parseSimConfig(text: string, source: string): SimConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${source} is not valid JSON: ${(error as Error).message}`]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError([`${source} must hold a JSON object`]);
  const { simulator, ...settings } = raw as Record<string, unknown>;
  const environment: Record<string, number> = {};
  const problems: string[] = [];
  if (simulator !== undefined) {
    if (typeof simulator !== 'object' || simulator === null || Array.isArray(simulator)) {
      problems.push(`simulator must be an object of ${Object.keys(ENVIRONMENT_LIMITS).join(', ')}`);
    } else {
      for (const [field, value] of Object.entries(simulator)) {
        // Own keys only: a plain lookup would find Object.prototype's `constructor` or `toString` (and
        // JSON.parse makes `"__proto__"` an own key of the parsed object), and accept them as limits.
        const limit = Object.hasOwn(ENVIRONMENT_LIMITS, field)
          ? ENVIRONMENT_LIMITS[field as keyof SimEnvironment]
          : undefined;
        if (limit === undefined) {
          problems.push(
            `unknown field ${shown(`simulator.${field}`)} (known: ${Object.keys(ENVIRONMENT_LIMITS).join(', ')})`,
          );
        } else if (
          typeof value !== 'number' ||
          !Number.isFinite(value) ||
          value < limit.min ||
          value > limit.max ||
          (limit.integer && !Number.isInteger(value))
        ) {
          problems.push(
            `simulator.${field} = ${shown(value)}: must be ${limit.integer ? 'an integer' : 'a number'} in [${limit.min}; ${limit.max}]`,
          );
        } else environment[field] = value;
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { settings: settings as ScalerSettings, environment: environment as Partial<SimEnvironment> };
}

export function loadSimConfig(path: string): SimConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([
      `cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    ]);
  }
  return parseSimConfig(text, path);
}
