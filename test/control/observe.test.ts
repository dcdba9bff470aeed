import { describe, expect, it } from 'vitest';
import { observe } from '../../lib/control/observe.ts';
import { decide } from '../../lib/control/policy.ts';
import type { Datapoint } from '../../lib/control/ports.ts';
import { config, NOW, snapshot, state } from './fixtures.ts';

/** A snapshot whose only series is `messagesSent`: one datapoint per [period start, messages sent in it]. */
function withSent(points: readonly (readonly [number, number])[]) {
  const messagesSent: Datapoint[] = points.map(([timestamp, value]) => ({ timestamp, value }));
  return observe({
    now: NOW,
    periodSeconds: 60,
    appliedConcurrency: 11,
    series: { ageOfOldestMessage: [], messagesSent, messagesDeleted: [], consumerDurationMs: [] },
  });
}

describe('observe: arrivals still climbing when CloudWatch last counted them', () => {
  it('100/s then 300/s: climbing 200/s a period, as of the newer period’s end', () => {
    expect(
      withSent([
        [NOW - 240, 6_000],
        [NOW - 180, 18_000],
      ]).arrivalsClimbing,
    ).toEqual({
      perPeriod: 200,
      periodSeconds: 60,
      observedAt: NOW - 120,
    });
  });

  it.each([
    {
      comment: 'a steady 250/s whose counts differ by their noise (15,000 ± 245): no climb',
      older: 14_760,
      newer: 15_240,
    },
    { comment: 'a fall: no climb', older: 18_000, newer: 6_000 },
  ])('$comment', ({ older, newer }) => {
    expect(
      withSent([
        [NOW - 240, older],
        [NOW - 180, newer],
      ]).arrivalsClimbing,
    ).toBeUndefined();
  });

  it('a missing period between the two (GetMetricData omits empty ones) proves nothing', () => {
    expect(
      withSent([
        [NOW - 300, 6_000],
        [NOW - 180, 18_000],
      ]).arrivalsClimbing,
    ).toBeUndefined();
  });
});

describe('the tick reads no heavier items where arrivals were climbing (held-out three-steps)', () => {
  // 11 workers at 31 ms, CloudWatch's newest period 300/s; the depth rose 1,602 → 9,515 over the minute at a
  // backlog throughout, the age 38 s past the setpoint of 30 s. Arrivals in fact stepped 300 → 500/s (need 17).
  const tick = (climbing: boolean) =>
    decide(
      snapshot({
        appliedConcurrency: 11,
        visibleMessages: 9_515,
        inFlightMessages: 110,
        arrivalRatePerSecond: 300,
        peakArrivalRatePerSecond: 300,
        completionRatePerSecond: 300,
        itemSeconds: 0.031,
        oldestAge: { seconds: 38, observedAt: NOW - 60 },
        ...(climbing
          ? { arrivalsClimbing: { perPeriod: 200, periodSeconds: 60, observedAt: NOW - 120 } }
          : {}),
      }),
      state({ lastChangeAt: NOW - 600, lastVisible: { at: NOW - 60, messages: 1_602, inFlight: 110 } }),
      config(),
    );

  it('not climbing, the rise reads as items twice as heavy, and the tick sizes on them', () => {
    expect(tick(false).inputs.itemSecondsShown).toBe(true);
  });

  it('climbing, the rise is the arrivals’ first: sized on the known time, a smaller growth', () => {
    const climbing = tick(true);
    expect(climbing.inputs.itemSecondsShown).toBeUndefined();
    expect(climbing.desired).toBeLessThan(tick(false).desired);
  });
});
