import { describe, expect, it } from 'vitest';
import type { MetricSeries, QueueDepth } from '../../lib/control/ports.ts';
import {
  forgetRates,
  type RememberedRates,
  ratesDue,
  rememberRates,
  withRemembered,
} from '../../lib/control/rate-reads.ts';
import { runTick, type TickPorts } from '../../lib/control/tick.ts';
import { config, NOW } from './fixtures.ts';

const EMPTY: QueueDepth = { visible: 0, inFlight: 0, delayed: 0 };
const TARGET = 60;

/** A quiet queue's read: age 0, nothing sent or deleted in the newest period. */
function quietSeries(at = NOW - 120): MetricSeries {
  return {
    ageOfOldestMessage: [{ timestamp: at, value: 0 }],
    messagesSent: [{ timestamp: at, value: 0 }],
    messagesDeleted: [{ timestamp: at, value: 0 }],
    consumerDurationMs: [],
  };
}

function remembered(series: MetricSeries, depth = EMPTY, before?: RememberedRates, fresh = true) {
  return rememberRates({ series, fresh, depth }, before, {}, TARGET, NOW);
}

describe('the rates are read at every tick but where a quiet queue lets a tick reuse them', () => {
  it('a quiet queue (empty, nothing sent or deleted, age on target): the next tick reuses its rates', () => {
    const kept = remembered(quietSeries());
    expect(kept?.reusable).toBe(true);
    expect(ratesDue(kept, NOW + 60)).toBe(false);
  });

  it('no memory (a cold start): the tick reads them', () => {
    expect(ratesDue(undefined, NOW)).toBe(true);
  });

  it('messages in the queue now: read again, though the rates the tick saw were all zero', () => {
    const kept = remembered(quietSeries(), { visible: 0, inFlight: 3, delayed: 0 });
    expect(kept?.reusable).toBe(false);
    expect(ratesDue(kept, NOW + 60)).toBe(true);
  });

  it('messages sent or deleted in the newest period: read again', () => {
    const sent = { ...quietSeries(), messagesSent: [{ timestamp: NOW - 120, value: 4 }] };
    const deleted = { ...quietSeries(), messagesDeleted: [{ timestamp: NOW - 120, value: 4 }] };
    expect(remembered(sent)?.reusable).toBe(false);
    expect(remembered(deleted)?.reusable).toBe(false);
  });

  it('the age above the target, or a series partial: read again', () => {
    const late = { ...quietSeries(), ageOfOldestMessage: [{ timestamp: NOW - 120, value: TARGET + 1 }] };
    const partial: MetricSeries = { ...quietSeries(), partial: ['messagesSent'] };
    expect(remembered(late)?.reusable).toBe(false);
    expect(remembered(partial)?.reusable).toBe(false);
  });

  it('a growth waiting for its verdict: read again', () => {
    const probe = { from: 2, to: 4, at: NOW, completionsBefore: 0, itemSecondsBefore: 0.02 };
    const kept = rememberRates(
      { series: quietSeries(), fresh: true, depth: EMPTY },
      undefined,
      {
        growthProbe: probe as never,
      },
      TARGET,
      NOW,
    );
    expect(kept?.reusable).toBe(false);
  });

  it('a write since the read (a tick’s, a sample’s growth): read again', () => {
    expect(ratesDue(forgetRates(remembered(quietSeries())), NOW + 60)).toBe(true);
  });

  it('a reusing tick keeps the read it reused, and stops reusing once the queue is no longer empty', () => {
    const first = remembered(quietSeries());
    const reused = withRemembered(quietSeries(NOW - 60), first as RememberedRates, NOW - 3600);
    const still = remembered(reused, EMPTY, first, false);
    expect(still).toMatchObject({ readAt: NOW, reusable: true });
    expect(remembered(reused, { visible: 5, inFlight: 0, delayed: 0 }, first, false)?.reusable).toBe(false);
  });

  it('the reused series say so, drop what fell out of the window, and keep only the age’s partial flag', () => {
    const old = { timestamp: NOW - 7200, value: 0 };
    const kept = { ...(remembered(quietSeries()) as RememberedRates), messagesSent: [old] };
    const series = withRemembered({ ...quietSeries(), partial: ['consumerDurationMs'] }, kept, NOW - 3600);
    expect(series.ratesReused).toBe(true);
    expect(series.messagesSent).toEqual([]);
    expect(series.partial).toEqual([]);
  });
});

describe('a tick acts only on fresh rates', () => {
  /** Ports whose metrics answer with reused rates unless asked for fresh ones; the fresh ones show a backlog. */
  function ports(freshAsks: boolean[]): TickPorts {
    const backlog: MetricSeries = {
      ageOfOldestMessage: [{ timestamp: NOW - 120, value: 600 }],
      messagesSent: [{ timestamp: NOW - 120, value: 6000 }],
      messagesDeleted: [{ timestamp: NOW - 120, value: 600 }],
      consumerDurationMs: [{ timestamp: NOW - 120, value: 60_000 }],
    };
    return {
      metrics: {
        read: async (_now, _period, _window, options) => {
          freshAsks.push(options?.freshRates === true);
          return options?.freshRates
            ? backlog
            : { ...quietSeries(), ...backlog, ...stale(), ratesReused: true };
        },
      },
      queue: { depth: async () => ({ visible: 5000, inFlight: 20, delayed: 0 }) },
      concurrency: { applied: async () => 2, apply: async () => {} },
      state: { load: async () => ({ lastChangeAt: NOW - 3600 }), save: async () => {} },
    };
  }
  const stale = () => ({
    messagesSent: [{ timestamp: NOW - 180, value: 0 }],
    messagesDeleted: [{ timestamp: NOW - 180, value: 0 }],
    consumerDurationMs: [],
  });

  it('a decision that would act on reused rates reads them afresh and decides on those', async () => {
    const asks: boolean[] = [];
    const result = await runTick(ports(asks), config(), NOW, { periodSeconds: 60, windowSeconds: 3600 });
    expect(asks).toEqual([false, true]);
    // Sized on the fresh arrivals (100/s at 0.1 s an item), not on the reused zeros
    expect(result.decision.reason.startsWith('grow:')).toBe(true);
    expect(result.snapshot.arrivalRatePerSecond).toBe(100);
  });
});

describe('a reuse reaches back five minutes at most', () => {
  it('read afresh once the remembered read is five minutes old, however quiet the queue', () => {
    const kept = remembered(quietSeries());
    expect(ratesDue(kept, NOW + 240)).toBe(false);
    expect(ratesDue(kept, NOW + 300)).toBe(true);
  });
});
