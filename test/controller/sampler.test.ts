import { describe, expect, it, vi } from 'vitest';
import { type CarriedLoop, Sampler } from '../../functions/controller/sampler.ts';
import { tickerBody } from '../../functions/controller/ticker-message.ts';
import { CallLog } from '../../lib/aws/clients.ts';
import type { LoopState } from '../../lib/control/control-loop.ts';

/** Which deliveries a container that did not run the tick takes from the message alone. */
const grid = { start: 1_000, nextTick: 1_060, end: 1_050, times: [1_010, 1_020, 1_030, 1_040, 1_050] };
const loop = (budget: boolean): LoopState => ({
  grid,
  members: [],
  ...(budget ? { budget: { total: 10, counts: {}, shares: {} } } : {}),
});
const body = (at: number, budget: boolean) =>
  tickerBody<CarriedLoop>(grid.start, at, 1_054, { loop: loop(budget), limits: {} });

describe('a cold container’s sample', () => {
  it.each([
    {
      comment: 'a lone scaler, a later sample: taken (a growth re-reads both limits)',
      budget: false,
      at: 1_030,
      taken: true,
    },
    {
      comment: "a budget's first sample: taken (nothing grew before it)",
      budget: true,
      at: 1_010,
      taken: true,
    },
    {
      comment: "a budget's later sample: not taken (an earlier growth is not in the message's counts)",
      budget: true,
      at: 1_030,
      taken: false,
    },
  ])('$comment', async ({ budget, at, taken }) => {
    const memberRuns = vi.fn(() => new Map());
    const sampler = new Sampler({ calls: new CallLog(), clock: () => at }, memberRuns);
    await sampler.sample(body(at, budget));
    expect(memberRuns).toHaveBeenCalledTimes(taken ? 1 : 0);
  });
});
