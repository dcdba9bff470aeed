import { describe, expect, it } from 'vitest';
import { drainCeiling, needWithBacklog } from '../../lib/control/need.ts';
import { config } from './fixtures.ts';

describe('drainCeiling: the cap is the last resort', () => {
  it.each([
    { cap: 32, ceiling: 28, why: 'the target utilisation of the cap' },
    { cap: 10, ceiling: 9, why: 'a headroom of one whole worker' },
    { cap: 8, ceiling: 8, why: 'a headroom under one worker keeps the cap' },
    { cap: 2, ceiling: 2, why: 'a headroom under one worker keeps the cap' },
  ])('cap $cap → $ceiling ($why)', ({ cap, ceiling, why: _ }) => {
    expect(drainCeiling(config({ maxConcurrency: cap, minConcurrency: 2 }))).toBe(ceiling);
  });

  it('the backlog’s drain stops there; the arrivals’ own need does not', () => {
    // 580/s at 40 ms: 26 at 90 %, and 40,000 waiting would drain with 23 + 13 = 37
    expect(needWithBacklog(580, 0.04, 40_000, config())).toBe(28);
    // 1,000/s at 30 ms: 34 at 90 %, above the ceiling: the arrivals get it (the cap clamps it later)
    expect(needWithBacklog(1_000, 0.03, 40_000, config())).toBe(34);
  });
});
