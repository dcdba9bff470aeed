import { describe, expect, it } from 'vitest';
import type { DepthSample } from '../../lib/control/depth-sample.ts';
import { climbedTo, heavierItemsShown } from '../../lib/control/heavier-items.ts';
import { config } from './fixtures.ts';

/**
 * downstream-at-limit, one poller step a minute, seed 4: 11 workers after an idle shrink 12 → 11 at 0 s, 200/s
 * of 40 ms items reported, and the depth rising 0 → 8,824 in the minute after it as a burst of 400/s begins.
 * The workers served 203.7 − 147.1 = 56.6/s: items read as 0.194 s, 4.9 × the known time.
 */
function shownAfter(previous: DepthSample) {
  return heavierItemsShown(
    {
      previous,
      now: 60,
      visible: 8_824,
      applied: 11,
      inFlight: 110,
      itemSeconds: 0.04,
      lastChangeAt: 0,
      maxElapsedSeconds: 120,
    },
    { itemSeconds: 0.04, reportedArrivals: 200 },
    config(),
  );
}

const served = 200 + 2 * Math.sqrt(200 / 60) - 8_824 / 60;

describe('heavierItemsShown: the minute after a lowering claims at most twice the known time', () => {
  it('after a lowering that binds at once the rise may be the burst that ended the idleness: 2 × 40 ms', () => {
    const shown = shownAfter({ at: 0, messages: 0, inFlight: 100, settled: true });
    expect(shown?.itemSeconds).toBeCloseTo(0.08);
    // The completions stay what the depth showed: the growth's probe is judged against them.
    expect(shown?.completionsPerSecond).toBeCloseTo(served);
  });

  it('an interval settled a minute after its change is read as it shows: 11 ÷ 56.6/s', () => {
    const shown = heavierItemsShown(
      {
        previous: { at: 0, messages: 0, inFlight: 100 },
        now: 60,
        visible: 8_824,
        applied: 11,
        inFlight: 110,
        itemSeconds: 0.04,
        lastChangeAt: -60,
        maxElapsedSeconds: 120,
      },
      { itemSeconds: 0.04, reportedArrivals: 200 },
      config(),
    );
    expect(shown?.itemSeconds).toBeCloseTo(11 / served);
  });

  it('a backlog at both ends: the 11 applied served, though only 6 batches were in flight at that instant', () => {
    // Workers between two batches hold nothing in flight; with a backlog throughout, every applied one was busy.
    const shown = (previousMessages: number) =>
      heavierItemsShown(
        {
          previous: { at: 0, messages: previousMessages, inFlight: 110 },
          now: 60,
          visible: 8_824,
          applied: 11,
          inFlight: 60,
          itemSeconds: 0.04,
          lastChangeAt: -60,
          maxElapsedSeconds: 120,
        },
        { itemSeconds: 0.04, reportedArrivals: 200 },
        config(),
      );
    const servedFrom = (start: number) => 200 + 2 * Math.sqrt(200 / 60) - (8_824 - start) / 60;
    expect(shown(2_000)?.itemSeconds).toBeCloseTo(11 / servedFrom(2_000));
    // From a start with no backlog, those running by the end: 6 (the applied 11 may not all have run).
    expect(shown(0)?.itemSeconds).toBeCloseTo(6 / servedFrom(0));
  });

  it('the same minute with the change unsettled (a raise): nothing is read', () => {
    expect(shownAfter({ at: 0, messages: 0, inFlight: 100 })).toBeUndefined();
  });
});

describe('heavierItemsShown: a rise at the reported rate or faster is arrivals, not heavier items', () => {
  // 3/s reported, 2 workers at 0.5 s items: the busiest rate 10 s leave plausible is 3 + 2 × √0.3 ≈ 4.1/s.
  const shown = (visible: number) =>
    heavierItemsShown(
      {
        previous: { at: 0, messages: 6, inFlight: 20 },
        now: 10,
        visible,
        applied: 2,
        inFlight: 20,
        itemSeconds: 0.5,
        lastChangeAt: -3_600,
        maxElapsedSeconds: 120,
      },
      { itemSeconds: 0.5, reportedArrivals: 3 },
      config(),
    );

  it('3.5/s risen against 3/s reported: nothing is read (the workers would have served the noise allowance alone)', () => {
    expect(shown(41)).toBeUndefined();
  });

  it('2/s risen: the 2 served 4.1 − 2 = 2.1/s, items of 0.95 s where 0.5 s were known', () => {
    expect(shown(26)?.itemSeconds).toBeCloseTo(2 / (3 + 2 * Math.sqrt(0.3) - 2));
  });
});

describe('heavierItemsShown: arrivals CloudWatch last counted climbing', () => {
  // Held-out three-steps (100, 300, 500/s of 31 ms items in two-minute steps), 500/s from 1,440 s: at 1,500 s 11
  // workers and the depth rising 1,602 → 9,515 over the minute, CloudWatch's newest period (1,320–1,380 s) 300/s,
  // 200/s above the one before it.
  const threeSteps = (climbing?: { perPeriod: number; periodSeconds: number; observedAt: number }) =>
    heavierItemsShown(
      {
        previous: { at: 1_440, messages: 1_602, inFlight: 110 },
        now: 1_500,
        visible: 9_515,
        applied: 11,
        inFlight: 110,
        itemSeconds: 0.031,
        lastChangeAt: 1_000,
        maxElapsedSeconds: 120,
      },
      {
        itemSeconds: 0.031,
        reportedArrivals: 300,
        ...(climbing === undefined ? {} : { arrivalsClimbing: climbing }),
      },
      config(),
    );

  it('a step CloudWatch has not counted yet is not heavier items: nothing is read', () => {
    // At 300/s the 11 served 300 + 4.5 − 131.9 = 172.6/s: 64 ms items, twice the known time (the law grew 11 → 28).
    expect(threeSteps()?.itemSeconds).toBeCloseTo(11 / (300 + 2 * Math.sqrt(300 / 60) - 7_913 / 60), 4);
    // Climbing 200/s a period, two periods on: 450/s at most (1.5 × 300), served 318/s: 35 ms, not heavier.
    expect(threeSteps({ perPeriod: 200, periodSeconds: 60, observedAt: 1_380 })).toBeUndefined();
  });
});

describe('climbedTo', () => {
  it.each([
    { comment: 'nothing climbed: the reported rate', climbing: undefined, now: 1_500, expected: 300 },
    {
      comment: 'one period on at 60/s a period: 360/s',
      climbing: { perPeriod: 60, periodSeconds: 60, observedAt: 1_440 },
      now: 1_500,
      expected: 360,
    },
    {
      comment: 'at most 1.5 × the reported rate: past it the depth proves a spike by itself',
      climbing: { perPeriod: 200, periodSeconds: 60, observedAt: 1_380 },
      now: 1_500,
      expected: 450,
    },
    {
      comment: 'a clock before the period’s end extrapolates nothing',
      climbing: { perPeriod: 200, periodSeconds: 60, observedAt: 1_560 },
      now: 1_500,
      expected: 300,
    },
  ])('$comment', ({ climbing, now, expected }) => {
    expect(climbedTo(300, climbing, now)).toBeCloseTo(expected);
  });
});
