import { describe, expect, it } from 'vitest';
import { ConfigError, resolveScalerConfig } from '../../lib/control/config.ts';
import { configFromEnvironment, settingsToEnvironment } from '../../lib/control/environment.ts';
import type { MetricSeries, QueueDepth } from '../../lib/control/ports.ts';
import {
  activeScheduledFloor,
  parseScheduledFloors,
  type ScheduledFloor,
  warmConcurrency,
  withScheduledFloor,
} from '../../lib/control/scheduled-floors.ts';
import { runFastSample, runTick, type TickPorts } from '../../lib/control/tick.ts';
import { config } from './fixtures.ts';

const at = (iso: string) => Date.parse(iso) / 1000;
/** Weekdays at 08:45 UTC, for two hours, a floor of 20. */
const WEEKDAY_MORNINGS: ScheduledFloor = {
  schedule: 'cron(45 8 ? * MON-FRI *)',
  minConcurrency: 20,
  durationSeconds: 7200,
};

describe('a scheduled floor is on from each start of its schedule for its duration', () => {
  it.each([
    { comment: 'a minute before the start (Monday 08:44)', now: '2026-12-07T08:44:00Z', on: undefined },
    { comment: 'at the start', now: '2026-12-07T08:45:00Z', on: 20 },
    { comment: 'within the window', now: '2026-12-07T10:00:00Z', on: 20 },
    { comment: 'the last second of the window', now: '2026-12-07T10:44:59Z', on: 20 },
    { comment: 'at its end', now: '2026-12-07T10:45:00Z', on: undefined },
    { comment: 'a Saturday at the same hour (not a weekday)', now: '2026-12-05T09:00:00Z', on: undefined },
    { comment: 'a Sunday', now: '2026-12-06T09:00:00Z', on: undefined },
  ])('$comment: $on', ({ now, on }) => {
    expect(activeScheduledFloor([WEEKDAY_MORNINGS], at(now))).toBe(on);
  });

  it('EventBridge numbers the week from Sunday (1) to Saturday (7), not cron’s 0–6', () => {
    const sundays = { ...WEEKDAY_MORNINGS, schedule: 'cron(0 9 ? * 1 *)' };
    expect(activeScheduledFloor([sundays], at('2026-12-06T09:30:00Z'))).toBe(20); // a Sunday
    expect(activeScheduledFloor([sundays], at('2026-12-07T09:30:00Z'))).toBeUndefined(); // a Monday
  });

  it('a bare L in day-of-week is the week’s last day, Saturday, as EventBridge reads it', () => {
    const saturdays = { ...WEEKDAY_MORNINGS, schedule: 'cron(0 9 ? * L *)' };
    expect(activeScheduledFloor([saturdays], at('2026-12-05T09:30:00Z'))).toBe(20); // a Saturday
    expect(activeScheduledFloor([saturdays], at('2026-12-04T09:30:00Z'))).toBeUndefined(); // a Friday
    // 6L: the month's last Friday
    const lastFriday = { ...WEEKDAY_MORNINGS, schedule: 'cron(0 9 ? * 6L *)' };
    expect(activeScheduledFloor([lastFriday], at('2026-12-25T09:30:00Z'))).toBe(20);
    expect(activeScheduledFloor([lastFriday], at('2026-12-18T09:30:00Z'))).toBeUndefined();
  });

  it('reads the schedule in its time zone, daylight saving included', () => {
    const paris = { ...WEEKDAY_MORNINGS, schedule: 'cron(0 9 ? * * *)', timeZone: 'Europe/Paris' };
    // 09:00 in Paris is 08:00 UTC in winter, 07:00 UTC in summer
    expect(activeScheduledFloor([paris], at('2026-12-07T08:00:00Z'))).toBe(20);
    expect(activeScheduledFloor([paris], at('2026-12-07T07:59:00Z'))).toBeUndefined();
    expect(activeScheduledFloor([paris], at('2026-07-06T07:00:00Z'))).toBe(20);
  });

  it('a window that runs past midnight stays on across it', () => {
    const night = { schedule: 'cron(0 23 * * ? *)', minConcurrency: 10, durationSeconds: 3 * 3600 };
    expect(activeScheduledFloor([night], at('2026-12-08T01:30:00Z'))).toBe(10);
    expect(activeScheduledFloor([night], at('2026-12-08T02:00:00Z'))).toBeUndefined();
  });

  it('of two floors on at once, the higher holds', () => {
    const all = [
      WEEKDAY_MORNINGS,
      { schedule: 'cron(0 9 * * ? *)', minConcurrency: 30, durationSeconds: 600 },
    ];
    expect(activeScheduledFloor(all, at('2026-12-07T09:05:00Z'))).toBe(30);
    expect(activeScheduledFloor(all, at('2026-12-07T09:15:00Z'))).toBe(20);
  });
});

describe('the law applies the floor on now, never past the cap', () => {
  it('raises minConcurrency while a floor is on, and leaves the config as it is otherwise', () => {
    const c = config({ floors: [WEEKDAY_MORNINGS] });
    expect(withScheduledFloor(c, at('2026-12-07T09:00:00Z')).minConcurrency).toBe(20);
    expect(withScheduledFloor(c, at('2026-12-07T12:00:00Z'))).toBe(c);
  });

  /** A quiet queue's ports at `applied`: the law on its own would hold (nothing arrives). */
  function quietPorts(applied: number, writes: number[][]): TickPorts {
    const series: MetricSeries = {
      ageOfOldestMessage: [{ timestamp: 0, value: 0 }],
      messagesSent: [],
      messagesDeleted: [],
      consumerDurationMs: [],
    };
    const empty: QueueDepth = { visible: 0, inFlight: 0, delayed: 0 };
    return {
      metrics: {
        read: async (now) => ({ ...series, ageOfOldestMessage: [{ timestamp: now - 120, value: 0 }] }),
      },
      queue: { depth: async () => empty },
      concurrency: {
        applied: async () => applied,
        apply: async (desired, was, warm) => {
          writes.push(warm === undefined ? [desired, was] : [desired, was, warm]);
        },
      },
      state: { load: async () => ({}), save: async () => {} },
    };
  }
  const options = { periodSeconds: 60, windowSeconds: 3600 };

  it('the tick raises the limit to a floor that came on (grow:below-floor), with nothing arriving', async () => {
    const writes: number[][] = [];
    const c = config({ floors: [WEEKDAY_MORNINGS] });
    const result = await runTick(quietPorts(2, writes), c, at('2026-12-07T08:45:30Z'), options);
    expect(result.decision.reason).toBe('grow:below-floor');
    expect(writes).toEqual([[20, 2]]);
  });

  it('without the floor on, the same tick holds', async () => {
    const writes: number[][] = [];
    const c = config({ floors: [WEEKDAY_MORNINGS] });
    const result = await runTick(quietPorts(2, writes), c, at('2026-12-07T08:44:30Z'), options);
    expect(result.decision.reason.startsWith('grow:')).toBe(false);
    expect(writes).toEqual([]);
  });

  it('a sample between ticks holds the floor too', async () => {
    const writes: number[][] = [];
    const c = config({ floors: [WEEKDAY_MORNINGS] });
    const ports = quietPorts(2, writes);
    const result = await runFastSample(
      ports,
      { applied: 2, tickApplied: 2, confirmed: false },
      c,
      at('2026-12-07T08:45:10Z'),
    );
    expect(result.decision.desired).toBe(20);
    expect(writes[0]?.[0]).toBe(20);
  });

  it('after the window the floor is the setting again: the law shrinks as after any idleness, a step at a time', async () => {
    const writes: number[][] = [];
    const c = config({ floors: [WEEKDAY_MORNINGS] });
    const result = await runTick(quietPorts(20, writes), c, at('2026-12-07T10:46:00Z'), options);
    // The first tick after the window does not drop to 2: idleness must be sustained first
    expect(result.decision.desired).toBe(20);
  });
});

describe('provisioned mode keeps the floor’s pollers warm, only while it is on', () => {
  const provisioned = (floors: ScheduledFloor[]) =>
    config({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 100, floors });
  const morning = { ...WEEKDAY_MORNINGS, minConcurrency: 60 };

  it.each([
    { comment: 'on: the floor’s pollers (6)', now: '2026-12-07T09:00:00Z', desired: 60, warm: 60 },
    { comment: 'off: SQS’s least, 2 pollers', now: '2026-12-07T12:00:00Z', desired: 60, warm: 20 },
    { comment: 'never above the maximum written', now: '2026-12-07T09:00:00Z', desired: 40, warm: 40 },
  ])('$comment', ({ now, desired, warm }) => {
    expect(warmConcurrency(provisioned([morning]), at(now), desired)).toBe(warm);
  });

  it('nothing to warm without scheduled floors, or with another actuator: MinimumPollers are left as they are', () => {
    expect(warmConcurrency(provisioned([]), at('2026-12-07T09:00:00Z'), 60)).toBeUndefined();
    expect(
      warmConcurrency(config({ floors: [WEEKDAY_MORNINGS] }), at('2026-12-07T09:00:00Z'), 20),
    ).toBeUndefined();
  });

  it('the tick writes the warm pollers alone when only they move (the window ended, the maximum held)', async () => {
    const writes: number[][] = [];
    const ports = (warm: number): TickPorts => ({
      metrics: {
        read: async (now) => ({
          ageOfOldestMessage: [{ timestamp: now - 120, value: 0 }],
          messagesSent: [],
          messagesDeleted: [],
          consumerDurationMs: [],
        }),
      },
      queue: { depth: async () => ({ visible: 0, inFlight: 0, delayed: 0 }) },
      concurrency: {
        applied: async () => 60,
        condition: async () => ({ warm }),
        apply: async (desired, was, w) => {
          writes.push([desired, was, w as number]);
        },
      },
      state: { load: async () => ({}), save: async () => {} },
    });
    const options = { periodSeconds: 60, windowSeconds: 3600 };
    const after = at('2026-12-07T10:46:00Z');
    const result = await runTick(ports(60), provisioned([morning]), after, options);
    expect(result.changed).toBe(true);
    expect(writes).toEqual([[60, 60, 20]]);
    // Already at 2 pollers: nothing to write
    writes.length = 0;
    await runTick(ports(20), provisioned([morning]), after, options);
    expect(writes).toEqual([]);
  });
});

describe('floors are validated with the settings: the field, the value, what is allowed', () => {
  it.each([
    { comment: 'not a list', floors: 'cron(0 9 * * ? *)', problem: /^floors = .*: must be a list/ },
    {
      comment: 'cron’s five fields',
      floors: [{ schedule: 'cron(0 9 * * *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /^floors\[0\]\.schedule = .*: has 5 fields: cron\(\) takes 6/,
    },
    {
      comment: 'no ?',
      floors: [{ schedule: 'cron(0 9 * * * *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /needs \? in exactly one of day-of-month and day-of-week/,
    },
    {
      comment: '? in the minutes (EventBridge takes it only in the day fields)',
      floors: [{ schedule: 'cron(? 9 ? * 2 *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /has \? outside day-of-month and day-of-week/,
    },
    {
      comment: 'a weekday of 8 (croner would read it as a Sunday)',
      floors: [{ schedule: 'cron(0 9 ? * 8 *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /has day-of-week '8': EventBridge takes 1-7 \(1 is Sunday\) or SUN-SAT/,
    },
    {
      comment: 'a weekday of 0 (cron’s Sunday, not EventBridge’s)',
      floors: [{ schedule: 'cron(0 9 ? * 0,2 *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /has day-of-week '0,2'/,
    },
    {
      comment: 'a sixth Monday',
      floors: [{ schedule: 'cron(0 9 ? * 2#6 *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /has day-of-week '2#6'/,
    },
    {
      comment: 'a rate',
      floors: [{ schedule: 'rate(1 hour)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /must be EventBridge's cron/,
    },
    {
      comment: 'an hour of 25',
      floors: [{ schedule: 'cron(0 25 * * ? *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /^floors\[0\]\.schedule = 'cron\(0 25 \* \* \? \*\)': .*hour/,
    },
    {
      comment: 'a date that never comes (30 February)',
      floors: [{ schedule: 'cron(0 9 30 2 ? *)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /matches no date/,
    },
    {
      comment:
        'a year past EventBridge’s 2199 (a sparse pattern to 9999 would be searched at every evaluation)',
      floors: [{ schedule: 'cron(0 0 ? 2 1#5 1976,2101-9999/4)', minConcurrency: 10, durationSeconds: 600 }],
      problem: /has a year past 2199: EventBridge takes 1970-2199/,
    },
    {
      comment: 'a duration under a minute',
      floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 10, durationSeconds: 30 }],
      problem: /^floors\[0\]\.durationSeconds = 30: must be an integer in \[60; 604800\]/,
    },
    {
      comment: 'an unknown time zone',
      floors: [
        { schedule: 'cron(0 9 * * ? *)', minConcurrency: 10, durationSeconds: 600, timeZone: 'Mars/Olympus' },
      ],
      problem: /timeZone = 'Mars\/Olympus': must be an IANA time zone/,
    },
    {
      comment: 'a misspelt field',
      floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurency: 10, durationSeconds: 600 }],
      problem: /unknown field 'minConcurency'/,
      also: /^floors\[0\]\.minConcurrency is missing/,
    },
    {
      comment: 'at or under minConcurrency: it raises nothing',
      floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 2, durationSeconds: 600 }],
      problem: /^floors\[0\]\.minConcurrency = 2: must be above minConcurrency \(2\)/,
    },
    {
      comment: 'above the cap',
      floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 40, durationSeconds: 600 }],
      problem: /^floors\[0\]\.minConcurrency = 40: must not exceed the cap 32/,
    },
  ])('$comment', ({ floors, problem, also }: { floors: unknown; problem: RegExp; also?: RegExp }) => {
    expect(() => resolveScalerConfig({ floors } as never)).toThrow(ConfigError);
    try {
      resolveScalerConfig({ floors } as never);
    } catch (error) {
      const expected = [problem, ...(also ? [also] : [])].map((p) => expect.stringMatching(p));
      expect((error as ConfigError).problems).toEqual(expected);
    }
  });

  it('in provisioned mode a floor is whole pollers', () => {
    expect(() =>
      resolveScalerConfig({
        actuator: 'provisioned',
        minConcurrency: 20,
        maxConcurrency: 100,
        floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 45, durationSeconds: 600 }],
      }),
    ).toThrow(/floors\[0\]\.minConcurrency = 45: must be a multiple of 10/);
  });

  it('in provisioned mode a floor warms at most the 200 MinimumPollers SQS allows', () => {
    expect(() =>
      resolveScalerConfig({
        actuator: 'provisioned',
        minConcurrency: 20,
        maxConcurrency: 5000,
        floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 2010, durationSeconds: 600 }],
      }),
    ).toThrow(
      /floors\[0\]\.minConcurrency = 2010: must be at most 2000 .*MinimumPollers, which SQS allows up to 200/,
    );
  });

  it('at most ten floors', () => {
    const eleven = Array.from({ length: 11 }, () => WEEKDAY_MORNINGS);
    expect(parseScheduledFloors(eleven, 'floors').problems).toEqual(['floors: 11 floors, at most 10']);
  });

  it('the controller’s environment carries them as JSON, and a problem names its variable', () => {
    const env = settingsToEnvironment({ floors: [WEEKDAY_MORNINGS] });
    expect(JSON.parse(env.SCHEDULED_FLOORS as string)).toEqual([WEEKDAY_MORNINGS]);
    expect(configFromEnvironment(env).floors).toEqual([WEEKDAY_MORNINGS]);
    expect(() => configFromEnvironment({ SCHEDULED_FLOORS: '[{' })).toThrow(
      /SCHEDULED_FLOORS = '\[\{': must be a list/,
    );
  });
});
