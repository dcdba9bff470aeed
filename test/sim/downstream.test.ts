import { describe, expect, it } from 'vitest';
import { type LoadFile, loadScenario, parseScenarioText } from '../../lib/load-file/load-file.ts';
import { parseSimConfig } from '../../lib/sim/config-file.ts';
import { runScenario } from '../../lib/sim/run.ts';

const flat = (ratePerSecond: number, itemMs: number, seconds = 600): LoadFile => ({
  name: 'flat',
  phases: [{ durationSeconds: seconds, ratePerSecond, itemMs }],
});

describe('a downstream connection pool', () => {
  it('never lends more than its size; beyond it, invocations wait and the wait shows in Duration', async () => {
    // GIVEN native at the cap 32 in front of a pool of 8, with 40 ms items at 190/s (the pool serves 200/s)
    const scenario: LoadFile = { ...flat(190, 40), downstream: { connectionPool: 8 } };
    const { summary, result } = await runScenario({ scenario, preset: 'lambda', controller: 'native' });
    // THEN at most 8 connections are in use, others wait, and nothing is lost
    expect(summary.downstream?.peakConnectionsInUse).toBe(8);
    expect(summary.downstream?.peakWaitingForConnection).toBeGreaterThan(0);
    expect(summary.executions.peak).toBeGreaterThan(8);
    expect(summary.lost).toBe(0);
    // AND the wait is time in the function: by Little's law, executions average well above λ·S = 190 × 0.04 = 7.6
    // (each item holds its invocation for its wait plus its 40 ms; without the pool the mean is ~7.8, with it 12.6)
    expect(summary.executions.mean).toBeGreaterThan(1.5 * 7.6);
    expect(result.timeline.some((s) => s.executions > 8)).toBe(true);
  });

  it('is off by default: no pool, no refused call, every item at its own time', async () => {
    const { summary } = await runScenario({
      scenario: flat(190, 40),
      preset: 'lambda',
      controller: 'native',
    });
    expect(summary.downstream).toBeUndefined();
    expect(summary.failedItems).toBe(0);
    expect(summary.executions.peak).toBeGreaterThan(8);
  });
});

describe('a downstream API with a rate limit', () => {
  it('fails calls past its rate: batch item failures return after the visibility timeout, then go to the DLQ', async () => {
    // GIVEN an API at 50 calls/s, 400 arrivals/s pushed at it by native at the cap, maxReceiveCount 2
    const { summary } = await runScenario({
      scenario: { ...flat(400, 20, 900), downstream: { apiRatePerSecond: 50 } },
      preset: 'lambda',
      controller: 'native',
      world: { visibilityTimeoutSeconds: 60, maxReceiveCount: 2 },
    });
    // THEN calls are refused, their items fail, their messages are received again and some reach the DLQ
    expect(summary.downstream?.rejectedCalls).toBeGreaterThan(0);
    // (an item whose invocation is still running at the end has had its call refused but not yet failed)
    expect(summary.failedItems).toBeGreaterThan(0);
    expect(summary.failedItems).toBeLessThanOrEqual(summary.downstream?.rejectedCalls ?? 0);
    expect(summary.deadLettered).toBeGreaterThan(0);
    // AND every message is still accounted for
    expect(summary.lost).toBe(0);
    expect(summary.sent).toBe(summary.completed + summary.queued + summary.inFlight + summary.deadLettered);
  });

  it('takes several calls per item into account', async () => {
    const one = await runScenario({
      scenario: { ...flat(100, 20, 300), downstream: { apiRatePerSecond: 150, callsPerItem: 1 } },
      preset: 'lambda',
      controller: 'native',
    });
    const three = await runScenario({
      scenario: { ...flat(100, 20, 300), downstream: { apiRatePerSecond: 150, callsPerItem: 3 } },
      preset: 'lambda',
      controller: 'native',
    });
    expect(three.summary.failedItems).toBeGreaterThan(one.summary.failedItems);
  });

  it('needs a queue that redelivers: refused in the seed preset', async () => {
    await expect(
      runScenario({
        scenario: { ...flat(100, 20, 60), downstream: { apiRatePerSecond: 50 } },
        preset: 'seed',
      }),
    ).rejects.toThrow(/needs a queue that redelivers failed items/);
  });
});

describe('the shipped downstream scenarios (age law vs native)', () => {
  it('downstream-slowing: native fills the pool of 20 and queues 12 more invocations on it; the age law told the pool stays inside it', async () => {
    const scenario = loadScenario('downstream-slowing');
    expect(scenario.downstream).toEqual({ connectionPool: 20 });
    const native = await runScenario({ scenario, preset: 'lambda', controller: 'native' });
    expect(native.summary.executions.peak).toBe(32);
    expect(native.summary.downstream?.peakConnectionsInUse).toBe(20);
    expect(native.summary.downstream?.peakWaitingForConnection).toBe(12);
    // The law holds while the pool is slower; when it recovers it drains the backlog within backlogDrainSeconds at
    // up to its cap. Told the pool (dbPoolSize 20: the cap), it never asks the pool for more than it has.
    const ageLaw = await runScenario({
      scenario,
      preset: 'lambda',
      controller: 'age-law',
      settings: { dbPoolSize: 20 },
    });
    expect(ageLaw.summary.executions.peak).toBeLessThanOrEqual(20);
    expect(ageLaw.summary.downstream?.peakWaitingForConnection).toBe(0);
    expect(native.summary.lost + ageLaw.summary.lost).toBe(0);
  });

  it('downstream-at-limit: native at the cap sends calls past the API rate; the refused items come back', async () => {
    const scenario = loadScenario('downstream-at-limit');
    expect(scenario.downstream).toEqual({ apiRatePerSecond: 300, callsPerItem: 1 });
    const native = await runScenario({ scenario, preset: 'lambda', controller: 'native' });
    expect(native.summary.executions.peak).toBe(32);
    expect(native.summary.downstream?.rejectedCalls).toBeGreaterThan(0);
    // Each refused call fails its item, which returns after the visibility timeout (5 refusals: the DLQ)
    expect(native.summary.failedItems).toBe(native.summary.downstream?.rejectedCalls);
    expect(native.summary.lost).toBe(0);
  });

  it('refused items in flight: the age law backs off to what the API takes, and none reach the DLQ', async () => {
    // GIVEN an API of 400 calls/s (13 workers' worth of 30 ms items) and arrivals above it for ten minutes
    // (300 → 450 → 300/s), the pollers stepping once a minute: growth on the age pulls past the API's rate, and
    // the refused items come back together a visibility timeout later (67 dead letters on this seed without the
    // back-off: lib/control/refusals.ts)
    const scenario: LoadFile = {
      name: 'api-over-limit',
      phases: [
        { durationSeconds: 600, ratePerSecond: 300, itemMs: 30 },
        { durationSeconds: 600, ratePerSecond: 450, itemMs: 30 },
        { durationSeconds: 900, ratePerSecond: 300, itemMs: 30 },
      ],
      downstream: { apiRatePerSecond: 400, callsPerItem: 1 },
    };
    const { summary, result } = await runScenario({
      scenario,
      preset: 'lambda',
      controller: 'age-law',
      world: { pollerScaleSeconds: 60 },
    });
    // THEN the tick backs off with the shed signal up, and every refused item is served in the end
    const backedOff = result.timeline.filter((s) => s.reason === 'shrink:downstream-saturated' && s.shed);
    expect(backedOff.length).toBeGreaterThan(0);
    expect(summary.downstream?.rejectedCalls).toBeGreaterThan(0);
    expect(summary.deadLettered).toBe(0);
    expect(summary.lost).toBe(0);
  });

  it('a config file overrides the scenario downstream, field by field', async () => {
    const file = parseSimConfig(
      JSON.stringify({ simulator: { downstream: { connectionPool: 4 } } }),
      'x.json',
    );
    const { summary } = await runScenario({
      scenario: { ...flat(100, 40, 120), downstream: { connectionPool: 20 } },
      preset: 'lambda',
      controller: 'native',
      downstream: file.downstream,
    });
    expect(summary.downstream?.connectionPool).toBe(4);
    expect(summary.downstream?.peakConnectionsInUse).toBe(4);
  });
});

describe('the downstream health signal (healthThreshold): the simulated controller reads waits and 429s', () => {
  it('past its threshold the age law holds (hold:downstream-saturated), signals saturated and runs fewer', async () => {
    // GIVEN the age law before a pool of 8 (it serves 8 ÷ 40 ms = 200/s), 300/s for 15 minutes between quiet
    // phases, with and without a health signal of more than 30 waits for a connection a minute
    const phase = (durationSeconds: number, ratePerSecond: number) => ({
      durationSeconds,
      ratePerSecond,
      itemMs: 40,
    });
    const run = (healthThreshold?: number) =>
      runScenario({
        scenario: {
          name: 'pool-overload',
          phases: [phase(600, 50), phase(900, 300), phase(600, 50)],
          downstream: { connectionPool: 8, healthThreshold },
        },
        preset: 'lambda',
        controller: 'age-law',
      });
    const [without, named] = await Promise.all([run(), run(30)]);
    // THEN with it ticks hold on the signal with the saturated signal up (without it, only what growth bought can
    // show the saturation, minutes later: saturation.ts), and fewer consumers run
    const held = (r: typeof named) =>
      r.result.timeline.filter((s) => s.reason === 'hold:downstream-saturated' && s.saturated);
    expect(held(named).length).toBeGreaterThan(0);
    expect(held(without)).toEqual([]);
    expect(named.summary.executions.mean).toBeLessThan(without.summary.executions.mean);
  });

  it('is read from the config file (simulator.downstream.healthThreshold) and the @downstream line', () => {
    const config = parseSimConfig(
      JSON.stringify({ simulator: { downstream: { connectionPool: 20, healthThreshold: 5 } } }),
      'sim.json',
    );
    expect(config.downstream).toEqual({ connectionPool: 20, healthThreshold: 5 });
    const file = parseScenarioText(
      '@downstream connection_pool=20 health_threshold=5\nduration_s,rate_per_s,item_ms\n60,10,20\n',
      'x.csv',
    );
    expect(file.downstream).toEqual({ connectionPool: 20, healthThreshold: 5 });
  });
});
