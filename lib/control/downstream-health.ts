/**
 * A health signal the user names for the downstream: one CloudWatch metric and a threshold (RDS
 * `DatabaseConnections` or `DBLoad`, an API's 429 count, a custom latency metric). The tick reads it in its one
 * `GetMetricData` with the queue's metrics; past its threshold the downstream is unhealthy and the seed's rule
 * applies as written: no growth, and shed while the age is above the target. One validator serves the CDK
 * construct at synth and the controller at its cold start (`downstreamHealthProblems`).
 */

export const DOWNSTREAM_HEALTH_VARIABLE = 'DOWNSTREAM_HEALTH';

export const UNHEALTHY_WHEN = ['above', 'below'] as const;
export type UnhealthyWhen = (typeof UNHEALTHY_WHEN)[number];

/** How a datapoint is judged: unhealthy when strictly above (or below) the threshold. */
export interface HealthThreshold {
  readonly threshold: number;
  readonly unhealthyWhen: UnhealthyWhen;
}

/** The metric and its threshold, as the controller's environment carries them (`DOWNSTREAM_HEALTH`, JSON). */
export interface DownstreamHealthSpec extends HealthThreshold {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly statistic: string;
  readonly periodSeconds: number;
}

/** One datapoint of the signal: `timestamp` is the start of its period, in seconds (ports.ts `Datapoint`). */
interface HealthPoint {
  readonly timestamp: number;
  readonly value: number;
}

/** The signal as read: its datapoints, with the threshold they are judged against. */
export interface HealthSeries extends HealthThreshold {
  readonly periodSeconds: number;
  readonly points: readonly HealthPoint[];
}

/** The newest complete datapoint, judged. */
export interface HealthReading {
  readonly value: number;
  /** The end of its period, seconds. */
  readonly observedAt: number;
  readonly periodSeconds: number;
  readonly unhealthy: boolean;
}

export function isUnhealthy(value: number, judged: HealthThreshold): boolean {
  return judged.unhealthyWhen === 'below' ? value < judged.threshold : value > judged.threshold;
}

/** The newest datapoint whose period has ended (a Sum over half a period reads as half), judged; none: undefined. */
export function healthReading(series: HealthSeries | undefined, now: number): HealthReading | undefined {
  if (series === undefined) return undefined;
  let newest: HealthPoint | undefined;
  for (const p of series.points) {
    if (!Number.isFinite(p.value) || p.timestamp + series.periodSeconds > now + 1e-9) continue;
    if (newest === undefined || p.timestamp > newest.timestamp) newest = p;
  }
  if (newest === undefined) return undefined;
  return {
    value: newest.value,
    observedAt: newest.timestamp + series.periodSeconds,
    periodSeconds: series.periodSeconds,
    unhealthy: isUnhealthy(newest.value, series),
  };
}

/**
 * Whether the tick has evidence of an unhealthy downstream: the newest datapoint past its threshold and recent
 * (its period ended within `maxDataAgeSeconds`, or two of its periods where they are longer). No datapoint, or only
 * an old one, is no evidence: the law then decides as it would without a health signal.
 */
export function downstreamUnhealthy(
  snapshot: { readonly now: number; readonly downstreamHealth?: HealthReading },
  maxDataAgeSeconds: number,
): boolean {
  const reading = snapshot.downstreamHealth;
  if (reading === undefined || !reading.unhealthy) return false;
  const lag = snapshot.now - reading.observedAt;
  return Number.isFinite(lag) && lag <= Math.max(maxDataAgeSeconds, 2 * reading.periodSeconds);
}

// GetMetricData's limits: a namespace and a metric name of 1–255 characters, at most 30 dimensions, a dimension's
// name 1–255 and its value 1–1024. Periods: whole minutes (standard resolution) up to the hour a tick reads.
const NAME_MAX = 255;
const DIMENSION_VALUE_MAX = 1024;
const MAX_DIMENSIONS = 30;
export const HEALTH_PERIOD_RANGE = { min: 60, max: 3600 } as const;
// The statistics GetMetricData takes: the five standard ones and percentiles (p0–p100, decimals allowed).
const STATISTIC = /^(SampleCount|Average|Sum|Minimum|Maximum|p(100|\d{1,2}(\.\d{1,10})?))$/;

const text = (value: unknown, max: number): boolean =>
  typeof value === 'string' && value.length >= 1 && value.length <= max;

/**
 * Every problem with a spec, each naming `label`'s field, its value and what it must be. `resolved` says which
 * values synth can read: a token (an instance identifier from a `Ref`) is checked at the controller's start.
 */
export function downstreamHealthProblems(
  spec: Partial<Record<keyof DownstreamHealthSpec, unknown>>,
  label: string,
  resolved: (value: unknown) => boolean = () => true,
): string[] {
  const problems: string[] = [];
  const check = (field: keyof DownstreamHealthSpec, ok: boolean, must: string) => {
    const value = spec[field];
    if (resolved(value) && !ok)
      problems.push(`${label}.${field} = ${JSON.stringify(value)}: must be ${must}`);
  };
  check('namespace', text(spec.namespace, NAME_MAX), `a CloudWatch namespace (1–${NAME_MAX} characters)`);
  check('metricName', text(spec.metricName, NAME_MAX), `a metric name (1–${NAME_MAX} characters)`);
  check(
    'statistic',
    typeof spec.statistic === 'string' && STATISTIC.test(spec.statistic),
    'one of SampleCount, Average, Sum, Minimum, Maximum, or a percentile p0–p100',
  );
  const period = spec.periodSeconds;
  check(
    'periodSeconds',
    typeof period === 'number' &&
      Number.isInteger(period) &&
      period % 60 === 0 &&
      period >= HEALTH_PERIOD_RANGE.min &&
      period <= HEALTH_PERIOD_RANGE.max,
    `whole minutes in [${HEALTH_PERIOD_RANGE.min}; ${HEALTH_PERIOD_RANGE.max}] seconds (the tick reads one-minute periods of the last hour)`,
  );
  check(
    'threshold',
    typeof spec.threshold === 'number' && Number.isFinite(spec.threshold),
    'a finite number (the value past which the downstream is unhealthy)',
  );
  check(
    'unhealthyWhen',
    UNHEALTHY_WHEN.includes(spec.unhealthyWhen as UnhealthyWhen),
    `one of ${UNHEALTHY_WHEN.map((w) => `'${w}'`).join(', ')}`,
  );
  problems.push(...dimensionProblems(spec.dimensions, label, resolved));
  return problems;
}

function dimensionProblems(
  dimensions: unknown,
  label: string,
  resolved: (value: unknown) => boolean,
): string[] {
  if (typeof dimensions !== 'object' || dimensions === null || Array.isArray(dimensions)) {
    return [
      `${label}.dimensions = ${JSON.stringify(dimensions)}: must be an object of dimension names to values`,
    ];
  }
  const entries = Object.entries(dimensions);
  const problems: string[] =
    entries.length > MAX_DIMENSIONS
      ? [`${label}.dimensions: ${entries.length} dimensions, at most ${MAX_DIMENSIONS}`]
      : [];
  for (const [name, value] of entries) {
    if (!text(name, NAME_MAX)) problems.push(`${label}.dimensions: a name must be 1–${NAME_MAX} characters`);
    if (resolved(value) && !text(value, DIMENSION_VALUE_MAX)) {
      problems.push(
        `${label}.dimensions.${name} = ${JSON.stringify(value)}: must be a value of 1–${DIMENSION_VALUE_MAX} characters`,
      );
    }
  }
  return problems;
}

/** The spec from its environment variable: undefined when unset, else validated with every problem at once. */
export function downstreamHealthFromEnvironment(
  env: Record<string, string | undefined>,
  problems: string[],
): DownstreamHealthSpec | undefined {
  const raw = env[DOWNSTREAM_HEALTH_VARIABLE];
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push(
      `${DOWNSTREAM_HEALTH_VARIABLE}: must be a JSON object {namespace, metricName, dimensions, statistic, periodSeconds, threshold, unhealthyWhen} (it does not parse)`,
    );
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${DOWNSTREAM_HEALTH_VARIABLE}: must be a JSON object (got ${JSON.stringify(parsed)})`);
    return undefined;
  }
  const spec = { unhealthyWhen: 'above', ...parsed } as Record<keyof DownstreamHealthSpec, unknown>;
  const found = downstreamHealthProblems(spec, DOWNSTREAM_HEALTH_VARIABLE);
  const fields = new Set([
    'namespace',
    'metricName',
    'dimensions',
    'statistic',
    'periodSeconds',
    'threshold',
    'unhealthyWhen',
  ]);
  for (const key of Object.keys(spec)) {
    if (!fields.has(key)) found.push(`${DOWNSTREAM_HEALTH_VARIABLE}.${key}: unknown field`);
  }
  problems.push(...found);
  return found.length === 0 ? (spec as unknown as DownstreamHealthSpec) : undefined;
}
