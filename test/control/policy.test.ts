import { describe, expect, it } from 'vitest';
import { decide } from '../../lib/control/policy.ts';
import { config, NOW, snapshot, state } from './fixtures.ts';

// One case per rule of the control law: each fails if its rule is removed.
describe('decide: growth', () => {
  it.each([
    {
      comment: 'age above target grows to the Little-law need: 800/s × 20 ms ÷ 0.9 = 17.8 → 18',
      snap: snapshot({ appliedConcurrency: 4, age: 90 }),
      desired: 18,
      reason: 'grow:age-above-target',
    },
    {
      comment: 'growth is bounded by maxScaleUpStep per tick',
      snap: snapshot({ appliedConcurrency: 4, age: 90 }),
      settings: { maxScaleUpStep: 4 },
      desired: 8,
      reason: 'grow:age-above-target',
    },
    {
      comment: 'without rates or item time, age alone grows by the step (the seed’s rule)',
      snap: snapshot({
        appliedConcurrency: 4,
        age: 90,
        arrivalRatePerSecond: undefined,
        itemSeconds: undefined,
      }),
      st: {},
      settings: { maxScaleUpStep: 4 },
      desired: 8,
      reason: 'grow:age-above-target',
    },
    {
      comment:
        'the backlog above the target is drained over the horizon: 100,000 visible − 48,000 allowed over 300 s at 20 ms → +3.5',
      snap: snapshot({ appliedConcurrency: 4, age: 90, visibleMessages: 100_000 }),
      desired: 20,
      reason: 'grow:age-above-target',
    },
    {
      comment: 'capacity already above arrivals plus the drain: hold while the backlog drains',
      snap: snapshot({ appliedConcurrency: 20, age: 90 }),
      desired: 20,
      reason: 'hold:draining',
    },
    {
      comment: 'age at target exactly is not above it: hold',
      snap: snapshot({ appliedConcurrency: 4, age: 60 }),
      desired: 4,
      reason: 'hold:steady',
    },
  ])('$comment', ({ snap, st, settings, desired, reason }) => {
    const decision = decide(snap, st ?? state(), config(settings));
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

  it('sizes a spike from the depth trend before the late datapoint reports it', () => {
    // GIVEN the last datapoint (two minutes late) still says 50/s, and 42,000 messages piled up in a minute
    const snap = snapshot({
      appliedConcurrency: 2,
      age: 0.1,
      lag: 120,
      arrivalRatePerSecond: 50,
      completionRatePerSecond: 50,
      visibleMessages: 42_000,
    });
    const carried = state({ lastVisible: { at: NOW - 60, messages: 0 }, baselineArrivalRate: 50 });
    // WHEN the controller decides
    const decision = decide(snap, carried, config());
    // THEN it grows for λ ≈ 42,000/60 + 50 = 750/s → 750 × 0.02 ÷ 0.9 = 16.7 → 17, not for the stale 50/s
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBe(17);
    expect(decision.inputs.arrivalRatePerSecond).toBeCloseTo(750, 0);
  });

  it('trusts real-time depth over a late datapoint: an emptied queue is not behind', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 20, age: 300, lag: 120, visibleMessages: 0 }),
      state(),
      config(),
    );
    expect(decision.reason).toBe('hold:steady');
    expect(decision.inputs.ageSeconds).toBe(0);
  });
});

describe('decide: the cap and the shed signal', () => {
  it('at the cap with age above target holds and signals saturated', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 32, age: 120, arrivalRatePerSecond: 3000 }),
      state({ baselineArrivalRate: 3000 }),
      config(),
    );
    expect(decision).toMatchObject({ desired: 32, reason: 'hold:at-cap', atCap: true, saturated: true });
  });

  it('growing into the cap while still short signals saturated', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 20, age: 120, arrivalRatePerSecond: 3000 }),
      state({ baselineArrivalRate: 3000 }),
      config(),
    );
    expect(decision).toMatchObject({
      desired: 32,
      reason: 'grow:age-above-target',
      atCap: true,
      saturated: true,
    });
  });

  it('at the cap with age within target is not saturated', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 32, age: 10, arrivalRatePerSecond: 1400 }),
      state({ baselineArrivalRate: 1400 }),
      config(),
    );
    expect(decision).toMatchObject({ desired: 32, atCap: true, saturated: false });
  });

  it('the cap comes from the downstream: pool 20, API 100/s × 20 ms → 2', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 2, age: 120 }),
      state(),
      config({
        dbPoolSize: 20,
        apiRatePerSecond: 100,
        itemTimeSeconds: 0.02,
        actuator: 'reserved',
        minConcurrency: 1,
      }),
    );
    expect(decision).toMatchObject({ desired: 2, reason: 'hold:at-cap', saturated: true });
  });

  it.each([
    {
      comment: 'a value above the cap is brought down to it',
      applied: 40,
      desired: 32,
      reason: 'shrink:above-cap',
    },
    {
      comment: 'a value below the floor is brought up to it',
      applied: 1,
      desired: 2,
      reason: 'grow:below-floor',
    },
  ])('$comment', ({ applied, desired, reason }) => {
    const decision = decide(
      snapshot({ appliedConcurrency: applied, oldestAge: undefined }),
      state(),
      config(),
    );
    expect(decision).toMatchObject({ desired, reason });
  });
});

describe('decide: a slower downstream', () => {
  it('per-item time tripled with arrivals flat: do not grow', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 7, age: 300, arrivalRatePerSecond: 300, itemSeconds: 0.06 }),
      state({ baselineArrivalRate: 300 }),
      config(),
    );
    expect(decision).toMatchObject({ desired: 7, reason: 'hold:downstream-slower' });
    expect(decision.inputs.slowdownRatio).toBeCloseTo(3);
  });

  it('per-item time up because arrivals rose as much is not a slower downstream', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 7, age: 300, arrivalRatePerSecond: 800, itemSeconds: 0.04 }),
      state({ baselineArrivalRate: 300 }),
      config(),
    );
    expect(decision.reason).toBe('grow:age-above-target');
  });

  it('the baseline does not learn the slow per-item time', () => {
    const decision = decide(snapshot({ age: 300, itemSeconds: 0.06 }), state(), config());
    expect(decision.state.baselineItemSeconds).toBe(0.02);
  });

  it('a healthy tick moves the baseline toward the sample', () => {
    const decision = decide(snapshot({ age: 1, itemSeconds: 0.025 }), state(), config());
    expect(decision.state.baselineItemSeconds).toBeCloseTo(0.021);
  });
});

describe('decide: missing data', () => {
  it.each([
    { comment: 'no age datapoint', snap: snapshot({ appliedConcurrency: 20, oldestAge: undefined }) },
    {
      comment: 'an age datapoint older than maxDataAgeSeconds',
      snap: snapshot({ appliedConcurrency: 20, age: 0, lag: 301 }),
    },
    {
      comment: 'a NaN age',
      snap: snapshot({ appliedConcurrency: 20, oldestAge: { seconds: Number.NaN, observedAt: NOW } }),
    },
  ])('$comment → hold, and the idle timer restarts', ({ snap }) => {
    const decision = decide(snap, state({ idleSince: NOW - 3600 }), config());
    expect(decision).toMatchObject({ desired: 20, reason: 'hold:no-data' });
    expect(decision.state.idleSince).toBeUndefined();
  });

  it('an unknown arrival rate never shrinks, however long idle', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 20, age: 0, arrivalRatePerSecond: undefined }),
      state({ idleSince: NOW - 3600 }),
      config(),
    );
    expect(decision.reason).toBe('hold:steady');
    expect(decision.desired).toBe(20);
  });
});

describe('decide: shrinking', () => {
  const idleFor = (seconds: number) => state({ idleSince: NOW - seconds, baselineArrivalRate: 50 });
  const quiet = (applied: number, extra = {}) =>
    snapshot({ appliedConcurrency: applied, age: 0, arrivalRatePerSecond: 50, ...extra });

  it.each([
    {
      comment: 'idle for the scale-down delay: shrink',
      snap: quiet(3),
      st: idleFor(300),
      desired: 2,
      reason: 'shrink:sustained-idle',
    },
    {
      comment: 'idle for less than the delay: hold',
      snap: quiet(3),
      st: idleFor(299),
      desired: 3,
      reason: 'hold:steady',
    },
    {
      comment: 'a recent change spaces the next shrink by the interval',
      snap: quiet(3),
      st: { ...idleFor(600), lastChangeAt: NOW - 30 },
      desired: 3,
      reason: 'hold:steady',
    },
    {
      comment: 'never below the floor',
      snap: quiet(2),
      st: idleFor(3600),
      desired: 2,
      reason: 'hold:steady',
    },
    {
      comment: 'at fraction 0 one step at a time, as the seed does',
      snap: quiet(20),
      st: idleFor(300),
      settings: { scaleDownSurplusFraction: 0 },
      desired: 19,
      reason: 'shrink:sustained-idle',
    },
    {
      comment: 'at fraction 0.5 the surplus above the need halves: 20 − ⌊(20 − 2) × 0.5⌋ = 11',
      snap: quiet(20),
      st: idleFor(300),
      desired: 11,
      reason: 'shrink:sustained-idle',
    },
    {
      comment: 'a shrink below the need would be undone next tick: hold (800/s needs 18)',
      snap: snapshot({ appliedConcurrency: 18, age: 0 }),
      st: state({ idleSince: NOW - 3600 }),
      desired: 18,
      reason: 'hold:steady',
    },
    {
      comment: 'the busiest period of the window counts, not the latest sample (800/s needs 18)',
      snap: quiet(18, { peakArrivalRatePerSecond: 800 }),
      st: idleFor(3600),
      desired: 18,
      reason: 'hold:steady',
    },
    {
      comment: 'an age above the idle threshold is not idle',
      snap: quiet(3, { age: 16 }),
      st: idleFor(3600),
      desired: 3,
      reason: 'hold:steady',
    },
  ])('$comment', ({ snap, st, settings, desired, reason }) => {
    const decision = decide(snap, st, config(settings));
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

  it('starts the idle timer at the first idle tick and records the change time', () => {
    const first = decide(
      snapshot({ appliedConcurrency: 3, age: 0, arrivalRatePerSecond: 50 }),
      state(),
      config(),
    );
    expect(first.state.idleSince).toBe(NOW);
    const shrunk = decide(
      snapshot({ appliedConcurrency: 3, age: 0, arrivalRatePerSecond: 50 }),
      state({ idleSince: NOW - 300 }),
      config(),
    );
    expect(shrunk.state.lastChangeAt).toBe(NOW);
  });

  it('being behind resets the idle timer', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 20, age: 90 }),
      state({ idleSince: NOW - 3600 }),
      config(),
    );
    expect(decision.state.idleSince).toBeUndefined();
  });

  it('carries the visible depth for the next tick’s trend', () => {
    const decision = decide(snapshot({ visibleMessages: 12 }), state(), config());
    expect(decision.state.lastVisible).toEqual({ at: NOW, messages: 12 });
  });
});

describe('decide: partial data (found in review)', () => {
  it('an unknown per-item time with a backlog is an unknown need: grow by the age-only step, never hold', () => {
    const snap = snapshot({
      appliedConcurrency: 2,
      age: 3000,
      visibleMessages: 100_000,
      arrivalRatePerSecond: 0,
      itemSeconds: undefined,
    });
    const decision = decide(snap, {}, config());
    expect(decision).toMatchObject({ desired: 6, reason: 'grow:age-above-target' });
    expect(decision.inputs.needConcurrency).toBeUndefined();
  });

  it('an unknown per-item time never shrinks while the window saw arrivals', () => {
    const snap = snapshot({
      appliedConcurrency: 20,
      age: 0,
      arrivalRatePerSecond: 0,
      peakArrivalRatePerSecond: 800,
      itemSeconds: undefined,
    });
    const decision = decide(snap, { idleSince: NOW - 3600 }, config());
    expect(decision).toMatchObject({ desired: 20, reason: 'hold:steady' });
  });

  it('with no arrivals at all the need is 0 even without a per-item time: an idle queue shrinks', () => {
    const snap = snapshot({
      appliedConcurrency: 20,
      age: 0,
      arrivalRatePerSecond: 0,
      peakArrivalRatePerSecond: 0,
      itemSeconds: undefined,
      visibleMessages: 0,
    });
    const decision = decide(snap, { idleSince: NOW - 3600 }, config());
    expect(decision.reason).toBe('shrink:sustained-idle');
  });

  it('without a drain rate a late datapoint is not inflated by its lag: one quiet message is not "behind"', () => {
    const snap = snapshot({
      appliedConcurrency: 2,
      age: 0,
      lag: 120,
      visibleMessages: 1,
      arrivalRatePerSecond: undefined,
      completionRatePerSecond: undefined,
      itemSeconds: undefined,
    });
    const decision = decide(snap, {}, config());
    expect(decision).toMatchObject({ desired: 2, reason: 'hold:steady' });
  });

  it('in-flight messages count towards the age: throttled batches waiting out the visibility timeout are behind', () => {
    // GIVEN overpull: nothing visible, 30,000 messages in flight (throttled), the late datapoint says 300 s
    const snap = snapshot({
      appliedConcurrency: 2,
      age: 300,
      lag: 120,
      visibleMessages: 0,
      inFlightMessages: 30_000,
      arrivalRatePerSecond: 100,
      completionRatePerSecond: 100,
    });
    const decision = decide(snap, state({ baselineArrivalRate: 100 }), config());
    // THEN the age is min(300 + 120, 30,000 ÷ 100) = 300 s: behind, and it grows
    expect(decision.inputs.ageSeconds).toBe(300);
    expect(decision.reason).toBe('grow:age-above-target');
  });
});

describe('decide: what counts as a slower downstream', () => {
  it('arrivals up 1.5× do not explain items 3× slower: still hold', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 14, age: 200, arrivalRatePerSecond: 450, itemSeconds: 0.06 }),
      state({ baselineArrivalRate: 300 }),
      config(),
    );
    expect(decision.reason).toBe('hold:downstream-slower');
  });
});
