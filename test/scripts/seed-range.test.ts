import { describe, expect, it } from 'vitest';
import { seedsOf, startsOf } from '../../scripts/seed-range.ts';

describe('the measuring scripts’ ranges', () => {
  it('reads seeds FROM-TO and refuses a reversed or unbounded range', () => {
    expect(seedsOf('1-5')).toEqual([1, 2, 3, 4, 5]);
    expect(() => seedsOf('5-1')).toThrow(/FROM ≤ TO/);
    expect(() => seedsOf('1-1000')).toThrow(/at most 100/);
  });

  it('reads the controller’s offsets as whole seconds, once each, and names the field on a bad one', () => {
    expect(startsOf('0')).toEqual([0]);
    expect(startsOf('0,10,30,10')).toEqual([0, 10, 30]);
    expect(() => startsOf('10,x')).toThrow(/--start = '10,x'/);
    expect(() => startsOf('-5')).toThrow(/0–3600/);
    expect(() => startsOf('3601')).toThrow(/0–3600/);
    expect(() => startsOf('1,2,3,4,5,6,7')).toThrow(/at most 6/);
  });
});
