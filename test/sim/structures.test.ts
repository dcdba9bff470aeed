import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionPool, RateLimiter } from '../../lib/sim/downstream.ts';
import { EventQueue } from '../../lib/sim/event-queue.ts';
import { ExecutionEnvironments } from '../../lib/sim/execution-environments.ts';
import { TimeFifo } from '../../lib/sim/fifo.ts';
import { LevelMeter } from '../../lib/sim/level-meter.ts';
import { MessageHeap } from '../../lib/sim/message-heap.ts';
import { PhaseLocator, phaseEnds } from '../../lib/sim/phase-locator.ts';
import { ProvisionedPollers, StandardPollers } from '../../lib/sim/pollers.ts';
import { WaitStats } from '../../lib/sim/wait-stats.ts';

/** The oracle, a plain scan: the first phase whose end is after `time`. */
function linearIndex(ends: Float64Array, time: number): number {
  for (let i = 0; i < ends.length; i++) if (time < (ends[i] as number)) return i;
  return ends.length - 1;
}

describe('phase locator', () => {
  it('agrees with a linear scan, for any phases and any order of lookups', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 100, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.double({ min: 0, max: 1.2, noNaN: true }), { minLength: 1, maxLength: 80 }),
        (durations, fractions) => {
          const ends = phaseEnds(durations);
          const total = ends[ends.length - 1] as number;
          const locator = new PhaseLocator(ends);
          for (const f of fractions) {
            const time = f * total;
            expect(locator.indexAt(time)).toBe(linearIndex(ends, time));
          }
          // Exactly at each boundary, too.
          for (const end of ends) expect(locator.indexAt(end)).toBe(linearIndex(ends, end));
        },
      ),
    );
  });

  it('costs O(1) a lookup on the forward clock and O(log phases) at worst, not a scan of the phases', () => {
    // GIVEN 86,400 one-second phases (a day at one row a second)
    const phases = 86_400;
    const ends = phaseEnds(Array.from({ length: phases }, () => 1));
    // WHEN the clock walks forward ten times a second
    const clock = new PhaseLocator(ends);
    const forward = phases * 10;
    for (let i = 0; i < forward; i++) clock.indexAt(i / 10);
    // THEN a lookup compares a handful of ends, where a scan compared 43,200 on average
    expect(clock.probes / forward).toBeLessThan(4);
    // AND lookups anywhere cost at most a galloping search each
    const anywhere = new PhaseLocator(ends);
    const lookups = 10_000;
    for (let i = 0; i < lookups; i++) anywhere.indexAt((((i * 7919) % phases) + 0.5) % phases);
    expect(anywhere.probes / lookups).toBeLessThan(2 * Math.log2(phases) + 4);
  });
});

describe('wait stats', () => {
  it('are exact while small, and within 0.4 % of the exact percentile once folded into the histogram', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9000 }),
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (n, scale, seed) => {
          let x = seed;
          const values: number[] = [];
          const stats = new WaitStats();
          for (let i = 0; i < n; i++) {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            const v = scale * (0.1 + (x / 2 ** 32) * 10);
            values.push(v);
            stats.record(v);
          }
          values.sort((a, b) => a - b);
          for (const q of [0.5, 0.99]) {
            const exact = values[Math.ceil(q * n) - 1] as number;
            if (n <= 4096) expect(stats.quantile(q)).toBe(exact);
            else expect(Math.abs(stats.quantile(q) - exact) / exact).toBeLessThanOrEqual(0.004);
          }
          expect(stats.max).toBe(values[n - 1]);
          expect(stats.count).toBe(n);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('merge as if every wait had been recorded in one set', () => {
    const a = new WaitStats();
    const b = new WaitStats();
    const all = new WaitStats();
    for (let i = 0; i < 6000; i++) {
      const v = (i % 97) * 0.013 + i * 1e-4;
      (i % 3 === 0 ? a : b).record(v);
      all.record(v);
    }
    a.merge(b);
    expect(a.count).toBe(all.count);
    expect(a.quantile(0.99)).toBe(all.quantile(0.99));
    expect(a.max).toBe(all.max);
  });
});

describe('queues', () => {
  it('the event heap pops in time order, ties in insertion order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), (times) => {
        const q = new EventQueue<number>();
        times.forEach((t, i) => {
          q.push(t, i);
        });
        const expected = times.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i);
        for (const e of expected) expect(q.pop()).toEqual({ time: e.t, item: e.i });
        expect(q.pop()).toBeUndefined();
      }),
    );
  });

  it('the message heap gives the oldest send time first, with its receive count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.nat(1000))),
        (messages) => {
          const heap = new MessageHeap();
          for (const [t, c] of messages) heap.push(t, c);
          const sorted = [...messages].sort((a, b) => a[0] - b[0]);
          for (const [t] of sorted) {
            expect(heap.oldest()).toBe(t);
            heap.removeOldest();
          }
          expect(heap.length).toBe(0);
        },
      ),
    );
  });

  it('the send-time FIFO keeps order across its chunks', () => {
    const fifo = new TimeFifo();
    const n = 200_000;
    const out: number[] = [];
    for (let i = 0; i < n; i++) fifo.push(i);
    for (let i = 0; i < n / 2; i++) out.push(fifo.shift() as number);
    for (let i = n; i < n + 70_000; i++) fifo.push(i);
    expect(fifo.length).toBe(n / 2 + 70_000);
    while (fifo.length > 0) out.push(fifo.shift() as number);
    // In order, nothing lost or repeated: 0, 1, …, n + 69,999.
    expect(out.length).toBe(n + 70_000);
    expect(out.every((v, i) => v === i)).toBe(true);
    expect(fifo.shift()).toBeUndefined();
    fifo.push(7);
    expect(fifo.peek()).toBe(7);
  });
});

describe('level meter', () => {
  it('integrates over time: peak, time-weighted mean and p99, per segment', () => {
    // 2 for 90 s, 10 for 9 s, 40 for 1 s.
    const meter = new LevelMeter(2);
    meter.set(90, 10);
    meter.cut(95);
    meter.set(99, 40);
    const s = meter.summary(100);
    expect(s.peak).toBe(40);
    expect(s.integral).toBe(2 * 90 + 10 * 9 + 40 * 1);
    expect(s.mean).toBeCloseTo(3.1, 12);
    // 99 % of the time at or below 10; the single second at 40 is the top 1 %.
    expect(s.p99).toBe(10);
    expect(meter.closedSegments()).toEqual([{ peak: 10, integral: 2 * 90 + 10 * 5 }]);
  });
});

describe('execution environments', () => {
  it('reuses the most recently freed environment and reclaims idle ones after the keep-warm time', () => {
    const envs = new ExecutionEnvironments(600);
    envs.start(0);
    envs.start(0);
    envs.start(0);
    expect(envs.warm.current).toBe(3);
    envs.finish(10);
    envs.finish(20);
    // A new invocation at 30 s runs in the one freed at 20 s: still 3 environments.
    envs.start(30);
    expect(envs.warm.current).toBe(3);
    // The one idle since 10 s is reclaimed at 610 s; the others are busy.
    envs.expire(700);
    expect(envs.warm.current).toBe(2);
    const summary = envs.warm.summary(700);
    expect(summary.peak).toBe(3);
    expect(summary.integral).toBe(3 * 610 + 2 * 90);
  });
});

describe('downstream capacity', () => {
  it('a pool hands out at most N connections, then serves waiters first come first served, skipping those gone', () => {
    const pool = new ConnectionPool<{ id: number; gone: boolean }>(2);
    const waiters = [1, 2, 3, 4].map((id) => ({ id, gone: false }));
    expect(pool.acquire(waiters[0] as never)).toBe(true);
    expect(pool.acquire(waiters[1] as never)).toBe(true);
    expect(pool.acquire(waiters[2] as never)).toBe(false);
    expect(pool.acquire(waiters[3] as never)).toBe(false);
    (waiters[2] as { gone: boolean }).gone = true;
    expect(pool.release((w) => w.gone)?.id).toBe(4);
    expect(pool.release((w) => w.gone)).toBeUndefined();
    expect(pool.busy).toBe(1);
    expect(pool.peakInUse).toBe(2);
    expect(pool.peakWaiting).toBe(2);
  });

  it('an API lets through a second of calls at once, then its rate', () => {
    const api = new RateLimiter(100, 1);
    let passed = 0;
    for (let i = 0; i < 300; i++) if (api.tryCall(0, 1)) passed++;
    expect(passed).toBe(100);
    // Half a second later, 50 more.
    passed = 0;
    for (let i = 0; i < 300; i++) if (api.tryCall(0.5, 1)) passed++;
    expect(passed).toBe(50);
    expect(api.rejected).toBe(450);
  });
});

describe("the mapping's pollers", () => {
  it('standard mode: starts at 5, adds 300 a minute while messages wait, falls back to what was used, never below 5', () => {
    const pollers = new StandardPollers(5, 300, 1250);
    expect(pollers.capacity).toBe(5);
    pollers.scale(true, 5, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(305);
    pollers.scale(true, 305, 400);
    expect(pollers.capacity).toBe(400);
    pollers.scale(false, 37, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(37);
    pollers.scale(false, 0, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(5);
  });

  it('standard mode evaluated every 10 s: the same 300 a minute, 50 per evaluation', () => {
    const pollers = new StandardPollers(5, 300, 1250, 10);
    pollers.scale(true, 5, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(55);
    for (let i = 0; i < 5; i++) pollers.scale(true, pollers.capacity, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(305);
  });

  it('provisioned mode evaluated every 30 s: 50 pollers (500 invokes) per evaluation', () => {
    const pollers = new ProvisionedPollers(2, 300, 30);
    pollers.scale(true, 20, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(520);
  });

  it('provisioned mode: 10 invokes per poller, up to 1,000 more a minute, between the minimum and maximum pollers', () => {
    const pollers = new ProvisionedPollers(2, 300);
    expect(pollers.capacity).toBe(20);
    pollers.scale(true, 20, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(1020);
    pollers.scale(true, 1020, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(2020);
    pollers.scale(true, 2020, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(3000);
    pollers.scale(false, 41, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(50);
    pollers.scale(false, 0, Number.POSITIVE_INFINITY);
    expect(pollers.capacity).toBe(20);
  });

  it('provisioned mode under a controller: MaximumPollers (the limit, 10 invokes a poller) bounds the pollers', () => {
    const pollers = new ProvisionedPollers(2, Number.POSITIVE_INFINITY);
    pollers.scale(true, 20, 70);
    expect(pollers.capacity).toBe(70);
    pollers.scale(true, 70, 1_000);
    expect(pollers.capacity).toBe(1_000);
    // lowered below the pollers running: down to it at the next evaluation, never below MinimumPollers
    pollers.scale(true, 1_000, 40);
    expect(pollers.capacity).toBe(40);
    pollers.scale(true, 40, 5);
    expect(pollers.capacity).toBe(20);
  });
});
