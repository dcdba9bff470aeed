import { Duration, Token } from 'aws-cdk-lib';
import type { ScalerSettings } from '../control/index.ts';
import { SETTING_NAMES, SETTINGS, type SettingName } from '../control/settings-table.ts';

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
  /**
   * Reserved concurrency and the mapping's provisioned-mode `MaximumPollers` together (each poller drives up to 10
   * concurrent invocations; reserved = 10 × MaximumPollers, raised before the pollers and lowered after them): for a
   * cap beyond the standard mapping's 1,000, up to 10,000. Levels move in steps of 10, from 20 (SQS keeps at least 2
   * pollers), and AWS bills each poller by the hour (docs/aws-facts.md, "Provisioned mode").
   */
  PROVISIONED = 'provisioned',
}

/**
 * The control law's settings, as construct props. Every value is validated at synth by the same validator the
 * controller runs at init (`resolveScalerConfig`), so a value that synthesizes is a value the controller accepts.
 * Times are `Duration`s (converted to seconds for the validator).
 *
 * Written by hand for its documentation (a mapped type would lose each prop's JSDoc in the published `.d.ts`);
 * the check below holds it to the settings table (lib/control/settings-table.ts).
 */
export interface QueueAgeScalerSettings {
  /**
   * The latency target: the oldest message should not wait longer than this.
   * Valid: (0 s; 1 day]. Below a minute it cannot be held: the age metric has one-minute resolution.
   * @default Duration.minutes(1)
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html
   */
  readonly targetAge?: Duration;
  /**
   * The floor of the consumer's concurrency. Valid: integer [1; 10000], at least 2 when the actuator drives the
   * event source mapping (`LOCKSTEP`, `EVENT_SOURCE`), whose `MaximumConcurrency` is 2–1000; a multiple of 10, at
   * least 20, with `PROVISIONED` (whole pollers, 2 at least); at most the cap.
   * @default 2
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
   */
  readonly minConcurrency?: number;
  /**
   * An explicit cap. The applied cap is the lowest of this, `dbPoolSize` and
   * `apiRatePerSecond × itemTime ÷ callsPerItem`. Valid: integer [1; 10000] (at most 1000 when the mapping's
   * `MaximumConcurrency` is driven; with `PROVISIONED`, rounded down to whole pollers of 10).
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
   * The utilisation the Little's-law need is sized for; its headroom stops one below the cap (only work that needs
   * the cap gets it). Valid: (0; 1].
   * @default 0.9
   */
  readonly targetUtilization?: number;
  /**
   * Age at or below this fraction of the target counts as idle. Valid: [0; 1].
   * @default 0.25
   */
  readonly idleAgeFraction?: number;
  /**
   * Per-item time above this multiple of its healthy baseline is "items slower" (heavier work, or a saturated
   * downstream): a growth then waits for the verdict on what the last one bought, never holds on the time alone.
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
   * How often the controller samples the queue's real-time depth between ticks, idle or busy (the fast path:
   * it only grows, and meets a burst after silence within a sample). Zero turns it off, and an idle queue then
   * costs one short invocation a minute. Valid: 0, or [5 s; 1 hour].
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

type Settings = typeof SETTINGS;
type Props = Required<QueueAgeScalerSettings>;
/** The settings that name `prop` as theirs. */
type SettingsOf<Prop> = { [K in SettingName]: Settings[K]['prop'] extends Prop ? K : never }[SettingName];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The prop's type a setting's descriptor calls for: a `Duration`, a string enum of its values, or a number. */
type PropTypeFits<K extends SettingName, T> = Settings[K]['duration'] extends true
  ? Same<T, Duration>
  : Settings[K]['rule'] extends { kind: 'enum'; values: readonly (infer V)[] }
    ? [T] extends [string]
      ? Same<`${T}`, V>
      : false
    : Same<T, number>;

// Every setting has exactly one prop of the type its descriptor calls for, and every prop is one setting's: a
// setting added to the table without its prop (or a prop without its setting) fails the typecheck here, naming it.
type SettingsWithoutTheirProp = {
  [K in SettingName]: Settings[K]['prop'] extends keyof Props
    ? PropTypeFits<K, Props[Settings[K]['prop']]> extends true
      ? never
      : K
    : K;
}[SettingName];
type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;
type PropsOfNoOrManySettings = {
  [P in keyof Props]: [SettingsOf<P>] extends [never] ? P : true extends IsUnion<SettingsOf<P>> ? P : never;
}[keyof Props];
const everySettingIsOneProp: [SettingsWithoutTheirProp] extends [never] ? true : SettingsWithoutTheirProp =
  true;
const everyPropIsOneSetting: [PropsOfNoOrManySettings] extends [never] ? true : PropsOfNoOrManySettings =
  true;
void everySettingIsOneProp;
void everyPropIsOneSetting;

/** The prop that feeds a validator field: messages name what the user wrote (`targetAge`, not `targetAgeSeconds`). */
export function propName(setting: SettingName): string {
  return SETTINGS[setting].prop;
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
  for (const setting of SETTING_NAMES) {
    const { prop, duration: seconds } = SETTINGS[setting];
    const value: unknown = props[prop];
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
  for (const setting of SETTING_NAMES) {
    const { prop, duration: seconds } = SETTINGS[setting];
    const value = settings[setting];
    if (value === undefined) continue;
    props[prop] = seconds ? Duration.seconds(Number(value)) : value;
  }
  return props as QueueAgeScalerSettings;
}

/** The schedule runs in whole minutes (EventBridge rate expressions): any other tick is a problem. */
export function wholeMinuteTickProblem(tickSeconds: number): string | undefined {
  if (tickSeconds % 60 === 0) return undefined;
  return `tick = ${tickSeconds} s: the schedule runs in whole minutes (EventBridge rate expressions), so it must be Duration.minutes(1), Duration.minutes(2), …`;
}
