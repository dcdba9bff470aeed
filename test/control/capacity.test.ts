import { describe, expect, it } from 'vitest';
import { maxConcurrencyFor } from '../../lib/control/capacity.ts';

describe('maxConcurrencyFor', () => {
  it.each([
    {
      comment: "the seed's example: the API, not the pool, binds",
      limits: { dbPoolSize: 20, apiRatePerSecond: 100, itemTimeSeconds: 0.02, callsPerItem: 1 },
      cap: 2,
    },
    {
      comment: 'the pool binds',
      limits: { dbPoolSize: 8, apiRatePerSecond: 1000, itemTimeSeconds: 0.05 },
      cap: 8,
    },
    {
      comment: 'two calls per item halve the API cap',
      limits: { apiRatePerSecond: 100, itemTimeSeconds: 0.2, callsPerItem: 2 },
      cap: 10,
    },
    { comment: 'an explicit maximum below both', limits: { dbPoolSize: 20, explicitMax: 5 }, cap: 5 },
    { comment: 'never below 1', limits: { apiRatePerSecond: 1, itemTimeSeconds: 0.01 }, cap: 1 },
    {
      comment: 'a float product just under an integer still reaches it',
      limits: { apiRatePerSecond: 30, itemTimeSeconds: 0.1 },
      cap: 3,
    },
  ])('$comment', ({ limits, cap }) => {
    expect(maxConcurrencyFor(limits)).toBe(cap);
  });

  it('has no cap when no limit is given', () => {
    expect(maxConcurrencyFor({})).toBeUndefined();
  });
});
