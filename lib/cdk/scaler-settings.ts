import { Duration, Token } from 'aws-cdk-lib';
import type { ActuatorMode, ScalerSettings } from '../control/index.ts';

/**
 * How the applied concurrency reaches Lambda.
 * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html#events-sqs-max-concurrency
 */
export enum ScalerActuator {
  /**
   * Reserved concurrency and the mapping's `MaximumConcurrency` together, `MaximumConcurrency` ≤ reserved at every
   * instant: the pollers never pull more than the function may run.
   */
  LOCKSTEP = 'lockstep',
  /**
   * Reserved concurrency only. The mapping's pollers then scale up to its `MaximumConcurrency` regardless and
   * overpull into throttles and the DLQ whenever that is above the reserved concurrency.
   */
  RESERVED = 'reserved',
  /** The mapping's `MaximumConcurrency` only; the consumer's reserved concurrency is yours. */
  EVENT_SOURCE = 'event-source',
}

// The enum and the validator's modes are the same strings: a mode added to one and not the other fails here.
type SameModes = [`${ScalerActuator}`] extends [ActuatorMode]
  ? [ActuatorMode] extends [`${ScalerActuator}`]
    ? true
    : never
  : never;
const actuatorModesMatch: SameModes = true;
void actuatorModesMatch;

/**
 * The control law's settings, as construct props. Every value is validated at synth by the same validator the
 * controller runs at init (`resolveScalerConfig`), so a value that synthesizes is a value the controller accepts.
 * Times are `Duration`s (converted to seconds for the validator).
 */
export interface QueueAgeScalerSettings {
  /**
   * The latency budget: the oldest message should not wait longer than this.
   * Valid: (0 s; 1 day]. Below a minute it cannot be held: the age metric has one-minute resolution.
   * @default Duration.minutes(1)
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html
   */
  readonly targetAge?: Duration;
  /**
   * The floor of the consumer's concurrency. Valid: integer [1; 10000], at least 2 when the actuator drives the
   * event source mapping (`LOCKSTEP`, `EVENT_SOURCE`), whose `MaximumConcurrency` is 2–1000; at most the cap.
   * @default 2
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
   */
  readonly minConcurrency?: number;
  /**
   * An explicit cap. The applied cap is the lowest of this, `dbPoolSize` and
   * `apiRatePerSecond × itemTime ÷ callsPerItem`. Valid: integer [1; 10000] (at most 1000 when the mapping is
   * driven).
   * @default 32
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
   */
  readonly maxConcurrency?: number;
  /**
   * Connections in the database pool each consumer holds while it works: concurrency above it only waits.
   * Valid: integer [1; 100000].
   * @default no database limit
   */
  readonly dbPoolSize?: number;
  /**
   * Calls per second the rate-limited downstream API allows. Requires `itemTime`. Valid: (0; 1e9].
   * @default no API limit
   */
  readonly apiRatePerSecond?: number;
  /**
   * How long one item takes (with `apiRatePerSecond`, sizes the API cap). Valid: (0 s; 15 minutes].
   * @default unset
   */
  readonly itemTime?: Duration;
  /**
   * API calls one item makes. Valid: (0; 1e6].
   * @default 1
   */
  readonly callsPerItem?: number;
  /**
   * How often the controller runs. EventBridge schedules run in whole minutes.
   * Valid: 1, 2, … 60 minutes.
   * @default Duration.minutes(1)
   * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html
   */
  readonly tick?: Duration;
  /**
   * The most one tick may add. Valid: integer [1; 10000].
   * @default 1000 (grow straight to the need; the cap bounds it)
   */
  readonly maxScaleUpStep?: number;
  /**
   * What one shrink removes at least. Valid: integer [1; 10000].
   * @default 1
   */
  readonly scaleDownStep?: number;
  /**
   * What one shrink removes at most, as a fraction of the surplus above the need (0 keeps to `scaleDownStep`;
   * 0.5 halves the surplus each interval, never below the need). Valid: [0; 1].
   * @default 0.5
   */
  readonly scaleDownSurplusFraction?: number;
  /**
   * How long the queue must be idle before the first shrink; longer than the 1–2 minute metric delay.
   * Valid: [0 s; 1 day].
   * @default Duration.minutes(3)
   */
  readonly scaleDownDelay?: Duration;
  /**
   * The least time between two shrinks. Valid: [0 s; 1 day].
   * @default Duration.minutes(1)
   */
  readonly scaleDownInterval?: Duration;
  /**
   * The utilisation the Little's-law need is sized for. Valid: (0; 1].
   * @default 0.9
   */
  readonly targetUtilization?: number;
  /**
   * Age at or below this fraction of the target counts as idle. Valid: [0; 1].
   * @default 0.25
   */
  readonly idleAgeFraction?: number;
  /**
   * Per-item time above this multiple of its healthy baseline is "downstream slower": hold, do not grow.
   * Valid: (1; 100].
   * @default 1.5
   */
  readonly slowdownFactor?: number;
  /**
   * The horizon over which growth also drains the backlog. Valid: (0 s; 1 day].
   * @default Duration.minutes(2)
   */
  readonly backlogDrain?: Duration;
  /**
   * An age datapoint older than this is missing data (hold). Valid: (0 s; 1 day].
   * @default Duration.minutes(5)
   */
  readonly maxDataAge?: Duration;
  /**
   * Where the age is held at steady load, as a fraction of the target: growth starts above it, so the target
   * is the ceiling transients must not cross. Valid: (0; 1].
   * @default 0.5
   */
  readonly setpointFraction?: number;
  /**
   * How often the controller samples the queue's real-time depth between ticks while the queue is busy (the
   * fast path: it only grows). Zero turns it off. Valid: [0 s; 1 hour].
   * @default Duration.seconds(10)
   */
  readonly fastSample?: Duration;
  /**
   * Growth the real-time depth asks for before CloudWatch confirms it is limited to this multiple of the need
   * the confirmed data supports: depth alone cannot tell a spike from a slower downstream. Valid: [1; 100].
   * @default 1.5
   */
  readonly unconfirmedGrowthFactor?: number;
  /**
   * How the concurrency reaches Lambda.
   * @default ScalerActuator.LOCKSTEP
   */
  readonly actuator?: ScalerActuator;
}

/**
 * Each prop and the validator's field it feeds; `seconds` props are Durations given to the validator in seconds.
 * Every setting of the shared validator has a prop: one added there without one here fails the typecheck below.
 */
export const PROP_SETTINGS = {
  targetAge: { setting: 'targetAgeSeconds', seconds: true },
  minConcurrency: { setting: 'minConcurrency', seconds: false },
  maxConcurrency: { setting: 'maxConcurrency', seconds: false },
  dbPoolSize: { setting: 'dbPoolSize', seconds: false },
  apiRatePerSecond: { setting: 'apiRatePerSecond', seconds: false },
  itemTime: { setting: 'itemTimeSeconds', seconds: true },
  callsPerItem: { setting: 'callsPerItem', seconds: false },
  tick: { setting: 'tickSeconds', seconds: true },
  maxScaleUpStep: { setting: 'maxScaleUpStep', seconds: false },
  scaleDownStep: { setting: 'scaleDownStep', seconds: false },
  scaleDownSurplusFraction: { setting: 'scaleDownSurplusFraction', seconds: false },
  scaleDownDelay: { setting: 'scaleDownDelaySeconds', seconds: true },
  scaleDownInterval: { setting: 'scaleDownIntervalSeconds', seconds: true },
  targetUtilization: { setting: 'targetUtilization', seconds: false },
  idleAgeFraction: { setting: 'idleAgeFraction', seconds: false },
  slowdownFactor: { setting: 'slowdownFactor', seconds: false },
  backlogDrain: { setting: 'backlogDrainSeconds', seconds: true },
  maxDataAge: { setting: 'maxDataAgeSeconds', seconds: true },
  setpointFraction: { setting: 'setpointFraction', seconds: false },
  fastSample: { setting: 'fastSampleSeconds', seconds: true },
  unconfirmedGrowthFactor: { setting: 'unconfirmedGrowthFactor', seconds: false },
  actuator: { setting: 'actuator', seconds: false },
} as const satisfies Record<
  keyof QueueAgeScalerSettings,
  { setting: keyof ScalerSettings; seconds: boolean }
>;

type CoveredSettings = (typeof PROP_SETTINGS)[keyof typeof PROP_SETTINGS]['setting'];
type SettingsWithoutProp = Exclude<keyof ScalerSettings, CoveredSettings>;
const everySettingIsAProp: [SettingsWithoutProp] extends [never] ? true : SettingsWithoutProp = true;
void everySettingIsAProp;

const PROP_OF = new Map<string, string>(
  Object.entries(PROP_SETTINGS).map(([prop, { setting }]) => [setting, prop]),
);

/** The prop that feeds a validator field: messages name what the user wrote (`targetAge`, not `targetAgeSeconds`). */
export function propName(setting: keyof ScalerSettings): string {
  return PROP_OF.get(setting) ?? setting;
}

const NOT_A_DURATION = Symbol('not a Duration');

/**
 * The props as the validator's settings: Durations in seconds (fractions kept: 20 ms is 0.02). A value that is a
 * token cannot be validated or written into the controller's environment, so it is a problem, not a setting.
 */
export function settingsFromProps(props: QueueAgeScalerSettings): {
  settings: ScalerSettings;
  problems: string[];
} {
  const settings: Record<string, number | string> = {};
  const problems: string[] = [];
  for (const [prop, { setting, seconds }] of Object.entries(PROP_SETTINGS)) {
    const value = (props as Record<string, unknown>)[prop];
    if (value === undefined) continue;
    const given = seconds ? durationSeconds(value) : value;
    if (given === NOT_A_DURATION) {
      problems.push(`${prop} = ${JSON.stringify(value)}: must be a Duration, e.g. Duration.seconds(60)`);
      continue;
    }
    if (typeof given === 'number' && Token.isUnresolved(given)) {
      problems.push(
        `${prop} is a token: it must be known at synth, since it becomes the controller's setting`,
      );
      continue;
    }
    settings[setting] = given as number | string;
  }
  return { settings: settings as ScalerSettings, problems };
}

function durationSeconds(value: unknown): unknown {
  const duration = value as Partial<Duration> | null;
  return typeof duration?.toSeconds === 'function' ? duration.toSeconds({ integral: false }) : NOT_A_DURATION;
}

/** Validator settings (seconds) as props (Durations): how the example stack passes its `cdk.json` context on. */
export function propsFromSettings(settings: ScalerSettings): QueueAgeScalerSettings {
  const props: Record<string, unknown> = {};
  for (const [prop, { setting, seconds }] of Object.entries(PROP_SETTINGS)) {
    const value = settings[setting];
    if (value === undefined) continue;
    props[prop] = seconds ? Duration.seconds(Number(value)) : value;
  }
  return props as QueueAgeScalerSettings;
}
