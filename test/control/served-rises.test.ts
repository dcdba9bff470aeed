import { describe, expect, it } from 'vitest';
import {
  heavierItemsFitted,
  SERVED_RISES_KEPT,
  type ServedRise,
  servedRiseOf,
  withServedRise,
} from '../../lib/control/served-rises.ts';

const rise = (at: number, perSecond: number, fewest: number, applied: number): ServedRise => ({
  at,
  perSecond,
  seconds: 10,
  fewest,
  applied,
});
/** heavier-items: 400/s reported, items 10 ms known, the law's "slower" 1.5 ×. */
const known = { itemSeconds: 0.01, slowerBy: 1.5, maxApartSeconds: 120, reportedArrivals: 400 };

describe('servedRiseOf', () => {
  it('reads the rise with the fewest workers its messages in flight show at either end', () => {
    const r = servedRiseOf(
      { at: 620, messages: 5_257, inFlight: 50 },
      { at: 630, messages: 7_160, inFlight: 70 },
      7,
      10,
    );
    expect(r).toEqual({ at: 630, perSecond: 190.3, seconds: 10, fewest: 5, applied: 7 });
  });

  it('reads nothing within the noise, without messages in flight, or without a backlog for every worker running', () => {
    expect(
      servedRiseOf({ at: 0, messages: 100, inFlight: 50 }, { at: 10, messages: 108, inFlight: 50 }, 5, 10),
    ).toBeUndefined();
    expect(
      servedRiseOf({ at: 0, messages: 100 }, { at: 10, messages: 2_000, inFlight: 50 }, 5, 10),
    ).toBeUndefined();
    // 40 waiting at the start for 5 running: some waited for work, and the rise is not all the arrivals' excess
    expect(
      servedRiseOf({ at: 0, messages: 40, inFlight: 50 }, { at: 10, messages: 2_000, inFlight: 50 }, 5, 10),
    ).toBeUndefined();
  });

  it('keeps the last rises only', () => {
    let rises: readonly ServedRise[] | undefined;
    for (let i = 0; i < SERVED_RISES_KEPT + 3; i++) rises = withServedRise(rises, rise(i * 10, 100, 5, 5));
    expect(rises).toHaveLength(SERVED_RISES_KEPT);
    expect(rises?.at(-1)?.at).toBe((SERVED_RISES_KEPT + 2) * 10);
    expect(withServedRise(rises, undefined)).toBe(rises);
  });
});

describe('heavierItemsFitted', () => {
  it('items heavier, the downstream with room: a growth that bought less than the known time says is fitted', () => {
    // +248/s at 5, +181/s with 7 running: 33.5/s a worker measured; with the noise 2 × √(88.1 + 88.1), 46.8/s
    const fit = heavierItemsFitted([rise(610, 248, 5, 5)], rise(650, 181, 7, 7), known);
    expect(fit?.perWorker).toBeCloseTo(46.8, 1);
    expect(1 / (fit?.perWorker ?? 1)).toBeGreaterThan(1.5 * known.itemSeconds);
    expect(fit?.arrivals).toBeCloseTo(181 + 7 * 46.8, -1);
  });

  it('a step in arrivals fits the known time: nothing heavier (an API step read as heavier items grew 6 → 28)', () => {
    // 200 → 520/s of 26 ms items: +185/s at 9, +40/s with 12 running — 48/s a worker, 21 ms
    const step = { itemSeconds: 0.026, slowerBy: 1.5, maxApartSeconds: 120, reportedArrivals: 203 };
    expect(heavierItemsFitted([rise(950, 185, 6, 9)], rise(1_000, 40.3, 12, 13), step)).toBeUndefined();
    // two workers apart, a fall of 35/s: 57 ms items measured, but within the arrivals' noise (2 × √(57.3 + 57.3)
    // more is 35 ms, under 1.5 × 26 ms): nothing proven
    expect(heavierItemsFitted([rise(950, 185, 6, 9)], rise(1_000, 150, 11, 11), step)).toBeUndefined();
  });

  it('a saturated downstream fits nothing: more workers, no less rise', () => {
    expect(heavierItemsFitted([rise(610, 248, 5, 5)], rise(650, 250, 7, 7), known)).toBeUndefined();
  });

  it('counts the earlier rise at its applied value and this one at the fewest running', () => {
    // a rise "at 7" while 5 ran (the pollers not up yet) is no second point
    expect(heavierItemsFitted([rise(610, 248, 5, 5)], rise(630, 190, 5, 7), known)).toBeUndefined();
    // an earlier rise whose applied value is not below the workers running now is none either
    expect(heavierItemsFitted([rise(640, 186, 6, 7)], rise(650, 181, 7, 7), known)).toBeUndefined();
  });

  it('judges what the last growth bought: the latest earlier rise below, not an average over every growth', () => {
    const now = rise(650, 181, 7, 7);
    expect(heavierItemsFitted([rise(600, 300, 4, 4), rise(610, 248, 5, 5)], now, known)).toEqual(
      heavierItemsFitted([rise(610, 248, 5, 5)], now, known),
    );
    // a pool that stopped giving at 6: 3 → 6 bought 116/s, 6 → 8 nothing beyond the noise — no fit, no growth
    const saturating = [rise(600, 300, 3, 3), rise(640, 184, 6, 6)];
    expect(heavierItemsFitted(saturating, rise(650, 181, 8, 8), known)).toBeUndefined();
    expect(heavierItemsFitted([rise(600, 300, 3, 3)], rise(650, 181, 8, 8), known)).toBeDefined();
  });

  it('reads nothing from a rise older than the window', () => {
    expect(heavierItemsFitted([rise(400, 248, 5, 5)], rise(650, 181, 7, 7), known)).toBeUndefined();
  });
});

describe("heavierItemsFitted, checked against CloudWatch's count", () => {
  const tenMs = { itemSeconds: 0.01, slowerBy: 1.5, maxApartSeconds: 120 };
  it('a growth that bought far less a worker than the workers serve on average fits nothing (a knee, or a climb)', () => {
    // 10 → 20 running took the rise 600 → 520/s: 8/s a worker, where 20 serve (1,000 − 520) ÷ 20 = 24/s on average
    const rises = [rise(700, 600, 10, 10)];
    expect(
      heavierItemsFitted(rises, rise(710, 520, 20, 20), { ...tenMs, reportedArrivals: 1_000 }),
    ).toBeUndefined();
    expect(heavierItemsFitted(rises, rise(710, 520, 20, 20), tenMs)).toBeDefined();
  });

  it('nor where it bought far less a worker than the workers served on average at the earlier rise (a pool past its knee)', () => {
    // Held-out sick-pool: a pool of 10 at 60 ms under 200/s. 5 served 83/s (16.7 each: rise 117/s); 15 serve 167/s
    // (11.1 each: rise 33/s). The growth bought 8.4/s a worker: within a change of rate of the later average, half
    // the earlier one.
    const twentyMs = { itemSeconds: 0.02, slowerBy: 1.5, maxApartSeconds: 120, reportedArrivals: 200 };
    const rises = [rise(700, 117, 5, 5)];
    expect(heavierItemsFitted(rises, rise(710, 33, 15, 15), twentyMs)).toBeUndefined();
    // The same fall where the earlier rise's workers served no more each than the later ones: heavier items
    const heavier = [rise(700, 117, 8, 8)];
    expect(heavierItemsFitted(heavier, rise(710, 33, 15, 15), twentyMs)).toBeDefined();
  });

  it('arrivals fitted past a change of rate above the count fit nothing: the two rises saw two loads', () => {
    // 5 → 9 took the rise 400 → 300/s: 25/s a worker and 525/s arriving, against 300/s counted
    const rises = [rise(600, 400, 5, 5)];
    expect(
      heavierItemsFitted(rises, rise(610, 300, 9, 9), { ...tenMs, reportedArrivals: 300 }),
    ).toBeUndefined();
    expect(
      heavierItemsFitted(rises, rise(610, 300, 9, 9), { ...tenMs, reportedArrivals: 400 }),
    ).toBeDefined();
  });
});
