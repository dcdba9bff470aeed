/**
 * One descriptor per setting: its rule, its default, its CDK prop, its environment variable and its one-line doc.
 * Everything else is derived from this table: `ScalerSettings`, `ScalerConfig`, `LAMBDA_DEFAULTS` and the
 * validator's rules and required fields (config.ts), the variable names (environment.ts), the CDK props mapping
 * and its compile-time check against the hand-written props (lib/cdk/scaler-settings.ts), and the settings table in
 * docs/deploy.md (lib/cdk/settings-doc.ts, `npm run docs:settings`). A new setting is one entry here, one prop in
 * `QueueAgeScalerSettings` (the typecheck says so) and the seed preset's value.
 */

import type { WithScheduledFloors } from './scheduled-floors.ts';
import type { SettingDescriptor } from './setting-descriptor.ts';

/**
 * The shortest fast-path sampling interval. SQS's depth is approximate (a sample of the queue's hosts): two
 * readings a moment apart differ by a few messages with nothing arriving, and over 50 ms that noise reads as
 * arrivals of 80/s. Each growth also costs up to four of the account's 15 Lambda control-plane requests a second
 * (two reads, two writes). Every 5 s is twelve samples a minute: a surge is still met within seconds.
 */
export const MIN_FAST_SAMPLE_SECONDS = 5;

/** How the applied concurrency reaches Lambda. */
export const ACTUATOR_MODES = ['lockstep', 'reserved', 'event-source', 'provisioned'] as const;
export type ActuatorMode = (typeof ACTUATOR_MODES)[number];

export type { Rule, SettingDescriptor } from './setting-descriptor.ts';

const SECONDS = 'seconds';
const EXECUTIONS = 'concurrent executions';

// Reserved concurrency and the mapping's MaximumConcurrency are integers; the mapping's maximum is 2–1000, checked
// in config.ts where it is driven. Order matters: it is the order of messages, of the environment and of the docs.
export const SETTINGS = {
  /** The latency target: the oldest message should not wait longer than this. */
  targetAgeSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: SECONDS },
    // A minute: the age metric has one-minute resolution and the controller ticks once a minute, so a tighter
    // target could not be held (SQS metrics are one-minute datapoints, published 1–2 minutes late:
    // docs/aws-facts.md, "SQS metrics").
    lambda: 60,
    presence: 'required',
    prop: 'targetAge',
    duration: true,
    env: 'TARGET_AGE_SECONDS',
    doc: "the latency target: the oldest message should wait no longer than this. Below a minute it can't be held: the age metric has one-minute resolution",
  },
  /** The floor. */
  minConcurrency: {
    rule: { kind: 'integer', min: 1, max: 10_000, unit: EXECUTIONS },
    lambda: 2,
    presence: 'required',
    prop: 'minConcurrency',
    duration: false,
    env: 'MIN_CONCURRENCY',
    doc: 'the floor',
    also: '≥ 2 when the mapping is driven; a multiple of 10, ≥ 20 with `provisioned`; ≤ cap',
  },
  /** The cap: the explicit maximum and the downstream limits, whichever is lowest. */
  maxConcurrency: {
    rule: { kind: 'integer', min: 1, max: 10_000, unit: EXECUTIONS },
    lambda: 32,
    presence: 'cap',
    prop: 'maxConcurrency',
    duration: false,
    env: 'MAX_CONCURRENCY',
    doc: 'explicit cap; the applied cap is the lowest of this and the downstream limits',
    also: '≤ 1000 when the mapping’s MaximumConcurrency is driven; whole pollers (rounded down to a multiple of 10) with `provisioned`',
  },
  /** Connections in the database pool each consumer holds while it works. */
  dbPoolSize: {
    rule: { kind: 'integer', min: 1, max: 100_000, unit: 'connections' },
    presence: 'optional',
    prop: 'dbPoolSize',
    duration: false,
    env: 'DB_POOL_SIZE',
    doc: 'connections in the database pool each consumer holds while it works: the cap is at most this',
  },
  /** Calls per second the rate-limited downstream API allows. */
  apiRatePerSecond: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 1e9, unit: 'calls per second' },
    presence: 'optional',
    prop: 'apiRatePerSecond',
    duration: false,
    env: 'API_RATE_PER_SECOND',
    doc: 'calls per second the downstream API allows: the cap is at most `apiRatePerSecond × itemTime ÷ callsPerItem`',
    also: 'requires `itemTime`',
  },
  /** How long one item takes (with `apiRatePerSecond`, sizes the API cap). */
  itemTimeSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 900, unit: SECONDS },
    presence: 'optional',
    prop: 'itemTime',
    duration: true,
    env: 'ITEM_TIME_SECONDS',
    doc: 'how long one item takes; with `apiRatePerSecond` it sizes the API cap',
  },
  /** API calls one item makes; unset is 1 (`maxConcurrencyFor`). */
  callsPerItem: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 1e6, unit: 'calls' },
    presence: 'optional',
    prop: 'callsPerItem',
    duration: false,
    env: 'CALLS_PER_ITEM',
    doc: 'API calls one item makes',
    unset: '1',
  },
  /** How often the controller runs. */
  tickSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 3_600, unit: SECONDS },
    // EventBridge schedules fire at most once a minute.
    lambda: 60,
    presence: 'required',
    prop: 'tick',
    duration: true,
    env: 'TICK_SECONDS',
    doc: 'how often the controller runs; EventBridge rates are whole minutes',
    also: 'whole minutes',
  },
  /** The most one tick may add. */
  maxScaleUpStep: {
    rule: { kind: 'integer', min: 1, max: 10_000, unit: EXECUTIONS },
    // Grow fast: one tick may go straight to the Little's-law need (the cap bounds it).
    lambda: 1000,
    presence: 'required',
    prop: 'maxScaleUpStep',
    duration: false,
    env: 'MAX_SCALE_UP_STEP',
    doc: 'the most one tick adds; the default grows straight to the need, and the cap bounds it',
  },
  /** What one shrink removes at least. */
  scaleDownStep: {
    rule: { kind: 'integer', min: 1, max: 10_000, unit: EXECUTIONS },
    lambda: 1,
    presence: 'required',
    prop: 'scaleDownStep',
    duration: false,
    env: 'SCALE_DOWN_STEP',
    doc: 'the least one shrink removes',
  },
  /**
   * What one shrink removes at most, as a fraction of the surplus above the need: 0 keeps to `scaleDownStep`
   * (the seed's one at a time); 0.5 halves the surplus each interval, so one-minute ticks return from a spike
   * in minutes rather than an hour, and never below the need.
   */
  scaleDownSurplusFraction: {
    rule: { kind: 'number', min: 0, minInclusive: true, max: 1, unit: 'fraction of the surplus' },
    // One-minute ticks at one step a minute would take half an hour back from a spike of 30: halve the surplus.
    lambda: 0.5,
    presence: 'required',
    prop: 'scaleDownSurplusFraction',
    duration: false,
    env: 'SCALE_DOWN_SURPLUS_FRACTION',
    doc: 'the most one shrink removes, as a fraction of the surplus above the need',
  },
  /** How long the queue must be idle before the first shrink. */
  scaleDownDelaySeconds: {
    rule: { kind: 'number', min: 0, minInclusive: true, max: 86_400, unit: SECONDS },
    // Three minutes of idleness (and of the window's busiest arrivals) before the first shrink: longer than the
    // 1–2 minute metric delay, so a scale-down never trusts a single late datapoint (the Wellcome Collection
    // failure: docs/aws-facts.md, "SQS metrics"). Five cost a seed-spike 1.57 × the clairvoyant's
    // concurrency-seconds against 1.47, for the same latency.
    lambda: 180,
    presence: 'required',
    prop: 'scaleDownDelay',
    duration: true,
    env: 'SCALE_DOWN_DELAY_SECONDS',
    doc: 'idle time before the first shrink (longer than the 1–2 min metric delay)',
  },
  /** The least time between two changes when shrinking. */
  scaleDownIntervalSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: true, max: 86_400, unit: SECONDS },
    lambda: 60,
    presence: 'required',
    prop: 'scaleDownInterval',
    duration: true,
    env: 'SCALE_DOWN_INTERVAL_SECONDS',
    doc: 'least time between shrinks',
  },
  /** The utilisation the Little's-law need is sized for (below 1 so a Poisson queue stays stable). */
  targetUtilization: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 1, unit: 'fraction' },
    lambda: 0.9,
    presence: 'required',
    prop: 'targetUtilization',
    duration: false,
    env: 'TARGET_UTILIZATION',
    doc: "the utilisation the Little's-law need is sized for (its headroom stops one below the cap)",
  },
  /** Age at or below `idleAgeFraction × targetAgeSeconds` counts as idle. */
  idleAgeFraction: {
    rule: { kind: 'number', min: 0, minInclusive: true, max: 1, unit: 'fraction of the target' },
    lambda: 0.25,
    presence: 'required',
    prop: 'idleAgeFraction',
    duration: false,
    env: 'IDLE_AGE_FRACTION',
    doc: 'age ≤ fraction × target counts as idle',
  },
  /**
   * Per-item time above `slowdownFactor ×` its healthy baseline, with arrivals not up as much, is "items slower":
   * heavier work or a saturated downstream. Not a hold by itself: a growth then waits for the verdict on the last
   * one (`hold:probing`, lib/control/saturation.ts).
   */
  slowdownFactor: {
    rule: { kind: 'number', min: 1, minInclusive: false, max: 100, unit: 'ratio' },
    lambda: 1.5,
    presence: 'required',
    prop: 'slowdownFactor',
    duration: false,
    env: 'SLOWDOWN_FACTOR',
    doc: 'per-item time this much above its baseline means "items slower": the next growth waits for what the last one bought',
  },
  /** The horizon over which growth also drains the backlog above the target. */
  backlogDrainSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: SECONDS },
    // Two minutes to work off a backlog: the target is a ceiling, so a backlog left by a surge goes within a
    // couple of ticks (diurnal's worst phase p99 0.66 × the target against 0.99 at 300 s).
    lambda: 120,
    presence: 'required',
    prop: 'backlogDrain',
    duration: true,
    env: 'BACKLOG_DRAIN_SECONDS',
    doc: 'horizon for draining the backlog once growing',
  },
  /** An age datapoint older than this is missing data. */
  maxDataAgeSeconds: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 86_400, unit: SECONDS },
    // Datapoints typically arrive 1–2 minutes late; five minutes without one means the pipeline is not reporting.
    lambda: 300,
    presence: 'required',
    prop: 'maxDataAge',
    duration: true,
    env: 'MAX_DATA_AGE_SECONDS',
    doc: 'an older age datapoint is missing data (hold)',
  },
  /**
   * Where the law holds the age at steady load, as a fraction of the target: it grows once the age passes
   * `setpointFraction × targetAgeSeconds`, so the target is the ceiling transients must not cross, not a place
   * to sit.
   */
  setpointFraction: {
    rule: { kind: 'number', min: 0, minInclusive: false, max: 1, unit: 'fraction of the target' },
    // Hold the head at half the target at steady load, so a transient has the other half before it crosses it.
    lambda: 0.5,
    presence: 'required',
    prop: 'setpointFraction',
    duration: false,
    env: 'SETPOINT_FRACTION',
    doc: 'growth starts above this fraction of the target: the target is a ceiling, not a place to sit',
  },
  /**
   * How often the fast path samples the real-time depth between ticks, idle or busy; 0 turns it off.
   * It only grows.
   */
  fastSampleSeconds: {
    rule: {
      kind: 'number',
      min: 0,
      minInclusive: true,
      max: 3_600,
      unit: `seconds: 0 = off, else at least ${MIN_FAST_SAMPLE_SECONDS}`,
    },
    // SQS depth is near real time and costs one GetQueueAttributes: six samples a minute (KEDA polls every 30 s,
    // Judoscale aggregates over 10 s). No Lambda read per sample: the account's control plane is 15 requests/s.
    lambda: 10,
    presence: 'required',
    prop: 'fastSample',
    duration: true,
    env: 'FAST_SAMPLE_SECONDS',
    doc: `the fast path: between ticks, idle or busy, sample the queue's depth this often and grow on a surge; 0 turns it off (then an idle queue costs one short invocation a minute). Below ${MIN_FAST_SAMPLE_SECONDS} s the approximate depth's noise reads as arrivals`,
    also: `0 (off) or at least ${MIN_FAST_SAMPLE_SECONDS} s`,
  },
  /**
   * Growth that real-time depth asks for before CloudWatch has confirmed it (the surge's arrival rate and per-item
   * time) is limited to this multiple of the need the confirmed data supports: depth alone cannot tell a spike
   * from a slower downstream.
   */
  unconfirmedGrowthFactor: {
    rule: { kind: 'number', min: 1, minInclusive: true, max: 100, unit: 'ratio' },
    // A flat load whose items get 1.5× slower (the slowdownFactor) gains at most half its concurrency before
    // CloudWatch shows the slower per-item time, two to three minutes later.
    lambda: 1.5,
    presence: 'required',
    prop: 'unconfirmedGrowthFactor',
    duration: false,
    env: 'UNCONFIRMED_GROWTH_FACTOR',
    doc: 'growth the depth asks for before CloudWatch confirms it stops at this multiple of the confirmed need, or of the workers the depth proves busy where more (a spike or a slower downstream cannot be told apart yet)',
  },
  /** How the applied concurrency reaches Lambda. */
  actuator: {
    rule: { kind: 'enum', values: ACTUATOR_MODES },
    lambda: 'lockstep',
    presence: 'required',
    prop: 'actuator',
    duration: false,
    env: 'ACTUATOR',
    doc: "`LOCKSTEP` drives reserved concurrency and the mapping's maximum together; `RESERVED` drives reserved concurrency only (synth warns: the mapping's fixed maximum overpulls whenever reserved is lower); `EVENT_SOURCE` drives the mapping's maximum only; `PROVISIONED` drives reserved concurrency and the mapping's provisioned-mode MaximumPollers together, 10 concurrent invocations a poller (floor ≥ 20, cap up to 10,000 in steps of 10)",
  },
} as const satisfies Record<string, SettingDescriptor>;

// The mapped types below range over `keyof Settings` as written, not over the `SettingName` alias: only then are
// they homomorphic, and an editor shows each field of `ScalerConfig` with the JSDoc of its entry above.
type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;

type ValueOfRule<R> = R extends { kind: 'enum'; values: readonly (infer V)[] } ? V : number;

/**
 * What each setting holds once validated: its enum's values, or a number. A map rather than a conditional type per
 * key, so code generic over the field (`parsed[field] = value` with `value: SettingValues[K]`) typechecks.
 */
export type SettingValues = { [K in keyof Settings]: ValueOfRule<Settings[K]['rule']> };

/** What a user may set. Values may be numbers or numeric strings (environment variables, context). */
export type ScalerSettings = {
  readonly [K in keyof Settings]?: SettingValues[K] | string;
} & WithScheduledFloors;

type Present = { [K in keyof Settings]: Settings[K]['presence'] extends 'optional' ? never : K }[SettingName];

/** The validated configuration the control law runs on; `maxConcurrency` is the applied cap. */
export type ScalerConfig = {
  readonly [K in keyof Settings as K extends Present ? K : never]: SettingValues[K];
} & {
  readonly [K in keyof Settings as K extends Present ? never : K]?: SettingValues[K];
} & WithScheduledFloors;

/** A preset's settings: every setting the config always has, given (the simulator's presets are complete). */
export type PresetSettings = ScalerSettings & {
  readonly [K in keyof Settings as K extends Present ? K : never]: SettingValues[K];
};

type WithDefault = {
  [K in keyof Settings]: Settings[K] extends { lambda: unknown } ? K : never;
}[SettingName];

/** The lambda preset's defaults, as literal types (`targetAgeSeconds: 60`). */
export type LambdaDefaults = {
  readonly [K in keyof Settings as K extends WithDefault ? K : never]: Settings[K] extends { lambda: infer V }
    ? V
    : never;
};

/** The settings in the table's order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** Settings whose value is a number (every rule but `enum`). */
export type NumericSetting = {
  [K in SettingName]: Settings[K]['rule']['kind'] extends 'enum' ? never : K;
}[SettingName];

/** The lambda preset: the product's defaults, a controller ticking once a minute on one-minute SQS metrics. */
export const LAMBDA_DEFAULTS: LambdaDefaults = lambdaDefaults();

function lambdaDefaults(): LambdaDefaults {
  const defaults: Record<string, number | string> = {};
  for (const field of SETTING_NAMES) {
    const descriptor: SettingDescriptor = SETTINGS[field];
    if (descriptor.lambda !== undefined) defaults[field] = descriptor.lambda;
  }
  if (!hasEveryDefault(defaults)) throw new Error('unreachable: every default was copied from the table');
  return Object.freeze(defaults);
}

function hasEveryDefault(defaults: Record<string, number | string>): defaults is LambdaDefaults {
  return SETTING_NAMES.every((field) => {
    const descriptor: SettingDescriptor = SETTINGS[field];
    return descriptor.lambda === defaults[field];
  });
}

// The environment variable is the field in upper snake case (`targetAgeSeconds` → `TARGET_AGE_SECONDS`): an
// entry whose `env` is anything else fails the typecheck here, naming the field.
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Head}`}${Snake<Tail>}`
  : S;
type MisnamedVariables = {
  [K in SettingName]: Settings[K]['env'] extends Uppercase<Snake<K>> ? never : K;
}[SettingName];
const variablesFollowTheField: [MisnamedVariables] extends [never] ? true : MisnamedVariables = true;
void variablesFollowTheField;

// A required setting needs a default, or every caller would have to give it; an optional one has none, or it
// would not be optional.
type MisdefaultedSettings = {
  [K in SettingName]: Settings[K]['presence'] extends 'optional'
    ? K extends WithDefault
      ? K
      : never
    : K extends WithDefault
      ? never
      : K;
}[SettingName];
const defaultsFollowPresence: [MisdefaultedSettings] extends [never] ? true : MisdefaultedSettings = true;
void defaultsFollowPresence;
