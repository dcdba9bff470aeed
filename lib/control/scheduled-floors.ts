import { Cron } from 'croner';
import { PROVISIONED_MIN_CONCURRENCY } from './poller-grid.ts';
import { shown } from './shown.ts';

/**
 * Scheduled floors: a floor raised for a while from a schedule's start, ahead of a peak the user knows (the 09:00
 * batch, the Monday surge). The law cannot see a peak before its messages come; a floor known in advance can. In
 * provisioned mode (`actuator: 'provisioned'`) the floor also warms the mapping's event pollers (`MinimumPollers`),
 * billed only while it is on; under the other actuators it holds the limit and nothing more: the standard
 * mapping's pollers scale on the backlog, not on a limit (docs/controller.md, "Scheduled floors").
 *
 * Evaluated at `now` by the tick and the samples between them, in the Lambda and the simulator alike (pure: the
 * clock is passed in). The schedule is EventBridge's cron syntax, so a CDK user writes what `Schedule.cron` writes;
 * croner evaluates it (a library, not a parser of our own: `L`, `W`, `#`, names, steps, years, time zones).
 */
export interface ScheduledFloor {
  /** EventBridge's `cron(minutes hours day-of-month month day-of-week year)`: when the floor comes on. */
  readonly schedule: string;
  /** The floor while it is on: concurrent executions (whole pollers' worth in provisioned mode). */
  readonly minConcurrency: number;
  /** How long it stays on from each start, seconds. */
  readonly durationSeconds: number;
  /** The IANA time zone the schedule reads in. @default 'UTC' */
  readonly timeZone?: string;
}

/**
 * Floors raised on a schedule: a list, so not a row of the settings table; validated with the rest by
 * `resolveScalerConfig` (config.ts).
 */
export interface WithScheduledFloors {
  readonly floors?: readonly ScheduledFloor[];
}

/** Bounds: a list a tick evaluates in microseconds, windows within a week. */
export const MAX_SCHEDULED_FLOORS = 10;
export const SCHEDULED_FLOOR_DURATION = { min: 60, max: 7 * 86_400 } as const;
const MAX_SCHEDULE_LENGTH = 200;

/** A floor and its compiled schedule. Compiled once per config (a tick evaluates it in about 30 µs). */
interface CompiledFloor {
  readonly floor: ScheduledFloor;
  readonly cron: Cron;
}

const compiled = new WeakMap<ScheduledFloor, CompiledFloor>();

/**
 * EventBridge's `cron(m h dom mon dow year)` as croner's seven-part pattern (seconds first): day-of-week 1–7 is
 * Sunday–Saturday (`alternativeWeekdays`), and one of day-of-month and day-of-week must be `?`, as EventBridge
 * requires. Throws with the reason.
 */
function compile(schedule: string, timeZone: string | undefined): Cron {
  const match = /^cron\((.*)\)$/.exec(schedule.trim());
  if (match === null)
    throw new Error("must be EventBridge's cron(minutes hours day-of-month month day-of-week year)");
  const fields = (match[1] as string).trim().split(/\s+/);
  if (fields.length !== 6) {
    throw new Error(
      `has ${fields.length} fields: cron() takes 6 (minutes hours day-of-month month day-of-week year)`,
    );
  }
  const [, , dayOfMonth, , dayOfWeek, year] = fields;
  // EventBridge's years are 1970–2199; croner's run to 9999, and a sparse pattern over those would be searched to
  // the end at every evaluation (tens of ms): bounded here as EventBridge bounds them.
  const years = (year as string).match(/\d+/g) ?? [];
  if (years.some((y) => Number(y) > 2199)) {
    throw new Error('has a year past 2199: EventBridge takes 1970-2199');
  }
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw new Error('needs ? in exactly one of day-of-month and day-of-week, as EventBridge does');
  }
  if (fields.some((f, i) => f.includes('?') && i !== 2 && i !== 4)) {
    throw new Error('has ? outside day-of-month and day-of-week, the only fields EventBridge takes it in');
  }
  const weekdays = dayOfWeekProblem(dayOfWeek as string);
  if (weekdays !== undefined) throw new Error(weekdays);
  // EventBridge's bare L in day-of-week is the week's last day, Saturday (7); croner takes L only after a day.
  if (dayOfWeek === 'L') fields[4] = '7';
  return new Cron(`0 ${fields.join(' ')}`, {
    paused: true,
    mode: '7-part',
    alternativeWeekdays: true,
    sloppyRanges: true,
    timezone: timeZone ?? 'UTC',
  });
}

const WEEKDAY = /^([1-7]|SUN|MON|TUE|WED|THU|FRI|SAT)$/i;

/**
 * EventBridge's day-of-week: 1–7 (Sunday–Saturday) or the days' names, in lists, ranges and steps, `L` after a day
 * (its last in the month), `#` and the nth (1–5). croner reads more (0 and 8 as Sunday, its own numbering): those
 * are refused here, as EventBridge refuses them, rather than evaluated as something else.
 */
function dayOfWeekProblem(field: string): string | undefined {
  if (field === '?' || field === '*' || field === 'L') return undefined;
  const refused = `has day-of-week '${field}': EventBridge takes 1-7 (1 is Sunday) or SUN-SAT, with , - / L and #1-#5`;
  for (const part of field.split(',')) {
    const [days, nth, more] = part.replace(/L$/, '').split('#');
    if (more !== undefined || (nth !== undefined && !/^[1-5]$/.test(nth))) return refused;
    const [range, step, extra] = (days as string).split('/');
    if (extra !== undefined || (step !== undefined && !/^[1-7]$/.test(step))) return refused;
    for (const day of (range as string).split('-')) if (day !== '*' && !WEEKDAY.test(day)) return refused;
  }
  return undefined;
}

function compiledOf(floor: ScheduledFloor): CompiledFloor {
  let entry = compiled.get(floor);
  if (entry === undefined) {
    entry = { floor, cron: compile(floor.schedule, floor.timeZone) };
    compiled.set(floor, entry);
  }
  return entry;
}

/**
 * The highest scheduled floor on at `now` (epoch seconds), or undefined: a floor is on from each start of its
 * schedule for its duration, [start, start + duration).
 */
export function activeScheduledFloor(
  floors: readonly ScheduledFloor[] | undefined,
  now: number,
): number | undefined {
  if (floors === undefined || floors.length === 0 || !Number.isFinite(now)) return undefined;
  let highest: number | undefined;
  for (const floor of floors) {
    const { cron } = compiledOf(floor);
    // The first start after (now − duration): on when it is no later than now.
    const start = cron.nextRun(new Date((now - floor.durationSeconds) * 1000));
    if (start !== null && start.getTime() <= now * 1000) {
      highest = Math.max(highest ?? 0, floor.minConcurrency);
    }
  }
  return highest;
}

/**
 * The config as the law applies it at `now`: the floor is the higher of `minConcurrency` and the scheduled floor on
 * now, never above the cap (validated so). Without scheduled floors, the config itself.
 */
export function withScheduledFloor<
  C extends { minConcurrency: number; maxConcurrency: number; floors?: readonly ScheduledFloor[] },
>(config: C, now: number): C {
  const active = activeScheduledFloor(config.floors, now);
  if (active === undefined || active <= config.minConcurrency) return config;
  return { ...config, minConcurrency: Math.min(config.maxConcurrency, active) };
}

/**
 * What the actuator keeps warm at `now`, for a value `desired`: in provisioned mode with scheduled floors, the
 * floor on now, or SQS's least (2 pollers) when none is, never above `desired` (MinimumPollers may not pass
 * MaximumPollers); undefined where nothing is warmed (no scheduled floors, or another actuator): the mapping's
 * MinimumPollers are then left as they are.
 */
export function warmConcurrency(
  config: { actuator: string; floors?: readonly ScheduledFloor[] },
  now: number,
  desired: number,
): number | undefined {
  if (config.actuator !== 'provisioned' || config.floors === undefined || config.floors.length === 0)
    return undefined;
  const active = activeScheduledFloor(config.floors, now) ?? 0;
  return Math.min(desired, Math.max(PROVISIONED_MIN_CONCURRENCY, active));
}

/**
 * Every problem of a `floors` value, each naming the floor, the field, the value and what is allowed; the floors
 * when there is none. `label` names the setting (the CDK prop, the environment variable, the config file's key).
 */
export function parseScheduledFloors(
  value: unknown,
  label: string,
): { readonly floors?: ScheduledFloor[]; readonly problems: string[] } {
  if (value === undefined) return { problems: [] };
  if (!Array.isArray(value)) {
    return {
      problems: [
        `${label} = ${shown(value)}: must be a list of { schedule, minConcurrency, durationSeconds, timeZone? }`,
      ],
    };
  }
  if (value.length > MAX_SCHEDULED_FLOORS) {
    return { problems: [`${label}: ${value.length} floors, at most ${MAX_SCHEDULED_FLOORS}`] };
  }
  const problems: string[] = [];
  const floors: ScheduledFloor[] = [];
  value.forEach((item: unknown, index) => {
    const at = `${label}[${index}]`;
    const floor = parseFloor(item, at, problems);
    if (floor !== undefined) floors.push(floor);
  });
  return problems.length > 0 ? { problems } : { floors, problems };
}

const FIELDS = new Set(['schedule', 'minConcurrency', 'durationSeconds', 'timeZone']);

function parseFloor(item: unknown, at: string, problems: string[]): ScheduledFloor | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    problems.push(`${at} = ${shown(item)}: must be { schedule, minConcurrency, durationSeconds, timeZone? }`);
    return undefined;
  }
  const record = item as Record<string, unknown>;
  const before = problems.length;
  for (const key of Object.keys(record)) {
    if (!FIELDS.has(key))
      problems.push(`${at}: unknown field ${shown(key)} (known: ${[...FIELDS].join(', ')})`);
  }
  const { schedule, minConcurrency, durationSeconds, timeZone } = record;
  const zoneKnown = timeZone === undefined || (typeof timeZone === 'string' && knownTimeZone(timeZone));
  if (minConcurrency === undefined) {
    problems.push(`${at}.minConcurrency is missing: an integer in [1; 10000] (concurrent executions)`);
  } else if (
    !Number.isInteger(minConcurrency) ||
    (minConcurrency as number) < 1 ||
    (minConcurrency as number) > 10_000
  ) {
    problems.push(
      `${at}.minConcurrency = ${shown(minConcurrency)}: must be an integer in [1; 10000] (concurrent executions)`,
    );
  }
  const duration = SCHEDULED_FLOOR_DURATION;
  if (
    typeof durationSeconds !== 'number' ||
    !Number.isInteger(durationSeconds) ||
    durationSeconds < duration.min ||
    durationSeconds > duration.max
  ) {
    problems.push(
      `${at}.durationSeconds = ${shown(durationSeconds)}: must be an integer in [${duration.min}; ${duration.max}] (seconds: a minute to a week)`,
    );
  }
  if (!zoneKnown) {
    problems.push(
      `${at}.timeZone = ${shown(timeZone)}: must be an IANA time zone, such as 'UTC' or 'Europe/Paris'`,
    );
  }
  scheduleProblem(
    schedule,
    zoneKnown ? (timeZone as string | undefined) : undefined,
    zoneKnown,
    at,
    problems,
  );
  if (problems.length > before) return undefined;
  return {
    schedule: schedule as string,
    minConcurrency: minConcurrency as number,
    durationSeconds: durationSeconds as number,
    ...(timeZone === undefined ? {} : { timeZone: timeZone as string }),
  };
}

/** The schedule's problem, if any: its syntax, its time zone's, and a date it matches. */
function scheduleProblem(
  schedule: unknown,
  timeZone: string | undefined,
  zoneKnown: boolean,
  at: string,
  problems: string[],
): void {
  if (typeof schedule !== 'string' || schedule.length > MAX_SCHEDULE_LENGTH) {
    problems.push(
      `${at}.schedule = ${shown(schedule)}: must be EventBridge's cron(minutes hours day-of-month month day-of-week year), such as 'cron(45 8 ? * MON-FRI *)'`,
    );
  } else if (zoneKnown) {
    try {
      const cron = compile(schedule, timeZone);
      // A schedule no date matches (30 February) would never raise anything: say so now. From 1970, not from the
      // clock: a config valid at deploy stays valid (a past year's schedule is merely never on).
      if (cron.nextRun(new Date(0)) === null) throw new Error('matches no date');
    } catch (error) {
      problems.push(`${at}.schedule = ${shown(schedule)}: ${(error as Error).message}`);
    }
  }
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
