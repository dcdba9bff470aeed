import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ActuatorMode, resolveScalerConfig } from '../../lib/control/index.ts';
import {
  assertWritable,
  outOfStep,
  overpulls,
  planWrites,
  UnsafeWriteError,
} from '../../lib/control/write-plan.ts';

const config = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 16 });
const CAP = config.maxConcurrency;

const lockstep = (n: number | undefined) => ({ reserved: n, mapping: n });

describe('the order of the writes', () => {
  it.each([
    {
      comment: 'lockstep grows reserved first',
      mode: 'lockstep',
      from: lockstep(4),
      to: 6,
      plan: [
        ['reserved', 6],
        ['mapping', 6],
      ],
    },
    {
      comment: 'lockstep shrinks the mapping first; reserved follows at the next tick',
      mode: 'lockstep',
      from: lockstep(6),
      to: 5,
      plan: [['mapping', 5]],
    },
    {
      comment: 'the next tick brings reserved down to the mapping',
      mode: 'lockstep',
      from: { reserved: 6, mapping: 5 },
      to: 5,
      plan: [['reserved', 5]],
    },
    {
      comment: 'a second shrink in a row lowers reserved to the maximum the pollers already worked under',
      mode: 'lockstep',
      from: { reserved: 6, mapping: 5 },
      to: 4,
      plan: [
        ['mapping', 4],
        ['reserved', 5],
      ],
    },
    {
      comment: 'nothing set (a just-attached consumer): the mapping is capped first',
      mode: 'lockstep',
      from: lockstep(undefined),
      to: 8,
      plan: [
        ['mapping', 8],
        ['reserved', 8],
      ],
    },
    {
      comment: 'repair: mapping raised by hand above reserved (10 over 3), holding 3 → lower the mapping',
      mode: 'lockstep',
      from: { reserved: 3, mapping: 10 },
      to: 3,
      plan: [['mapping', 3]],
    },
    {
      comment: 'repair: reserved lowered by hand under the mapping (3 under 10), growing to 6',
      mode: 'lockstep',
      from: { reserved: 3, mapping: 10 },
      to: 6,
      plan: [
        ['mapping', 6],
        ['reserved', 6],
      ],
    },
    {
      comment: 'repair: reserved raised by hand above the mapping (20 over 5), holding 5 → lower reserved',
      mode: 'lockstep',
      from: { reserved: 20, mapping: 5 },
      to: 5,
      plan: [['reserved', 5]],
    },
    {
      comment: 'repair: a mapping maximum with no reserved concurrency at all',
      mode: 'lockstep',
      from: { reserved: undefined, mapping: 5 },
      to: 5,
      plan: [['reserved', 5]],
    },
    {
      comment: 'reserved writes reserved only',
      mode: 'reserved',
      from: lockstep(4),
      to: 6,
      plan: [['reserved', 6]],
    },
    {
      comment:
        'lockstep: a mapping found above the cap is lowered to it, and reserved never planned above the cap',
      mode: 'lockstep',
      from: { reserved: undefined, mapping: 50 },
      to: 16,
      plan: [
        ['mapping', 16],
        ['reserved', 16],
      ],
    },
    {
      comment: 'event-source grows the mapping only: reserved is the template’s, never written',
      mode: 'event-source',
      from: { reserved: 50, mapping: 5 },
      to: 8,
      plan: [['mapping', 8]],
    },
    {
      comment: 'event-source with reserved unset: the mapping alone, nothing reserved from the account',
      mode: 'event-source',
      from: { reserved: undefined, mapping: 5 },
      to: 8,
      plan: [['mapping', 8]],
    },
    {
      comment: 'event-source never raises the mapping above the reserved concurrency it finds',
      mode: 'event-source',
      from: { reserved: 6, mapping: 4 },
      to: 10,
      plan: [['mapping', 6]],
    },
    {
      comment: 'event-source shrinks with one write',
      mode: 'event-source',
      from: { reserved: 16, mapping: 6 },
      to: 5,
      plan: [['mapping', 5]],
    },
    {
      comment:
        'event-source repair: reserved lowered by hand under the mapping → the mapping comes down to it',
      mode: 'event-source',
      from: { reserved: 3, mapping: 6 },
      to: 6,
      plan: [['mapping', 3]],
    },
  ] as const)('$comment', ({ mode, from, to, plan }) => {
    expect(planWrites(mode, from, to, CAP).map((w) => [w.target, w.value])).toEqual(plan);
  });

  it.each([
    { comment: 'lockstep, equal', mode: 'lockstep', limits: lockstep(5), expected: false },
    {
      comment: 'lockstep, mapping above reserved',
      mode: 'lockstep',
      limits: { reserved: 3, mapping: 10 },
      expected: true,
    },
    {
      comment: 'lockstep, reserved above the mapping',
      mode: 'lockstep',
      limits: { reserved: 6, mapping: 5 },
      expected: true,
    },
    {
      comment: 'lockstep, nothing set (adopted, not repaired)',
      mode: 'lockstep',
      limits: lockstep(undefined),
      expected: false,
    },
    {
      comment: 'event-source, reserved at the cap',
      mode: 'event-source',
      limits: { reserved: 16, mapping: 5 },
      expected: false,
    },
    {
      comment: 'event-source, reserved under the mapping',
      mode: 'event-source',
      limits: { reserved: 3, mapping: 5 },
      expected: true,
    },
    {
      comment: 'reserved mode drives one value',
      mode: 'reserved',
      limits: { reserved: 3, mapping: 10 },
      expected: false,
    },
  ] as const)('out of step: $comment', ({ mode, limits, expected }) => {
    expect(outOfStep(mode, limits)).toBe(expected);
  });

  it.each([
    {
      comment: 'lockstep, mapping above reserved',
      mode: 'lockstep',
      limits: { reserved: 3, mapping: 10 },
      expected: true,
    },
    // The designed one-tick trail after a shrink: a write, not a repair (LockstepRepairs stays 0).
    {
      comment: 'lockstep, reserved trailing a shrink',
      mode: 'lockstep',
      limits: { reserved: 6, mapping: 5 },
      expected: false,
    },
    {
      comment: 'lockstep, unbounded mapping over reserved',
      mode: 'lockstep',
      limits: { reserved: 5, mapping: undefined },
      expected: true,
    },
    {
      comment: 'lockstep, nothing reserved',
      mode: 'lockstep',
      limits: { reserved: undefined, mapping: 5 },
      expected: false,
    },
    {
      comment: 'reserved 0 is a pause, judged apart',
      mode: 'lockstep',
      limits: { reserved: 0, mapping: 5 },
      expected: false,
    },
    {
      comment: 'event-source, reserved under the mapping',
      mode: 'event-source',
      limits: { reserved: 3, mapping: 5 },
      expected: true,
    },
    {
      comment: 'reserved mode drives no mapping',
      mode: 'reserved',
      limits: { reserved: 3, mapping: 10 },
      expected: false,
    },
  ] as const)('overpull: $comment', ({ mode, limits, expected }) => {
    expect(overpulls(mode, limits)).toBe(expected);
  });

  const limit = fc.option(fc.integer({ min: 2, max: 16 }), { nil: undefined });
  // Hand edits may leave either limit above the cap.
  const anyLimit = fc.option(fc.integer({ min: 2, max: 60 }), { nil: undefined });
  it('MaximumConcurrency ≤ reserved after every full plan, from any start, and no write ever widens a breach', () => {
    const modes: ActuatorMode[] = ['lockstep', 'event-source'];
    fc.assert(
      fc.property(
        fc.constantFrom(...modes),
        anyLimit,
        anyLimit,
        fc.integer({ min: 2, max: 16 }),
        (mode, r, m, to) => {
          let reserved = r ?? Number.POSITIVE_INFINITY;
          let mapping = m ?? Number.POSITIVE_INFINITY;
          let breach = Math.max(0, mapping - reserved);
          for (const w of planWrites(mode, { reserved: r, mapping: m }, to, CAP)) {
            // Nothing above the cap is ever planned (assertWritable would refuse it mid-plan).
            expect(() => assertWritable(w, CAP)).not.toThrow();
            if (w.target === 'reserved') reserved = w.value;
            else mapping = w.value;
            const now = Math.max(0, mapping - reserved);
            // An infinite breach (an unbounded mapping over a reserved value) may only shrink to a finite one.
            expect(now <= breach || !Number.isFinite(breach)).toBe(true);
            breach = now;
          }
          expect(mapping).toBeLessThanOrEqual(reserved);
          // Lockstep drives both to the value; event-source the mapping, up to the reserved concurrency it finds.
          expect(mapping).toBe(mode === 'lockstep' ? to : Math.min(to, r ?? Number.POSITIVE_INFINITY));
        },
      ),
    );
  });

  it('event-source never writes reserved concurrency (the template owns it)', () => {
    fc.assert(
      fc.property(anyLimit, anyLimit, fc.integer({ min: 2, max: 16 }), (r, m, to) => {
        const targets = planWrites('event-source', { reserved: r, mapping: m }, to, CAP).map((w) => w.target);
        expect(targets).not.toContain('reserved');
      }),
    );
  });

  it('lockstep ends equal after at most two ticks of the same value', () => {
    fc.assert(
      fc.property(limit, limit, fc.integer({ min: 2, max: 16 }), (r, m, to) => {
        let limits = { reserved: r, mapping: m };
        for (let tick = 0; tick < 2; tick++) {
          for (const w of planWrites('lockstep', limits, to, CAP)) {
            limits =
              w.target === 'reserved' ? { ...limits, reserved: w.value } : { ...limits, mapping: w.value };
          }
        }
        expect(limits).toEqual({ reserved: to, mapping: to });
      }),
    );
  });
});

describe('never 0, negative, NaN, fractional or above the cap', () => {
  it.each([0, -1, Number.NaN, 2.5, 17, Number.POSITIVE_INFINITY])('reserved %s is refused', (value) => {
    expect(() => assertWritable({ target: 'reserved', value }, CAP)).toThrow(UnsafeWriteError);
  });
  it.each([1, 0, 17])('MaximumConcurrency %s is refused (valid 2–1000, and the cap)', (value) => {
    expect(() => assertWritable({ target: 'mapping', value }, CAP)).toThrow(
      /MaximumConcurrency = .*must be an integer in \[2; 16\]/,
    );
  });
  it('every integer in [1; cap] passes for reserved, [2; cap] for the mapping', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 16 }), (value) => {
        expect(() => assertWritable({ target: 'reserved', value }, CAP)).not.toThrow();
        expect(() => assertWritable({ target: 'mapping', value }, CAP)).not.toThrow();
      }),
    );
  });
});

describe('provisioned: reserved and MaximumPollers (10 invocations a poller) move as lockstep does, in whole pollers', () => {
  const CAP_500 = 500;
  it.each([
    {
      comment: 'grows reserved first, then the pollers (20 → 40: 4 pollers)',
      from: lockstep(20),
      to: 40,
      plan: [
        ['reserved', 40],
        ['mapping', 40],
      ],
    },
    {
      comment: 'shrinks the pollers first; reserved trails a tick',
      from: lockstep(40),
      to: 30,
      plan: [['mapping', 30]],
    },
    {
      comment: 'repair: pollers raised by hand above reserved (50 over 30), holding 30 → lower the pollers',
      from: { reserved: 30, mapping: 50 },
      to: 30,
      plan: [['mapping', 30]],
    },
  ] as const)('$comment', ({ from, to, plan }) => {
    expect(planWrites('provisioned', from, to, CAP_500).map((w) => [w.target, w.value])).toEqual(plan);
  });

  it('the pollers never drive more than reserved admits, at every write, from any start on the grid', () => {
    const level = fc.integer({ min: 2, max: 80 }).map((p) => p * 10);
    const start = fc.option(level, { nil: undefined });
    fc.assert(
      fc.property(start, start, fc.integer({ min: 2, max: 50 }), (r, m, pollers) => {
        const to = pollers * 10;
        let reserved = r ?? Number.POSITIVE_INFINITY;
        let mapping = m ?? Number.POSITIVE_INFINITY;
        let breach = Math.max(0, mapping - reserved);
        for (const w of planWrites('provisioned', { reserved: r, mapping: m }, to, CAP_500)) {
          expect(() => assertWritable(w, CAP_500, 'provisioned')).not.toThrow();
          if (w.target === 'reserved') reserved = w.value;
          else mapping = w.value;
          const now = Math.max(0, mapping - reserved);
          expect(now <= breach || !Number.isFinite(breach)).toBe(true);
          breach = now;
        }
        expect(mapping).toBe(to);
        expect(mapping).toBeLessThanOrEqual(reserved);
      }),
    );
  });

  it.each([10, 25, 510, 0])(
    'MaximumPollers for %s invocations is refused (whole pollers, 2 at least, within the cap)',
    (value) => {
      expect(() => assertWritable({ target: 'mapping', value }, CAP_500, 'provisioned')).toThrow(
        /MaximumPollers = .*must be a multiple of 10 in \[20; 500\]/,
      );
    },
  );

  it('beyond the standard mapping’s 1,000: 5,000 invocations (500 pollers) under a cap of 10,000', () => {
    expect(() => assertWritable({ target: 'mapping', value: 5_000 }, 10_000, 'provisioned')).not.toThrow();
    expect(() => assertWritable({ target: 'mapping', value: 5_000 }, 10_000, 'lockstep')).toThrow(
      UnsafeWriteError,
    );
  });
});
