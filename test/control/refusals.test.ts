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

  it('without the depth or a bounded value: nothing known', () => {
    expect(refusalsInFlight(refusing({ inFlightMessages: undefined }))).toBe(false);
    expect(refusalsInFlight(refusing({ appliedConcurrency: Number.POSITIVE_INFINITY }))).toBe(false);
  });

  it('before any completion is counted: more in flight than twice what the workers hold in full batches', () => {
    const counted = (inFlightMessages: number) =>
      refusalsInFlight(refusing({ completionRatePerSecond: undefined, inFlightMessages }));
    // 28 workers' two full batches of 10, and as many again: 560 + 560.
    expect(counted(1_120)).toBe(false);
    expect(counted(1_121)).toBe(true);
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

describe('before CloudWatch has any datapoint (a new queue), refusals rising in flight back off all the same', () => {
  // Held-out api-heavier-with-room, seed 1, 10 s steps, the tick 30 s off: slow start took a new queue 2 → 15 onto an
  // API of 600 calls a second; at 90 s 1,525 wait in flight where 15 workers hold 300 in two full batches of 10.
  const newQueue = (applied: number, inFlight: number) =>
    snapshot({
      appliedConcurrency: applied,
      oldestAge: undefined,
      arrivalRatePerSecond: undefined,
      completionRatePerSecond: undefined,
      itemSeconds: undefined,
      visibleMessages: 16_370,
      inFlightMessages: inFlight,
      batchSize: 10,
    });
  const lastTick = (inFlight: number, extra = {}) =>
    state({ lastVisible: { at: NOW - 60, messages: 12_415, inFlight }, ...extra });

  it('rising since the tick before: back to three quarters (15 → 11), a ceiling the samples stop at too', () => {
    const decision = decide(newQueue(15, 1_525), lastTick(20), config());
    expect(decision).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 11 });
    expect(decision.state.saturation).toMatchObject({ ceiling: 11, refused: true });
    expect(fastPathContext(newQueue(15, 1_525), decision, 11, config()).saturationCeiling).toBe(11);
  });

  it('no longer rising at the ceiling they set: held there, the ceiling kept', () => {
    const saturation = { ceiling: 11, until: NOW + 300, refused: true };
    const decision = decide(newQueue(11, 1_400), lastTick(1_525, { saturation }), config());
    expect(decision).toMatchObject({ reason: 'hold:no-data', desired: 11 });
    expect(decision.state.saturation).toEqual(saturation);
  });

  it('in flight within twice the workers’ batches (600 for 15): no refusals, the tick holds as before', () => {
    const decision = decide(newQueue(15, 600), lastTick(20), config());
    expect(decision).toMatchObject({ reason: 'hold:no-data', desired: 15 });
    expect(decision.state.saturation).toBeUndefined();
  });

  it('no sample of its own before (a cold start): no rise seen, no back-off (without data it could not grow back)', () => {
    const decision = decide(newQueue(15, 1_525), state(), config());
    expect(decision).toMatchObject({ reason: 'hold:no-data', desired: 15 });
  });

  it('an old ceiling of theirs with nothing refused in flight (an operator raised the value): no shrink to it', () => {
    const saturation = { ceiling: 11, until: NOW - 3_000, refused: true };
    const decision = decide(newQueue(30, 0), lastTick(20, { saturation }), config());
    expect(decision).toMatchObject({ reason: 'hold:no-data', desired: 30 });
  });

  it('a floor above the back-off: to the floor; at the floor, held there', () => {
    const atTwelve = decide(newQueue(15, 1_525), lastTick(20), config({ minConcurrency: 12 }));
    expect(atTwelve).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 12 });
    // A ceiling of theirs below a floor raised since (a scheduled one): no "shrink" that stays where it is.
    const saturation = { ceiling: 11, until: NOW + 300, refused: true };
    const atFifteen = decide(
      newQueue(15, 1_525),
      lastTick(20, { saturation }),
      config({ minConcurrency: 15 }),
    );
    expect(atFifteen).toMatchObject({ reason: 'hold:no-data', desired: 15 });
  });

  it('reserved mode (nothing bounds the pollers, whose batches wait in flight): no back-off without data', () => {
    const decision = decide(newQueue(15, 1_525), lastTick(20), config({ actuator: 'reserved' }));
    expect(decision).toMatchObject({ reason: 'hold:no-data', desired: 15 });
  });

  it('the tick growing on the depth itself (no samples between ticks): never past their ceiling, nor while rising', () => {
    const ticksOnly = config({ fastSampleSeconds: 0 });
    const saturation = { ceiling: 11, until: NOW + 300, refused: true };
    const held = decide(newQueue(11, 1_400), lastTick(1_525, { saturation }), ticksOnly);
    expect(held).toMatchObject({ reason: 'hold:no-data', desired: 11 });
    const free = decide(newQueue(11, 100), lastTick(90), ticksOnly);
    expect(free).toMatchObject({ reason: 'grow:backlog-before-data' });
    const rising = decide(newQueue(15, 1_525), lastTick(20), ticksOnly);
    expect(rising).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 11 });
  });
});
