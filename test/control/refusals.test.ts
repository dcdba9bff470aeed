import { describe, expect, it } from 'vitest';
import { decideFast, fastPathContext } from '../../lib/control/fast-path.ts';
import { decide } from '../../lib/control/policy.ts';
import { refusalsInFlight } from '../../lib/control/refusals.ts';
import type { QueueSnapshot } from '../../lib/control/snapshot.ts';
import { afterSilence, config, NOW, snapshot, state } from './fixtures.ts';

/**
 * An API that takes 400 calls/s (13 workers' worth of 30 ms items) under a burst of 900/s, 28 applied: behind (the
 * age 200 s over a 60 s target), 5,200 refused items waiting in flight where 28 workers hold at most 560 in full
 * batches of 10. CloudWatch's late period counts 150/s completed, before the burst.
 */
const refusing = (extra: Partial<QueueSnapshot> & { age?: number } = {}) =>
  snapshot({
    appliedConcurrency: 28,
    age: 200,
    arrivalRatePerSecond: 900,
    completionRatePerSecond: 150,
    itemSeconds: 0.031,
    visibleMessages: 1_000,
    inFlightMessages: 5_200,
    batchSize: 10,
    ...extra,
  });
/** The same queue once the API serves its 400/s and `inFlight` wait in flight (no refusals among them). */
const servedAt400 = (applied: number, inFlight: number) =>
  refusing({
    appliedConcurrency: applied,
    inFlightMessages: inFlight,
    completionRatePerSecond: 400,
    itemSeconds: 0.03,
  });
/** The previous tick's depth sample: fewer refused in flight a minute ago. */
const aMinuteAgo = (inFlight: number) =>
  state({
    baselineItemSeconds: 0.03,
    baselineArrivalRate: 150,
    lastVisible: { at: NOW - 60, messages: 6_000, inFlight },
  });

describe('refused items in flight: the workers back off by a quarter, and grow back a quarter a tick', () => {
  it('refusals rising: back to three quarters of the applied value, the shed signal, the fast path frozen', () => {
    const decision = decide(refusing(), aMinuteAgo(60), config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 21, shed: true });
    expect(decision.state.saturation).toMatchObject({ ceiling: 21, refused: true });
    expect(fastPathContext(refusing(), decision, 21, config()).frozen).toBe('downstream-saturated');
  });

  it('the same queue without the refused items in flight grows', () => {
    const decision = decide(refusing({ inFlightMessages: 280 }), aMinuteAgo(60), config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBeGreaterThan(28);
  });

  it('refusals rising at a ceiling they set already: a quarter lower again', () => {
    const saturation = { ceiling: 21, until: NOW + 300, refused: true };
    const decision = decide(
      refusing({ appliedConcurrency: 21 }),
      { ...aMinuteAgo(4_000), saturation },
      config(),
    );
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 15 });
  });

  it("refusals rising under a probe's ceiling above the back-off: the back-off's, lifted step by step", () => {
    const saturation = { ceiling: 26, until: NOW + 300 };
    const decision = decide(refusing(), { ...aMinuteAgo(60), saturation }, config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 21 });
    expect(decision.state.saturation).toMatchObject({ ceiling: 21, refused: true });
  });

  it('refusals in flight no longer rising (waiting out their visibility timeout): the ceiling holds, nothing grows', () => {
    const saturation = { ceiling: 21, until: NOW + 300, refused: true };
    const decision = decide(
      refusing({ appliedConcurrency: 21, inFlightMessages: 5_100 }),
      { ...aMinuteAgo(5_200), saturation },
      config(),
    );
    expect(decision).toMatchObject({ reason: 'hold:downstream-saturated', desired: 21 });
  });

  it('behind with none in flight any more: the ceiling grows back a quarter, and the law grows to it', () => {
    const saturation = { ceiling: 12, until: NOW - 1, refused: true };
    const decision = decide(servedAt400(12, 120), { ...aMinuteAgo(3_000), saturation }, config());
    expect(decision.state.saturation).toMatchObject({ ceiling: 15, refused: true });
    expect(decision).toMatchObject({ reason: 'grow:age-above-target', desired: 15 });
  });

  it('grown back to the cap, the ceiling is lifted', () => {
    const saturation = { ceiling: 28, until: NOW - 1, refused: true };
    const decision = decide(servedAt400(28, 280), { ...aMinuteAgo(3_000), saturation }, config());
    expect(decision.state.saturation).toBeUndefined();
  });

  it('not behind, past the scale-down delay and no refusals: the ceiling goes', () => {
    const saturation = { ceiling: 12, until: NOW - 1, refused: true };
    const decision = decide(
      refusing({ appliedConcurrency: 12, inFlightMessages: 120, age: 5, visibleMessages: 10 }),
      { ...aMinuteAgo(120), saturation },
      config(),
    );
    expect(decision.state.saturation).toBeUndefined();
  });
});

describe('refusals under provisioned mode: the ceiling on whole pollers (10 each)', () => {
  const provisioned = config({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 200 });

  it('backs off 100 to 70, not 75 (a level between two pollers would round back up)', () => {
    const decision = decide(refusing({ appliedConcurrency: 100 }), aMinuteAgo(60), provisioned);
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 70 });
    expect(decision.state.saturation).toMatchObject({ ceiling: 70, refused: true });
  });

  it('grows back a poller at least, on whole pollers: 70 to 80', () => {
    const saturation = { ceiling: 70, until: NOW - 1, refused: true };
    const decision = decide(servedAt400(70, 120), { ...aMinuteAgo(3_000), saturation }, provisioned);
    expect(decision.state.saturation).toMatchObject({ ceiling: 80, refused: true });
  });
});

describe('what counts as refused items in flight', () => {
  it('more in flight than two full batches per applied worker and ten seconds of completions', () => {
    expect(refusalsInFlight(refusing())).toBe(true);
    // 28 workers' two full batches of 10, and 10 s of 150/s: 560 + 1,500.
    expect(refusalsInFlight(refusing({ inFlightMessages: 2_060 }))).toBe(false);
    expect(refusalsInFlight(refusing({ inFlightMessages: 2_061 }))).toBe(true);
  });

  it('a few poison messages waiting out their timeout are not a refusing downstream', () => {
    expect(refusalsInFlight(refusing({ completionRatePerSecond: 800, inFlightMessages: 600 + 560 }))).toBe(
      false,
    );
  });

  it('a mapping with large batches holds its messages in flight: counted against its own batch size', () => {
    expect(refusalsInFlight(refusing({ batchSize: 1_000 }))).toBe(false);
  });

  it('without the depth, the completions or a bounded value: nothing known', () => {
    expect(refusalsInFlight(refusing({ inFlightMessages: undefined }))).toBe(false);
    expect(refusalsInFlight(refusing({ completionRatePerSecond: undefined }))).toBe(false);
    expect(refusalsInFlight(refusing({ appliedConcurrency: Number.POSITIVE_INFINITY }))).toBe(false);
  });
});

describe('between ticks, growth stops at the saturation ceiling', () => {
  // seed-spike's surge: 7,000 piled up in 10 s on 2 workers at 50/s, sized to 16, here under a ceiling of 6.
  const surge = (saturationCeiling?: number) =>
    decideFast(
      { at: NOW + 10, messages: 7_000 },
      afterSilence({
        reportedArrivals: 50,
        tickArrivals: 50,
        itemSeconds: 0.02,
        confirmedNeed: 2,
        ...(saturationCeiling === undefined ? {} : { saturationCeiling }),
      }),
      config(),
    );

  it('without one the surge grows to its need; with one, to the ceiling', () => {
    expect(surge()).toMatchObject({ reason: 'grow:fast-surge', desired: 16 });
    expect(surge(6)).toMatchObject({ reason: 'grow:fast-surge', desired: 6 });
  });

  it("the tick's ceiling reaches the samples", () => {
    const decision = decide(refusing(), aMinuteAgo(60), config());
    expect(fastPathContext(refusing(), decision, 21, config()).saturationCeiling).toBe(21);
  });
});
