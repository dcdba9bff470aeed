import { describe, expect, it } from 'vitest';
import type { LoadFile } from '../../lib/load-file/load-file.ts';
import { runScenario } from '../../lib/sim/run.ts';

/** A load file from rows of seconds, arrivals a second and item milliseconds. */
const load = (name: string, rows: [number, number, number][]): LoadFile => ({
  name,
  phases: rows.map(([durationSeconds, ratePerSecond, itemMs]) => ({
    durationSeconds,
    ratePerSecond,
    itemMs,
  })),
});

const run = async (scenario: LoadFile) => {
  const { summary } = await runScenario({
    scenario,
    preset: 'lambda',
    controller: 'age-law',
    world: { pollerScaleSeconds: 10, controllerStartSeconds: 0 },
  });
  return summary;
};

/**
 * Issue 29's ambiguity, in the simulator (10 s poller steps, a step 30 s into a minute): a step in arrivals and items
 * getting heavier both make the depth rise between ticks. The fast path sizes a step the depth proves before the tick
 * (fast-path.ts, `holdWorkedOffInTime`), so the tick does not read it as heavier items.
 */
describe('a step in arrivals between ticks', () => {
  it('a step onto an API the cap does not know is sized as arrivals, not heavier items: no call past its rate', async () => {
    // 200 → 520/s of 25 ms items 30 s into a minute, an API of 600 calls/s, the cap at 32. Read at the tick as
    // items 4.2 × heavier, 6 → 28 drained the backlog past the API's rate: 7,019 refused items, p99 3 × the target.
    const summary = await run({
      ...load('api-step', [
        [930, 200, 25],
        [240, 520, 25],
        [300, 200, 25],
      ]),
      downstream: { apiRatePerSecond: 600, callsPerItem: 1 },
    });
    expect(summary.failedItems).toBe(0);
    expect(summary.executions.peak).toBeLessThanOrEqual(20);
    expect(summary.p99WaitSeconds).toBeLessThan(summary.targetAgeSeconds);
  });
});
