import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rateLowerBound, rateUpperBound } from '../../lib/control/rate-bounds.ts';

describe('rate bounds: what a counted rate proves', () => {
  it('two standard errors of a Poisson count either side (the worked examples)', () => {
    expect(rateUpperBound(744, 0.25)).toBeCloseTo((186 + 2 * Math.sqrt(186)) / 0.25, 9);
    expect(rateLowerBound(912, 0.25)).toBeCloseTo((228 - 2 * Math.sqrt(228)) / 0.25, 9);
  });

  it('without a period the rate stands as it is', () => {
    expect(rateUpperBound(744, undefined)).toBe(744);
    expect(rateLowerBound(744, undefined)).toBe(744);
    expect(rateLowerBound(744, 0)).toBe(744);
  });

  it('a count of 4 or fewer proves no rate at all: the lower bound is 0, never negative', () => {
    expect(rateLowerBound(4, 1)).toBe(0);
    expect(rateLowerBound(1, 1)).toBe(0);
  });

  it('is the rate ∓ two standard errors of its count wherever that count is 4 or more, and narrows with the period', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.double({ min: 0.01, max: 3600, noNaN: true }),
        (rate, period) => {
          fc.pre(rate * period >= 4);
          const error = 2 * Math.sqrt(rate / period);
          const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
          expect(close(rateLowerBound(rate, period), rate - error)).toBe(true);
          expect(close(rateUpperBound(rate, period), rate + error)).toBe(true);
          const width = (t: number) => rateUpperBound(rate, t) - rateLowerBound(rate, t);
          expect(width(2 * period)).toBeLessThan(width(period));
        },
      ),
    );
  });

  it('an absurd rate does not overflow into NaN: 3e306/s over a minute', () => {
    expect(rateLowerBound(3e306, 60)).toBeGreaterThan(0);
    expect(Number.isFinite(rateUpperBound(3e306, 60))).toBe(true);
  });
});
