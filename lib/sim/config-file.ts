import { ConfigError, type ScalerSettings, shown } from '../control/config.ts';
import { FileReadError, readBoundedText } from '../load-file/bounded-read.ts';
import type { DownstreamModel } from './downstream.ts';
import type { SimWorld } from './world.ts';

/**
 * A simulator config file: the control law's settings (validated by the shared validator when the run resolves
 * them) and, under "simulator", overrides of the modelled world, including the downstream's capacity.
 *
 *   { "targetAgeSeconds": 30, "maxConcurrency": 24,
 *     "simulator": { "metricDelaySeconds": 60, "downstream": { "connectionPool": 20 } } }
 */
export interface SimConfigFile {
  readonly settings: ScalerSettings;
  readonly world: Partial<SimWorld>;
  readonly downstream?: DownstreamModel;
}

/** A numeric field's range: [min; max], or (min; max] with `minExclusive`. */
export interface Limit {
  readonly min: number;
  readonly max: number;
  readonly minExclusive?: boolean;
  readonly integer?: boolean;
}

/** The model's settings a config file may give, each with its range. */
export const WORLD_LIMITS: Partial<Record<keyof SimWorld, Limit>> = {
  batchSize: { min: 1, max: 10_000, integer: true },
  receiveLatencySeconds: { min: 0, max: 20 },
  invocationOverheadSeconds: { min: 0, max: 900 },
  itemJitter: { min: 0, max: 0.99 },
  // SQS: 0 s – 12 hours.
  visibilityTimeoutSeconds: { min: 0, max: 43_200 },
  // Lambda: 1 s – 15 minutes.
  functionTimeoutSeconds: { min: 1, max: 900 },
  keepWarmSeconds: { min: 0, max: 86_400 },
  maxReceiveCount: { min: 1, max: 1000, integer: true },
  throttleBackoffSeconds: { min: 0, max: 900 },
  metricDelaySeconds: { min: 0, max: 3600 },
  // AWS gives the pollers' ramp as a rate per minute: applied in steps of a second to a minute.
  pollerScaleSeconds: { min: 1, max: 60 },
  // Up to an hour late: a scaler added to a queue that is already busy.
  controllerStartSeconds: { min: 0, max: 3600 },
};

export const DOWNSTREAM_LIMITS: Record<keyof DownstreamModel, Limit> = {
  connectionPool: { min: 1, max: 100_000, integer: true },
  apiRatePerSecond: { min: 0, max: 1e9, minExclusive: true },
  callsPerItem: { min: 0, max: 1000, minExclusive: true },
  healthThreshold: { min: 0, max: 1e9 },
};

const KNOWN = [...Object.keys(WORLD_LIMITS), 'downstream'];

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks `fields` against `limits` (own keys only: `constructor` or `__proto__` are not fields), collecting problems. */
export function checkedNumbers(
  prefix: string,
  fields: Record<string, unknown>,
  limits: Partial<Record<string, Limit>>,
  problems: string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [field, value] of Object.entries(fields)) {
    const limit = Object.hasOwn(limits, field) ? limits[field] : undefined;
    if (limit === undefined) {
      problems.push(`unknown field ${shown(`${prefix}${field}`)} (known: ${Object.keys(limits).join(', ')})`);
      continue;
    }
    const aboveMin =
      typeof value === 'number' && (limit.minExclusive ? value > limit.min : value >= limit.min);
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      !aboveMin ||
      value > limit.max ||
      (limit.integer && !Number.isInteger(value))
    ) {
      problems.push(
        `${prefix}${field} = ${shown(value)}: must be ${limit.integer ? 'an integer' : 'a number'} in ${limit.minExclusive ? '(' : '['}${limit.min}; ${limit.max}]`,
      );
    } else out[field] = value;
  }
  return out;
}

export function parseSimConfig(text: string, source: string): SimConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${source} is not valid JSON: ${(error as Error).message}`]);
  }
  if (!isObject(raw)) throw new ConfigError([`${source} must hold a JSON object`]);
  const { simulator, ...settings } = raw;
  const problems: string[] = [];
  let world: Record<string, number> = {};
  let downstream: Record<string, number> | undefined;
  if (simulator !== undefined) {
    if (!isObject(simulator)) {
      problems.push(`simulator must be an object of ${KNOWN.join(', ')}`);
    } else {
      const { downstream: model, ...rest } = simulator;
      world = checkedNumbers('simulator.', rest, WORLD_LIMITS, problems);
      if (model !== undefined) {
        if (!isObject(model))
          problems.push(
            `simulator.downstream must be an object of ${Object.keys(DOWNSTREAM_LIMITS).join(', ')}`,
          );
        else downstream = checkedNumbers('simulator.downstream.', model, DOWNSTREAM_LIMITS, problems);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    settings: settings as ScalerSettings,
    world: world as Partial<SimWorld>,
    ...(downstream === undefined ? {} : { downstream: downstream as DownstreamModel }),
  };
}

/** A file's text, or one ConfigError naming it (`what`: "config file", "group file") and why it cannot be read. */
/** A JSON input (a config or group file) is a few KB; more is not one. */
const JSON_INPUT_MAX_BYTES = 4 << 20;

export function readInputFile(path: string, what: string): string {
  try {
    return readBoundedText(path, what, JSON_INPUT_MAX_BYTES, `a ${what} is a few KB`);
  } catch (error) {
    throw error instanceof FileReadError ? new ConfigError([error.message]) : error;
  }
}

export function loadSimConfig(path: string): SimConfigFile {
  return parseSimConfig(readInputFile(path, 'config file'), path);
}
