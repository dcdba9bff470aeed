import { describe, expect, it } from 'vitest';
import { decideFast } from '../../lib/control/fast-path.ts';
import type { QueueDepth } from '../../lib/control/ports.ts';
import { runFastSample, type TickPorts } from '../../lib/control/tick.ts';
import { afterSilence, config, NOW } from './fixtures.ts';

/**
 * What a sample's write leaves for the next sample: the value its growth started from (`grownFrom`), which decides
 * whether a later rise is the new value's (lib/control/depth-trend.ts, `executionsAtGrownFrom`).
 */

// A burst after silence: no per-item time, 6,700 waiting 10 s after the tick with both workers busy.
const burst: QueueDepth = { visible: 6_700, inFlight: 20, delayed: 0 };
const grownFromOne = afterSilence({ grownFrom: 1 });

/**
 * Ports whose concurrency takes a write (`lands`) or keeps the value it had (a refused raise), and reads `before`
 * when the sample reads the limits afresh ahead of its write.
 */
function ports(lands: boolean, before = 2): Pick<TickPorts, 'queue' | 'concurrency'> {
  let applied = before;
  return {
    queue: { depth: async () => burst },
    concurrency: {
      refresh: async () => {},
      applied: async () => applied,
      apply: async (desired) => {
        if (lands) applied = desired;
      },
    },
  };
}

describe('runFastSample: the value a growth started from', () => {
  it('the decision itself carries it: slow start 2 → 4 started from 2', () => {
    const sample = { at: NOW + 10, messages: burst.visible, inFlight: burst.inFlight };
    const decision = decideFast(sample, grownFromOne, config());
    expect(decision).toMatchObject({ reason: 'grow:fast-surge', desired: 4 });
    expect(decision.context.grownFrom).toBe(2);
  });

  it('a growth that lands started from the value it found: 2 → 4, grownFrom 2', async () => {
    const result = await runFastSample(ports(true), grownFromOne, config(), NOW + 10);
    expect(result).toMatchObject({ changed: true, applied: 2 });
    expect(result.context).toMatchObject({ applied: 4, grownFrom: 2, lastChangeAt: NOW + 10 });
  });

  it('where an operator raised it to 3 since, the growth to 4 started from 3, not the 2 the loop knew', async () => {
    const result = await runFastSample(ports(true, 3), grownFromOne, config(), NOW + 10);
    expect(result.context).toMatchObject({ applied: 4, grownFrom: 3 });
  });

  it('a growth refused keeps the last growth that landed (grownFrom 1), not the value still applied', async () => {
    const result = await runFastSample(ports(false), grownFromOne, config(), NOW + 10);
    expect(result.changed).toBe(false);
    expect(result.context).toMatchObject({ applied: 2, grownFrom: 1 });
  });
});
