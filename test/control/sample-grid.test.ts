import { describe, expect, it } from 'vitest';
import { sampleGrid, sampleTimes } from '../../lib/control/sample-grid.ts';

const T = 1_800_000_000; // a tick's scheduled time, on the minute

/**
 * The Lambda's sample grid as its fast loop took it before the one control loop (handler.ts `fastLoop`): the slot
 * starts at min(started, scheduledAt), samples fall at slotStart + k·interval, those at or before `started` are
 * skipped, and the last may start 10 s before the next tick (slotStart + tickSeconds − 10).
 */
describe('sampleTimes: the Lambda fast loop schedule', () => {
  it.each([
    {
      comment: 'the default: 10 s in a 60 s tick, five samples, the last 10 s before the next tick',
      tick: 60,
      interval: 10,
      scheduledAt: T,
      started: T + 0.4,
      expected: [10, 20, 30, 40, 50],
    },
    {
      comment: '5 s: the grid stops at +50 too (no sample at +55: within 10 s of the next tick)',
      tick: 60,
      interval: 5,
      scheduledAt: T,
      started: T + 0.4,
      expected: [5, 10, 15, 20, 25, 30, 35, 40, 45, 50],
    },
    {
      comment: '7 s: the grid restarts at each tick (+7 … +49), it does not run on across ticks',
      tick: 60,
      interval: 7,
      scheduledAt: T,
      started: T + 0.4,
      expected: [7, 14, 21, 28, 35, 42, 49],
    },
    {
      comment: 'a late-delivered event (a retry 23 s in) samples what is left of its own slot, on its grid',
      tick: 60,
      interval: 10,
      scheduledAt: T,
      started: T + 23,
      expected: [30, 40, 50],
    },
    {
      comment: 'a late event at 7 s keeps the slot grid: +28, not started + 7',
      tick: 60,
      interval: 7,
      scheduledAt: T,
      started: T + 23,
      expected: [28, 35, 42, 49],
    },
    {
      comment: 'started exactly on a grid time: that sample is skipped (the tick itself just read the queue)',
      tick: 60,
      interval: 10,
      scheduledAt: T,
      started: T + 20,
      expected: [30, 40, 50],
    },
    {
      comment: 'delivered past the last sample time: none',
      tick: 60,
      interval: 10,
      scheduledAt: T,
      started: T + 55,
      expected: [],
    },
    {
      comment: 'a hand-made invocation (no scheduled time): the slot starts when it started',
      tick: 60,
      interval: 10,
      scheduledAt: undefined,
      started: T + 0.5,
      expected: [10.5, 20.5, 30.5, 40.5, 50.5],
    },
    {
      comment: 'started before its scheduled time (clock skew): the slot starts at the start',
      tick: 60,
      interval: 10,
      scheduledAt: T + 1,
      started: T + 0.5,
      expected: [10.5, 20.5, 30.5, 40.5, 50.5],
    },
    {
      comment: 'a 120 s tick: eleven samples, the last at +110',
      tick: 120,
      interval: 10,
      scheduledAt: T,
      started: T + 0.4,
      expected: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110],
    },
    {
      comment: 'the fast path off (0): no sample',
      tick: 60,
      interval: 0,
      scheduledAt: T,
      started: T + 0.4,
      expected: [],
    },
  ])('$comment', ({ tick, interval, scheduledAt, started, expected }) => {
    const times = sampleTimes({ started, scheduledAt }, { tickSeconds: tick, fastSampleSeconds: interval });
    expect(times.map((t) => t - T)).toEqual(expected);
  });

  it('names the slot: its start, the next tick and the last sample start', () => {
    const grid = sampleGrid({ started: T + 23, scheduledAt: T }, { tickSeconds: 60, fastSampleSeconds: 10 });
    expect(grid).toMatchObject({ start: T, nextTick: T + 60, end: T + 50 });
  });
});
