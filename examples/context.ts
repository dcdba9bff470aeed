import { decimalNumber } from '../lib/control/decimal.ts';
import { ConfigError, resolveScalerConfig, type ScalerConfig, SETTING_NAMES } from '../lib/control/index.ts';

/**
 * The example stack's settings from `cdk.json` context and `-c key=value`: the control law's settings (the
 * shared validator's fields) and the example's own. Values from `-c` arrive as strings, from `cdk.json` as
 * JSON values; both are validated, every problem collected and thrown once, each naming its `-c` key.
 */
export interface ExampleContext {
  /** The control law's settings resolved over the defaults (the construct validates them again). */
  readonly config: ScalerConfig;
  /** Milliseconds each item takes in the example consumer. */
  readonly workMilliseconds: number;
  /** Messages per consumer invocation. */
  readonly batchSize: number;
  /** The consumer's timeout. */
  readonly consumerTimeoutSeconds: number;
  readonly alarmEmail?: string;
  readonly oscillationThreshold?: number;
  readonly scalerName?: string;
  readonly stackName: string;
  /** Keep the dead-letter queue and its messages on `cdk destroy` and on replacement. */
  readonly retainDeadLetters: boolean;
}

export const EXAMPLE_KEYS = [
  'workMilliseconds',
  'batchSize',
  'consumerTimeoutSeconds',
  'alarmEmail',
  'oscillationThreshold',
  'scalerName',
  'stackName',
  'retainDeadLetters',
] as const;

export const EXAMPLE_DEFAULTS = {
  // The seed's items each awaited 20 ms.
  workMilliseconds: 20,
  // One message per invocation: Lambda's Duration per invocation is then the per-item time the controller
  // sizes concurrency by, as in the seed (800 items/s × 20 ms = 16 workers).
  batchSize: 1,
  consumerTimeoutSeconds: 30,
  stackName: 'QueueAgeScalerExample',
  retainDeadLetters: true,
} as const;

// SQS standard queues deliver up to 10 messages per receive without a batching window.
const BATCH_SIZE = { min: 1, max: 10 } as const;
// Lambda's timeout range.
const TIMEOUT_SECONDS = { min: 1, max: 900 } as const;
const WORK_MILLISECONDS = { min: 0, max: 900_000 } as const;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
// CloudFormation stack names: a letter, then letters, digits and hyphens, at most 128.
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
// Context keys a user would type: camelCase words. CDK's own keys carry '@', ':' or '-' and are left alone.
const USER_KEY = /^[a-z][A-Za-z0-9]*$/;

const KNOWN = new Set<string>([...SETTING_NAMES, ...EXAMPLE_KEYS]);

function label(field: string): string {
  return `-c ${field}`;
}

// `-c batchSize=0x10` must not be read as 16: the same decimal-only reading as the settings.
const number = decimalNumber;

/** Reads and validates the example's context; throws one `ConfigError` naming every bad `-c` key. */
export function exampleContextFrom(context: Record<string, unknown>): ExampleContext {
  const problems: string[] = [];
  for (const key of Object.keys(context)) {
    if (USER_KEY.test(key) && !KNOWN.has(key)) {
      problems.push(`unknown context key ${label(key)} (known: ${[...KNOWN].join(', ')})`);
    }
  }

  const settings: Record<string, unknown> = {};
  for (const field of SETTING_NAMES) {
    if (context[field] !== undefined) settings[field] = context[field];
  }
  let config: ScalerConfig | undefined;
  try {
    config = resolveScalerConfig(settings, { label });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }

  const integer = (key: string, fallback: number, range: { min: number; max: number }, unit: string) => {
    const raw = context[key];
    if (raw === undefined) return fallback;
    const value = number(raw);
    if (!Number.isInteger(value) || value < range.min || value > range.max) {
      problems.push(
        `${label(key)} = ${JSON.stringify(raw)}: must be an integer in [${range.min}; ${range.max}] (${unit})`,
      );
      return fallback;
    }
    return value;
  };

  const batchSize = integer('batchSize', EXAMPLE_DEFAULTS.batchSize, BATCH_SIZE, 'messages per invocation');
  const consumerTimeoutSeconds = integer(
    'consumerTimeoutSeconds',
    EXAMPLE_DEFAULTS.consumerTimeoutSeconds,
    TIMEOUT_SECONDS,
    'seconds',
  );

  // The consumer's item time defaults to the downstream's item time when that is given.
  const itemMilliseconds = config?.itemTimeSeconds !== undefined ? config.itemTimeSeconds * 1000 : undefined;
  let workMilliseconds: number = itemMilliseconds ?? EXAMPLE_DEFAULTS.workMilliseconds;
  if (context.workMilliseconds !== undefined) {
    const value = number(context.workMilliseconds);
    if (!Number.isFinite(value) || value < WORK_MILLISECONDS.min || value > WORK_MILLISECONDS.max) {
      problems.push(
        `${label('workMilliseconds')} = ${JSON.stringify(context.workMilliseconds)}: must be a number in [${WORK_MILLISECONDS.min}; ${WORK_MILLISECONDS.max}] (milliseconds per item)`,
      );
    } else {
      workMilliseconds = value;
    }
  }
  // Items run one after another: a batch must finish within the timeout, with room for a slow downstream.
  const batchSeconds = (batchSize * workMilliseconds) / 1000;
  if (2 * batchSeconds > consumerTimeoutSeconds) {
    problems.push(
      `${label('consumerTimeoutSeconds')} = ${consumerTimeoutSeconds}: a batch of ${batchSize} items of ${workMilliseconds} ms takes ${batchSeconds} s, and the timeout must be at least twice that; raise it to ${Math.ceil(2 * batchSeconds)} or lower ${label('batchSize')}`,
    );
  }

  const text = (key: string, pattern: RegExp, what: string): string | undefined => {
    const raw = context[key];
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || !pattern.test(raw)) {
      problems.push(`${label(key)} = ${JSON.stringify(raw)}: must be ${what}`);
      return undefined;
    }
    return raw;
  };
  const alarmEmail = text('alarmEmail', EMAIL, 'an e-mail address such as ops@example.com');
  const scalerName = text('scalerName', /^[A-Za-z0-9_-]{1,64}$/, '1–64 characters of A–Z a–z 0–9 - _');
  const stackName =
    text('stackName', STACK_NAME, 'a CloudFormation stack name (a letter, then letters, digits, hyphens)') ??
    EXAMPLE_DEFAULTS.stackName;
  const oscillationThreshold =
    context.oscillationThreshold === undefined
      ? undefined
      : integer('oscillationThreshold', 3, { min: 1, max: 9 }, 'scale events per 10 minutes');

  let retainDeadLetters: boolean = EXAMPLE_DEFAULTS.retainDeadLetters;
  const retain = context.retainDeadLetters;
  if (retain !== undefined) {
    if (retain === true || retain === 'true') retainDeadLetters = true;
    else if (retain === false || retain === 'false') retainDeadLetters = false;
    else problems.push(`${label('retainDeadLetters')} = ${JSON.stringify(retain)}: must be true or false`);
  }

  if (problems.length > 0 || !config) throw new ConfigError(problems);
  return {
    retainDeadLetters,
    config,
    workMilliseconds,
    batchSize,
    consumerTimeoutSeconds,
    alarmEmail,
    oscillationThreshold,
    scalerName,
    stackName,
  };
}
