import { describe, expect, it } from 'vitest';
import { depthFalling, slowStartProof } from '../../lib/control/depth-trend.ts';

describe('slow start’s proof: the depth rose with every allowed worker busy', () => {
  it.each([
    {
      comment: 'rose 0 → 6,700, 20 in flight for 2',
      previous: 0,
      messages: 6_700,
      inFlight: 20,
      applied: 2,
      proof: true,
    },
    {
      comment: 'half a batch each is enough (10 for 2)',
      previous: 0,
      messages: 6_700,
      inFlight: 10,
      applied: 2,
      proof: true,
    },
    {
      comment: 'fewer in flight: the pollers have not reached it',
      previous: 0,
      messages: 6_700,
      inFlight: 9,
      applied: 2,
      proof: false,
    },
    {
      comment: 'a rise within the counts’ noise',
      previous: 100,
      messages: 110,
      inFlight: 20,
      applied: 2,
      proof: false,
    },
    {
      comment: 'no backlog (under a batch per worker)',
      previous: 0,
      messages: 19,
      inFlight: 20,
      applied: 2,
      proof: false,
    },
    {
      comment: 'in flight unknown',
      previous: 0,
      messages: 6_700,
      inFlight: undefined,
      applied: 2,
      proof: false,
    },
  ])('$comment → $proof', ({ previous, messages, inFlight, applied, proof }) => {
    expect(slowStartProof({ at: 0, messages: previous }, { at: 10, messages, inFlight }, applied)).toBe(
      proof,
    );
  });

  it('no previous sample, or none earlier: no proof', () => {
    expect(slowStartProof(undefined, { at: 10, messages: 6_700, inFlight: 20 }, 2)).toBe(false);
    expect(slowStartProof({ at: 10, messages: 0 }, { at: 10, messages: 6_700, inFlight: 20 }, 2)).toBe(false);
  });

  it('falling: beyond the noise only', () => {
    expect(depthFalling({ at: 0, messages: 16_000 }, 14_000)).toBe(true);
    expect(depthFalling({ at: 0, messages: 16_000 }, 15_995)).toBe(false);
    expect(depthFalling(undefined, 0)).toBe(false);
  });
});
