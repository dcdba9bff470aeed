import { describe, expect, it } from 'vitest';
import { drainCeiling, needWithBacklog, steadyNeed } from '../../lib/control/need.ts';
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
    // 1,000/s at 30 ms: 30 busy, above the ceiling: the arrivals get it, their headroom up to one below the cap
    expect(needWithBacklog(1_000, 0.03, 40_000, config())).toBe(31);
    // 1,100/s at 30 ms: 33 busy, the work itself past the cap: 37 (the cap clamps it later)
    expect(needWithBacklog(1_100, 0.03, 40_000, config())).toBe(37);
  });
});

describe('steadyNeed: the utilisation headroom never takes the value to the cap', () => {
  it.each([
    { rate: 800, itemMs: 20, need: 18, why: 'the seed: 16 busy ÷ 0.9 = 17.8' },
    { rate: 1_000, itemMs: 30, need: 31, why: '30 busy, 33.3 at 0.9: one below the cap of 32' },
    {
      rate: 1_060,
      itemMs: 30,
      need: 36,
      why: '31.8 busy rounds to the cap: the work needs it (clamped later)',
    },
    { rate: 1_100, itemMs: 30, need: 37, why: '33 busy: the work is past the cap (clamped later)' },
    { rate: 900, itemMs: 30, need: 30, why: '27 busy, 30 at 0.9: below the cap, untouched' },
  ])('$rate/s at $itemMs ms → $need ($why)', ({ rate, itemMs, need, why: _ }) => {
    expect(steadyNeed(rate, itemMs / 1000, config())).toBe(need);
  });
});
