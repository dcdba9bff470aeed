import { describe, expect, it } from 'vitest';
import type { LoadFile } from '../../lib/load-file/load-file.ts';
import { runScenario } from '../../lib/sim/run.ts';

/**
 * Issue 29's ambiguity, in the simulator (10 s poller steps, the controller's ticks 30 s off each change): a step in
 * arrivals and items getting heavier both make the depth rise between ticks. The fast path sizes a step the depth
 * proves at once (fast-path.ts, `holdWorkedOffInTime`), and fits heavier items from what a growth bought
 * (served-rises.ts), so the tick does not read the step as heavier items, nor wait for CloudWatch to show them.
 */
const run = async (scenario: LoadFile) => {
  const { summary } = await runScenario({
    scenario,
    preset: 'lambda',
    controller: 'age-law',
    world: { pollerScaleSeconds: 10, controllerStartSeconds: 0 },
  });
  return summary;
};

describe('a step in arrivals or heavier items, between ticks', () => {
  it('a step onto an API the cap does not know is sized as arrivals, not heavier items: no call past its rate', async () => {
    // 200 → 520/s of 25 ms items 30 s into a minute, an API of 600 calls/s, the cap at 32. Read at the tick as
    // items 4.2 × heavier, 6 → 28 drained the backlog past the API's rate: 7,019 refused items, p99 3 × the target.
    const summary = await run({
      name: 'api-step',
      phases: [
        { durationSeconds: 930, ratePerSecond: 200, itemMs: 25 },
        { durationSeconds: 240, ratePerSecond: 520, itemMs: 25 },
        { durationSeconds: 300, ratePerSecond: 200, itemMs: 25 },
      ],
      downstream: { apiRatePerSecond: 600, callsPerItem: 1 },
    });
    expect(summary.failedItems).toBe(0);
    expect(summary.executions.peak).toBeLessThanOrEqual(20);
    expect(summary.p99WaitSeconds).toBeLessThan(summary.targetAgeSeconds);
  });

  it('items heavier 25 s into a minute are sized from what a growth bought, before CloudWatch shows them', async () => {
    // 150/s, items 20 → 90 ms (13.5 busy), downstream with room. Without the fit the tick's own growth (4 → 8) left
    // its next minute unsettled and only the tick after read 88 ms: p99 1.15 × the target.
    const summary = await run({
      name: 'heavier-off-minute',
      phases: [
        { durationSeconds: 1_225, ratePerSecond: 150, itemMs: 20 },
        { durationSeconds: 600, ratePerSecond: 150, itemMs: 90 },
        { durationSeconds: 300, ratePerSecond: 150, itemMs: 20 },
      ],
    });
    expect(summary.p99WaitSeconds).toBeLessThan(summary.targetAgeSeconds);
    expect(summary.executions.peak).toBeLessThanOrEqual(24);
  });
});
