import { describe, expect, it } from 'vitest';
import type { LoadFile } from '../../lib/load-file/load-file.ts';
import { runScenario } from '../../lib/sim/run.ts';

// Slow start on any BatchSize (issue 28 item 4): the simulator hands its BatchSize to the law through the ports,
// and a burst after silence grows between ticks with batches of 1 or 4 as with the default 10.
const burstAfterSilence: LoadFile = {
  name: 'burst-after-silence',
  phases: [
    { durationSeconds: 1200, ratePerSecond: 0, itemMs: 15 },
    { durationSeconds: 60, ratePerSecond: 400, itemMs: 15 },
  ],
};

describe('a burst after silence grows between ticks on BatchSize 1 and 4', () => {
  it.each([1, 4])(
    'BatchSize %i: the first growth within 20 s of the first message, before the tick',
    async (batchSize) => {
      const { result } = await runScenario({
        scenario: burstAfterSilence,
        preset: 'lambda',
        controller: 'age-law',
        seed: 1,
        world: { batchSize },
      });
      const first = result.concurrencyChanges.find(([t, v]) => t > 1200 && v > 2);
      expect(first?.[0]).toBeGreaterThan(1200);
      expect(first?.[0]).toBeLessThanOrEqual(1220);
    },
  );
});
