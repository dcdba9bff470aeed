import { describe, expect, it } from 'vitest';
import { TickMemory } from '../../functions/controller/tick-memory.ts';

/** What a container remembers of its last tick, and for how long it trusts it. */
describe('TickMemory', () => {
  const tick = { at: 1_000, lastChangeAt: 900, lastVisible: { at: 1_000, messages: 40 }, applied: 4 };

  it.each([
    { comment: 'the next tick, a minute on: remembered', now: 1_060, remembered: true },
    { comment: 'a late delivery, 89 s on: still the tick just before', now: 1_089, remembered: true },
    {
      comment: 'two ticks on (another container ran the one between): forgotten',
      now: 1_120,
      remembered: false,
    },
    {
      comment: 'the same instant (a duplicate running alongside): not a tick before',
      now: 1_000,
      remembered: false,
    },
    { comment: 'a clock behind the remembered tick: not a tick before', now: 990, remembered: false },
  ])('$comment', ({ now, remembered }) => {
    const memory = new TickMemory();
    memory.remember('orders', tick);
    expect(memory.recall('orders', now, 60)).toEqual(remembered ? tick : undefined);
  });

  it('keeps each scaler apart (a budget’s members in one container)', () => {
    const memory = new TickMemory();
    memory.remember('orders', tick);
    expect(memory.recall('invoices', 1_060, 60)).toBeUndefined();
  });

  it('a sample’s growth becomes the change and the value the next tick compares with', () => {
    const memory = new TickMemory();
    memory.remember('orders', tick);
    memory.grew('orders', 1_020, 9);
    expect(memory.recall('orders', 1_060, 60)).toEqual({ ...tick, lastChangeAt: 1_020, applied: 9 });
  });

  it('a growth in a container that ran no tick for that scaler remembers nothing (the next tick reads the history)', () => {
    const memory = new TickMemory();
    memory.grew('orders', 1_020, 9);
    expect(memory.recall('orders', 1_060, 60)).toBeUndefined();
  });
});
