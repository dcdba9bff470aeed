import { describe, expect, it } from 'vitest';
import { rememberedSaturation, settledBefore, TickMemory } from '../../functions/controller/tick-memory.ts';

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

  it('a sample with no backlog is where the next tick reads a rise from; the next tick’s own memory starts afresh', () => {
    const memory = new TickMemory();
    memory.remember('orders', tick);
    memory.quiet('orders', { at: 1_030, messages: 3 });
    expect(memory.recall('orders', 1_060, 60)?.lastQuiet).toEqual({ at: 1_030, messages: 3 });
    memory.remember('orders', { ...tick, at: 1_060 });
    expect(memory.recall('orders', 1_120, 60)?.lastQuiet).toBeUndefined();
  });

  it('a growth in a container that ran no tick for that scaler remembers nothing (the next tick reads the history)', () => {
    const memory = new TickMemory();
    memory.grew('orders', 1_020, 9);
    expect(memory.recall('orders', 1_060, 60)).toBeUndefined();
  });
});

describe('rememberedSaturation: what a tick carries for the next one to judge growth by', () => {
  it('the pending probe, the ceiling in force and the value the tick left; nothing else of the state', () => {
    const growthProbe = { at: 1_000, from: 22, to: 31, completionsBefore: 180, itemSecondsBefore: 0.1 };
    const saturation = { ceiling: 20, until: 1_900 };
    const tickLeft = { value: 18, at: 940 };
    expect(
      rememberedSaturation({ growthProbe, saturation, tickLeft, idleSince: 500, baselineItemSeconds: 0.02 }),
    ).toEqual({ growthProbe, saturation, tickLeft });
  });
});

describe('settledBefore: the pollers had settled when a tick wrote (a lowering then binds at once)', () => {
  it.each([
    { comment: 'the last change 100 s before the write', lastChangeAt: 900, at: 1_000, settled: true },
    {
      comment: 'a sample’s growth 25 s before it (the pollers still ramping)',
      lastChangeAt: 975,
      at: 1_000,
      settled: false,
    },
    { comment: 'no change remembered at all', lastChangeAt: undefined, at: 1_000, settled: true },
  ])('$comment: $settled', ({ lastChangeAt, at, settled }) => {
    expect(settledBefore({ at: 940, ...(lastChangeAt === undefined ? {} : { lastChangeAt }) }, at)).toBe(
      settled,
    );
  });
  it('a cold start knows nothing of the change before: not settled', () => {
    expect(settledBefore(undefined, 1_000)).toBe(false);
  });
});
