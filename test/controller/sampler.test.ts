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

describe('the tick’s send to the ticker queue', () => {
  it.each([
    {
      comment: 'the send fails',
      ticker: { schedule: () => Promise.reject(new Error('SQS is down')) },
      error: /SQS is down/,
    },
    {
      comment: 'SQS refuses some entries',
      ticker: { schedule: () => Promise.resolve({ sent: 3, refused: 2 }) },
      error: /refused 2 of 5 samples/,
    },
  ])('$comment: reported as a failed fast path, the tick already done', async ({ ticker, error }) => {
    // GIVEN a member with a reporter, and a ticker that fails
    const reportFast = vi.fn();
    const run = {
      actuator: { carried: undefined },
      reporter: { report() {}, reportFast, reportFastLoop() {} },
    };
    const sampler = new Sampler({ calls: new CallLog(), clock: () => 1_001, ticker }, () => new Map());
    const state: LoopState = {
      grid,
      members: [
        {
          name: 'orders',
          context: { applied: 2, tickApplied: 2, confirmed: false },
          samples: 0,
          growths: 0,
          maxVisible: 0,
        },
      ],
    };
    // WHEN the tick hands its loop over
    await sampler.start(state, new Map([['orders', run as never]]));
    // THEN one failed line for the member, never a throw
    expect(reportFast).toHaveBeenCalledTimes(1);
    expect(reportFast.mock.calls[0]?.[0]).toMatchObject({ kind: 'failed', error });
  });
});

describe('the next tick’s loop in a warm container', () => {
  it("goes on from this container's loop of the tick before: slow start's evidence rides in the ticker messages", async () => {
    // GIVEN a container whose loop of the slot before doubled on a rise at 4 (no per-item time known)
    const schedule = vi.fn((_messages: readonly { body: string }[]) =>
      Promise.resolve({ sent: 5, refused: 0 }),
    );
    const sampler = new Sampler(
      { calls: new CallLog(), clock: () => 1_001, ticker: { schedule } },
      () => new Map(),
    );
    const member = (applied: number, extra: object) => ({
      name: 'orders',
      context: { applied, tickApplied: applied, confirmed: true, ...extra },
      samples: 0,
      growths: 0,
      maxVisible: 0,
    });
    const before: LoopState = {
      grid: { start: 940, nextTick: 1_000, end: 990, times: [950, 960, 970, 980, 990] },
      members: [member(8, { lastRise: { applied: 4, perSecond: 574 }, roseBusySince: true })],
    };
    await sampler.start(before, new Map());
    // WHEN the next tick starts its own loop, with no evidence of its own
    await sampler.start({ grid, members: [member(8, {})] }, new Map());
    // THEN the loop it sends carries the rise the samples before it measured
    const sent = JSON.parse(schedule.mock.calls[1]?.[0][0]?.body ?? '{}');
    expect(sent.state.loop.members[0].context).toMatchObject({ lastRise: { applied: 4, perSecond: 574 } });
  });
});
