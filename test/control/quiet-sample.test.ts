import { describe, expect, it } from 'vitest';
import type { DepthSample } from '../../lib/control/depth-sample.ts';
import { decideFast, fastPathContext } from '../../lib/control/fast-path.ts';
import { decide } from '../../lib/control/policy.ts';
import { countedEnough, quietSample, quietStart } from '../../lib/control/quiet-sample.ts';
import type { ControllerState } from '../../lib/control/snapshot.ts';
import { config, NOW, snapshot, state } from './fixtures.ts';

describe('quietSample: the last sample between ticks with no backlog waiting', () => {
  const before: DepthSample = { at: NOW - 40, messages: 4 };

  it('a sample with less than a batch per worker waiting is quiet: the rise, if one comes, begins after it', () => {
    const sample = { at: NOW - 30, messages: 69 };
    expect(quietSample(before, sample, 7)).toBe(sample);
  });

  it('a backlog keeps the quiet sample before it', () => {
    expect(quietSample(before, { at: NOW - 20, messages: 1_900 }, 7)).toBe(before);
    expect(quietSample(undefined, { at: NOW - 20, messages: 70 }, 7)).toBeUndefined();
  });
});

describe('quietStart: where the tick may read the per-item time the depth shows from, instead of its previous sample', () => {
  const tick: DepthSample = { at: NOW - 60, messages: 3 };
  const quiet: DepthSample = { at: NOW - 30, messages: 5 };
  const held = (overrides: Partial<ControllerState>) =>
    quietStart({ lastVisible: tick, lastChangeAt: NOW - 3_600, ...overrides });

  it('the quiet sample, where it is newer than the previous tick’s and the value held through', () => {
    expect(held({ lastQuiet: quiet })).toBe(quiet);
  });

  it('none where there is no quiet one, or one older than the previous tick’s (a loop before)', () => {
    expect(held({})).toBeUndefined();
    expect(held({ lastQuiet: { at: NOW - 90, messages: 2 } })).toBeUndefined();
  });

  it('none where the value changed within a settling time before the quiet one', () => {
    // A growth 50 s before it: the workers it added were not all running yet.
    expect(held({ lastQuiet: quiet, lastChangeAt: NOW - 80 })).toBeUndefined();
  });

  it('none before the first tick', () => {
    expect(quietStart({ lastQuiet: quiet })).toBeUndefined();
  });
});

describe('the tick reads a rise that began within the minute over the rise alone', () => {
  // Held-out heavier-mid-minute, seed 1: 350/s, 7 workers, items 15 → 45 ms at NOW − 30. CloudWatch (two minutes
  // late) still says 15.6 ms; the depth rose 3 → 5,939 since the previous tick, all of it in the last 30 s.
  const tickAfter = (lastQuiet: DepthSample | undefined) =>
    decide(
      snapshot({
        appliedConcurrency: 7,
        age: 0.2,
        lag: 120,
        arrivalRatePerSecond: 350,
        peakArrivalRatePerSecond: 350,
        completionRatePerSecond: 350,
        itemSeconds: 0.0156,
        ratePeriodSeconds: 60,
        visibleMessages: 5_939,
        inFlightMessages: 70,
      }),
      state({
        baselineItemSeconds: 0.0156,
        baselineArrivalRate: 350,
        lastChangeAt: NOW - 3_600,
        lastVisible: { at: NOW - 60, messages: 3, inFlight: 66 },
        ...(lastQuiet === undefined ? {} : { lastQuiet }),
      }),
      config(),
    );

  it('from the last quiet sample the 7 served 159/s: 44 ms an item, not the 27 ms a minute’s average reads', () => {
    const fromQuiet = tickAfter({ at: NOW - 30, messages: 5, inFlight: 70 });
    const servedFromQuiet = 350 + 2 * Math.sqrt(350 / 30) - (5_939 - 5) / 30;
    expect(fromQuiet.inputs.itemSeconds).toBeCloseTo(7 / servedFromQuiet);
    const overTheMinute = tickAfter(undefined);
    const servedOverTheMinute = 350 + 2 * Math.sqrt(350 / 60) - (5_939 - 3) / 60;
    expect(overTheMinute.inputs.itemSeconds).toBeCloseTo(7 / servedOverTheMinute);
  });

  it('a low rate over the few seconds since a quiet sample counts too little: the tick reads over its minute', () => {
    // A trace at 2.9/s reported, 5 workers at 2 s items: 22 waiting at the previous tick, 31 at a quiet sample 10 s
    // ago, 55 now. Over the 10 s the 5 served 4.0 − 2.4 = 1.6/s (3.1 s items, 16 counted against 4 × √29 of
    // noise); over the minute 2.8/s (1.8 s: not heavier).
    const decision = decide(
      snapshot({
        appliedConcurrency: 5,
        age: 31,
        lag: 120,
        arrivalRatePerSecond: 2.92,
        completionRatePerSecond: 2.9,
        itemSeconds: 1.98,
        ratePeriodSeconds: 60,
        visibleMessages: 55,
        inFlightMessages: 50,
      }),
      state({
        baselineItemSeconds: 1.98,
        baselineArrivalRate: 2.92,
        lastChangeAt: NOW - 3_600,
        lastVisible: { at: NOW - 60, messages: 22, inFlight: 47 },
        lastQuiet: { at: NOW - 10, messages: 31, inFlight: 50 },
      }),
      config(),
    );
    expect(decision.inputs.itemSeconds).toBe(1.98);
  });

  it('a rise that outran the counted arrivals since the quiet sample is arrivals, not heavier items: no reading', () => {
    // sawtooth, one poller step a minute, the tick 10 s into the 600/s phase: 3 workers for 100/s of 21 ms items
    // counted; 4,608 waiting 10 s after a quiet sample (461/s: the depth outran the 100/s counted). Over the minute
    // it is 77/s, read as 113 ms items, and the samples sized on that grew 16 → 32 for a need of 14.
    const sawtoothTick = (lastQuiet: DepthSample | undefined) =>
      decide(
        snapshot({
          appliedConcurrency: 3,
          age: 0.5,
          lag: 120,
          arrivalRatePerSecond: 100.7,
          completionRatePerSecond: 100.7,
          itemSeconds: 0.021,
          ratePeriodSeconds: 60,
          visibleMessages: 4_608,
          inFlightMessages: 30,
        }),
        state({
          baselineItemSeconds: 0.021,
          baselineArrivalRate: 100,
          lastChangeAt: NOW - 3_600,
          lastVisible: { at: NOW - 60, messages: 4, inFlight: 21 },
          ...(lastQuiet === undefined ? {} : { lastQuiet }),
        }),
        config(),
      );
    expect(sawtoothTick({ at: NOW - 10, messages: 3, inFlight: 20 }).inputs.itemSeconds).toBe(0.021);
    // Without the quiet sample the minute's average is all the tick has, and it reads heavier items.
    expect(sawtoothTick(undefined).inputs.itemSeconds).toBeGreaterThan(0.1);
  });

  const contextAfter = (lastQuiet: DepthSample | undefined) => {
    const observed = snapshot({
      appliedConcurrency: 7,
      visibleMessages: 5_939,
      inFlightMessages: 70,
      arrivalRatePerSecond: 350,
      itemSeconds: 0.0156,
    });
    return fastPathContext(observed, tickAfter(lastQuiet), 7, config());
  };

  it('the samples after that tick size on the sharper time, at most twice the value: 7 → 14, unjudged', () => {
    const context = contextAfter({ at: NOW - 30, messages: 5, inFlight: 70 });
    expect(context.itemSeconds).toBeGreaterThan(0.04);
    // The tick grew on it ahead of the age (not behind yet, 30 s by the time growth binds), unprobed and bounded
    // alike (load.ts, `ageWhenGrowthBinds`): no probe judges the samples' growth either (fast-context.ts).
    expect(tickAfter({ at: NOW - 30, messages: 5, inFlight: 70 })).toMatchObject({
      reason: 'grow:age-above-target',
      desired: 14,
      inputs: { grownAhead: true },
    });
    expect(context.unjudgedLimit).toBe(14);
    const grown = decideFast({ at: NOW + 10, messages: 7_828, inFlight: 70 }, context, config()).desired;
    expect(grown).toBe(14);
    const unbounded = { ...context, unjudgedLimit: undefined };
    expect(
      decideFast({ at: NOW + 10, messages: 7_828, inFlight: 70 }, unbounded, config()).desired,
    ).toBeGreaterThan(14);
  });

  it('a time CloudWatch reports, or one the tick grew on itself (probed), leaves the samples unbounded', () => {
    // The minute's own reading (27 ms) is a time the depth showed too: bounded alike.
    expect(contextAfter(undefined).unjudgedLimit).toBe(14);
    const ahead = tickAfter(undefined);
    const grewItself = fastPathContext(
      snapshot({ appliedConcurrency: 5, visibleMessages: 15_070, itemSeconds: 0.01 }),
      { ...ahead, reason: 'grow:age-above-target', inputs: { ...ahead.inputs, grownAhead: undefined } },
      18,
      config(),
    );
    expect(grewItself.unjudgedLimit).toBeUndefined();
    const reported = fastPathContext(
      snapshot({ appliedConcurrency: 7, visibleMessages: 3 }),
      decide(snapshot({ appliedConcurrency: 7, visibleMessages: 3 }), state(), config()),
      7,
      config(),
    );
    expect(reported.unjudgedLimit).toBeUndefined();
    // After a quiet spell CloudWatch has no per-item time and the tick sizes on its baseline: no depth reading, and a
    // burst's growth between ticks is not bounded (held-out medium-bursts: 0.37 → 0.78 × the target when it was).
    const quiet = snapshot({ appliedConcurrency: 2, visibleMessages: 0, itemSeconds: undefined });
    const onBaseline = fastPathContext(quiet, decide(quiet, state(), config()), 2, config());
    expect(onBaseline.itemSeconds).toBe(0.02);
    expect(onBaseline.unjudgedLimit).toBeUndefined();
  });
});

describe('the fast path carries the last quiet sample to the next tick', () => {
  const context = fastPathContext(
    snapshot({ appliedConcurrency: 7, visibleMessages: 3, inFlightMessages: 66, arrivalRatePerSecond: 350 }),
    decide(
      snapshot({ appliedConcurrency: 7, visibleMessages: 3, arrivalRatePerSecond: 350, itemSeconds: 0.0156 }),
      state({ lastChangeAt: NOW - 3_600 }),
      config(),
    ),
    7,
    config(),
  );

  it('a sample with no backlog becomes the quiet one; a backlog after it keeps it', () => {
    const quiet = decideFast({ at: NOW + 30, messages: 5, inFlight: 70 }, context, config()).context;
    expect(quiet.quiet).toEqual({ at: NOW + 30, messages: 5, inFlight: 70 });
    const risen = decideFast({ at: NOW + 40, messages: 1_990, inFlight: 70 }, quiet, config()).context;
    expect(risen.quiet).toEqual({ at: NOW + 30, messages: 5, inFlight: 70 });
  });
});

describe('countedEnough: a reading over the rise alone counts 4 × the arrivals’ noise over it', () => {
  const shown = (completionsPerSecond: number) => ({
    itemSeconds: 1,
    completionsPerSecond,
    afterLowering: false,
    capped: false,
  });
  it('154/s over 30 s at 350/s reported: 4,620 against 4 × √10,500 ≈ 410', () => {
    expect(countedEnough(shown(154), { at: NOW - 30, messages: 5 }, NOW, 350)).toBe(true);
  });
  it('1.6/s over 10 s at 2.9/s reported: 16 against 4 × √29 ≈ 21.5', () => {
    expect(countedEnough(shown(1.6), { at: NOW - 10, messages: 31 }, NOW, 2.9)).toBe(false);
  });
  it('no reported rate, or no start: not enough', () => {
    expect(countedEnough(shown(154), { at: NOW - 30, messages: 5 }, NOW, undefined)).toBe(false);
    expect(countedEnough(shown(154), undefined, NOW, 350)).toBe(false);
  });
});
