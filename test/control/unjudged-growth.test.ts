import { describe, expect, it } from 'vitest';
import { decide } from '../../lib/control/policy.ts';
import { saneState } from '../../lib/control/sanitize.ts';
import type { GrowthProbe } from '../../lib/control/snapshot.ts';
import { config, NOW, periodEndingAt, snapshot, state } from './fixtures.ts';

/**
 * The samples between ticks grow on evidence no probe of theirs judges (heavier items a growth proved:
 * served-rises.ts). The tick remembers the value it left (`tickLeft`), and its own probe judges the samples' growth
 * since with its own (`GrowthProbe.unjudgedFrom`): a saturated downstream is taken back to what the tick left, not
 * only to where the tick's growth started (downstream-saturated: samples 18 → 22 on a pool of 20, the tick 22 → 31;
 * back to 22 before, 20 now).
 */

describe('the tick remembers the value it left', () => {
  it('a growth leaves its new value, dated now', () => {
    // 500/s of 20 ms items behind at 10: a need of 12 before the drain
    const behind = snapshot({ appliedConcurrency: 10, age: 200, arrivalRatePerSecond: 500 });
    const decision = decide(behind, state(), config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBeGreaterThan(10);
    expect(decision.state.tickLeft).toEqual({ value: decision.desired, at: NOW });
  });

  it('a hold of a value the samples grew to since keeps the lower one the tick before left, for five minutes', () => {
    // The tick before left 16 at NOW - 60; the samples grew to 28 since; the age (a minute or two late) holds.
    const held = (at: number) =>
      decide(snapshot({ appliedConcurrency: 28 }), state({ tickLeft: { value: 16, at } }), config()).state
        .tickLeft;
    expect(held(NOW - 60)).toEqual({ value: 16, at: NOW - 60 });
    expect(held(NOW - 301)).toEqual({ value: 28, at: NOW });
  });

  it('a hold leaves the value applied; an unbounded consumer leaves none', () => {
    expect(decide(snapshot({ appliedConcurrency: 18 }), state(), config()).state.tickLeft).toEqual({
      value: 18,
      at: NOW,
    });
    const adopted = decide(
      snapshot({ appliedConcurrency: Number.POSITIVE_INFINITY, paused: 'mapping-disabled' }),
      state(),
      config(),
    );
    expect(adopted.state.tickLeft).toBeUndefined();
  });
});

describe("the tick's probe judges the samples' growth since the tick before", () => {
  // 300/s of 100 ms items on a pool of 20; the tick before left 18 at NOW - 60, the samples grew to 22 since.
  const behindAt22 = snapshot({
    appliedConcurrency: 22,
    age: 120,
    lag: 60,
    arrivalRatePerSecond: 300,
    completionRatePerSecond: 180,
    itemSeconds: 0.1,
    ratePeriodSeconds: 60,
  });
  const left = { value: 18, at: NOW - 60 };

  it('the probe of a growth past 22 runs from the 18 the tick before left', () => {
    const decision = decide(behindAt22, state({ baselineArrivalRate: 300, tickLeft: left }), config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.state.growthProbe).toMatchObject({ from: 22, unjudgedFrom: left });
  });

  it('where the samples did not grow past what the tick left, the probe is as before', () => {
    const same = { value: 22, at: NOW - 60 };
    const decision = decide(behindAt22, state({ baselineArrivalRate: 300, tickLeft: same }), config());
    expect(decision.state.growthProbe?.from).toBe(22);
    expect(decision.state.growthProbe?.unjudgedFrom).toBeUndefined();
  });

  // The tick grew 22 → 31 at NOW - 180 on 180/s at 100 ms (a period before the samples' 22 waited on the pool).
  const probe: GrowthProbe = {
    at: NOW - 180,
    from: 22,
    to: 31,
    completionsBefore: 180,
    itemSecondsBefore: 0.1,
    unjudgedFrom: { value: 18, at: NOW - 240 },
  };
  const judgedOn = (end: number, completions: number, itemSeconds: number) =>
    periodEndingAt(end, completions, itemSeconds, 31);
  const carrying = (growthProbe: GrowthProbe) =>
    state({ baselineArrivalRate: 300, baselineItemSeconds: 0.02, growthProbe });

  it('saturated (200/s at 155 ms with 31 running: 20 useful): back to 20, below the 22 its growth started from', () => {
    const decision = decide(judgedOn(NOW - 60, 200, 0.155), carrying(probe), config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 20, shed: true });
    const { unjudgedFrom: _, ...tickOnly } = probe;
    const before = decide(judgedOn(NOW - 60, 200, 0.155), carrying(tickOnly), config());
    expect(before.desired).toBe(22);
  });

  it('but not below what the tick before left: 17 useful (170/s at 100 ms) goes back to 18', () => {
    const decision = decide(judgedOn(NOW - 60, 170, 0.182), carrying(probe), config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 18 });
  });

  it('a newer period before the growth gives its completions, and the per-item time stays the lightest since the tick before left its value', () => {
    // The period that ended at the tick's growth ran the samples' 22 on 20 connections (195/s at 107 ms): compared
    // with its time, 31 workers on the pool would find 21 useful, and the queue would keep 21 on 20 connections.
    const newer = decide(judgedOn(probe.at, 195, 0.107), carrying(probe), config());
    expect(newer.state.growthProbe).toEqual({ ...probe, completionsBefore: 195, itemSecondsBefore: 0.1 });
    const { unjudgedFrom: _, ...tickOnly } = probe;
    const asBefore = decide(judgedOn(probe.at, 195, 0.107), carrying(tickOnly), config());
    expect(asBefore.state.growthProbe).toEqual({
      ...tickOnly,
      completionsBefore: 195,
      itemSecondsBefore: 0.107,
    });
  });

  it('but where that period ran no more workers than the tick before left (150/s at 120 ms: 18), its time is the items’ own: taken as it is', () => {
    const heavier = decide(judgedOn(probe.at, 150, 0.12), carrying(probe), config());
    expect(heavier.state.growthProbe).toEqual({ ...probe, completionsBefore: 150, itemSecondsBefore: 0.12 });
  });
});

describe('the remembered value as the law trusts it', () => {
  it('a value left that is not a count is none; an unjudged start not below the growth is dropped', () => {
    const probe: GrowthProbe = { at: NOW, from: 22, to: 31, completionsBefore: 180, itemSecondsBefore: 0.1 };
    const sane = saneState({
      tickLeft: { value: Number.NaN, at: NOW },
      growthProbe: { ...probe, unjudgedFrom: { value: 25, at: NOW - 60 } },
    });
    expect(sane.tickLeft).toBeUndefined();
    expect(sane.growthProbe).toEqual(probe);
    const kept = saneState({ growthProbe: { ...probe, unjudgedFrom: { value: 18, at: NOW - 60 } } });
    expect(kept.growthProbe?.unjudgedFrom).toEqual({ value: 18, at: NOW - 60 });
  });
});

describe("where the tick grows no more, its probe judges the samples' growth", () => {
  // A pool of 20 whose queries went 20 → 100 ms: the tick left 9 at NOW - 120, the samples read the depth's rise as a
  // surge and grew to the cap (32) by NOW - 30; CloudWatch's newest period ended at NOW - 120: 80/s at 100 ms.
  const left = { value: 9, at: NOW - 120 };
  const atCap = periodEndingAt(NOW - 120, 80, 0.1);
  const behindAtCap = (overrides: Parameters<typeof state>[0]) =>
    decide(atCap, state({ baselineArrivalRate: 300, baselineItemSeconds: 0.02, ...overrides }), config());

  it("records a probe from the value the tick left, dated at the samples' growth, on the period before it", () => {
    const decision = behindAtCap({ tickLeft: left, lastChangeAt: NOW - 30 });
    expect(decision.reason).toBe('hold:at-cap');
    expect(decision.state.growthProbe).toEqual({
      at: NOW - 30,
      from: 9,
      to: 32,
      completionsBefore: 80,
      itemSecondsBefore: 0.1,
    });
  });

  it('none where the tick itself left the cap, the newest period ran after the samples grew, the change came before the tick left its value, or that was over five minutes ago', () => {
    expect(
      behindAtCap({ tickLeft: { value: 32, at: NOW - 60 }, lastChangeAt: NOW - 60 }).state.growthProbe,
    ).toBeUndefined();
    const earlier = { value: 9, at: NOW - 240 };
    expect(behindAtCap({ tickLeft: earlier, lastChangeAt: NOW - 150 }).state.growthProbe).toBeUndefined();
    expect(behindAtCap({ tickLeft: earlier, lastChangeAt: NOW - 90 }).state.growthProbe?.from).toBe(9);
    // A change before the tick left its value (an operator's raise, the tick's own write) is not the samples'.
    const olderPeriod = periodEndingAt(NOW - 250, 80, 0.1);
    const raisedBefore = state({ baselineArrivalRate: 300, tickLeft: left, lastChangeAt: NOW - 200 });
    expect(decide(olderPeriod, raisedBefore, config()).state.growthProbe).toBeUndefined();
    // A value left more than five minutes ago says nothing more of what ran before.
    const stale = { value: 9, at: NOW - 301 };
    expect(behindAtCap({ tickLeft: stale, lastChangeAt: NOW - 100 }).state.growthProbe).toBeUndefined();
  });

  it("and where the downstream's health signal holds the tick below the cap, as at the cap", () => {
    const at28 = { ...atCap, appliedConcurrency: 28 };
    const unhealthy = { value: 40, observedAt: NOW - 60, periodSeconds: 60, unhealthy: true };
    const carried = state({ baselineArrivalRate: 300, tickLeft: left, lastChangeAt: NOW - 30 });
    const held = decide({ ...at28, downstreamHealth: unhealthy }, carried, config());
    expect(held.reason).toBe('hold:downstream-saturated');
    expect(held.state.growthProbe).toMatchObject({ at: NOW - 30, from: 9, to: 28 });
    const healthy = decide(
      { ...at28, downstreamHealth: { ...unhealthy, unhealthy: false } },
      carried,
      config(),
    );
    // Healthy, the tick grows past 28 itself, and its own probe judges the samples' growth with it.
    expect(healthy.reason).toBe('grow:age-above-target');
    expect(healthy.state.growthProbe).toMatchObject({ at: NOW, from: 28, unjudgedFrom: left });
  });

  it('judged on what ran before: 160/s at 100 ms (16 running, the samples part grown) → 200/s at 158 ms: back to 20', () => {
    // Judged against the 9 the tick left, 32 ÷ 9 asks the executions to reach 36 of 32: no verdict ever came.
    const probe: GrowthProbe = {
      at: NOW - 210,
      from: 9,
      to: 32,
      completionsBefore: 160,
      itemSecondsBefore: 0.1,
    };
    const decision = decide(periodEndingAt(NOW - 60, 200, 0.158), state({ growthProbe: probe }), config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 20 });
  });
});

describe("the samples' probe takes CloudWatch's figures, and none while the tick is only ahead of the age", () => {
  // heavier-items at 1,260 s (one poller step a minute), here with a cap of 14: the samples grew 9 → 14 since the tick
  // left 9; CloudWatch's newest period (399/s at 30.6 ms) ended before that; the depth shows heavier items since.
  const heavierAtCap = (age: number, visibleMessages = 8_144) =>
    decide(
      snapshot({
        appliedConcurrency: 14,
        age,
        lag: 120,
        arrivalRatePerSecond: 399,
        peakArrivalRatePerSecond: 399,
        completionRatePerSecond: 399,
        itemSeconds: 0.0306,
        ratePeriodSeconds: 60,
        visibleMessages,
        inFlightMessages: 140,
      }),
      state({
        baselineItemSeconds: 0.0306,
        baselineArrivalRate: 399,
        lastChangeAt: NOW - 60,
        lastVisible: { at: NOW - 60, messages: 0, inFlight: 86, settled: true },
        tickLeft: { value: 9, at: NOW - 120 },
      }),
      config({ maxConcurrency: 14 }),
    );

  it('ahead of the age only (21 s now, past the setpoint by the time growth binds): no probe', () => {
    const decision = heavierAtCap(0.4);
    expect(decision.inputs.grownAhead).toBe(true);
    expect(decision.state.growthProbe).toBeUndefined();
  });

  it("behind: the probe's figures are CloudWatch's period before the growth, not what the depth shows since", () => {
    // 16,000 waiting at 399/s: 40 s old now, past the setpoint of 30 s
    const decision = heavierAtCap(100, 16_000);
    expect(decision.inputs.grownAhead).toBeUndefined();
    expect(decision.inputs.itemSecondsShown).toBe(true);
    expect(decision.state.growthProbe).toEqual({
      at: NOW - 60,
      from: 9,
      to: 14,
      completionsBefore: 399,
      itemSecondsBefore: 0.0306,
    });
  });
});
