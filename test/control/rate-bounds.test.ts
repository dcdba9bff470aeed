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

  it('brackets the rate, and a longer period narrows the bracket', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0.01, max: 3600, noNaN: true }),
        (rate, period) => {
          const low = rateLowerBound(rate, period);
          const high = rateUpperBound(rate, period);
          expect(low).toBeGreaterThanOrEqual(0);
          expect(low).toBeLessThanOrEqual(rate);
          expect(high).toBeGreaterThanOrEqual(rate);
          expect(rateUpperBound(rate, 2 * period) - rateLowerBound(rate, 2 * period)).toBeLessThanOrEqual(
            high - low + 1e-9,
          );
        },
      ),
    );
  });
});
