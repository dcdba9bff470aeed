import { describe, expect, it } from 'vitest';
import { benchScenario } from '../../lib/bench/bench.ts';
import type { Scenario } from '../../lib/load-file/load-file.ts';
import { ageLawMonthlyCost, PRICES, provisionedMonthlyCost, SECONDS_PER_MONTH } from '../../lib/sim/cost.ts';
import { configFor } from '../../lib/sim/run.ts';

const lambda = configFor('lambda');

describe('the bench cost column', () => {
  it("the fast path's loop is most of the age law's compute: 50 s of each minute at 256 MB", () => {
    // GIVEN the lambda preset with and without the fast path
    const withLoop = ageLawMonthlyCost(lambda);
    const tickOnly = ageLawMonthlyCost({ ...lambda, fastSampleSeconds: 0 });
    // THEN the loop adds 43,200 invocations × 50 s × 0.25 GB of compute, and five depth reads a tick
    const loop = (SECONDS_PER_MONTH / 60) * 50 * 0.25 * PRICES.lambdaArmGbSecond;
    const reads = (SECONDS_PER_MONTH / 60) * 5 * PRICES.sqsRequest;
    expect(withLoop - tickOnly).toBeCloseTo(loop + reads, 6);
    // AND what is left is GetMetricData ($4.32), metrics and alarms ($8.50) and cents
    expect(tickOnly).toBeGreaterThan(4.32 + 8.5);
    expect(tickOnly).toBeLessThan(4.32 + 8.5 + 0.2);
  });

  it('a longer tick costs less: fewer invocations, fewer metric reads', () => {
    expect(ageLawMonthlyCost({ tickSeconds: 120, fastSampleSeconds: 10 })).toBeLessThan(
      ageLawMonthlyCost(lambda),
    );
  });

  it('provisioned mode bills its pollers by the hour, 2 at least', () => {
    expect(provisionedMonthlyCost(2 * 3600, 3600)).toBeCloseTo(2 * 720 * PRICES.eventPollerUnitHour, 6);
  });

  it('the bench prices the age law, provisioned (2 pollers on a quiet queue) and native (nothing)', async () => {
    // GIVEN a quiet queue
    const quiet: Scenario = {
      name: 'quiet',
      phases: [{ durationSeconds: 600, ratePerSecond: 1, itemMs: 20 }],
    };
    // WHEN the bench runs it
    const rows = await benchScenario(quiet, 'lambda');
    const cost = (controller: string) => rows.find((r) => r.controller === controller)?.monthlyCost;
    // THEN
    expect(cost('age-law')).toBeCloseTo(ageLawMonthlyCost(lambda), 6);
    expect(cost('provisioned')).toBeCloseTo(provisionedMonthlyCost(2 * 600, 600), 6);
    expect(cost('native')).toBe(0);
    expect(cost('fixed-cap')).toBeUndefined();
  });

  it('the seed preset has no AWS bill', async () => {
    const spike: Scenario = {
      name: 'spike',
      phases: [{ durationSeconds: 2, ratePerSecond: 50, itemMs: 20 }],
    };
    const rows = await benchScenario(spike, 'seed');
    expect(rows.every((r) => r.monthlyCost === undefined)).toBe(true);
  });
});
