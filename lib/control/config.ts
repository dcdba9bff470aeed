import { maxConcurrencyFor } from './capacity.ts';
import { decimalNumber } from './decimal.ts';
import {
  INVOKES_PER_POLLER,
  PROVISIONED_MAX_WARM_POLLERS,
  PROVISIONED_MIN_CONCURRENCY,
  PROVISIONED_MIN_POLLERS,
} from './poller-grid.ts';
import { parseScheduledFloors, type ScheduledFloor } from './scheduled-floors.ts';
import {
  type ActuatorMode,
  LAMBDA_DEFAULTS,
  MIN_FAST_SAMPLE_SECONDS,
  type NumericSetting,
  type Rule,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingValues,
} from './settings-table.ts';
import { shown } from './shown.ts';

/**
 * One config path for every entry point (CDK props, `cdk.json` context, the controller's environment, the
 * simulator's config file): defaults → `resolveScalerConfig()` → one validated `ScalerConfig`. Every problem is
 * collected, then thrown once, each naming the field, the value given and the allowed range.
 */

export {
  INVOKES_PER_POLLER,
  PROVISIONED_MAX_WARM_POLLERS,
  PROVISIONED_MIN_CONCURRENCY,
  PROVISIONED_MIN_POLLERS,
  PROVISIONED_RAMP_PER_MINUTE,
} from './poller-grid.ts';
export {
  ACTUATOR_MODES,
  type ActuatorMode,
  LAMBDA_DEFAULTS,
  MIN_FAST_SAMPLE_SECONDS,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
} from './settings-table.ts';
export { shown } from './shown.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** The mapping's `ScalingConfig.MaximumConcurrency` range (AWS: 2–1000). */
export const EVENT_SOURCE_MAX_CONCURRENCY = { min: 2, max: 1000 } as const;

/** The step the actuator moves the concurrency by: a poller's 10 in provisioned mode, else 1. */
export function concurrencyStep(actuator: ActuatorMode): number {
  return actuator === 'provisioned' ? INVOKES_PER_POLLER : 1;
}

/** The highest level the actuator can apply under a cap: the cap, or in provisioned mode its whole pollers' worth. */
export function capInSteps(cap: number, actuator: ActuatorMode): number {
  const step = concurrencyStep(actuator);
  return Math.floor(cap / step) * step;
}

export interface ResolveOptions {
  /** Defaults for fields the settings leave out. @default LAMBDA_DEFAULTS */
  readonly defaults?: ScalerSettings;
  /** How to name a field in a message, e.g. its environment variable. @default the field's own name */
  readonly label?: (field: SettingName) => string;
  /** How to name the scheduled floors in a message. @default 'floors' */
  readonly floorsLabel?: string;
}

function describe(rule: Rule): string {
  switch (rule.kind) {
    case 'enum':
      return `must be one of ${rule.values.join(', ')}`;
    case 'integer':
      return `must be an integer in [${rule.min}; ${rule.max}] (${rule.unit})`;
    case 'number':
      return `must be a number in ${rule.minInclusive ? '[' : '('}${rule.min}; ${rule.max}] (${rule.unit})`;
  }
}

/** The settings validated so far, typed per field. */
type Parsed = Partial<SettingValues>;

function fitsRule<K extends SettingName>(field: K, candidate: unknown): candidate is SettingValues[K] {
  const rule = ruleOf(field);
  if (rule.kind === 'enum') return typeof candidate === 'string' && rule.values.includes(candidate);
  if (typeof candidate !== 'number' || !Number.isFinite(candidate)) return false;
  if (rule.kind === 'integer')
    return Number.isInteger(candidate) && candidate >= rule.min && candidate <= rule.max;
  const aboveMin = rule.minInclusive ? candidate >= rule.min : candidate > rule.min;
  return aboveMin && candidate <= rule.max;
}

function ruleOf(field: SettingName): Rule {
  return SETTINGS[field].rule;
}

/**
 * Reads the value by its rule (numeric strings as numbers, decimal only) into `parsed`; false when it breaks the
 * rule.
 */
function parseInto<K extends SettingName>(parsed: Parsed, field: K, value: unknown): boolean {
  const candidate = ruleOf(field).kind === 'enum' ? value : decimalNumber(value);
  if (!fitsRule(field, candidate)) return false;
  parsed[field] = candidate;
  return true;
}

/**
 * The config once every problem has been reported: each required field parsed (a missing one was a problem),
 * and `maxConcurrency` the applied cap.
 */
function isComplete(config: Parsed): config is Parsed & ScalerConfig {
  return SETTING_NAMES.every(
    (field) => SETTINGS[field].presence === 'optional' || config[field] !== undefined,
  );
}

/**
 * Only the table's own keys are settings: `field in SETTINGS` would also accept what every object inherits
 * (`constructor`, `toString`, `__proto__`), so `{"constructor": 1}` would pass as a valid config.
 */
function isSetting(field: string): field is SettingName {
  return Object.hasOwn(SETTINGS, field);
}

/**
 * Validates settings over defaults and returns the config, or throws one `ConfigError` listing every problem.
 * Unknown fields are problems too: a misspelt field silently ignored would leave a default in force. Only the
 * settings' own keys are read (`JSON.parse` makes `"__proto__"` an own key, and it is reported as unknown).
 */
export function resolveScalerConfig(
  settings: ScalerSettings | Record<string, unknown>,
  options: ResolveOptions = {},
): ScalerConfig {
  const label = options.label ?? ((field) => field);
  const problems: string[] = [];
  // Settings come from JSON too: only an object has floors to take out (mergedOverDefaults refuses the rest).
  const given: unknown = settings;
  const isObject = typeof given === 'object' && given !== null && !Array.isArray(given);
  const { floors: floorsGiven, ...rest } = isObject
    ? (given as Record<string, unknown>)
    : { floors: undefined };
  const floorsLabel = options.floorsLabel ?? 'floors';
  const scheduled = parseScheduledFloors(floorsGiven, floorsLabel);
  problems.push(...scheduled.problems);
  const merged = mergedOverDefaults(isObject ? rest : given, options.defaults ?? LAMBDA_DEFAULTS, problems);
  const parsed = parsedByRule(merged, label, problems);
  const num = (field: NumericSetting): number | undefined => parsed[field];
  const cap = maxConcurrencyFor({
    dbPoolSize: num('dbPoolSize'),
    apiRatePerSecond: num('apiRatePerSecond'),
    itemTimeSeconds: num('itemTimeSeconds'),
    callsPerItem: num('callsPerItem'),
    explicitMax: num('maxConcurrency'),
  });
  problems.push(
    ...crossFieldProblems(parsed, cap, label),
    ...missingProblems(merged, cap, label),
    ...scheduledFloorProblems(scheduled.floors, parsed, cap, floorsLabel),
  );
  if (problems.length > 0) throw new ConfigError(problems);

  // Provisioned mode applies whole pollers: a cap of 32 is 3 pollers, 30 (the law then knows when it is at the cap).
  const applicable =
    cap !== undefined && parsed.actuator !== undefined ? capInSteps(cap, parsed.actuator) : cap;
  const floors =
    scheduled.floors !== undefined && scheduled.floors.length > 0 ? { floors: scheduled.floors } : {};
  const config = { ...parsed, maxConcurrency: applicable, ...floors };
  if (!isComplete(config))
    throw new Error('unreachable: a missing required setting is a problem reported above');
  return config;
}

type Label = (field: SettingName) => string;

/**
 * A scheduled floor is a floor: above `minConcurrency` (or it would raise nothing), within the cap, and in
 * provisioned mode whole pollers, as the floor itself must be.
 */
function scheduledFloorProblems(
  floors: readonly ScheduledFloor[] | undefined,
  parsed: Parsed,
  cap: number | undefined,
  label: string,
): string[] {
  const problems: string[] = [];
  const floor = parsed.minConcurrency;
  const step = parsed.actuator === undefined ? 1 : concurrencyStep(parsed.actuator);
  const applicableCap = cap === undefined ? undefined : Math.floor(cap / step) * step;
  (floors ?? []).forEach((f, index) => {
    const at = `${label}[${index}].minConcurrency = ${f.minConcurrency}`;
    if (floor !== undefined && f.minConcurrency <= floor)
      problems.push(`${at}: must be above minConcurrency (${floor}), or it raises nothing`);
    if (applicableCap !== undefined && f.minConcurrency > applicableCap)
      problems.push(`${at}: must not exceed the cap ${applicableCap}`);
    if (step > 1 && f.minConcurrency % step !== 0)
      problems.push(`${at}: must be a multiple of ${step} with actuator 'provisioned' (whole pollers)`);
    if (step > 1 && f.minConcurrency > PROVISIONED_MAX_WARM_POLLERS * step)
      problems.push(
        `${at}: must be at most ${PROVISIONED_MAX_WARM_POLLERS * step} with actuator 'provisioned': it warms the mapping's MinimumPollers, which SQS allows up to ${PROVISIONED_MAX_WARM_POLLERS}`,
      );
  });
  return problems;
}

/** The defaults with the given settings over them; an unknown field is a problem, not a setting. */
function mergedOverDefaults(
  settings: unknown,
  defaults: ScalerSettings,
  problems: string[],
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults };
  // Settings come from JSON too (cdk.json context, the simulator's config file): they may be anything.
  const given: unknown = settings;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ConfigError([
      `the settings must be an object of ${SETTING_NAMES.join(', ')} (given ${shown(given)})`,
    ]);
  }
  for (const [field, value] of Object.entries(given)) {
    if (!isSetting(field)) {
      problems.push(`unknown field ${shown(field)} (known: ${[...SETTING_NAMES, 'floors'].join(', ')})`);
      continue;
    }
    if (value !== undefined) merged[field] = value;
  }
  return merged;
}

/** Every value given, read by its rule; one that breaks it is a problem. */
function parsedByRule(merged: Record<string, unknown>, label: Label, problems: string[]): Parsed {
  const parsed: Parsed = {};
  for (const field of SETTING_NAMES) {
    const value = merged[field];
    if (value === undefined) continue;
    if (!parseInto(parsed, field, value))
      problems.push(`${label(field)} = ${shown(value)}: ${describe(ruleOf(field))}`);
  }
  return parsed;
}

/** What the settings break together: the API cap's inputs, the mapping's range, the sampling interval, the bounds. */
function crossFieldProblems(parsed: Parsed, cap: number | undefined, label: Label): string[] {
  const problems: string[] = [];
  const num = (field: NumericSetting): number | undefined => parsed[field];
  if (num('apiRatePerSecond') !== undefined && num('itemTimeSeconds') === undefined) {
    problems.push(
      `${label('itemTimeSeconds')} is missing: the API cap is apiRatePerSecond × itemTimeSeconds ÷ callsPerItem, so it is required with ${label('apiRatePerSecond')}`,
    );
  }
  const floor = num('minConcurrency');
  if (parsed.actuator === 'provisioned') problems.push(...provisionedProblems(floor, cap, label));
  const drivesEventSource =
    parsed.actuator !== undefined && parsed.actuator !== 'reserved' && parsed.actuator !== 'provisioned';
  if (drivesEventSource && floor !== undefined && floor < EVENT_SOURCE_MAX_CONCURRENCY.min) {
    problems.push(
      `${label('minConcurrency')} = ${floor}: must be at least ${EVENT_SOURCE_MAX_CONCURRENCY.min} with actuator '${parsed.actuator}', which drives the event source mapping's MaximumConcurrency (valid ${EVENT_SOURCE_MAX_CONCURRENCY.min}–${EVENT_SOURCE_MAX_CONCURRENCY.max})`,
    );
  }
  if (drivesEventSource && cap !== undefined && cap > EVENT_SOURCE_MAX_CONCURRENCY.max) {
    problems.push(
      `${label('maxConcurrency')} = ${cap}: must be at most ${EVENT_SOURCE_MAX_CONCURRENCY.max} with actuator '${parsed.actuator}', which drives the event source mapping's MaximumConcurrency (valid ${EVENT_SOURCE_MAX_CONCURRENCY.min}–${EVENT_SOURCE_MAX_CONCURRENCY.max})`,
    );
  }
  const fastSample = num('fastSampleSeconds');
  if (fastSample !== undefined && fastSample > 0 && fastSample < MIN_FAST_SAMPLE_SECONDS) {
    problems.push(
      `${label('fastSampleSeconds')} = ${fastSample}: must be 0 (off) or at least ${MIN_FAST_SAMPLE_SECONDS} seconds: SQS's depth is approximate, so readings closer together show its noise as arrivals, and each growth costs Lambda control-plane calls (15 a second per account)`,
    );
  }
  if (floor !== undefined && cap !== undefined && floor > cap) {
    problems.push(
      `${label('minConcurrency')} = ${floor}: must not exceed the cap ${cap} (the lowest of ${label('maxConcurrency')}, ${label('dbPoolSize')} and ${label('apiRatePerSecond')} × ${label('itemTimeSeconds')} ÷ ${label('callsPerItem')})`,
    );
  }
  return problems;
}

/**
 * Provisioned mode's levels are whole pollers, 10 invocations each, at least 2 of them: the floor must be one of those
 * levels, and the cap leave room for one (it rounds down to its pollers' worth).
 */
function provisionedProblems(floor: number | undefined, cap: number | undefined, label: Label): string[] {
  const problems: string[] = [];
  const why = `with actuator 'provisioned' (each of the mapping's event pollers drives up to ${INVOKES_PER_POLLER} concurrent invocations and SQS keeps at least ${PROVISIONED_MIN_POLLERS}, so reserved concurrency moves in steps of ${INVOKES_PER_POLLER} from ${PROVISIONED_MIN_CONCURRENCY})`;
  if (floor !== undefined && (floor < PROVISIONED_MIN_CONCURRENCY || floor % INVOKES_PER_POLLER !== 0)) {
    problems.push(
      `${label('minConcurrency')} = ${floor}: must be a multiple of ${INVOKES_PER_POLLER}, at least ${PROVISIONED_MIN_CONCURRENCY}, ${why}`,
    );
  }
  if (cap !== undefined && cap < PROVISIONED_MIN_CONCURRENCY) {
    problems.push(
      `${label('maxConcurrency')} = ${cap}: must be at least ${PROVISIONED_MIN_CONCURRENCY} ${why}`,
    );
  }
  return problems;
}

/**
 * A value of the law as the actuator can apply it: a whole number within [floor, cap]; in provisioned mode whole
 * pollers (10 invocations each), a value between two levels taking the higher one (a need of 21 takes 30).
 */
export function clampConcurrency(value: number, config: ScalerConfig): number {
  const v = Number.isNaN(value) ? config.minConcurrency : Math.round(value);
  const step = concurrencyStep(config.actuator);
  const level = step === 1 ? v : Math.ceil(v / step) * step;
  return Math.min(config.maxConcurrency, Math.max(config.minConcurrency, level));
}

/** A required setting nothing gave, and a cap neither given nor derived from a downstream limit. */
function missingProblems(merged: Record<string, unknown>, cap: number | undefined, label: Label): string[] {
  const problems: string[] = [];
  for (const field of SETTING_NAMES) {
    if (merged[field] === undefined && SETTINGS[field].presence === 'required') {
      problems.push(`${label(field)} is missing: ${describe(ruleOf(field))}`);
    }
  }
  const capGiven = ['maxConcurrency', 'dbPoolSize', 'apiRatePerSecond'].some(
    (field) => merged[field] !== undefined,
  );
  if (cap === undefined && !capGiven) {
    problems.push(
      `${label('maxConcurrency')} is missing: give it or a downstream limit (${label('dbPoolSize')}, ${label('apiRatePerSecond')})`,
    );
  }
  return problems;
}
