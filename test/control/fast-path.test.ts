import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveScalerConfig } from '../../lib/control/config.ts';
import { decideFast, type FastPathContext, fastPathContext } from '../../lib/control/fast-path.ts';
import { needWithBacklog } from '../../lib/control/need.ts';
import { decide } from '../../lib/control/policy.ts';
import { config, NOW, snapshot, state } from './fixtures.ts';

/** The context a tick at NOW leaves: `applied`, the reported rate and per-item time, and its depth sample. */
function context(overrides: Partial<FastPathContext> = {}): FastPathContext {
  const applied = overrides.applied ?? 2;
  return {
    applied,
    tickApplied: applied,
    lastChangeAt: NOW - 3600,
    tickSample: { at: NOW, messages: 0 },
    previous: { at: NOW, messages: 0 },
    reportedArrivals: 50,
    tickArrivals: 50,
    itemSeconds: 0.02,
    confirmedNeed: 2,
    confirmed: false,
    ...overrides,
  };
}
const at = (seconds: number, messages: number) => ({ at: NOW + seconds, messages });

/** 565/s of 42 ms items, grown 3 → 27 ten seconds in, `inFlight` at the previous sample (issue 28's wind-up). */
const surgeAt27 = (inFlight: number) =>
  context({
    applied: 27,
    tickApplied: 3,
    lastChangeAt: NOW + 10,
    reportedArrivals: 565,
    tickArrivals: 565,
    itemSeconds: 0.042,
    confirmedNeed: 27,
    confirmed: true,
    tickSample: at(0, 100),
    previous: { ...at(20, 16_200), inFlight },
  });

/** heavier-items (400/s, items 10 → 30 ms): a rise of 249.6/s with 5 running, then 7 applied and running. */
const heavierAfterGrowth = (overrides: Partial<FastPathContext>) =>
  context({
    applied: 7,
    lastChangeAt: NOW + 20,
    grownFrom: 5,
    reportedArrivals: 400,
    tickArrivals: 400,
    itemSeconds: 0.01,
    confirmedNeed: 5,
    batchSize: 10,
    previous: { ...at(40, 9_021), inFlight: 70 },
    servedRises: [{ at: NOW + 10, perSecond: 249.6, seconds: 10, fewest: 5, applied: 5 }],
    ...overrides,
  });

// One case per rule of the fast path: each fails if its rule is removed.
describe('decideFast', () => {
  it.each([
    {
      comment:
        'seed-spike: 7,000 piled up in 10 s on 2 workers at 50/s — arrivals ≥ 700/s, a spike: 14 busy + 7,000 × 0.02 ÷ 120 → 16',
      ctx: context(),
      sample: at(10, 7_000),
      desired: 16,
      reason: 'grow:fast-surge',
    },
    {
      comment: 'a few messages at 50/s are no surge (fewer than a batch per worker)',
      ctx: context(),
      sample: at(10, 15),
      desired: 2,
      reason: 'hold:fast',
    },
    {
      comment:
        'nor are a few messages of long items: 15 waiting for 2 workers at 10 s is 75 s of work, but fewer than a batch per worker come and go at any load',
      ctx: context({
        itemSeconds: 10,
        reportedArrivals: 0.1,
        tickArrivals: 0.1,
        tickSample: at(0, 10),
        previous: at(0, 10),
      }),
      sample: at(10, 15),
      desired: 2,
      reason: 'hold:fast',
    },
    {
      comment:
        'a flat 300/s whose items got slower: the depth rose 188/s, which a slowdown can do — growth stops at ⌊1.5 × 7⌋ = 10',
      ctx: context({
        applied: 7,
        reportedArrivals: 300,
        tickArrivals: 300,
        confirmedNeed: 7,
        tickSample: at(0, 58_120),
        previous: at(0, 58_120),
      }),
      sample: at(10, 60_000),
      desired: 10,
      reason: 'grow:fast-surge',
    },
    {
      comment: 'the same depth once the tick confirmed the backlog: sized in full',
      ctx: context({
        applied: 7,
        reportedArrivals: 300,
        tickArrivals: 300,
        confirmedNeed: 7,
        confirmed: true,
        tickSample: at(0, 58_120),
        previous: at(0, 58_120),
      }),
      sample: at(10, 60_000),
      // λ = 188 + 7 ÷ 0.02 = 538/s → 10.8 busy + 60,000 × 0.02 ÷ 120 = 10 to drain → 21
      desired: 21,
      reason: 'grow:fast-surge',
    },
    {
      comment: 'a saturated downstream the tick found: frozen, whatever the depth',
      ctx: context({ frozen: 'downstream-saturated' }),
      sample: at(10, 7_000),
      desired: 2,
      reason: 'hold:fast',
    },
    {
      comment: 'an operator’s pause: frozen',
      ctx: context({ frozen: 'paused' }),
      sample: at(10, 7_000),
      desired: 2,
      reason: 'hold:fast',
    },
    {
      comment:
        'no per-item time yet (a new queue): a backlog not draining grows to the unconfirmed limit of the tick’s value, ⌊1.5 × 2⌋ = 3',
      ctx: context({
        itemSeconds: undefined,
        reportedArrivals: undefined,
        tickArrivals: undefined,
        confirmedNeed: undefined,
        tickSample: at(0, 6_000),
        previous: at(0, 6_000),
      }),
      sample: at(10, 7_000),
      desired: 3,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'no per-item time, and grown already this tick (3): six samples a minute do not compound the limit',
      ctx: context({
        applied: 3,
        tickApplied: 2,
        itemSeconds: undefined,
        reportedArrivals: undefined,
        tickArrivals: undefined,
        confirmedNeed: undefined,
        tickSample: at(0, 6_000),
        previous: at(10, 7_000),
      }),
      sample: at(20, 8_000),
      desired: 3,
      reason: 'hold:fast',
    },
    {
      comment:
        'the pollers behind the last growth (13 of 27 run, 130 in flight: a step taken) while the backlog grows: hold at 27, not wind up to the cap',
      ctx: surgeAt27(130),
      sample: { ...at(30, 21_692), inFlight: 130 },
      desired: 27,
      reason: 'hold:fast',
    },
    {
      comment:
        'the pollers still at their starting five (50 in flight): their first step takes the limit set now, sized on the backlog there (28, drainCeiling), not the cap',
      ctx: surgeAt27(50),
      sample: { ...at(30, 21_692), inFlight: 50 },
      desired: 28,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'the same 5 running three minutes after the last change: no ramp lags that long, the sized need grows it (28, drainCeiling)',
      ctx: { ...surgeAt27(50), lastChangeAt: NOW - 150 },
      sample: { ...at(30, 21_692), inFlight: 50 },
      desired: 28,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'the same once the 27 run (270 in flight), the depth falling 78/s (565/s arriving, 643/s served): the backlog’s drain grows it, to 28 (drainCeiling), not 32',
      ctx: { ...surgeAt27(270), previous: { ...at(20, 22_472), inFlight: 270 } },
      sample: { ...at(30, 21_692), inFlight: 270 },
      desired: 28,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'the 27 running at both ends (270 in flight) ten seconds after their growth while the depth still rose 549/s: 549 + 27 ÷ 0.042 = 1,192/s arrive, 55 workers’ worth, the arrivals’ own need: the cap',
      ctx: surgeAt27(270),
      sample: { ...at(30, 21_692), inFlight: 270 },
      desired: 32,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'heavier items a growth proved: +250/s with 5 running, grown to 7, +181/s with 7 running — 21 ms items at the most (2.1 × the known 10 ms) for 400/s need 13; unprobed, at most twice the tick’s 5: 10, where the known time holds at 7',
      ctx: heavierAfterGrowth({ tickApplied: 5 }),
      sample: { ...at(50, 10_834), inFlight: 70 },
      desired: 10,
      reason: 'grow:fast-surge',
    },
    {
      comment:
        'and at most twice its step past the workers that ran: the rise at 5 from the loop before the tick, 7 running now: 7 + 2 × 2 = 11 (the tick’s 7 would allow 14)',
      ctx: heavierAfterGrowth({ tickApplied: 7, lastChangeAt: NOW - 30, grownFrom: undefined }),
      sample: { ...at(50, 10_834), inFlight: 70 },
      desired: 11,
      reason: 'grow:fast-surge',
    },
    {
      comment: 'at the cap: nothing to add',
      ctx: context({ applied: 32 }),
      sample: at(10, 70_000),
      desired: 32,
      reason: 'hold:fast',
    },
  ])('$comment', ({ ctx, sample, desired, reason }) => {
    const decision = decideFast(sample, ctx, config());
    expect(decision.reason).toBe(reason);
    expect(decision.desired).toBe(desired);
  });

  it.each([
    { target: 60, desired: 56, reason: 'grow:fast-surge' },
    { target: 3_600, desired: 2, reason: 'hold:fast' },
    { target: 86_400, desired: 2, reason: 'hold:fast' },
  ])(
    'the target decides: 500 waiting for 2 workers at 1 s is 250 s of work; target $target s → $reason',
    ({ target, desired, reason }) => {
      // The depth rose 20 → 500 in 10 s: arrivals ≥ 47/s, a spike over the 1/s reported. Within a 1 h target's
      // 30-minute setpoint the 2 workers work it off: the tick's law would hold, and so does the fast path.
      const ctx = context({
        itemSeconds: 1,
        reportedArrivals: 1,
        tickArrivals: 1,
        confirmedNeed: 2,
        tickSample: at(0, 20),
        previous: at(0, 20),
      });
      const decision = decideFast(at(10, 500), ctx, config({ targetAgeSeconds: target, maxConcurrency: 64 }));
      expect(decision.reason).toBe(reason);
      expect(decision.desired).toBe(desired);
    },
  );

  it('at the cap nothing is sized: the decision reports no need and no growth limit', () => {
    const decision = decideFast(at(10, 70_000), context({ applied: 32 }), config());
    expect(decision.inputs).toStrictEqual({ visibleMessages: 70_000, confirmed: false, frozen: undefined });
  });

  it('the approximate depth’s jitter is no surge, however close together the samples', () => {
    // ±4 messages between readings 50 ms apart would read as arrivals ≥ 160/s without the noise discount.
    const ctx = context({ applied: 4, confirmedNeed: 4, tickSample: at(0, 40), previous: at(0, 40) });
    for (const [seconds, messages] of [
      [0.05, 48],
      [0.05, 44],
      [10, 48],
    ] as const) {
      const decision = decideFast(at(seconds, messages), ctx, config());
      expect(decision.inputs.arrivalsAtLeast).toBe(0);
      expect(decision.desired).toBe(4);
    }
  });

  describe('slow start: no per-item time to size with', () => {
    // A burst after silence: nothing ran for an hour (no per-item time), CloudWatch reported no arrivals.
    const quiet = (overrides: Partial<FastPathContext> = {}) =>
      context({
        itemSeconds: undefined,
        reportedArrivals: 0,
        tickArrivals: 0,
        confirmedNeed: undefined,
        tickSample: at(0, 0),
        previous: at(0, 0),
        ...overrides,
      });
    // A 20 s fan-out of 10 ms items: slow start grew 4 → 8 at its last second on this fit; `visible` waited then.
    const FAN_OUT_FIT = { perWorker: 76.3, arrivals: 2_982.6 };
    const grownAtFit = (visible: number, serviceFit: FastPathContext['serviceFit']) =>
      quiet({
        applied: 8,
        lastChangeAt: NOW + 20,
        previous: { ...at(20, visible), inFlight: 30 },
        serviceFit,
      });
    // A fan-out shorter than a sample: the depth rose 0 → 55,323 at 2 (5,532/s), slow start doubled to 4 at 20 s.
    const afterOneRise = (overrides: Partial<FastPathContext> = {}) =>
      quiet({
        applied: 4,
        lastChangeAt: NOW + 20,
        previous: { ...at(20, 55_323), inFlight: 20 },
        lastRise: { applied: 2, perSecond: 5_532 },
        roseBusySince: true,
        ...overrides,
      });
    // Held-out quiet-then-surge, one poller step a minute: slow start doubled 16 → 28 ten seconds after the pollers
    // stepped to 16 (160 in flight then, the depth rising 303/s at 16).
    const grownTo28 = () =>
      quiet({
        applied: 28,
        grownFrom: 16,
        lastChangeAt: NOW + 70,
        previous: { ...at(70, 18_325), inFlight: 160 },
        lastRise: { applied: 16, perSecond: 303 },
        roseBusySince: true,
      });
    it.each([
      {
        comment: 'the depth rose 0 → 6,700 with both workers busy (20 in flight): proof, double 2 → 4',
        ctx: quiet(),
        sample: { ...at(10, 6_700), inFlight: 20 },
        desired: 4,
        reason: 'grow:fast-surge',
      },
      {
        comment: 'and again at 4 (40 in flight): 4 → 8, not the unconfirmed limit of the tick’s value',
        ctx: quiet({ applied: 4, previous: at(10, 6_700) }),
        sample: { ...at(20, 12_000), inFlight: 40 },
        desired: 8,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'the pollers not yet at the raised value (10 in flight for 8 allowed): no proof, no doubling',
        ctx: quiet({ applied: 8, previous: at(20, 12_000) }),
        sample: { ...at(30, 15_000), inFlight: 10 },
        desired: 8,
        reason: 'hold:fast',
      },
      {
        comment:
          'a burst ended (the depth rose at 4 held, now falls 319/s with 52,133 left): double on what it left behind',
        ctx: quiet({
          applied: 4,
          lastChangeAt: NOW + 10,
          previous: { ...at(20, 55_323), inFlight: 10 },
          roseAtApplied: true,
        }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 8,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'a 20 s fan-out: slow start grew 4 → 8 on a fit (76/s a worker, 2,983/s arriving) at its last second; the fall at 8 (638/s) leaves at most 8 × 76 − 638 < 0 arriving: the burst ended, double on what it left',
        ctx: grownAtFit(55_074, FAN_OUT_FIT),
        sample: { ...at(30, 48_693), inFlight: 70 },
        desired: 16,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'a fall of 950/s at 8 where the fit gives 8 workers 610/s: the fit is contradicted (more than 1.5 ×), nothing proven, hold',
        ctx: grownAtFit(70_000, FAN_OUT_FIT),
        sample: { ...at(30, 60_500), inFlight: 70 },
        desired: 8,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same fall with no fit kept and no rise this loop: nothing proves the arrivals ended, hold',
        ctx: grownAtFit(55_074, undefined),
        sample: { ...at(30, 48_693), inFlight: 70 },
        desired: 8,
        reason: 'hold:fast',
      },
      {
        comment:
          'a fan-out shorter than a sample: one rise (5,532/s at 2, doubled to 4), then the depth falls 319/s at 4 held, all busy, 52,133 left (163 s): no second rise can fit a service, double, not three minutes at 4',
        ctx: afterOneRise(),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 8,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'the same fall where this loop saw no rise (it began at a tick, after the burst rose): nothing says a burst began and ended, hold',
        ctx: afterOneRise({ lastRise: undefined, roseBusySince: undefined }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same fall where this loop saw the depth rise only with workers idle (the pollers behind the value): the doubled workers may be what makes it fall, hold',
        ctx: afterOneRise({ roseBusySince: undefined }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same fall where two rises fitted 150/s a worker and 300/s arriving: 4 serve 600/s, so 281/s still arrive, the burst goes on and what runs works it off: hold',
        ctx: afterOneRise({ serviceFit: { perWorker: 150, arrivals: 300 } }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment:
          'cold-steady, one poller step a minute: the depth rose at 16 while 8 ran; the pollers step to 16 (80 → 160 in flight) and it falls 39/s: the new workers’ drain, not a burst’s end (it took 16 to 28 for a need of 14): hold',
        ctx: quiet({
          applied: 16,
          lastChangeAt: NOW + 60,
          previous: { ...at(120, 10_245), inFlight: 80 },
          roseAtApplied: true,
          roseBusySince: true,
        }),
        sample: { ...at(130, 9_854), inFlight: 160 },
        desired: 16,
        reason: 'hold:fast',
      },
      {
        comment:
          'idle-then-burst, one poller step a minute: two rises while the pollers ran 1–5 of 4 and 8 fitted 17/s a worker, 642/s arriving; the step to 16 (30 → 130 in flight) makes the depth fall 106/s: not judged against that fit (13 × 17 − 106 < 642 read as a burst’s end, 16 → 28): hold',
        ctx: quiet({
          applied: 16,
          lastChangeAt: NOW + 40,
          previous: { ...at(60, 33_312), inFlight: 30 },
          serviceFit: { perWorker: 17, arrivals: 642 },
        }),
        sample: { ...at(70, 32_253), inFlight: 130 },
        desired: 16,
        reason: 'hold:fast',
      },
      {
        comment:
          'idle-then-burst, one poller step a minute: grown 12 → 19 as the pollers stepped to 12; 20 s on, 110 in flight (11 running, within full batches of the 12) and the depth still rising: no second step on a growth not followed (it went 19 → 24 and 28): hold',
        ctx: quiet({
          applied: 19,
          grownFrom: 12,
          lastChangeAt: NOW + 80,
          previous: { ...at(90, 35_923), inFlight: 90 },
        }),
        sample: { ...at(100, 36_864), inFlight: 110 },
        desired: 19,
        reason: 'hold:fast',
      },
      {
        comment:
          'held-out quiet-then-surge, one poller step a minute: doubled 16 → 28 ten seconds after the pollers stepped to 16; 150 in flight (15 running, within full batches of the 16) and the depth still rising: the rise is the 16’s, not recorded at 28, so no fit of it (31); unsized, slow start stops at the drain ceiling (28 of a cap of 32)',
        ctx: grownTo28(),
        sample: { ...at(80, 18_402), inFlight: 150 },
        desired: 28,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same once the pollers followed (280 in flight): the rise is at 28, slow start sizes on its fit (24.6/s a worker, 696/s arriving: 31)',
        ctx: grownTo28(),
        sample: { ...at(80, 18_402), inFlight: 280 },
        desired: 31,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'held-out fan-out-12s: +2,401/s at 2 and +280/s at 4 (the burst ended within that interval) fitted 1,060/s a worker and 4,520/s arriving; at 5 the depth falls 281/s where the fit says 780/s: with the +280/s at 4 that is 561/s a worker, under the fit ÷ 1.5: the fit is refuted, the fall is a fan-out’s end: double on what it left',
        ctx: quiet({
          applied: 5,
          lastChangeAt: NOW + 20,
          previous: { ...at(20, 26_828), inFlight: 40 },
          lastRise: { applied: 4, perSecond: 280 },
          serviceFit: { perWorker: 1_060, arrivals: 4_520 },
          roseBusySince: true,
        }),
        sample: { ...at(30, 24_011), inFlight: 50 },
        desired: 10,
        reason: 'grow:fast-surge',
      },
      {
        comment:
          'cold-steady (150/s of 80 ms items from a new queue): +47/s at 8 after +107/s at 4 fitted 14.9/s a worker and 166/s arriving; at 13 the depth falls 13.5/s where the fit says 27/s, but with the +47/s at 8 that is 12.1/s a worker: the three agree, the load goes on: hold',
        ctx: quiet({
          applied: 13,
          lastChangeAt: NOW + 30,
          previous: { ...at(40, 2_836), inFlight: 120 },
          lastRise: { applied: 8, perSecond: 47.1 },
          serviceFit: { perWorker: 14.85, arrivals: 165.9 },
          roseBusySince: true,
        }),
        sample: { ...at(50, 2_701), inFlight: 130 },
        desired: 13,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same fall five minutes after the last change with fewer workers busy than allowed (10 in flight for 4): the consumer holds it back, more allowed buys nothing: hold',
        ctx: afterOneRise({ lastChangeAt: NOW - 300 }),
        sample: { ...at(30, 52_133), inFlight: 10 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment:
          'the same fall over an interval a change began in (another writer: an operator, a budget’s grant): what the new value drains is not known yet: hold',
        ctx: afterOneRise({ lastChangeAt: NOW + 25 }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment: 'a fall that works the backlog off within the target (1,000/s, 52,133 left): hold',
        ctx: afterOneRise({ previous: { ...at(20, 62_133), inFlight: 20 } }),
        sample: { ...at(30, 52_133), inFlight: 20 },
        desired: 4,
        reason: 'hold:fast',
      },
      {
        comment:
          'the depth falling since the last sample (16 work it off within the target): hold, not the cap a spike would allow',
        ctx: quiet({ applied: 16, tickApplied: 16, tickSample: at(0, 12_000), previous: at(40, 16_000) }),
        sample: { ...at(50, 13_000), inFlight: 160 },
        desired: 16,
        reason: 'hold:fast',
      },
    ])('$comment', ({ ctx, sample, desired, reason }) => {
      const decision = decideFast(sample, ctx, config());
      expect(decision.reason).toBe(reason);
      expect(decision.desired).toBe(desired);
    });

    it.each([
      {
        comment: 'a rise at 4 held, every worker busy (40 in flight): a busy rise seen',
        ctx: quiet({ applied: 4, previous: { ...at(10, 6_700), inFlight: 40 } }),
        sample: { ...at(20, 12_000), inFlight: 40 },
        roseBusySince: true,
      },
      {
        comment: 'the same rise with 10 in flight (the pollers behind the value, or not yet awake): not seen',
        ctx: quiet({ applied: 4, previous: { ...at(10, 6_700), inFlight: 10 } }),
        sample: { ...at(20, 12_000), inFlight: 10 },
        roseBusySince: false,
      },
      {
        comment: 'a fall after one, and a growth since (unlike roseAtApplied): still seen',
        ctx: quiet({ applied: 8, roseBusySince: true, previous: { ...at(10, 12_000), inFlight: 80 } }),
        sample: { ...at(20, 11_000), inFlight: 80 },
        roseBusySince: true,
      },
    ])('a busy rise seen this loop: $comment', ({ ctx, sample, roseBusySince }) => {
      expect(decideFast(sample, ctx, config()).context.roseBusySince).toBe(roseBusySince);
    });
    it('a rise the executions of the value before the growth may have made is not recorded as a rise at the new value', () => {
      const ctx = grownTo28();
      const lastRiseAfter = (inFlight: number) =>
        decideFast({ ...at(80, 18_402), inFlight }, ctx, config()).context.lastRise;
      expect(lastRiseAfter(150)).toEqual({ applied: 16, perSecond: 303 });
      // 170 s after the growth the pollers' ramp is long over: the same reading is the new value's.
      const late = { ...ctx, lastChangeAt: NOW - 200, previous: { ...at(-40, 18_325), inFlight: 160 } };
      const lateRise = decideFast({ ...at(-30, 18_402), inFlight: 150 }, late, config()).context.lastRise;
      expect(lateRise).toEqual({ applied: 28, perSecond: expect.closeTo(7.7, 5) });
      expect(lastRiseAfter(280)).toEqual({ applied: 28, perSecond: expect.closeTo(7.7, 5) });
    });

    it.each([
      {
        comment: 'an unsized doubling stops at the drain ceiling: 16 → 28, not the cap of 32',
        cap: 32,
        desired: 28,
      },
      {
        // The tick's context for a member capped at 32 (ceiling 28) carries that ceiling; without it the lowered
        // cap's own (16) would hold.
        comment:
          'a budget member sampled under a cap lowered to what is free (18) keeps its own cap’s ceiling: 16 → 18',
        cap: 18,
        drainCeiling: 28,
        desired: 18,
      },
    ])('$comment', ({ cap, drainCeiling, desired }) => {
      // The depth still rises with every worker busy (160 in flight for 16)
      const ctx = quiet({
        applied: 16,
        lastChangeAt: NOW + 20,
        previous: { ...at(30, 20_000), inFlight: 160 },
        ...(drainCeiling === undefined ? {} : { drainCeiling }),
      });
      const decision = decideFast({ ...at(40, 26_000), inFlight: 160 }, ctx, config({ maxConcurrency: cap }));
      expect(decision).toMatchObject({ desired, reason: 'grow:fast-surge' });
      // AND the decision says where such growth stops
      expect(decision.inputs.drainCeiling).toBe(drainCeiling ?? 28);
    });

    it('the rises before a poller step prove no burst’s end after it: the next fall at the same workers holds too', () => {
      // cold-steady, one poller step a minute: the depth rose at 16 while 8 ran; the pollers stepped to 16 at 130 s
      // and the depth falls on at 16 running (the arrivals go on: 150/s of 80 ms items). Read as a burst’s end at the
      // second fall, the backlog's drain took 16 to 28 for a need of 14.
      const ctx = quiet({
        applied: 16,
        lastChangeAt: NOW + 60,
        previous: { ...at(120, 10_245), inFlight: 80 },
        roseAtApplied: true,
        roseBusySince: true,
        // and a fit of rises the 8 made (16 × 17 − 50 < 642 would read the fall as the arrivals' end)
        serviceFit: { perWorker: 17, arrivals: 642 },
      });
      const stepped = decideFast({ ...at(130, 9_854), inFlight: 160 }, ctx, config());
      expect(stepped).toMatchObject({ desired: 16, reason: 'hold:fast' });
      expect(decideFast({ ...at(140, 9_353), inFlight: 160 }, stepped.context, config())).toMatchObject({
        desired: 16,
        reason: 'hold:fast',
      });
    });

    it('under a cap above 32 an unsized doubling goes at most to twice the value the executions have not passed', () => {
      // Held-out quiet-then-surge under a cap of 200, one poller step a minute: slow start doubled 16 → 32 ten
      // seconds after the pollers stepped to 16; 20 s on, 160 in flight (16 running, within full batches of the 16)
      // and the depth still rising. The rise is the 16's (no fit); unsized, the doubling went 32 → 64 (peak 64 for a
      // need of 19) where one step ahead of what runs is 2 × 16.
      const ctx = quiet({
        applied: 32,
        grownFrom: 16,
        lastChangeAt: NOW + 70,
        previous: { ...at(80, 18_525), inFlight: 160 },
      });
      const cap200 = config({ maxConcurrency: 200 });
      expect(decideFast({ ...at(90, 18_628), inFlight: 160 }, ctx, cap200)).toMatchObject({
        desired: 32,
        reason: 'hold:fast',
      });
      // Once the executions pass the 16 (the pollers' step to 32: 320 in flight), the doubling goes on.
      expect(decideFast({ ...at(90, 18_628), inFlight: 320 }, ctx, cap200)).toMatchObject({
        desired: 64,
        reason: 'grow:fast-surge',
      });
    });

    it('at the mapping’s starting five the doubling goes on: it readies the pollers’ first step', () => {
      // Held-out fan-out-45s, seed 2, one poller step a minute: slow start doubled 2 → 4 ten seconds into the burst;
      // 10 s on, 20 in flight (2 running, within full batches of the 2) and the depth still rising. Up to five run
      // before the pollers' first step whatever the limit, and that step goes to whatever the limit is then: bounded
      // at 2 × 2 here, slow start reached 8 by the step, not 16 (p99 1.20 → 2.17 × the target).
      const ctx = quiet({
        applied: 4,
        grownFrom: 2,
        lastChangeAt: NOW + 10,
        previous: { ...at(10, 16_820), inFlight: 20 },
      });
      expect(decideFast({ ...at(20, 32_100), inFlight: 20 }, ctx, config())).toMatchObject({
        desired: 8,
        reason: 'grow:fast-surge',
      });
    });

    it('the last step is sized by the service two rises fit, not doubled: 16 → 20, not 32', () => {
      // GIVEN a rise of 33.3/s at 8 (measured before the growth to 16) and 6.7/s now at 16, all 16 busy
      const ctx = quiet({
        applied: 16,
        lastChangeAt: NOW + 20,
        previous: { ...at(20, 1_000), inFlight: 80 },
        lastRise: { applied: 8, perSecond: 33.3 },
      });
      const sample = { ...at(30, 1_067), inFlight: 80 };
      // WHEN
      const decision = decideFast(sample, ctx, config());
      // THEN 3.33/s a worker and 60/s arriving size it: what `needWithBacklog` gives, between 17 and 32
      const expected = needWithBacklog(59.9, 1 / 3.325, 1_067, config());
      expect(decision.reason).toBe('grow:fast-surge');
      // AND the fit is kept for the samples after it
      expect(decision.context.serviceFit?.perWorker).toBeCloseTo(3.325, 3);
      expect(decision.desired).toBe(Math.max(17, Math.min(32, expected)));
      expect(decision.desired).toBeLessThan(32);
    });

    it('with a per-item time known, the need sizes the growth and slow start does not apply', () => {
      // The same 0 → 6,700 at 15 ms: arrivals ≥ 669/s → 669 × 0.015 ÷ 0.9 → 12, plus the backlog's drain: 12
      const decision = decideFast(
        { ...at(10, 6_700), inFlight: 20 },
        quiet({ itemSeconds: 0.015 }),
        config(),
      );
      expect(decision.desired).toBe(12);
    });
  });

  it('a growth moves the context on: the next sample starts from the new value, dated now', () => {
    const decision = decideFast(at(10, 7_000), context(), config());
    expect(decision.context).toMatchObject({ applied: 16, lastChangeAt: NOW + 10, previous: at(10, 7_000) });
  });
});

describe('decideFast: unconfirmed growth on a load rising faster than CloudWatch reports it', () => {
  // The tick left 48 running with 100,000 waiting, CloudWatch still at 1,000/s (a need of 23); 10 s later the depth
  // rose 1,400/s with the 48 busy: arrivals about 3,800/s, not a proven spike (1,400 < 1.5 × 1,000).
  const busyTick = (extra: Partial<FastPathContext> = {}) =>
    context({
      applied: 48,
      reportedArrivals: 1_000,
      tickArrivals: 1_000,
      confirmedNeed: 23,
      provenBusy: 48,
      tickSample: { ...at(0, 100_000), inFlight: 480 },
      previous: { ...at(0, 100_000), inFlight: 480 },
      ...extra,
    });
  const wide = resolveScalerConfig({ maxConcurrency: 200 });

  it('the tick proved 48 busy: grows on the estimate to ⌊1.5 × 48⌋ = 72', () => {
    const decision = decideFast({ ...at(10, 114_000), inFlight: 480 }, busyTick(), wide);
    expect(decision).toMatchObject({ reason: 'grow:fast-surge', desired: 72 });
  });

  it('nothing proved them busy at the tick (a burst onto idle workers): the stale need’s limit, CloudWatch’s rate', () => {
    const decision = decideFast(
      { ...at(10, 114_000), inFlight: 480 },
      busyTick({ provenBusy: undefined }),
      wide,
    );
    expect(decision).toMatchObject({ reason: 'hold:fast', desired: 48 });
    // Not the estimate: on an API whose real limit is under the cap that grew at once into its refusals.
    expect(decision.inputs.arrivalRatePerSecond).toBe(1_000);
  });

  it('the depth falls: sized on CloudWatch’s rate (39), not on the estimate’s 1,800/s (55): 48 holds', () => {
    const falling = busyTick({
      tickSample: { ...at(0, 120_000), inFlight: 480 },
      previous: { ...at(0, 120_000), inFlight: 480 },
    });
    const decision = decideFast({ ...at(10, 114_000), inFlight: 480 }, falling, wide);
    expect(decision).toMatchObject({ reason: 'hold:fast', desired: 48 });
    expect(decision.inputs.arrivalRatePerSecond).toBe(1_000);
  });
});

describe('fastPathContext', () => {
  it('sizes on the tick’s `fastItemSeconds` where it has one (a time read after a lowering is the tick’s own)', () => {
    const tick = snapshot({ appliedConcurrency: 11, visibleMessages: 8_824, itemSeconds: 0.04 });
    const decision = decide(tick, state(), config());
    const afterLowering = {
      ...decision,
      inputs: { ...decision.inputs, itemSeconds: 0.08, fastItemSeconds: 0.04 },
    };
    expect(fastPathContext(tick, afterLowering, 11, config()).itemSeconds).toBe(0.04);
    const asShown = { ...decision, inputs: { ...decision.inputs, itemSeconds: 0.08 } };
    expect(fastPathContext(tick, asShown, 11, config()).itemSeconds).toBe(0.08);
  });
  it('carries the workers the tick’s depth proved busy: all 48 with a backlog, none when 10 run', () => {
    const tickAt = (inFlight: number) =>
      snapshot({ appliedConcurrency: 48, visibleMessages: 184_000, inFlightMessages: inFlight });
    const busy = tickAt(480);
    const held = decide(busy, state(), config({ maxConcurrency: 200 }));
    expect(fastPathContext(busy, held, held.desired, config()).provenBusy).toBe(48);
    const ramping = tickAt(100);
    const heldRamping = decide(ramping, state(), config({ maxConcurrency: 200 }));
    expect(fastPathContext(ramping, heldRamping, 48, config()).provenBusy).toBeUndefined();
  });

  it('carries the value the tick grew from (the samples judge whether the pollers followed), none where it held', () => {
    const tick = snapshot({ appliedConcurrency: 5, visibleMessages: 20_000, inFlightMessages: 50 });
    const decision = decide(tick, state(), config());
    expect(fastPathContext(tick, decision, 17, config()).grownFrom).toBe(5);
    expect(fastPathContext(tick, decision, 5, config()).grownFrom).toBeUndefined();
  });

  it('freezes on a saturated downstream; heavier items alone do not freeze the samples between ticks', () => {
    // Heavier items (per-item time 3×, arrivals flat): work, not saturation
    const heavier = snapshot({
      appliedConcurrency: 7,
      age: 300,
      arrivalRatePerSecond: 300,
      itemSeconds: 0.06,
    });
    const grown = decide(heavier, state({ baselineArrivalRate: 300 }), config());
    expect(fastPathContext(heavier, grown, grown.desired, config()).frozen).toBeUndefined();
    // Behind at the ceiling a growth that bought no throughput left: frozen
    const atCeiling = snapshot({
      appliedConcurrency: 20,
      age: 300,
      arrivalRatePerSecond: 1500,
      ratePeriodSeconds: 60,
    });
    const held = decide(atCeiling, state({ saturation: { ceiling: 20, until: NOW + 60 } }), config());
    expect(held.reason).toBe('hold:downstream-saturated');
    expect(fastPathContext(atCeiling, held, 20, config()).frozen).toBe('downstream-saturated');
  });
});

describe('fast path invariants', () => {
  const arbConfig = fc
    .record({ floor: fc.integer({ min: 2, max: 10 }), extra: fc.integer({ min: 0, max: 60 }) })
    .map(({ floor, extra }) => resolveScalerConfig({ minConcurrency: floor, maxConcurrency: floor + extra }));
  const anything = fc.oneof(
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 0.5),
    fc.integer({ min: 0, max: 2_000_000 }),
  );
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

  it('never shrinks, never writes outside [floor, cap], whatever the sample and the context', () => {
    fc.assert(
      fc.property(
        arbConfig,
        fc.record({
          appliedFraction: fc.double({ min: 0, max: 1, noNaN: true }),
          previous: maybe(fc.record({ at: anything, messages: anything })),
          tickSample: maybe(fc.record({ at: anything, messages: anything })),
          reportedArrivals: maybe(anything),
          tickArrivals: maybe(anything),
          itemSeconds: maybe(anything),
          confirmedNeed: maybe(anything),
          confirmed: fc.boolean(),
          lastChangeAt: maybe(anything),
          sampleAt: anything,
          visible: anything,
          inFlight: maybe(anything),
          // The value the last growth started from and the mapping's BatchSize: the bound on a doubling the
          // executions have not followed (`unfollowedGrowthBound`) reads both.
          grownFrom: maybe(anything),
          batchSize: maybe(anything),
        }),
        (cfg, p) => {
          const applied = Math.round(
            cfg.minConcurrency + p.appliedFraction * (cfg.maxConcurrency - cfg.minConcurrency),
          );
          const ctx: FastPathContext = {
            applied,
            tickApplied: applied,
            lastChangeAt: p.lastChangeAt,
            previous: p.previous,
            tickSample: p.tickSample,
            reportedArrivals: p.reportedArrivals,
            tickArrivals: p.tickArrivals,
            itemSeconds: p.itemSeconds,
            confirmedNeed: p.confirmedNeed,
            confirmed: p.confirmed,
            grownFrom: p.grownFrom,
            batchSize: p.batchSize,
          };
          const decision = decideFast(
            { at: p.sampleAt, messages: p.visible, inFlight: p.inFlight },
            ctx,
            cfg,
          );
          expect(Number.isInteger(decision.desired)).toBe(true);
          expect(decision.desired).toBeGreaterThanOrEqual(applied);
          expect(decision.desired).toBeGreaterThanOrEqual(cfg.minConcurrency);
          expect(decision.desired).toBeLessThanOrEqual(cfg.maxConcurrency);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a chain of samples never shrinks either, slow start included: each starts where the last left off', () => {
    fc.assert(
      fc.property(
        arbConfig,
        fc.array(
          fc.record({
            messages: fc.integer({ min: 0, max: 500_000 }),
            inFlight: fc.integer({ min: 0, max: 20_000 }),
          }),
          {
            maxLength: 12,
          },
        ),
        fc.boolean(),
        (cfg, depths, itemTimeKnown) => {
          let ctx = context({
            applied: cfg.minConcurrency,
            tickApplied: cfg.minConcurrency,
            ...(itemTimeKnown ? {} : { itemSeconds: undefined }),
          });
          depths.forEach(({ messages, inFlight }, i) => {
            const before = ctx.applied;
            const decision = decideFast({ ...at(10 * (i + 1), messages), inFlight }, ctx, cfg);
            expect(decision.desired).toBeGreaterThanOrEqual(before);
            expect(decision.desired).toBeLessThanOrEqual(cfg.maxConcurrency);
            ctx = decision.context;
          });
        },
      ),
    );
  });
});
