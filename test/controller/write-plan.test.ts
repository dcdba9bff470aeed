import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertWritable, planWrites, UnsafeWriteError } from '../../functions/controller/write-plan.ts';
import { type ActuatorMode, resolveScalerConfig } from '../../lib/control/index.ts';

const config = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 16 });

describe('the order of the writes', () => {
  it.each([
    {
      comment: 'lockstep grows reserved first',
      mode: 'lockstep',
      from: 4,
      to: 6,
      plan: [
        ['reserved', 6],
        ['mapping', 6],
      ],
    },
    {
      comment: 'lockstep shrinks the mapping first',
      mode: 'lockstep',
      from: 6,
      to: 5,
      plan: [
        ['mapping', 5],
        ['reserved', 5],
      ],
    },
    { comment: 'reserved writes reserved only', mode: 'reserved', from: 4, to: 6, plan: [['reserved', 6]] },
    {
      comment: 'event-source asserts reserved at the cap, then the mapping',
      mode: 'event-source',
      from: 4,
      to: 6,
      plan: [
        ['reserved', 16],
        ['mapping', 6],
      ],
    },
    {
      comment: 'event-source shrinks with one write',
      mode: 'event-source',
      from: 6,
      to: 5,
      plan: [['mapping', 5]],
    },
  ] as const)('$comment', ({ mode, from, to, plan }) => {
    expect(planWrites(mode, from, to, config).map((w) => [w.target, w.value])).toEqual(plan);
  });

  it('MaximumConcurrency ≤ reserved after every prefix of every plan, from any start where it held', () => {
    const modes: ActuatorMode[] = ['lockstep', 'event-source'];
    fc.assert(
      fc.property(
        fc.constantFrom(...modes),
        fc.integer({ min: 2, max: 16 }),
        fc.integer({ min: 2, max: 16 }),
        (mode, from, to) => {
          // Before: lockstep holds both at `from`; event-source holds reserved at the cap.
          let reserved = mode === 'lockstep' ? from : 16;
          let mapping = from;
          for (const w of planWrites(mode, from, to, config)) {
            if (w.target === 'reserved') reserved = w.value;
            else mapping = w.value;
            expect(mapping).toBeLessThanOrEqual(reserved);
          }
          expect(mapping).toBe(to);
        },
      ),
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
