import { maxConcurrencyFor } from './capacity.ts';
import { decimalNumber } from './decimal.ts';

/**
 * One config path for every entry point (CDK props, `cdk.json` context, the controller's environment, the
 * simulator's config file): defaults → `resolveScalerConfig()` → one validated `ScalerConfig`. Every problem is
 * collected, then thrown once, each naming the field, the value given and the allowed range.
 */

/**
 * The shortest fast-path sampling interval. SQS's depth is approximate (a sample of the queue's hosts): two
 * readings a moment apart differ by a few messages with nothing arriving, and over 50 ms that noise reads as
 * arrivals of 80/s. Each growth also costs up to four of the account's 15 Lambda control-plane requests a second
 * (two reads, two writes). Every 5 s is twelve samples a minute: a surge is still met within seconds.
 */
export const MIN_FAST_SAMPLE_SECONDS = 5;

/** How the applied concurrency reaches Lambda. */
export const ACTUATOR_MODES = ['lockstep', 'reserved', 'event-source'] as const;
export type ActuatorMode = (typeof ACTUATOR_MODES)[number];

/** What a user may set. Values may be numbers or numeric strings (environment variables, context). */
export interface ScalerSettings {
  readonly targetAgeSeconds?: number | string;
  readonly minConcurrency?: number | string;
  readonly maxConcurrency?: number | string;
  readonly dbPoolSize?: number | string;
  readonly apiRatePerSecond?: number | string;
  readonly itemTimeSeconds?: number | string;
  readonly callsPerItem?: number | string;
  readonly tickSeconds?: number | string;
  readonly maxScaleUpStep?: number | string;
  readonly scaleDownStep?: number | string;
  readonly scaleDownSurplusFraction?: number | string;
  readonly scaleDownDelaySeconds?: number | string;
  readonly scaleDownIntervalSeconds?: number | string;
  readonly targetUtilization?: number | string;
  readonly idleAgeFraction?: number | string;
  readonly slowdownFactor?: number | string;
  readonly backlogDrainSeconds?: number | string;
  readonly maxDataAgeSeconds?: number | string;
  readonly setpointFraction?: number | string;
  readonly fastSampleSeconds?: number | string;
  readonly unconfirmedGrowthFactor?: number | string;
  readonly actuator?: ActuatorMode | string;
}

/** The validated configuration the control law runs on. */
export interface ScalerConfig {
  /** The latency budget: the oldest message should not wait longer than this. */
  readonly targetAgeSeconds: number;
  /** The floor. */
  readonly minConcurrency: number;
  /** The cap: the explicit maximum and the downstream limits, whichever is lowest. */
  readonly maxConcurrency: number;
  readonly dbPoolSize?: number;
  readonly apiRatePerSecond?: number;
  readonly itemTimeSeconds?: number;
  readonly callsPerItem?: number;
  /** How often the controller runs. */
  readonly tickSeconds: number;
  /** The most one tick may add. */
  readonly maxScaleUpStep: number;
  /** What one shrink removes at least. */
  readonly scaleDownStep: number;
  /**
   * What one shrink removes at most, as a fraction of the surplus above the need: 0 keeps to `scaleDownStep`
   * (the seed's one at a time); 0.5 halves the surplus each interval, so one-minute ticks return from a spike
   * in minutes rather than an hour, and never below the need.
   */
  readonly scaleDownSurplusFraction: number;
  /** How long the queue must be idle before the first shrink. */
  readonly scaleDownDelaySeconds: number;
  /** The least time between two changes when shrinking. */
  readonly scaleDownIntervalSeconds: number;
  /** The utilisation the Little's-law need is sized for (below 1 so a Poisson queue stays stable). */
  readonly targetUtilization: number;
  /** Age at or below `idleAgeFraction × targetAgeSeconds` counts as idle. */
  readonly idleAgeFraction: number;
  /** Per-item time above `slowdownFactor ×` its healthy baseline, with arrivals not up as much, is "downstream slower". */
  readonly slowdownFactor: number;
  /** The horizon over which growth also drains the backlog above the target. */
  readonly backlogDrainSeconds: number;
  /** An age datapoint older than this is missing data. */
  readonly maxDataAgeSeconds: number;
  /**
   * Where the law holds the age at steady load, as a fraction of the target: it grows once the age passes
   * `setpointFraction × targetAgeSeconds`, so the target is the ceiling transients must not cross, not a place
   * to sit.
   */
  readonly setpointFraction: number;
  /**
   * How often the fast path samples the real-time depth between ticks while the queue is busy; 0 turns it off.
   * It only grows.
   */
  readonly fastSampleSeconds: number;
  /**
   * Growth that real-time depth asks for before CloudWatch has confirmed it (the surge's arrival rate and per-item
   * time) is limited to this multiple of the need the confirmed data supports: depth alone cannot tell a spike
   * from a slower downstream.
   */
  readonly unconfirmedGrowthFactor: number;
  readonly actuator: ActuatorMode;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** The product's defaults: a controller ticking once a minute on CloudWatch's one-minute SQS metrics. */
export const LAMBDA_DEFAULTS = {
  // A minute: the age metric has one-minute resolution and the controller ticks once a minute, so a tighter
  // target could not be held (SQS metrics are one-minute datapoints, published 1–2 minutes late:
  // docs/aws-facts.md, "SQS metrics").
  targetAgeSeconds: 60,
  minConcurrency: 2,
  maxConcurrency: 32,
  // EventBridge schedules fire at most once a minute.
  tickSeconds: 60,
  // Grow fast: one tick may go straight to the Little's-law need (the cap bounds it).
  maxScaleUpStep: 1000,
  scaleDownStep: 1,
  // One-minute ticks at one step a minute would take half an hour back from a spike of 30: halve the surplus instead.
  scaleDownSurplusFraction: 0.5,
  // Three minutes of idleness (and of the window's busiest arrivals) before the first shrink: longer than the 1–2
  // minute metric delay, so a scale-down never trusts a single late datapoint (the Wellcome Collection failure:
  // docs/aws-facts.md, "SQS metrics"). Five cost a seed-spike 1.57 × the clairvoyant's concurrency-seconds
  // against 1.47, for the same latency.
  scaleDownDelaySeconds: 180,
  scaleDownIntervalSeconds: 60,
  targetUtilization: 0.9,
  idleAgeFraction: 0.25,
  slowdownFactor: 1.5,
  // Two minutes to work off a backlog: the target is a ceiling, so a backlog left by a surge goes within a
  // couple of ticks (diurnal's worst phase p99 0.66 × the target against 0.99 at 300 s).
  backlogDrainSeconds: 120,
  // Datapoints typically arrive 1–2 minutes late; five minutes without one means the pipeline is not reporting.
  maxDataAgeSeconds: 300,
  // Hold the head at half the target at steady load, so a transient has the other half before it crosses it.
  setpointFraction: 0.5,
  // SQS depth is near real time and costs one GetQueueAttributes: six samples a minute (KEDA polls every 30 s,
  // Judoscale aggregates over 10 s). No Lambda read per sample: the account's control plane is 15 requests/s.
  fastSampleSeconds: 10,
  // A flat load whose items get 1.5× slower (the slowdownFactor) gains at most half its concurrency before
  // CloudWatch shows the slower per-item time, two to three minutes later.
  unconfirmedGrowthFactor: 1.5,
  actuator: 'lockstep',
} as const satisfies ScalerSettings;

type Rule =
  | { kind: 'number'; min: number; minInclusive: boolean; max: number; unit: string }
  | { kind: 'integer'; min: number; max: number; unit: string }
  | { kind: 'enum'; values: readonly string[] };

// The ranges every entry point accepts. Reserved concurrency and the mapping's MaximumConcurrency are integers;
// the mapping's maximum is 2–1000, checked below where it is driven.
const RULES: Record<keyof ScalerSettings, Rule> = {
  targetAgeSeconds: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: 'seconds' },
  minConcurrency: { kind: 'integer', min: 1, max: 10_000, unit: 'concurrent executions' },
  maxConcurrency: { kind: 'integer', min: 1, max: 10_000, unit: 'concurrent executions' },
  dbPoolSize: { kind: 'integer', min: 1, max: 100_000, unit: 'connections' },
  apiRatePerSecond: { kind: 'number', min: 0, minInclusive: false, max: 1e9, unit: 'calls per second' },
  itemTimeSeconds: { kind: 'number', min: 0, minInclusive: false, max: 900, unit: 'seconds' },
  callsPerItem: { kind: 'number', min: 0, minInclusive: false, max: 1e6, unit: 'calls' },
  tickSeconds: { kind: 'number', min: 0, minInclusive: false, max: 3_600, unit: 'seconds' },
  maxScaleUpStep: { kind: 'integer', min: 1, max: 10_000, unit: 'concurrent executions' },
  scaleDownStep: { kind: 'integer', min: 1, max: 10_000, unit: 'concurrent executions' },
  scaleDownSurplusFraction: {
    kind: 'number',
    min: 0,
    minInclusive: true,
    max: 1,
    unit: 'fraction of the surplus',
  },
  scaleDownDelaySeconds: { kind: 'number', min: 0, minInclusive: true, max: 86_400, unit: 'seconds' },
  scaleDownIntervalSeconds: { kind: 'number', min: 0, minInclusive: true, max: 86_400, unit: 'seconds' },
  targetUtilization: { kind: 'number', min: 0, minInclusive: false, max: 1, unit: 'fraction' },
  idleAgeFraction: { kind: 'number', min: 0, minInclusive: true, max: 1, unit: 'fraction of the target' },
  slowdownFactor: { kind: 'number', min: 1, minInclusive: false, max: 100, unit: 'ratio' },
  backlogDrainSeconds: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: 'seconds' },
  maxDataAgeSeconds: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: 'seconds' },
  setpointFraction: { kind: 'number', min: 0, minInclusive: false, max: 1, unit: 'fraction of the target' },
  fastSampleSeconds: {
    kind: 'number',
    min: 0,
    minInclusive: true,
    max: 3_600,
    unit: `seconds: 0 = off, else at least ${MIN_FAST_SAMPLE_SECONDS}`,
  },
  unconfirmedGrowthFactor: { kind: 'number', min: 1, minInclusive: true, max: 100, unit: 'ratio' },
  actuator: { kind: 'enum', values: ACTUATOR_MODES },
};

export const SETTING_NAMES = Object.keys(RULES) as (keyof ScalerSettings)[];

/** The mapping's `ScalingConfig.MaximumConcurrency` range (AWS: 2–1000). */
export const EVENT_SOURCE_MAX_CONCURRENCY = { min: 2, max: 1000 } as const;

export interface ResolveOptions {
  /** Defaults for fields the settings leave out. @default LAMBDA_DEFAULTS */
  readonly defaults?: ScalerSettings;
  /** How to name a field in a message, e.g. its environment variable. @default the field's own name */
  readonly label?: (field: keyof ScalerSettings) => string;
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

const SHOWN_LENGTH = 80;

/**
 * The value as it was given, for an error message: a string quoted (with JSON escapes, so a newline or a quote
 * inside it is visible), an array or object as JSON (`[60]`, not `60`), a number as written; cut short past 80
 * characters so one bad value cannot flood the message.
 */
export function shown(value: unknown): string {
  const cut = (text: string) => (text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH - 3)}...` : text);
  if (typeof value === 'string') return `'${cut(JSON.stringify(value).slice(1, -1))}'`;
  if (typeof value === 'number' || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return `(a ${typeof value})`;
  try {
    return cut(JSON.stringify(value) ?? String(value));
  } catch {
    return cut(String(value));
  }
}

function parseValue(rule: Rule, value: unknown): number | string | undefined {
  if (rule.kind === 'enum') {
    return typeof value === 'string' && rule.values.includes(value) ? value : undefined;
  }
  const n = decimalNumber(value);
  if (!Number.isFinite(n)) return undefined;
  if (rule.kind === 'integer') return Number.isInteger(n) && n >= rule.min && n <= rule.max ? n : undefined;
  const aboveMin = rule.minInclusive ? n >= rule.min : n > rule.min;
  return aboveMin && n <= rule.max ? n : undefined;
}

/**
 * Only the table's own keys are settings: `field in RULES` would also accept what every object inherits
 * (`constructor`, `toString`, `__proto__`), so `{"constructor": 1}` would pass as a valid config.
 */
function isSetting(field: string): field is keyof ScalerSettings {
  return Object.hasOwn(RULES, field);
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
  const merged: Record<string, unknown> = { ...(options.defaults ?? LAMBDA_DEFAULTS) };
  const problems: string[] = [];
  // Settings come from JSON too (cdk.json context, the simulator's config file): they may be anything.
  const given: unknown = settings;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ConfigError([
      `the settings must be an object of ${SETTING_NAMES.join(', ')} (given ${shown(given)})`,
    ]);
  }
  for (const [field, value] of Object.entries(given)) {
    if (!isSetting(field)) {
      problems.push(`unknown field ${shown(field)} (known: ${SETTING_NAMES.join(', ')})`);
      continue;
    }
    if (value !== undefined) merged[field] = value;
  }
  const parsed: Record<string, number | string> = {};
  for (const field of SETTING_NAMES) {
    const value = merged[field];
    if (value === undefined) continue;
    const rule = RULES[field];
    const result = parseValue(rule, value);
    if (result === undefined) problems.push(`${label(field)} = ${shown(value)}: ${describe(rule)}`);
    else parsed[field] = result;
  }
  const num = (field: keyof ScalerSettings) => parsed[field] as number | undefined;

  if (num('apiRatePerSecond') !== undefined && num('itemTimeSeconds') === undefined) {
    problems.push(
      `${label('itemTimeSeconds')} is missing: the API cap is apiRatePerSecond × itemTimeSeconds ÷ callsPerItem, so it is required with ${label('apiRatePerSecond')}`,
    );
  }
  const cap = maxConcurrencyFor({
    dbPoolSize: num('dbPoolSize'),
    apiRatePerSecond: num('apiRatePerSecond'),
    itemTimeSeconds: num('itemTimeSeconds'),
    callsPerItem: num('callsPerItem'),
    explicitMax: num('maxConcurrency'),
  });
  const floor = num('minConcurrency');
  const drivesEventSource = parsed.actuator !== undefined && parsed.actuator !== 'reserved';
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
  for (const field of SETTING_NAMES) {
    if (merged[field] === undefined && REQUIRED.has(field)) {
      problems.push(`${label(field)} is missing: ${describe(RULES[field])}`);
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
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    targetAgeSeconds: num('targetAgeSeconds') as number,
    minConcurrency: floor as number,
    maxConcurrency: cap as number,
    dbPoolSize: num('dbPoolSize'),
    apiRatePerSecond: num('apiRatePerSecond'),
    itemTimeSeconds: num('itemTimeSeconds'),
    callsPerItem: num('callsPerItem'),
    tickSeconds: num('tickSeconds') as number,
    maxScaleUpStep: num('maxScaleUpStep') as number,
    scaleDownStep: num('scaleDownStep') as number,
    scaleDownSurplusFraction: num('scaleDownSurplusFraction') as number,
    scaleDownDelaySeconds: num('scaleDownDelaySeconds') as number,
    scaleDownIntervalSeconds: num('scaleDownIntervalSeconds') as number,
    targetUtilization: num('targetUtilization') as number,
    idleAgeFraction: num('idleAgeFraction') as number,
    slowdownFactor: num('slowdownFactor') as number,
    backlogDrainSeconds: num('backlogDrainSeconds') as number,
    maxDataAgeSeconds: num('maxDataAgeSeconds') as number,
    setpointFraction: num('setpointFraction') as number,
    fastSampleSeconds: num('fastSampleSeconds') as number,
    unconfirmedGrowthFactor: num('unconfirmedGrowthFactor') as number,
    actuator: parsed.actuator as ActuatorMode,
  };
}

// Every field but the downstream limits must end up with a value (the defaults give one unless overridden
// with custom defaults); `maxConcurrency` may come from the downstream limits instead.
const REQUIRED = new Set<keyof ScalerSettings>([
  'targetAgeSeconds',
  'minConcurrency',
  'tickSeconds',
  'maxScaleUpStep',
  'scaleDownStep',
  'scaleDownSurplusFraction',
  'scaleDownDelaySeconds',
  'scaleDownIntervalSeconds',
  'targetUtilization',
  'idleAgeFraction',
  'slowdownFactor',
  'backlogDrainSeconds',
  'maxDataAgeSeconds',
  'setpointFraction',
  'fastSampleSeconds',
  'unconfirmedGrowthFactor',
  'actuator',
]);
