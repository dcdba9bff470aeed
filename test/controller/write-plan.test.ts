import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertWritable,
  outOfStep,
  planWrites,
  UnsafeWriteError,
} from '../../functions/controller/write-plan.ts';
import { type ActuatorMode, resolveScalerConfig } from '../../lib/control/index.ts';

const config = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 16 });

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
      comment: 'event-source asserts reserved at the cap, then the mapping',
      mode: 'event-source',
      from: { reserved: 16, mapping: 4 },
      to: 6,
      plan: [
        ['reserved', 16],
        ['mapping', 6],
      ],
    },
    {
      comment: 'event-source shrinks with one write',
      mode: 'event-source',
      from: { reserved: 16, mapping: 6 },
      to: 5,
      plan: [['mapping', 5]],
    },
    {
      comment: 'event-source repair: reserved lowered by hand under the mapping → reserved back to the cap',
      mode: 'event-source',
      from: { reserved: 3, mapping: 6 },
      to: 6,
      plan: [['reserved', 16]],
    },
  ] as const)('$comment', ({ mode, from, to, plan }) => {
    expect(planWrites(mode, from, to, config).map((w) => [w.target, w.value])).toEqual(plan);
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

  const limit = fc.option(fc.integer({ min: 2, max: 16 }), { nil: undefined });
  it('MaximumConcurrency ≤ reserved after every full plan, from any start, and no write ever widens a breach', () => {
    const modes: ActuatorMode[] = ['lockstep', 'event-source'];
    fc.assert(
      fc.property(
        fc.constantFrom(...modes),
        limit,
        limit,
        fc.integer({ min: 2, max: 16 }),
        (mode, r, m, to) => {
          let reserved = r ?? Number.POSITIVE_INFINITY;
          let mapping = m ?? Number.POSITIVE_INFINITY;
          let breach = Math.max(0, mapping - reserved);
          for (const w of planWrites(mode, { reserved: r, mapping: m }, to, config)) {
            if (w.target === 'reserved') reserved = w.value;
            else mapping = w.value;
            const now = Math.max(0, mapping - reserved);
            // An infinite breach (an unbounded mapping over a reserved value) may only shrink to a finite one.
            expect(now <= breach || !Number.isFinite(breach)).toBe(true);
            breach = now;
          }
          if (r !== undefined || m !== undefined || mode === 'lockstep') {
            expect(mapping).toBeLessThanOrEqual(reserved);
            expect(mapping).toBe(to);
          }
        },
      ),
    );
  });

  it('lockstep ends equal after at most two ticks of the same value', () => {
    fc.assert(
      fc.property(limit, limit, fc.integer({ min: 2, max: 16 }), (r, m, to) => {
        let limits = { reserved: r, mapping: m };
        for (let tick = 0; tick < 2; tick++) {
          for (const w of planWrites('lockstep', limits, to, config)) {
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
    expect(() => assertWritable({ target: 'reserved', value }, config)).toThrow(UnsafeWriteError);
  });
  it.each([1, 0, 17])('MaximumConcurrency %s is refused (valid 2–1000, and the cap)', (value) => {
    expect(() => assertWritable({ target: 'mapping', value }, config)).toThrow(
      /MaximumConcurrency = .*must be an integer in \[2; 16\]/,
    );
  });
  it('every integer in [1; cap] passes for reserved, [2; cap] for the mapping', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 16 }), (value) => {
        expect(() => assertWritable({ target: 'reserved', value }, config)).not.toThrow();
        expect(() => assertWritable({ target: 'mapping', value }, config)).not.toThrow();
      }),
    );
  });
});
