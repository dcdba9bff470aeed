import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../lib/operator/operator-error.ts';
import {
  MAX_PHASES,
  parseInstant,
  parseSince,
  periodFor,
  traceRange,
} from '../../lib/operator/trace-range.ts';

const DAY = 86_400;
// 2026-12-01T12:34:56Z: not on any period's boundary, so alignment shows.
const NOW = Date.UTC(2026, 11, 1, 12, 34, 56) / 1000;

describe('the period: the finest CloudWatch keeps for the range start', () => {
  it.each([
    { comment: 'an hour ago', age: 3_600, period: 60 },
    { comment: 'a second short of 15 days', age: 15 * DAY - 1, period: 60 },
    { comment: 'exactly 15 days ("less than 15 days" keeps minutes)', age: 15 * DAY, period: 300 },
    { comment: 'a second past 15 days', age: 15 * DAY + 1, period: 300 },
    { comment: 'a second short of 63 days', age: 63 * DAY - 1, period: 300 },
    { comment: 'exactly 63 days', age: 63 * DAY, period: 3_600 },
    { comment: 'a second past 63 days', age: 63 * DAY + 1, period: 3_600 },
    { comment: 'exactly 455 days', age: 455 * DAY, period: 3_600 },
  ])('$comment: $period s', ({ age, period }) => {
    expect(periodFor(age)?.periodSeconds).toBe(period);
  });

  it('has none beyond 455 days', () => {
    expect(periodFor(455 * DAY + 1)).toBeUndefined();
  });

  it('says why', () => {
    expect(periodFor(3 * DAY)?.why).toBe(
      'the range starts 3 days ago, within the 15 days CloudWatch keeps 1-minute data',
    );
    expect(periodFor(20 * DAY)?.why).toBe(
      'the range starts 20 days ago: CloudWatch keeps 1-minute data for 15 days, 5-minute data for 63 days',
    );
    expect(periodFor(100 * DAY)?.why).toBe(
      'the range starts 100 days ago: CloudWatch keeps 5-minute data for 63 days, 1-hour data for 455 days',
    );
  });

  it.each([
    { since: '14d', period: 60 },
    { since: '15d', period: 300 },
    { since: '62d', period: 300 },
    { since: '63d', period: 3_600 },
    { since: '455d', period: 3_600 },
  ])('--since $since: $period s', ({ since, period }) => {
    expect(traceRange({ since }, NOW).periodSeconds).toBe(period);
  });
});

describe('the range', () => {
  it('aligns --since to whole periods that have ended', () => {
    const range = traceRange({ since: '90m' }, NOW);
    expect(new Date(range.start * 1000).toISOString()).toBe('2026-12-01T11:04:00.000Z');
    expect(new Date(range.end * 1000).toISOString()).toBe('2026-12-01T12:34:00.000Z');
    expect(range).toMatchObject({ periodSeconds: 60, periods: 90, given: '--since 90m' });
  });

  it('aligns --from/--to down to the period, 5-minute past 15 days', () => {
    const range = traceRange({ from: '2026-11-01T00:03:00Z', to: '2026-11-02T10:07:00Z' }, NOW);
    expect(range.periodSeconds).toBe(300);
    expect(new Date(range.start * 1000).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(new Date(range.end * 1000).toISOString()).toBe('2026-11-02T10:05:00.000Z');
  });

  it('ends a --to in the future now, and says so', () => {
    const range = traceRange({ from: '2026-11-30', to: '2027-01-01' }, NOW);
    expect(new Date(range.end * 1000).toISOString()).toBe('2026-12-01T12:34:00.000Z');
    expect(range.why).toMatch(/--to is in the future, so the range ends now$/);
  });

  it('takes now for a missing --to, and reads offsets', () => {
    const range = traceRange({ from: '2026-12-01T10:00:00+02:00' }, NOW);
    expect(new Date(range.start * 1000).toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(range.periods).toBe(274);
  });

  it('stays far under the phase bound wherever retention allows', () => {
    for (const since of ['14d', '15d', '62d', '63d', '455d'])
      expect(traceRange({ since }, NOW).periods).toBeLessThan(MAX_PHASES / 4);
  });

  it.each([
    {
      comment: 'more than 455 days',
      flags: { since: '500d' },
      message:
        /^--since 500d: the range starts 500 days ago, beyond the 455 days CloudWatch keeps metrics: give a range that starts within the last 455 days/,
    },
    {
      comment: 'a --from more than 455 days ago',
      flags: { from: '2025-01-01' },
      message: /^--from 2025-01-01: the range starts 700 days ago, beyond the 455 days/,
    },
    {
      comment: 'from equal to to',
      flags: { from: '2026-11-03', to: '2026-11-03' },
      message:
        /^--from 2026-11-03 is not before --to 2026-11-03: give a range that starts within the last 455 days and ends after it starts/,
    },
    {
      comment: 'from after to',
      flags: { from: '2026-11-04T00:00:00Z', to: '2026-11-03T00:00:00Z' },
      message: /is not before --to/,
    },
    { comment: 'from in the future', flags: { from: '2027-01-01' }, message: /is in the future/ },
    { comment: 'both forms', flags: { since: '1d', from: '2026-11-01' }, message: /not both/ },
    { comment: 'neither', flags: {}, message: /give the range: --since 7d/ },
    { comment: '--to alone', flags: { to: '2026-11-01' }, message: /--to needs --from/ },
    {
      comment: 'less than a period',
      flags: { since: '0m' },
      message: /--since '0m': must be a whole number/,
    },
    {
      comment: 'a range inside one period',
      flags: { from: '2026-12-01T12:34:10Z' },
      message: /shorter than one whole 1-minute period/,
    },
  ])('refuses $comment with one line', ({ flags, message }) => {
    expect(() => traceRange(flags, NOW)).toThrow(OperatorError);
    expect(() => traceRange(flags, NOW)).toThrow(message);
  });

  it.each(['7', 'd', '7w', '1.5d', '-3d', ' ', '7 d'])('refuses --since %j', (since) => {
    expect(() => parseSince(since)).toThrow(/must be a whole number and a unit m, h or d/);
  });

  it.each([
    ['90m', 5_400],
    ['36h', 129_600],
    ['7d', 604_800],
  ])('reads --since %s as %i s', (since, seconds) => {
    expect(parseSince(since)).toBe(seconds);
  });

  it.each([
    'yesterday',
    '2026-11-03T04:00:00',
    '2026-13-01',
    'March 7, 2026',
    '1700000000',
    // Days that do not exist, which the parser would roll over to March 2 and May 1
    '2026-02-30',
    '2026-04-31T00:00:00Z',
  ])('refuses the time %j (ISO 8601 with a zone only)', (value) => {
    expect(() => parseInstant('--from', value)).toThrow(
      /must be an ISO 8601 date or date-time with its zone/,
    );
  });

  it('reads a date as UTC midnight, a leap day included', () => {
    expect(parseInstant('--from', '2026-11-03')).toBe(Date.UTC(2026, 10, 3) / 1000);
    expect(parseInstant('--from', '2028-02-29T12:00:00+01:00')).toBe(Date.UTC(2028, 1, 29, 11) / 1000);
  });
});
