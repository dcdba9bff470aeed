import { describe, expect, it } from 'vitest';
import { clampConcurrency } from '../../lib/control/config.ts';
import { decide } from '../../lib/control/policy.ts';
import { config, NOW, periodEndingAt, snapshot, state } from './fixtures.ts';

// One case per rule of the control law: each fails if its rule is removed.

describe('hold:paused — an operator’s pause is held, never fought', () => {
  it.each([
    { comment: 'reserved 0 (the console’s Throttle)', paused: 'reserved-zero' as const, applied: 0 },
    { comment: 'the mapping disabled', paused: 'mapping-disabled' as const, applied: 8 },
  ])('$comment: hold:paused, however far behind', ({ paused, applied }) => {
    const decision = decide(
      snapshot({ appliedConcurrency: applied, age: 3000, paused }),
      state({ idleSince: NOW - 3600 }),
      config(),
    );
    expect(decision.reason).toBe('hold:paused');
    expect(decision.state.idleSince).toBeUndefined();
    expect(decision.state.lastChangeAt).toBeUndefined();
  });
});

describe('adopt:unbounded — a consumer nothing bounds (the scaler just attached) is adopted, never cut', () => {
  const unbounded = (extra = {}) =>
    snapshot({
      appliedConcurrency: Number.POSITIVE_INFINITY,
      age: 30,
      arrivalRatePerSecond: 100,
      itemSeconds: 0.2,
      ...extra,
    });
  it.each([
    {
      comment: '100/s at 200 ms: the need 100 × 0.2 ÷ 0.9 = 23, not the floor (2)',
      snap: unbounded(),
      desired: 23,
    },
    {
      comment: 'its busiest recent concurrency (26.5) above the need: 27',
      snap: unbounded({ observedConcurrency: 26.5 }),
      desired: 27,
    },
    {
      comment: 'nothing known of its load: the cap (the one bound the configuration vouches for)',
      snap: unbounded({ arrivalRatePerSecond: undefined, itemSeconds: undefined, oldestAge: undefined }),
      desired: 32,
    },
    {
      comment: 'what it runs above the cap: the cap',
      snap: unbounded({ observedConcurrency: 80 }),
      desired: 32,
    },
  ])('$comment', ({ snap, desired }) => {
    const decision = decide(snap, {}, config());
    expect(decision).toMatchObject({ reason: 'adopt:unbounded', desired });
  });
});

describe('shrink:above-cap / grow:below-floor — the bounds hold even without data', () => {
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

describe('hold:no-data / grow:backlog-before-data — missing or stale age holds, unless the depth shows a backlog', () => {
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

  // A new queue: CloudWatch has nothing yet, neither the age nor the rates.
  const noData = (visible: number, extra = {}) =>
    snapshot({
      appliedConcurrency: 2,
      oldestAge: undefined,
      arrivalRatePerSecond: undefined,
      completionRatePerSecond: undefined,
      itemSeconds: undefined,
      visibleMessages: visible,
      ...extra,
    });
  const earlier = (messages: number) => ({ lastVisible: { at: NOW - 60, messages } });
  /** 16 applied after a slow fall with a backlog; the previous sample found 5 running (50 in flight), `changedAgo` s after the last change. */
  const fiveOf16Running = (changedAgo: number) => ({
    snap: noData(3_300, { appliedConcurrency: 16, inFlightMessages: 160 }),
    st: { lastVisible: { at: NOW - 60, messages: 5_900, inFlight: 50 }, lastChangeAt: NOW - changedAgo },
  });

  it.each([
    {
      comment: 'no datapoint yet, and 6,000 → 12,000 visible with 2 applied: grow, limited (⌊1.5 × 2⌋ = 3)',
      snap: noData(12_000),
      st: earlier(6_000),
      desired: 3,
      reason: 'grow:backlog-before-data',
    },
    {
      comment:
        'the rates are reported but the age is not: the backlog is sized (800 × 0.02 + 12,000 × 0.02 ÷ 120 = 18), within ⌊1.5 × 18⌋',
      snap: noData(12_000, { arrivalRatePerSecond: 800, itemSeconds: 0.02 }),
      st: earlier(6_000),
      desired: 18,
      reason: 'grow:backlog-before-data',
    },
    {
      comment: 'a backlog falling fast enough to be gone within the setpoint (600 left, 100/s): hold',
      snap: noData(600),
      st: earlier(6_600),
      desired: 2,
      reason: 'hold:no-data',
    },
    {
      comment:
        'falling, 3,300 → 1,500 in a minute (30/s): the newest waits at most 50 s, past the setpoint but within the 60 s target: hold',
      snap: noData(1_500),
      st: earlier(3_300),
      desired: 2,
      reason: 'hold:no-data',
    },
    {
      comment:
        'falling too slowly, 2,000 → 1,500 in a minute (8.3/s): 180 s to work off, past the target: grow',
      snap: noData(1_500),
      st: earlier(2_000),
      desired: 3,
      reason: 'grow:backlog-before-data',
    },
    {
      comment: 'a few messages are no backlog (fewer than a batch per worker): hold',
      snap: noData(15),
      st: earlier(5),
      desired: 2,
      reason: 'hold:no-data',
    },
    {
      comment: 'no earlier sample: nothing shows a trend yet: hold',
      snap: noData(12_000),
      st: {},
      desired: 2,
      reason: 'hold:no-data',
    },
    {
      comment:
        'the same slow fall with 16 applied, the earlier sample all 16 busy (160 in flight): grow, limited (⌊1.5 × 16⌋ = 24)',
      snap: noData(3_300, { appliedConcurrency: 16, inFlightMessages: 160 }),
      st: { lastVisible: { at: NOW - 60, messages: 5_900, inFlight: 160 } },
      desired: 24,
      reason: 'grow:backlog-before-data',
    },
    {
      comment:
        'but the earlier sample found 5 running of the 16 grown 90 s ago (50 in flight: the pollers had not stepped up yet): the fall is the drain of fewer workers: hold (issue 28, no wind-up)',
      ...fiveOf16Running(90),
      desired: 16,
      reason: 'hold:no-data',
    },
    {
      comment:
        'the same 5 of 16 ten minutes after the last change: no ramp lags that long (the consumer runs fewer): grow, limited',
      ...fiveOf16Running(600),
      desired: 24,
      reason: 'grow:backlog-before-data',
    },
  ])('$comment', ({ snap, st, desired, reason }) => {
    // Without the samples between ticks: with them, the depth before data is theirs (below).
    const decision = decide(snap, st, config({ fastSampleSeconds: 0 }));
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

  it('with the samples running, the depth before data is theirs: the tick holds where, alone, it would grow', () => {
    // cold-steady, one poller step a minute: 16 applied and running, 5,729 → 3,317 in a minute while 150/s arrive.
    const snap = noData(3_317, { appliedConcurrency: 16, inFlightMessages: 160 });
    const st = { lastVisible: { at: NOW - 60, messages: 5_729, inFlight: 160 } };
    expect(decide(snap, st, config({ fastSampleSeconds: 0 }))).toMatchObject({
      desired: 24,
      reason: 'grow:backlog-before-data',
    });
    expect(decide(snap, st, config())).toMatchObject({ desired: 16, reason: 'hold:no-data' });
    // sawtooth, the tick 30 s after the load: over the minute the depth rose (36,071 → 40,279), but the pollers
    // reached 16 in it and the samples since saw it fall; they grow where their own 10 s course says so.
    const rising = noData(40_279, { appliedConcurrency: 16, inFlightMessages: 150 });
    const before = { lastVisible: { at: NOW - 60, messages: 36_071, inFlight: 80 } };
    expect(decide(rising, before, config({ fastSampleSeconds: 0 })).reason).toBe('grow:backlog-before-data');
    expect(decide(rising, before, config())).toMatchObject({ desired: 16, reason: 'hold:no-data' });
  });
});

describe('heavier items are work: a slower per-item time alone does not hold (issue 29)', () => {
  it('per-item time tripled with arrivals flat and the queue behind: grow to the need at the time observed now', () => {
    // 300/s at 60 ms needs 300 × 0.06 ÷ 0.9 = 20 plus the drain: nothing says the downstream is saturated
    const decision = decide(
      snapshot({ appliedConcurrency: 7, age: 300, arrivalRatePerSecond: 300, itemSeconds: 0.06 }),
      state({ baselineArrivalRate: 300 }),
      config(),
    );
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBeGreaterThanOrEqual(20);
    expect(decision).toMatchObject({ downstreamSlower: true, shed: false });
    expect(decision.inputs.slowdownRatio).toBeCloseTo(3);
  });

  it('the growth is remembered as a probe: what it bought is judged once CloudWatch shows a period after it', () => {
    const decision = decide(
      snapshot({
        appliedConcurrency: 7,
        age: 300,
        arrivalRatePerSecond: 300,
        itemSeconds: 0.06,
        ratePeriodSeconds: 60,
      }),
      state({ baselineArrivalRate: 300 }),
      config(),
    );
    expect(decision.state.growthProbe).toEqual({
      at: NOW,
      from: 7,
      to: decision.desired,
      completionsBefore: 800,
      itemSecondsBefore: 0.06,
    });
  });
});

describe('heavier items shown by the depth before CloudWatch reports them (issue 29)', () => {
  // heavier-items at its first tick after the items went 10 → 30 ms: 5 applied for an hour at 400/s, CloudWatch's
  // newest period (two minutes late) still says 10 ms and an age under a second; the depth rose 277 → 15,070.
  const tickAfterItemsGotHeavier = (overrides: Partial<Parameters<typeof snapshot>[0]> = {}) =>
    decide(
      snapshot({
        appliedConcurrency: 5,
        age: 0.8,
        lag: 120,
        arrivalRatePerSecond: 400,
        peakArrivalRatePerSecond: 400,
        completionRatePerSecond: 400,
        itemSeconds: 0.01,
        ratePeriodSeconds: 60,
        visibleMessages: 15_070,
        inFlightMessages: 50,
        ...overrides,
      }),
      state({
        baselineItemSeconds: 0.01,
        baselineArrivalRate: 400,
        lastChangeAt: NOW - 3_600,
        lastVisible: { at: NOW - 60, messages: 277, inFlight: 50 },
      }),
      config(),
    );

  it('5 workers served 153/s, 33 ms an item: grow to the need at that time, two minutes before the data says it', () => {
    const decision = tickAfterItemsGotHeavier();
    const served = 400 + 2 * Math.sqrt(400 / 60) - (15_070 - 277) / 60;
    expect(decision.reason).toBe('grow:age-above-target');
    // 400/s at 5 ÷ 153 s ≈ 33 ms is 400 × 0.033 ÷ 0.9 ≈ 14.5 workers before the backlog's drain
    expect(decision.desired).toBeGreaterThanOrEqual(15);
    expect(decision.inputs.itemSeconds).toBeCloseTo(5 / served);
    // The growth's probe is judged against what the 5 did, not CloudWatch's earlier period
    expect(decision.state.growthProbe).toMatchObject({
      from: 5,
      completionsBefore: served,
      shownByDepth: true,
    });
    expect(decision.state.growthProbe?.itemSecondsBefore).toBeCloseTo(5 / served);
  });

  it('hold:probing: a growth before it is not judged yet, so the items shown heavier wait for its verdict', () => {
    const pending = { at: NOW - 30, from: 4, to: 5, completionsBefore: 400, itemSecondsBefore: 0.01 };
    const decision = decide(
      snapshot({
        appliedConcurrency: 5,
        age: 0.8,
        lag: 120,
        arrivalRatePerSecond: 400,
        completionRatePerSecond: 400,
        itemSeconds: 0.01,
        ratePeriodSeconds: 60,
        visibleMessages: 15_070,
        inFlightMessages: 50,
      }),
      state({
        baselineItemSeconds: 0.01,
        baselineArrivalRate: 400,
        lastChangeAt: NOW - 3_600,
        lastVisible: { at: NOW - 60, messages: 277, inFlight: 50 },
        growthProbe: pending,
      }),
      config(),
    );
    expect(decision).toMatchObject({ reason: 'hold:probing', desired: 5 });
  });

  it('workers grown past what the reported rate needs (a burst not reported yet): the rise is not read as heavier items', () => {
    const decision = tickAfterItemsGotHeavier({ appliedConcurrency: 8, inFlightMessages: 80 });
    expect(decision.inputs.itemSeconds).toBe(0.01);
    expect(decision.reason).not.toBe('grow:age-above-target');
  });
});

describe('grow:age-above-target ahead of the age: heavier items shown, the age past the setpoint by the time growth binds', () => {
  // heavier-items at 1,260 s (one poller step a minute): 14 workers after idle shrinks (the last one at 1,200 s, a
  // settled value lowered), 400/s, items 30 → 50 ms at 1,200 s; a minute later 8,144 wait with 14 × 10 in flight.
  const heavierAfterShrink = (settings = {}) =>
    decide(
      snapshot({
        appliedConcurrency: 14,
        age: 0.4,
        lag: 120,
        arrivalRatePerSecond: 399,
        peakArrivalRatePerSecond: 399,
        completionRatePerSecond: 399,
        itemSeconds: 0.0306,
        ratePeriodSeconds: 60,
        visibleMessages: 8_144,
        inFlightMessages: 140,
      }),
      state({
        baselineItemSeconds: 0.0306,
        baselineArrivalRate: 399,
        lastChangeAt: NOW - 60,
        lastVisible: { at: NOW - 60, messages: 0, inFlight: 86, settled: true },
      }),
      config(settings),
    );

  it('the 14 served about 270/s: 21 s old now, about 60 s by the time the next tick’s growth binds: grow now, no probe', () => {
    const decision = heavierAfterShrink();
    expect(decision.reason).toBe('grow:age-above-target');
    // 399/s at about 52 ms is 23 workers before the backlog's drain
    expect(decision.desired).toBeGreaterThanOrEqual(23);
    expect(decision.inputs.ageSeconds).toBeLessThan(30);
    // Unprobed, and at most twice the value, as the samples' unjudged growth (fast-context.ts)
    expect(decision.inputs.grownAhead).toBe(true);
    expect(decision.inputs.growthLimit).toBeLessThanOrEqual(28);
    expect(decision.state.growthProbe).toBeUndefined();
  });

  it('a 10-minute target: 60 s by then is within its 300 s setpoint, and the tick holds', () => {
    const decision = heavierAfterShrink({ targetAgeSeconds: 600 });
    expect(decision.reason).toBe('hold:steady');
    expect(decision.desired).toBe(14);
  });
});

describe('shrink:downstream-saturated / hold:downstream-saturated — growth that bought no throughput goes back', () => {
  // Behind at 20 workers (pool of 20, 20 ms items: 1,000/s); the law grew to 30 at NOW - 300.
  const probe = { at: NOW - 300, from: 20, to: 30, completionsBefore: 1000, itemSecondsBefore: 0.02 };
  const afterGrowth = (completions: number, itemSeconds: number, extra = {}) =>
    snapshot({
      appliedConcurrency: 30,
      age: 300,
      lag: 60,
      arrivalRatePerSecond: 1500,
      completionRatePerSecond: completions,
      itemSeconds,
      ratePeriodSeconds: 60,
      ...extra,
    });
  const carried = state({ baselineArrivalRate: 1500, baselineItemSeconds: 0.02, growthProbe: probe });

  it('30 workers, items 30 ms, still 1,000/s: saturated, back to 20, no growth past it, shed on', () => {
    const decision = decide(afterGrowth(1000, 0.03), carried, config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 20, shed: true });
    expect(decision.state.saturation).toEqual({
      ceiling: 20,
      until: NOW + config().scaleDownDelaySeconds,
      contended: { at: NOW, executions: 30, itemSeconds: 0.03 },
    });
    expect(decision.state.growthProbe).toBeUndefined();
  });

  it('30 workers at 31.6 ms, 950/s (a saturated pool serves what it served, within a twentieth): saturated', () => {
    const decision = decide(afterGrowth(950, 0.0316), carried, config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 20, shed: true });
  });

  it('30 workers at 35 ms, 860/s (fewer completions with more workers: the items got heavier between the periods): no verdict', () => {
    // Held-out heavier-in-steps-mid-minute: a growth 8 → 10 on 24.5 ms, judged on a period after the step to 36 ms
    // items (0.86 of the completions), read as saturated and went back to 8 while 60,000 waited.
    const decision = decide(afterGrowth(860, 0.035), carried, config());
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.state.saturation).toBeUndefined();
  });

  it('30 workers at the same 20 ms, 1,500/s: the downstream had room; the probe ends, growth goes on', () => {
    const decision = decide(afterGrowth(1500, 0.02), carried, config());
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.state.saturation).toBeUndefined();
    // The old probe is done; a further growth starts its own, from 30
    expect([undefined, 30]).toContain(decision.state.growthProbe?.from);
  });

  it('the same figures on a probe whose before-figures the depth showed: no verdict, no ceiling', () => {
    const shown = state({
      baselineArrivalRate: 1500,
      baselineItemSeconds: 0.02,
      growthProbe: { ...probe, shownByDepth: true },
    });
    const decision = decide(afterGrowth(1000, 0.03), shown, config());
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.state.saturation).toBeUndefined();
    expect(decision.state.growthProbe?.at).not.toBe(probe.at);
  });

  describe("a probe the depth sized takes CloudWatch's figures of the period that ended at the growth", () => {
    // Pool of 20, queries 20 → 100 ms at 300/s: the depth showed 8 workers at about 107 ms; the law grew 8 → 32.
    const sized = { at: NOW - 240, from: 8, to: 32, completionsBefore: 75, itemSecondsBefore: 0.107 };
    const depthProbe = { ...sized, shownByDepth: true };
    const carrying = (growthProbe: object) =>
      state({ baselineArrivalRate: 300, baselineItemSeconds: 0.02, growthProbe: growthProbe as never });

    it('CloudWatch reports the period that ended at the growth: 80/s at 100 ms become the before-figures', () => {
      const decision = decide(periodEndingAt(sized.at, 80, 0.1), carrying(depthProbe), config());
      expect(decision.state.growthProbe).toEqual({ ...sized, completionsBefore: 80, itemSecondsBefore: 0.1 });
    });

    it("an earlier period (before the items got heavier) is not taken: the probe stays the depth's", () => {
      const decision = decide(periodEndingAt(sized.at - 60, 300, 0.02), carrying(depthProbe), config());
      expect(decision.state.growthProbe).toEqual(depthProbe);
    });

    it('a period that ended at the growth lighter than the depth showed by more than "slower" (the items got heavier within it) is not taken', () => {
      // 0.107 ÷ 1.5 = 71 ms: a period at 50 ms averaged lighter items in; compared with it, heavier items look saturated.
      const decision = decide(periodEndingAt(sized.at, 150, 0.05), carrying(depthProbe), config());
      expect(decision.state.growthProbe).toEqual(depthProbe);
    });

    it('then a period after it, 200/s at 160 ms (12 of 32 waiting): saturated, back to 20, shed on', () => {
      const counted = { ...sized, completionsBefore: 80, itemSecondsBefore: 0.1 };
      const decision = decide(periodEndingAt(NOW - 60, 200, 0.16), carrying(counted), config());
      expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 20, shed: true });
    });
  });

  it('the executions have not followed the growth yet (pollers ramping): no verdict, the probe waits', () => {
    // 22 busy (1,100/s at 20 ms) of the 30 applied: less than half the growth
    const decision = decide(afterGrowth(1100, 0.02), carried, config());
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.state.growthProbe).toEqual(probe);
  });

  it('executions that lagged the applied start (a ramp in one step a minute): judged once they pass its half', () => {
    // Pool of 20, 80 ms items, 250/s: the law grew 22 → 28 while only 14 ran (the pollers had not stepped yet).
    const lagging = { at: NOW - 300, from: 22, to: 28, completionsBefore: 170, itemSecondsBefore: 0.08 };
    const periodAt = (itemSeconds: number) =>
      snapshot({
        appliedConcurrency: 28,
        age: 50,
        lag: 60,
        arrivalRatePerSecond: 250,
        completionRatePerSecond: 250,
        itemSeconds,
        ratePeriodSeconds: 60,
      });
    const lagState = state({ baselineArrivalRate: 250, baselineItemSeconds: 0.08, growthProbe: lagging });
    // 21.5 ran (up from 14, the pool's 20 busy): not yet half the growth above 22, so no verdict, not "room"
    expect(decide(periodAt(0.086), lagState, config()).state.growthProbe).toEqual(lagging);
    // 27.5 ran for the same 250/s: 20 useful, 7.5 waiting on the pool → saturated, back to where it started
    expect(decide(periodAt(0.11), lagState, config()).state.saturation?.ceiling).toBe(22);
  });

  it('hold:probing: items slower and the last growth not judged yet — the next growth waits for the verdict', () => {
    const pending = { ...probe, at: NOW - 30 };
    const slowerItems = snapshot({
      appliedConcurrency: 30,
      age: 300,
      arrivalRatePerSecond: 1500,
      itemSeconds: 0.06,
    });
    const decision = decide(slowerItems, { ...carried, growthProbe: pending }, config());
    expect(decision).toMatchObject({ reason: 'hold:probing', desired: 30 });
    // the same tick with the usual per-item time (a spike in arrivals): growth does not wait
    const spike = snapshot({
      appliedConcurrency: 30,
      age: 300,
      arrivalRatePerSecond: 1500,
      itemSeconds: 0.02,
    });
    expect(decide(spike, { ...carried, growthProbe: pending }, config()).reason).toBe(
      'grow:age-above-target',
    );
  });

  describe('a probe whose before-figures predate heavier items is void (the items got heavier before the growth)', () => {
    // heavier-items, one poller step a minute: 400/s, items 30 → 50 ms at NOW − 180. The age grew 16 → 17 at
    // NOW − 60 on CloudWatch's newest period then, which still showed 31 ms.
    const stale = { at: NOW - 60, from: 16, to: 17, completionsBefore: 398, itemSecondsBefore: 0.0306 };
    const heavier = (lag: number) =>
      snapshot({
        appliedConcurrency: 18,
        age: 55,
        lag,
        arrivalRatePerSecond: 400,
        completionRatePerSecond: 280,
        itemSeconds: 0.05,
        ratePeriodSeconds: 60,
      });
    const carrying = state({ baselineArrivalRate: 400, baselineItemSeconds: 0.0306, growthProbe: stale });

    it('a period that ended before the growth shows 50 ms: no wait for its verdict, the need at 50 ms now', () => {
      const decision = decide(heavier(120), carrying, config());
      // the need at 50 ms: 400 × 0.05 ÷ 0.9 → 22
      expect(decision).toMatchObject({ reason: 'grow:age-above-target', desired: 22 });
      // its own probe, on the heavier figures, which a saturated downstream fails as before
      expect(decision.state.growthProbe).toMatchObject({ from: 18, to: 22, itemSecondsBefore: 0.05 });
    });

    it('the same figures in a period after the growth are what the growth is judged on: it waits', () => {
      expect(decide(heavier(30), carrying, config()).reason).toBe('hold:probing');
    });
  });

  describe('a probe takes each newer period that ended by the growth (its own was up to two periods older)', () => {
    // A pool of 60 with room, 600/s, items 20 → 30 ms (1.49 ×, under the void): the age grew 14 → 16 at NOW − 120
    // on the newest period then, still at 20.5 ms.
    const taken = { at: NOW - 120, from: 14, to: 16, completionsBefore: 598, itemSecondsBefore: 0.0205 };
    const period = (lag: number, completions: number) =>
      snapshot({
        appliedConcurrency: 17,
        age: 50,
        lag,
        arrivalRatePerSecond: 600,
        completionRatePerSecond: completions,
        itemSeconds: 0.0305,
        ratePeriodSeconds: 60,
      });
    const carrying = (growthProbe: object) =>
      state({ baselineArrivalRate: 600, baselineItemSeconds: 0.0205, growthProbe: growthProbe as never });

    it('the period that ended at the growth, 475/s at 30.5 ms, becomes its before-figures', () => {
      const decision = decide(period(120, 475), carrying(taken), config());
      expect(decision.state.growthProbe).toEqual({
        ...taken,
        completionsBefore: 475,
        itemSecondsBefore: 0.0305,
      });
    });

    it('so the period after it, 550/s at 30.5 ms on 17 workers, is room, not saturation at 11 useful of 17', () => {
      const first = decide(period(120, 475), carrying(taken), config());
      const after = decide(period(60, 550), first.state, config());
      expect(after.reason).not.toMatch(/downstream-saturated/);
      expect(after.state.saturation).toBeUndefined();
    });
  });

  it('a period that began before the growth judges nothing', () => {
    const early = { ...probe, at: NOW - 90 };
    const decision = decide(afterGrowth(1000, 0.03), { ...carried, growthProbe: early }, config());
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.state.growthProbe).toEqual(early);
  });

  it('while the ceiling holds, behind at it: hold, shed on; within the target the signal is off and it may shrink', () => {
    const ceiling = { ceiling: 20, until: NOW + 100 };
    const held = decide(
      afterGrowth(1000, 0.02, { appliedConcurrency: 20 }),
      state({ saturation: ceiling }),
      config(),
    );
    expect(held).toMatchObject({ reason: 'hold:downstream-saturated', desired: 20, shed: true });
    const calm = decide(
      snapshot({ appliedConcurrency: 20, age: 1 }),
      state({ saturation: ceiling }),
      config(),
    );
    expect(calm.reason).not.toMatch(/downstream-saturated/);
    expect(calm.shed).toBe(false);
  });

  it('the ceiling holds past its time while the queue stays behind, and ends once it is not (then one growth may probe again)', () => {
    const over = { ceiling: 20, until: NOW - 1 };
    const behind = decide(
      afterGrowth(1000, 0.02, { appliedConcurrency: 20 }),
      state({ saturation: over }),
      config(),
    );
    expect(behind).toMatchObject({ reason: 'hold:downstream-saturated', desired: 20 });
    const caughtUp = decide(
      snapshot({ appliedConcurrency: 20, age: 1 }),
      state({ saturation: over }),
      config(),
    );
    expect(caughtUp.state.saturation).toBeUndefined();
  });
});

describe('a saturation found is refuted where the per-item time stays once the workers went back', () => {
  // Found at NOW - 180: 30 workers at 30 ms (1,000/s), back to 20. A period that began after it shows 20 workers.
  const found = {
    ceiling: 20,
    until: NOW + 100,
    contended: { at: NOW - 180, executions: 30, itemSeconds: 0.03 },
  };
  const periodAfter = (
    completions: number,
    itemSeconds: number,
    lag = 60,
    load = { workers: 20, arrivals: 1500 },
  ) =>
    snapshot({
      appliedConcurrency: load.workers,
      age: 300,
      lag,
      arrivalRatePerSecond: load.arrivals,
      completionRatePerSecond: completions,
      itemSeconds,
      ratePeriodSeconds: 60,
    });

  it("20 workers at 20 ms: the time fell with the workers (a pool's wait): the ceiling holds, shed on", () => {
    const decision = decide(periodAfter(1000, 0.02), state({ saturation: found }), config());
    expect(decision).toMatchObject({ reason: 'hold:downstream-saturated', desired: 20, shed: true });
    expect(decision.state.saturation).toEqual(found);
  });

  it('20 workers still at 30 ms: the items are that heavy with fewer workers too: lifted, the law grows again', () => {
    const decision = decide(periodAfter(650, 0.03), state({ saturation: found }), config());
    expect(decision.state.saturation).toBeUndefined();
    expect(decision.reason).not.toMatch(/downstream-saturated/);
    expect(decision.desired).toBeGreaterThan(20);
  });

  it('the same figures from a period that began before the finding (its workers not back yet): the ceiling holds', () => {
    const decision = decide(periodAfter(650, 0.03, 150), state({ saturation: found }), config());
    expect(decision.state.saturation).toEqual(found);
  });

  describe('a shrink of a fifth or less, read once the workers are back at the ceiling', () => {
    // Found on 10 workers at 36.5 ms (24.5 ms before the growth), back to 8: held-out heavier-in-steps-mid-minute.
    const small = {
      ceiling: 8,
      until: NOW + 100,
      contended: { at: NOW - 180, executions: 9.47, itemSeconds: 0.0365 },
    };
    const afterSmall = (completions: number, itemSeconds: number) =>
      periodAfter(completions, itemSeconds, 60, { workers: 8, arrivals: 300 });

    it('7.6 workers at 42.6 ms (down 19.4 %, the time up): the items are heavier, not the pool busier: lifted', () => {
      const decision = decide(afterSmall(179, 0.0426), state({ saturation: small }), config());
      expect(decision.state.saturation).toBeUndefined();
      expect(decision.reason).not.toMatch(/downstream-saturated/);
    });

    it('8 workers at 30 ms (the time fell with the workers, as a pool’s wait does): the ceiling holds', () => {
      const decision = decide(afterSmall(267, 0.03), state({ saturation: small }), config());
      expect(decision.state.saturation).toEqual(small);
    });

    it('back at the ceiling but down less than a tenth (8.8 → 8.0 workers, the time up): too small to read, holds', () => {
      const near = { ...small, contended: { at: NOW - 180, executions: 8.8, itemSeconds: 0.0365 } };
      const decision = decide(afterSmall(188, 0.0426), state({ saturation: near }), config());
      expect(decision.state.saturation).toEqual(near);
    });

    it('8.5 workers at 42.6 ms (down a tenth, but not back at the ceiling yet): the ceiling holds', () => {
      const decision = decide(afterSmall(200, 0.0426), state({ saturation: small }), config());
      expect(decision.state.saturation).toEqual(small);
    });
  });

  describe('items heavier than the finding by more than "slower", on no more workers', () => {
    // Held-out pool-at-capacity-slower, seed 2, one poller step a minute: found on 9.6 workers at 50.4 ms (a probe
    // judged on a period that mixed 20 and 50 ms items), back to 9; the items went to 80 ms after it.
    const heavier = {
      ceiling: 9,
      until: NOW + 100,
      contended: { at: NOW - 180, executions: 9.6, itemSeconds: 0.0504 },
    };
    const heavierPeriod = (completions: number, itemSeconds: number) =>
      periodAfter(completions, itemSeconds, 60, { workers: 9, arrivals: 200 });

    it('8.8 workers at 80.7 ms (down 8 %, too little to read the fall, but 1.6 × the time): lifted', () => {
      const decision = decide(heavierPeriod(109.2, 0.0807), state({ saturation: heavier }), config());
      expect(decision.state.saturation).toBeUndefined();
      expect(decision.reason).not.toMatch(/downstream-saturated/);
    });

    it('1.4 × the time (within "slower"), or 1.6 × on more workers than the finding ran: the ceiling holds', () => {
      const ceilingAfter = (completions: number, itemSeconds: number) =>
        decide(heavierPeriod(completions, itemSeconds), state({ saturation: heavier }), config()).state
          .saturation;
      expect(ceilingAfter(125, 0.0706)).toEqual(heavier);
      expect(ceilingAfter(124, 0.0807)).toEqual(heavier);
    });
  });

  describe('more completions than the finding by more than "slower": the downstream serves more now', () => {
    // The finding's period completed 1,000/s (30 workers at 30 ms); back at its ceiling of 20, 20 workers now run.
    // Held-out pool-slow-then-surge, seed 1, 10 s steps: found 13 of 31 on a period of mixed 20 and 100 ms items,
    // then 20 ms items under a surge of 900/s.
    const atCeiling = (completions: number) =>
      decide(
        periodAfter(completions, 20 / completions, 60, { workers: 20, arrivals: 2000 }),
        state({ saturation: found }),
        config(),
      );

    it("1,600/s on its 20 workers (1.6 × the finding's throughput): lifted, the law grows past it", () => {
      const decision = atCeiling(1600);
      expect(decision.state.saturation).toBeUndefined();
      expect(decision.reason).not.toMatch(/downstream-saturated/);
      expect(decision.desired).toBeGreaterThan(20);
    });

    it('1,400/s on the same 20 (within "slower" of it; the time fell with the workers): held, shed on', () => {
      const decision = atCeiling(1400);
      expect(decision.state.saturation).toEqual(found);
      expect(decision).toMatchObject({ reason: 'hold:downstream-saturated', desired: 20, shed: true });
    });
  });

  it('a finding without its contended figures (carried from before they were kept): the ceiling holds', () => {
    const { contended: _, ...bare } = found;
    const decision = decide(periodAfter(650, 0.03), state({ saturation: bare }), config());
    expect(decision.state.saturation).toEqual(bare);
  });
});

describe('the baselines while items are slower', () => {
  it('the baseline does not learn the slow per-item time', () => {
    const decision = decide(snapshot({ age: 300, itemSeconds: 0.06 }), state(), config());
    expect(decision.state.baselineItemSeconds).toBe(0.02);
  });

  it('a healthy tick moves the baseline toward the sample', () => {
    const decision = decide(snapshot({ age: 1, itemSeconds: 0.025 }), state(), config());
    expect(decision.state.baselineItemSeconds).toBeCloseTo(0.021);
  });
});

describe('hold:at-cap — behind at the cap, hold and signal saturated (the cap is the downstream’s)', () => {
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
});

describe('grow:age-above-target / hold:draining — age decides when to grow, the need how far', () => {
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
        'the backlog is drained over the horizon: 16 busy + 20,000 visible × 20 ms ÷ 120 s = 3.3 → 19.3 → 20',
      snap: snapshot({ appliedConcurrency: 4, age: 90, visibleMessages: 20_000 }),
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
      comment: 'age at the setpoint (0.5 × 60 s) exactly is not above it: hold',
      snap: snapshot({ appliedConcurrency: 4, age: 30 }),
      desired: 4,
      reason: 'hold:steady',
    },
    {
      comment:
        'age above the setpoint but below the target grows: the target is a ceiling, not a place to sit',
      snap: snapshot({ appliedConcurrency: 4, age: 45 }),
      desired: 18,
      reason: 'grow:age-above-target',
    },
    {
      comment: 'with setpointFraction 1 (the article’s rule) age below the target holds',
      snap: snapshot({ appliedConcurrency: 4, age: 45 }),
      settings: { setpointFraction: 1 },
      desired: 4,
      reason: 'hold:steady',
    },
  ])('$comment', ({ snap, st, settings, desired, reason }) => {
    const decision = decide(snap, st ?? state(), config(settings));
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

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
});

describe('hold:settling — growth no need sizes waits until the last change has settled', () => {
  // Behind, with no per-item time: only the age-only step could grow; the fast path changed the value 30 s ago.
  const behindUnsized = snapshot({
    appliedConcurrency: 16,
    age: 90,
    arrivalRatePerSecond: undefined,
    itemSeconds: undefined,
  });
  it.each([
    {
      comment: 'changed 30 s ago: the depth still shows the old value → hold',
      changedAgo: 30,
      desired: 16,
      reason: 'hold:settling',
    },
    {
      comment: 'changed 90 s ago: settled → the age-only step',
      changedAgo: 90,
      desired: 20,
      reason: 'grow:age-above-target',
    },
  ])('$comment', ({ changedAgo, desired, reason }) => {
    const decision = decide(
      behindUnsized,
      { lastChangeAt: NOW - changedAgo },
      config({ maxScaleUpStep: 1000 }),
    );
    expect(decision).toMatchObject({ desired, reason });
  });

  it('a sized need is not held: the settling time only guards the guess', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 4, age: 90 }),
      { lastChangeAt: NOW - 30 },
      config(),
    );
    expect(decision.reason).toBe('grow:age-above-target');
  });

  it('growth before data waits too: a backlog seen across a change 20 s ago holds', () => {
    const noData = snapshot({
      appliedConcurrency: 16,
      oldestAge: undefined,
      arrivalRatePerSecond: undefined,
      itemSeconds: undefined,
      visibleMessages: 12_000,
    });
    const st = { lastVisible: { at: NOW - 60, messages: 6_000 } };
    // Without the samples between ticks (with them, the depth before data is theirs).
    const alone = config({ fastSampleSeconds: 0 });
    expect(decide(noData, { ...st, lastChangeAt: NOW - 20 }, alone).reason).toBe('hold:no-data');
    expect(decide(noData, { ...st, lastChangeAt: NOW - 120 }, alone).reason).toBe('grow:backlog-before-data');
  });
});

describe('no wind-up: growth waits while the executions lag the applied value (issue 28)', () => {
  // 650/s of 40 ms items, 27 applied, 21,692 waiting: a need of 29 + the backlog's drain. The pollers ran 5 at the
  // last step (50 in flight), or all 27 (270).
  const behind = (inFlight: number) =>
    snapshot({
      appliedConcurrency: 27,
      age: 45,
      arrivalRatePerSecond: 650,
      completionRatePerSecond: 200,
      itemSeconds: 0.04,
      visibleMessages: 21_692,
      inFlightMessages: inFlight,
    });
  it.each([
    {
      comment: '5 of 27 run (50 in flight) 30 s after the growth: the pollers have not followed → hold',
      inFlight: 50,
      changedAgo: 30,
      desired: 27,
      reason: 'hold:settling',
    },
    {
      comment: 'all 27 run (270 in flight): grow to the need',
      inFlight: 270,
      changedAgo: 30,
      desired: 29,
      reason: 'grow:age-above-target',
    },
    {
      comment: 'nothing in flight at all is not a ramp (the mapping delivers nothing): grow',
      inFlight: 0,
      changedAgo: 30,
      desired: 29,
      reason: 'grow:age-above-target',
    },
    {
      comment:
        '5 of 27 run ten minutes after the last change: no ramp lags that long, the consumer runs fewer (a FIFO queue’s groups) → grow',
      inFlight: 50,
      changedAgo: 600,
      desired: 29,
      reason: 'grow:age-above-target',
    },
  ])('$comment', ({ inFlight, changedAgo, desired, reason }) => {
    const decision = decide(
      behind(inFlight),
      state({ baselineItemSeconds: 0.04, baselineArrivalRate: 650, lastChangeAt: NOW - changedAgo }),
      config(),
    );
    expect(decision).toMatchObject({ desired, reason });
  });
});

describe('the cap is the last resort (drainCeiling: the target utilisation of the cap, 28 of 32)', () => {
  it.each([
    // 580/s at 40 ms needs 26, and the backlog's drain would take it past the cap
    { comment: 'a backlog alone takes the value to 28, not the cap', rate: 580, item: 0.04, desired: 28 },
    // 1,000/s at 30 ms keeps 30 busy, 34 at 0.9: the headroom stops one below the cap
    {
      comment: 'arrivals that need more than 28 get it, their headroom up to one below the cap',
      rate: 1_000,
      item: 0.03,
      desired: 31,
    },
    // 1,100/s at 30 ms keeps 33 busy: the work itself needs the cap
    { comment: 'work past the cap gets the cap', rate: 1_100, item: 0.03, desired: 32 },
  ])('$comment', ({ rate, item, desired }) => {
    const behind = { appliedConcurrency: 20, age: 90, visibleMessages: 40_000 };
    const decision = decide(
      snapshot({ ...behind, arrivalRatePerSecond: rate, itemSeconds: item }),
      state({ baselineItemSeconds: item, baselineArrivalRate: rate }),
      config(),
    );
    expect(decision).toMatchObject({ desired, reason: 'grow:age-above-target' });
  });
  it('the age-only step (no need known) stops at 28 too', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 26, age: 90, arrivalRatePerSecond: undefined, itemSeconds: undefined }),
      {},
      config(),
    );
    expect(decision).toMatchObject({ desired: 28, reason: 'grow:age-above-target' });
    // AND at the ceiling the step holds, saying where growth stops
    const held = decide(
      snapshot({ appliedConcurrency: 28, age: 90, arrivalRatePerSecond: undefined, itemSeconds: undefined }),
      {},
      config(),
    );
    expect(held).toMatchObject({ desired: 28, reason: 'hold:unconfirmed' });
    expect(held.inputs.growthLimit).toBe(28);
  });
});

describe('hold:unconfirmed — growth CloudWatch has not confirmed is limited (a spike or a slower downstream?)', () => {
  // 300/s at 20 ms needs 300 × 0.02 ÷ 0.9 = 6.7 → 7. The late datapoint (lag 120 s) still shows a healthy queue.
  const flat = (visible: number, extra = {}) =>
    snapshot({
      appliedConcurrency: 7,
      age: 1,
      lag: 120,
      arrivalRatePerSecond: 300,
      completionRatePerSecond: 300,
      visibleMessages: visible,
      ...extra,
    });
  const sampledAt = (messages: number) =>
    state({ baselineArrivalRate: 300, lastVisible: { at: NOW - 60, messages }, lastChangeAt: NOW - 3600 });

  it.each([
    {
      comment:
        'the depth rose 188/s (below 1.5 × 300: a slowdown could do that): growth stops at ⌊1.5 × 7⌋ = 10, not the 16 the backlog asks',
      snap: flat(60_000),
      st: sampledAt(48_720),
      desired: 10,
      reason: 'grow:age-above-target',
      confirmed: false,
    },
    {
      comment: 'already at the limit: hold, unconfirmed',
      snap: flat(60_000, { appliedConcurrency: 10 }),
      st: sampledAt(48_720),
      desired: 10,
      reason: 'hold:unconfirmed',
      confirmed: false,
    },
    {
      comment: 'the depth rose 700/s, more than any slowdown of 300/s could make it: a spike, sized in full',
      snap: flat(42_000),
      st: sampledAt(0),
      desired: 21,
      reason: 'grow:age-above-target',
      confirmed: true,
    },
    {
      comment:
        'CloudWatch’s own datapoint shows the backlog (age 45 s > setpoint) at a healthy per-item time: confirmed, sized in full (λ = 188 + 7 ÷ 0.02 = 538/s → 10.8 busy + 10 to drain → 21)',
      snap: flat(60_000, { age: 45 }),
      st: sampledAt(48_720),
      desired: 21,
      reason: 'grow:age-above-target',
      confirmed: true,
    },
    {
      comment: 'with unconfirmedGrowthFactor 1 nothing unconfirmed grows',
      snap: flat(60_000),
      st: sampledAt(48_720),
      settings: { unconfirmedGrowthFactor: 1 },
      desired: 7,
      reason: 'hold:unconfirmed',
      confirmed: false,
    },
  ])('$comment', ({ snap, st, settings, desired, reason, confirmed }) => {
    const decision = decide(snap, st, config(settings));
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
    expect(decision.inputs.confirmed).toBe(confirmed);
  });
});

describe('unconfirmed growth on a load rising faster than CloudWatch reports it (the diurnal day at 0.3 of its length)', () => {
  // CloudWatch (lag 120 s) still reports 1,000/s of 20 ms items, a need of 23; 48 run, and since the tick a minute
  // ago the depth rose 1,400/s: arrivals about 1,400 + 48 ÷ 0.02 = 3,800/s, not a proven spike (1,400 < 1.5 × 1,000).
  const rising = (visible: number, inFlight: number) =>
    snapshot({
      appliedConcurrency: 48,
      age: 1,
      lag: 120,
      arrivalRatePerSecond: 1_000,
      completionRatePerSecond: 1_000,
      visibleMessages: visible,
      inFlightMessages: inFlight,
      ratePeriodSeconds: 60,
    });
  const sampledAt = (messages: number) =>
    state({ baselineArrivalRate: 1_000, lastVisible: { at: NOW - 60, messages }, lastChangeAt: NOW - 3600 });
  const wide = config({ maxConcurrency: 200 });

  it.each([
    {
      comment:
        'all 48 busy: growth is measured from the 48 the depth proves busy and sized on the estimate, 48 → ⌊1.5 × 48⌋ = 72 (not held at the stale need’s 34)',
      snap: rising(184_000, 480),
      st: sampledAt(100_000),
      desired: 72,
      reason: 'grow:age-above-target',
    },
    {
      comment:
        'only 10 of the 48 running (the pollers behind): nothing proves 48 busy, the limit stays at 48',
      snap: rising(184_000, 100),
      st: sampledAt(100_000),
      desired: 48,
      reason: 'hold:unconfirmed',
    },
    {
      comment:
        'the depth falls (190,000 → 184,000): being worked off, sized on CloudWatch’s rate (20 busy + 31 to drain = 51), not on the estimate’s 2,300/s',
      snap: rising(184_000, 480),
      st: sampledAt(190_000),
      desired: 51,
      reason: 'grow:age-above-target',
    },
  ])('$comment', ({ snap, st, desired, reason }) => {
    const decision = decide(snap, st, wide);
    expect(decision).toMatchObject({ reason, desired });
    expect(decision.inputs.confirmed).toBe(false);
  });
});

describe("actuator 'provisioned': the law's values are whole pollers (10 concurrent invocations each)", () => {
  const provisioned = (extra = {}) => config({ actuator: 'provisioned', minConcurrency: 20, ...extra });

  it('a need of 21 takes 3 pollers (30), and the cap of 32 is 3 pollers (30)', () => {
    expect(clampConcurrency(21, provisioned())).toBe(30);
    expect(clampConcurrency(31, provisioned())).toBe(30);
    expect(clampConcurrency(3, provisioned())).toBe(20);
  });

  it('a saturation found at a knee between two levels holds at whole pollers (45 useful → a ceiling of 40)', () => {
    // Behind at 40, grown to 60; the next period served what 45 workers at the old per-item time serve.
    const probe = { at: NOW - 300, from: 40, to: 60, completionsBefore: 2_000, itemSecondsBefore: 0.02 };
    const decision = decide(
      snapshot({
        appliedConcurrency: 60,
        age: 300,
        lag: 60,
        arrivalRatePerSecond: 3_000,
        completionRatePerSecond: 2_250,
        itemSeconds: 60 / 2_250,
        ratePeriodSeconds: 60,
      }),
      state({ baselineArrivalRate: 3_000, baselineItemSeconds: 0.02, growthProbe: probe }),
      provisioned({ maxConcurrency: 100 }),
    );
    expect(decision.state.saturation?.ceiling).toBe(40);
    expect(decision.desired % 10).toBe(0);
  });

  it('a shrink removes a whole poller at least: 30 → 20 at one step a shrink (29 would round back up)', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 30, age: 0, arrivalRatePerSecond: 50 }),
      state({ idleSince: NOW - 600, baselineArrivalRate: 50 }),
      provisioned({ scaleDownSurplusFraction: 0 }),
    );
    expect(decision).toMatchObject({ reason: 'shrink:sustained-idle', desired: 20 });
  });

  it('a shrink is judged on the level it applies: 100 − 15 rounds up to 90, which covers a need of 87–89', () => {
    // 3,900/s of 20 ms items at 0.9: a shrink need of 87 (88–89 with the count's upper bound).
    const decision = decide(
      snapshot({ appliedConcurrency: 100, age: 0, arrivalRatePerSecond: 3_900, itemSeconds: 0.02 }),
      state({ idleSince: NOW - 600, baselineArrivalRate: 3_900, baselineItemSeconds: 0.02 }),
      provisioned({ scaleDownStep: 15, scaleDownSurplusFraction: 0, maxConcurrency: 200 }),
    );
    expect(decision).toMatchObject({ reason: 'shrink:sustained-idle', desired: 90 });
  });
});

describe('shrink:sustained-idle — only after sustained idleness, and never below the need or on an unknown one', () => {
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
      st: idleFor(179),
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

  it('an unknown arrival rate never shrinks, however long idle', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 20, age: 0, arrivalRatePerSecond: undefined }),
      state({ idleSince: NOW - 3600 }),
      config(),
    );
    expect(decision.reason).toBe('hold:steady');
    expect(decision.desired).toBe(20);
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
});

describe('a rate is a count over its period — its noise may cost a shrink or the headroom, never the work', () => {
  // The seed preset's pool at 800/s with 20 ms items, rates over 250 ms: 200 ± 14 arrivals a window.
  const idle = state({ idleSince: NOW - 3600, baselineItemSeconds: 0.0197, baselineArrivalRate: 800 });

  it.each([
    {
      comment:
        'a low 250 ms count does not shrink: 744/s → at most 853/s → 853 × 0.0197 ÷ 0.9 = 18.7 → 19 > 17',
      period: 0.25,
      desired: 18,
      reason: 'hold:steady',
    },
    {
      comment: 'the same rate counted over a minute proves itself: 744/s → at most 751/s → 17 → shrink to 17',
      period: 60,
      desired: 17,
      reason: 'shrink:sustained-idle',
    },
  ])('$comment', ({ period, desired, reason }) => {
    const snap = snapshot({
      appliedConcurrency: 18,
      age: 0,
      arrivalRatePerSecond: 744,
      peakArrivalRatePerSecond: 744,
      itemSeconds: 0.0197,
      ratePeriodSeconds: period,
    });
    const decision = decide(snap, idle, config());
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

  it.each([
    {
      comment:
        'a high 250 ms count grows on what it proves, its headroom only: 912/s → at least 791/s, but never below 0.9 × 912 = 821/s → 821 × 0.02 ÷ 0.9 = 18.2 → 19 (21 on the bare count)',
      period: 0.25,
      desired: 19,
    },
    {
      comment: 'the same rate counted over a minute: 912/s → at least 904/s → 20.1 → 21',
      period: 60,
      desired: 21,
    },
  ])('$comment', ({ period, desired }) => {
    const snap = snapshot({
      appliedConcurrency: 17,
      age: 90,
      arrivalRatePerSecond: 912,
      itemSeconds: 0.02,
      ratePeriodSeconds: period,
    });
    const decision = decide(snap, state(), config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBe(desired);
  });

  it('0.5/s over a minute with 30 s items: grows to λ·S = 15, not to the lower bound\'s 11 called "draining"', () => {
    // 30 arrivals ± 5.5: the lower bound is 0.32/s; sized on it, the need (11) would sit below the 15 busy workers
    // 0.5/s keeps, and the law would hold a queue that can only grow.
    const decision = decide(
      snapshot({
        appliedConcurrency: 12,
        age: 400,
        visibleMessages: 5,
        arrivalRatePerSecond: 0.5,
        completionRatePerSecond: 0.4,
        itemSeconds: 30,
        ratePeriodSeconds: 60,
      }),
      state({ baselineItemSeconds: 30, baselineArrivalRate: 0.5 }),
      config({ targetAgeSeconds: 600 }),
    );
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBe(15);
  });
});

describe('the real-time depth — its trend witnesses the arrival rate and the age a late datapoint cannot', () => {
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
    // THEN arrivals are at least 42,000 ÷ 60 = 700/s (completions are never negative), far above 1.5 × 50: a spike,
    // confirmed. 700 × 0.02 = 14 busy + 42,000 × 0.02 ÷ 120 s = 7 to drain → 21, not sized for the stale 50/s
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.inputs.confirmed).toBe(true);
    expect(decision.inputs.arrivalRatePerSecond).toBeCloseTo(700, 0);
    expect(decision.desired).toBe(21);
  });

  it('the trend sizes with λ = dV/dt + c ÷ S once a backlog covered the interval at one settled value', () => {
    const snap = snapshot({
      appliedConcurrency: 10,
      age: 0.1,
      lag: 120,
      arrivalRatePerSecond: 50,
      visibleMessages: 30_000,
    });
    // 12,000 → 30,000 in 60 s at 10 × 20 ms: dV/dt = 300/s + 500/s served = 800/s
    const carried = state({ lastVisible: { at: NOW - 60, messages: 12_000 }, lastChangeAt: NOW - 600 });
    const decision = decide(snap, carried, config());
    expect(decision.inputs.arrivalRatePerSecond).toBeCloseTo(800, 0);
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

  it('carries the visible depth for the next tick’s trend', () => {
    const decision = decide(snapshot({ visibleMessages: 12 }), state(), config());
    expect(decision.state.lastVisible).toEqual({ at: NOW, messages: 12 });
  });

  // Every worker busy at both depth samples a minute apart, 18 applied at 20 ms: the queue drains ~900/s.
  const busy = (messages: number) => state({ lastVisible: { at: NOW - 60, messages } });

  it('at the cap, a queue the busy workers drain in 0.4 s is not behind, whatever a lagged datapoint adds', () => {
    // The datapoint (10 s, 60 s late) plus its lag says 70 s, above the 60 s target; the depth's 380 messages at
    // ~900/s say 0.4 s. Read as behind, it would be "saturated": shedding upstream for a queue that is nearly empty.
    const decision = decide(
      snapshot({
        appliedConcurrency: 18,
        age: 10,
        lag: 60,
        visibleMessages: 380,
        arrivalRatePerSecond: 0,
        completionRatePerSecond: 1,
      }),
      busy(400),
      config({ maxConcurrency: 18 }),
    );
    expect(decision.saturated).toBe(false);
    expect(decision.inputs.ageSeconds).toBeLessThan(1);
  });

  it('a shrink covers the rate the busy workers show: CloudWatch reads 500/s, the trend 900/s → hold 18', () => {
    // The datapoint (20 s) is below the setpoint, so the estimate does not size anything; it still says the
    // workers drain ~900/s, so the 0.4 s the depth implies is idle only at that rate, and 18 is its need.
    const decision = decide(
      snapshot({ appliedConcurrency: 18, age: 20, lag: 60, visibleMessages: 380, arrivalRatePerSecond: 500 }),
      { ...busy(400), idleSince: NOW - 3600 },
      config(),
    );
    expect(decision.inputs.ageSeconds).toBeLessThan(1);
    expect(decision.reason).toBe('hold:steady');
    expect(decision.desired).toBe(18);
  });

  it('without a measured rate the estimate sizes growth (24), not the blind age-only step (22)', () => {
    // 40,000 → 38,000 in 60 s at 18 × 50/s: 867/s arrive; 17.3 busy + 38,000 × 0.02 ÷ 120 s = 23.7 → 24
    const decision = decide(
      snapshot({
        appliedConcurrency: 18,
        age: 10,
        lag: 60,
        visibleMessages: 38_000,
        arrivalRatePerSecond: undefined,
        completionRatePerSecond: undefined,
      }),
      busy(40_000),
      config(),
    );
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBe(24);
  });

  it('a drain rate of 5e-324/s is no drain rate: the late datapoint stands, as it does at 0', () => {
    const decision = decide(
      snapshot({
        appliedConcurrency: 4,
        age: 1,
        lag: 60,
        visibleMessages: 1,
        arrivalRatePerSecond: undefined,
        completionRatePerSecond: 5e-324,
      }),
      state(),
      config(),
    );
    expect(decision.inputs.ageSeconds).toBe(1);
    expect(decision.desired).toBe(4);
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

describe('values that make no sense never leave [floor, cap]', () => {
  it.each([
    {
      comment: 'a NaN applied value is unknown: adopted as for an unbounded one',
      snap: snapshot({ appliedConcurrency: Number.NaN }),
    },
    { comment: 'a negative applied value', snap: snapshot({ appliedConcurrency: -3 }) },
    {
      comment: 'a NaN per-item time',
      snap: snapshot({ appliedConcurrency: 4, age: 90, itemSeconds: Number.NaN }),
    },
    {
      comment: 'a NaN arrival rate',
      snap: snapshot({ appliedConcurrency: 4, age: 90, arrivalRatePerSecond: Number.NaN }),
    },
    {
      comment: 'an infinite arrival rate',
      snap: snapshot({ appliedConcurrency: 4, age: 90, arrivalRatePerSecond: Number.POSITIVE_INFINITY }),
    },
    { comment: 'a negative depth', snap: snapshot({ appliedConcurrency: 4, age: 90, visibleMessages: -10 }) },
    { comment: 'a fractional applied value', snap: snapshot({ appliedConcurrency: 4.6, age: 90 }) },
  ])('$comment', ({ snap }) => {
    const decision = decide(snap, state({ baselineItemSeconds: Number.NaN }), config());
    expect(Number.isInteger(decision.desired)).toBe(true);
    expect(decision.desired).toBeGreaterThanOrEqual(2);
    expect(decision.desired).toBeLessThanOrEqual(32);
  });

  it('a NaN per-item time is unknown, not zero: without a baseline the age-only step applies', () => {
    const decision = decide(
      snapshot({ appliedConcurrency: 4, age: 90, itemSeconds: Number.NaN, visibleMessages: 1000 }),
      {},
      config(),
    );
    expect(decision).toMatchObject({ reason: 'grow:age-above-target', desired: 8 });
  });
});

describe('a lowering binds at once: the sample it leaves starts a settled interval (depth-sample.ts)', () => {
  const idle = state({ idleSince: NOW - 600, baselineArrivalRate: 50, lastChangeAt: NOW - 600 });
  const quiet = (applied: number) =>
    snapshot({ appliedConcurrency: applied, age: 0, arrivalRatePerSecond: 50, visibleMessages: 0 });

  it('a shrink of a value the pollers had settled on: the sample is settled from its own instant', () => {
    const decision = decide(quiet(20), idle, config());
    expect(decision.reason).toBe('shrink:sustained-idle');
    expect(decision.state.lastVisible).toEqual({ at: NOW, messages: 0, settled: true });
  });

  it('a shrink within the settling time of the change before it (the pollers still ramping): judged by the change', () => {
    const recent = { ...idle, lastChangeAt: NOW - 40 };
    const decision = decide(quiet(20), recent, config({ scaleDownIntervalSeconds: 30 }));
    expect(decision.reason).toBe('shrink:sustained-idle');
    expect(decision.state.lastVisible).toEqual({ at: NOW, messages: 0 });
  });

  it('a hold or a growth leaves the sample to be judged by the change', () => {
    expect(decide(quiet(2), idle, config()).state.lastVisible).toEqual({ at: NOW, messages: 0 });
    const behind = snapshot({ appliedConcurrency: 10, age: 50, visibleMessages: 4_000 });
    const grown = decide(behind, state({ lastChangeAt: NOW - 600 }), config());
    expect(grown.desired).toBeGreaterThan(10);
    expect(grown.state.lastVisible).toEqual({ at: NOW, messages: 4_000 });
  });
});

describe('heavier items read in the minute after a lowering (heavier-items.ts): bounded, the tick’s own, unprobed', () => {
  // downstream-at-limit, seed 4, one poller step a minute: an idle shrink 12 → 11 a minute ago, 200/s of 40 ms items
  // reported, the depth risen 0 → 8,824 as a burst begins: read as items 0.194 s (4.9 ×) were it any settled minute.
  const rising = snapshot({
    appliedConcurrency: 11,
    age: 45,
    arrivalRatePerSecond: 200,
    completionRatePerSecond: 200,
    itemSeconds: 0.04,
    visibleMessages: 8_824,
    inFlightMessages: 110,
    ratePeriodSeconds: 60,
  });
  const sample = { at: NOW - 60, messages: 0, inFlight: 100 };
  const known = { baselineItemSeconds: 0.04, baselineArrivalRate: 200 };

  it('after a lowering: sized on twice the known time, the fast path keeps the known one, no probe', () => {
    const lowered = state({ ...known, lastChangeAt: NOW - 60, lastVisible: { ...sample, settled: true } });
    const decision = decide(rising, lowered, config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.inputs.itemSeconds).toBeCloseTo(0.08);
    expect(decision.inputs.fastItemSeconds).toBe(0.04);
    expect(decision.desired).toBeLessThan(32);
    expect(decision.state.growthProbe).toBeUndefined();
  });

  it('any other settled minute: the time as shown, for the fast path too, and the growth probed', () => {
    const settled = state({ ...known, lastChangeAt: NOW - 120, lastVisible: sample });
    const decision = decide(rising, settled, config());
    expect(decision.inputs.itemSeconds).toBeCloseTo(0.194, 2);
    expect(decision.inputs.fastItemSeconds).toBeUndefined();
    expect(decision.state.growthProbe).toMatchObject({ from: 11, shownByDepth: true });
  });
});
