import { describe, expect, it } from 'vitest';
import { decideFast, type FastPathContext } from '../../lib/control/fast-path.ts';
import { slowStartAheadOfPollers } from '../../lib/control/provisioned-ramp.ts';
import { config, NOW } from './fixtures.ts';

const provisioned = config({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 5_000 });
const lockstep = config({ maxConcurrency: 1_000 });
const at = (seconds: number, messages: number, inFlight: number) => ({
  at: NOW + seconds,
  messages,
  inFlight,
});

/**
 * The diurnal day × 100 from cold (5,000/s of 20 ms items), pollers stepping once a minute: slow start grew 20 → 40
 * at 10 s, no CloudWatch data yet; 18 still run (180 in flight) and the depth climbs 4,100 a second.
 */
function coldStart(overrides: Partial<FastPathContext> = {}): FastPathContext {
  return {
    applied: 40,
    tickApplied: 20,
    lastChangeAt: NOW + 10,
    tickSample: at(0, 0, 0),
    previous: at(10, 41_282, 180),
    confirmed: false,
    ...overrides,
  };
}
const twentySecondsIn = at(20, 82_566, 190);

describe('slow start ahead of provisioned mode’s pollers', () => {
  it('doubles on while the pollers lag, on provisioned mode only', () => {
    const grown = decideFast(twentySecondsIn, coldStart(), provisioned);
    expect([grown.desired, grown.reason]).toEqual([80, 'grow:fast-surge']);
    // The standard mapping's pollers add 300 a minute, past any cap of tens: there the lag holds (no wind-up).
    const held = decideFast(twentySecondsIn, coldStart(), lockstep);
    expect([held.desired, held.reason]).toEqual([40, 'hold:fast']);
  });

  it('stops at what the pollers reach by their next step: those running plus 1,000, in whole pollers', () => {
    // 19 run (190 in flight): 1,019 reached; 800 doubles only to that, rounded down to whole pollers: 1,010, not 1,600.
    const capped = decideFast(twentySecondsIn, coldStart({ applied: 800 }), provisioned);
    expect(capped.desired).toBe(1_010);
    // 25 run: 1,025 reached, less than a poller past 1,020: no step (rounded up, each sample would add one).
    const creep = decideFast(at(20, 82_566, 250), coldStart({ applied: 1_020 }), provisioned);
    expect([creep.desired, creep.reason]).toEqual([1_020, 'hold:fast']);
  });

  it('stops below the cap where nothing sized the need (drainCeiling: 0.9 × the cap)', () => {
    const small = config({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 100 });
    const grown = decideFast(twentySecondsIn, coldStart({ applied: 60 }), small);
    expect([grown.desired, grown.reason]).toEqual([90, 'grow:fast-surge']);
  });

  it('waits where a per-item time sizes the growth, the depth stopped rising, or the lag is old', () => {
    const sized = decideFast(twentySecondsIn, coldStart({ itemSeconds: 0.02 }), provisioned);
    expect([sized.desired, sized.reason]).toEqual([40, 'hold:fast']);
    const flat = decideFast(at(20, 41_285, 190), coldStart(), provisioned);
    expect([flat.desired, flat.reason]).toEqual([40, 'hold:fast']);
    // A previous sample no older than this one (a clock step back, a repeated read) proves no rise.
    const sameInstant = slowStartAheadOfPollers(
      at(20, 41_282, 180),
      twentySecondsIn,
      40,
      NOW + 10,
      undefined,
      provisioned,
    );
    expect(sameInstant).toBeUndefined();
    const old = slowStartAheadOfPollers(
      at(10, 41_282, 180),
      twentySecondsIn,
      40,
      NOW - 300,
      undefined,
      provisioned,
    );
    expect(old).toBeUndefined();
  });

  it('needs the executions behind: where every allowed worker runs, slow start’s own proof decides', () => {
    const running = slowStartAheadOfPollers(
      at(10, 41_282, 400),
      at(20, 82_566, 400),
      40,
      NOW + 10,
      undefined,
      provisioned,
    );
    expect(running).toBeUndefined();
  });
});
