import { OperatorError } from './operator-error.ts';

/**
 * Which stretch of a queue's history `trace` exports, and at what period: the finest period CloudWatch still
 * holds for the range's start (docs/aws-facts.md, "CloudWatch GetMetricData"). One concept: from the command's
 * `--since` or `--from`/`--to` and `now` to a range aligned to whole periods. No clock, no I/O.
 */
export interface TraceRange {
  /** Epoch seconds, a multiple of `periodSeconds`: the first period starts here. */
  readonly start: number;
  /** Epoch seconds, a multiple of `periodSeconds`: the last period ends here. */
  readonly end: number;
  readonly periodSeconds: number;
  /** How many periods, so how many phases at most (a merged gap is one phase for several periods). */
  readonly periods: number;
  /** Why this period, for the file's header and the report: `the range starts 3 days ago, …`. */
  readonly why: string;
  /** How the range was given: `--since 3d`, `--from … --to …`. */
  readonly given: string;
}

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

/**
 * CloudWatch keeps 1-minute datapoints for 15 days, 5-minute for 63 days, 1-hour for 455 days, and rounds a
 * request's start the same way: under 15 days ago to the minute, 15–63 days to 5 minutes, beyond to the hour
 * (docs/aws-facts.md, "CloudWatch GetMetricData"). So the age of the range's start decides the finest period that
 * still exists for all of it: a range that starts 20 days ago has only 5-minute data for its first days, and a
 * 1-minute request would come back empty there.
 */
export const RETENTION = [
  { periodSeconds: MINUTE, keptSeconds: 15 * DAY, name: '1-minute', kept: '15 days' },
  { periodSeconds: 5 * MINUTE, keptSeconds: 63 * DAY, name: '5-minute', kept: '63 days' },
  { periodSeconds: HOUR, keptSeconds: 455 * DAY, name: '1-hour', kept: '455 days' },
] as const;

export const OLDEST_SECONDS = 455 * DAY;

/**
 * Retention already keeps a range under 21,600 periods (15 days of minutes; 63 days of 5 minutes is 18,144,
 * 455 days of hours 10,920). The bound stands guard for the file: a load file of more phases than this is not one
 * `simulate` or `load` should be handed.
 */
export const MAX_PHASES = 100_000;

const UNITS: Record<string, { seconds: number; name: string }> = {
  m: { seconds: MINUTE, name: 'minutes' },
  h: { seconds: HOUR, name: 'hours' },
  d: { seconds: DAY, name: 'days' },
};

/** `90m`, `36h`, `7d`: a whole number and a unit. */
export function parseSince(value: string): number {
  const match = /^(\d{1,7})([mhd])$/.exec(value.trim());
  const unit = match ? UNITS[match[2] ?? ''] : undefined;
  const count = match ? Number(match[1]) : 0;
  if (unit === undefined || count <= 0)
    throw new OperatorError(
      `--since '${value}': must be a whole number and a unit m, h or d (90m, 36h, 7d), at most 455d`,
    );
  return count * unit.seconds;
}

// A date (UTC midnight) or a date-time with its offset: without one, JavaScript would read it in the local zone.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** An ISO 8601 date or date-time with its zone (`2026-11-03`, `2026-11-03T04:00:00Z`), as epoch seconds. */
export function parseInstant(flag: string, value: string): number {
  const ms = ISO_8601.test(value) && calendarDate(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms))
    throw new OperatorError(
      `${flag} '${value}': must be an ISO 8601 date or date-time with its zone, e.g. 2026-11-03 or 2026-11-03T04:00:00Z`,
    );
  return ms / 1000;
}

/**
 * The date part names a day of the calendar: JavaScript's parser rolls 2026-02-30 over to March 2 and 2026-04-31 to
 * May 1, silently, where a user meant a day that does not exist.
 */
function calendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** `2026-11-03T04:00:00Z`: whole seconds, UTC. */
export function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function days(seconds: number): string {
  const d = seconds / DAY;
  if (d >= 1) return `${Number(d.toFixed(1))} days`;
  const h = seconds / HOUR;
  return h >= 1 ? `${Number(h.toFixed(1))} hours` : `${Math.round(seconds / MINUTE)} minutes`;
}

/** The finest period CloudWatch keeps for data as old as `ageSeconds`, and why; undefined beyond 455 days. */
export function periodFor(ageSeconds: number): { periodSeconds: number; why: string } | undefined {
  // "Less than 15 days ago" is the API's own wording for the minute's rounding: at 15 days exactly, 5 minutes.
  const index = RETENTION.findIndex((r, i) =>
    i === RETENTION.length - 1 ? ageSeconds <= r.keptSeconds : ageSeconds < r.keptSeconds,
  );
  const tier = RETENTION[index];
  if (tier === undefined) return undefined;
  const finer = RETENTION[index - 1];
  const why =
    finer === undefined
      ? `the range starts ${days(ageSeconds)} ago, within the ${tier.kept} CloudWatch keeps ${tier.name} data`
      : `the range starts ${days(ageSeconds)} ago: CloudWatch keeps ${finer.name} data for ${finer.kept}, ${tier.name} data for ${tier.kept}`;
  return { periodSeconds: tier.periodSeconds, why };
}

/** `1-minute`, `5-minute`, `1-hour`. */
export function periodName(periodSeconds: number): string {
  return RETENTION.find((r) => r.periodSeconds === periodSeconds)?.name ?? `${periodSeconds}-second`;
}

export interface RangeFlags {
  readonly since?: string;
  readonly from?: string;
  readonly to?: string;
}

const ALLOWED = 'a range that starts within the last 455 days and ends after it starts (--since 1m to 455d)';

/**
 * The range the flags give, at `now` (epoch seconds), aligned to whole periods: the start down to its period's
 * boundary (CloudWatch rounds it so anyway), the end down too, so every period is whole and none is in the future.
 * A `--to` after now ends the range now.
 */
export function traceRange(flags: RangeFlags, now: number): TraceRange {
  if (flags.since !== undefined && (flags.from !== undefined || flags.to !== undefined))
    throw new OperatorError('give --since or --from/--to, not both');
  if (flags.since === undefined && flags.from === undefined)
    throw new OperatorError(
      flags.to === undefined
        ? 'give the range: --since 7d (m, h, d) or --from ISO-8601 [--to ISO-8601] (see --help)'
        : '--to needs --from (or give --since)',
    );
  let from: number;
  let to: number;
  let given: string;
  if (flags.since !== undefined) {
    from = now - parseSince(flags.since);
    to = now;
    given = `--since ${flags.since}`;
  } else {
    from = parseInstant('--from', flags.from ?? '');
    to = flags.to === undefined ? now : parseInstant('--to', flags.to);
    given = flags.to === undefined ? `--from ${flags.from}` : `--from ${flags.from} --to ${flags.to}`;
    if (from >= now) throw new OperatorError(`--from ${flags.from} is in the future: give ${ALLOWED}`);
    if (from >= to)
      throw new OperatorError(`--from ${flags.from} is not before --to ${flags.to}: give ${ALLOWED}`);
  }
  const age = now - from;
  const choice = periodFor(age);
  if (choice === undefined)
    throw new OperatorError(
      `${given}: the range starts ${Math.ceil(age / DAY)} days ago, beyond the 455 days CloudWatch keeps metrics: give ${ALLOWED}`,
    );
  const { periodSeconds } = choice;
  const start = Math.floor(from / periodSeconds) * periodSeconds;
  const end = Math.floor(Math.min(to, now) / periodSeconds) * periodSeconds;
  if (end <= start)
    throw new OperatorError(
      `${given}: shorter than one whole ${periodName(periodSeconds)} period that has ended: give a longer range`,
    );
  const periods = (end - start) / periodSeconds;
  if (periods > MAX_PHASES)
    throw new OperatorError(
      `${given}: ${periods} periods, more than the ${MAX_PHASES} phases a trace may have`,
    );
  const future = to > now ? '; --to is in the future, so the range ends now' : '';
  return { start, end, periodSeconds, periods, why: `${choice.why}${future}`, given };
}
