import { describe, expect, it } from 'vitest';
import { type LoadFile, LoadFileError, type Phase } from '../../lib/load-file/load-file.ts';
import { parseSimConfig } from '../../lib/sim/config-file.ts';
import { SIMULATION_LIMITS, SimulationLimitError } from '../../lib/sim/limits.ts';
import { Random } from '../../lib/sim/random.ts';
import { runScenario } from '../../lib/sim/run.ts';

const one = (phase: Phase): LoadFile => ({ name: 'x', phases: [phase] });

describe('the simulator refuses what would exhaust the machine, saying why', () => {
  it.each([
    {
      comment: '100,000/s for an hour (it would take 4.7 GB)',
      scenario: one({ durationSeconds: 3600, ratePerSecond: 100_000, itemMs: 20 }),
      settings: {},
      message:
        /360,000,000 messages .* more than 50,000,000 \(so that a run fits in 2 GB and ends in minutes\): thin it with --rate-scale/,
    },
    {
      comment: "the phase validator's own maximum, 1e6/s for 30 days (it would take more than 8 GB)",
      scenario: one({ durationSeconds: 30 * 86_400, ratePerSecond: 1_000_000, itemMs: 20 }),
      settings: {},
      message: /2,592,000,000,000 messages/,
    },
    {
      comment: 'tickSeconds 1e-6 (the run would never end)',
      scenario: one({ durationSeconds: 60, ratePerSecond: 10, itemMs: 20 }),
      settings: { tickSeconds: 1e-6 },
      message:
        /60,000,000 controller ticks \(60 s ÷ tickSeconds 0.000001\), more than 1,000,000: raise tickSeconds/,
    },
    {
      comment: 'more phases than the bound',
      scenario: {
        name: 'x',
        phases: Array.from({ length: SIMULATION_LIMITS.phases + 1 }, () => ({
          durationSeconds: 1,
          ratePerSecond: 0,
          itemMs: 20,
        })),
      },
      settings: {},
      message: /100,001 phases, more than 100,000/,
    },
    {
      comment: 'a time-scaled run longer than 30 days',
      scenario: one({ durationSeconds: 31 * 86_400, ratePerSecond: 0, itemMs: 20 }),
      settings: {},
      message: /2,678,400 s of simulated time, more than 2,592,000 \(30 days\)/,
    },
  ])('refuses $comment', async ({ scenario, settings, message }) => {
    const run = runScenario({ scenario, preset: 'lambda', settings });
    await expect(run).rejects.toThrow(SimulationLimitError);
    await expect(runScenario({ scenario, preset: 'lambda', settings })).rejects.toThrow(message);
  });

  it('accepts 86,400 one-second phases (a day at one row a second) and runs them', async () => {
    const scenario: LoadFile = {
      name: 'seconds',
      phases: Array.from({ length: 86_400 }, (_, i) => ({
        durationSeconds: 1,
        ratePerSecond: i % 600 < 60 ? 5 : 1,
        itemMs: 20,
      })),
    };
    const { summary } = await runScenario({ scenario, preset: 'lambda' });
    expect(summary.phases).toHaveLength(86_400);
    expect(summary.lost).toBe(0);
    expect(summary.simulatedSeconds).toBe(86_400);
  });
});

describe('long items: the function timeout and redelivery', () => {
  it('15-minute items with a 30 s function timeout time out, return after the visibility timeout and reach the DLQ', async () => {
    // A timed-out invocation's batch stays invisible only for the visibility timeout (180 s), then returns. Native:
    // the redrive under test, not the law, which backs off to its floor when every item fails (lib/control/refusals.ts)
    // and so receives each message less often.
    const { summary, result } = await runScenario({
      scenario: one({ durationSeconds: 9000, ratePerSecond: 1, itemMs: 900_000 }),
      preset: 'lambda',
      controller: 'native',
    });
    expect(summary.timedOutInvocations).toBeGreaterThan(0);
    expect(summary.deadLettered).toBeGreaterThan(0);
    expect(summary.completed).toBe(0);
    expect(summary.lost).toBe(0);
    // No message stays invisible past its visibility timeout: what is in flight at any tick was received within
    // the last 180 s, so it is at most (applied concurrency × batch size) per 30 s timeout over 180 s.
    const peakInFlight = Math.max(...result.timeline.map((s) => s.inFlight));
    expect(peakInFlight).toBeLessThanOrEqual(summary.peakConcurrency * 10 * (180 / 30));
  });

  it('items that fit the timeout are unaffected (a batch of ten 2 s items takes ~20 s of a 30 s timeout)', async () => {
    const { summary } = await runScenario({
      scenario: one({ durationSeconds: 1800, ratePerSecond: 5, itemMs: 2000 }),
      preset: 'lambda',
    });
    expect(summary.timedOutInvocations).toBe(0);
    expect(summary.deadLettered).toBe(0);
  });

  it('refuses a visibility timeout below the function timeout, as Lambda refuses such a mapping', async () => {
    const file = parseSimConfig(
      JSON.stringify({ simulator: { visibilityTimeoutSeconds: 20, functionTimeoutSeconds: 30 } }),
      'x.json',
    );
    await expect(
      runScenario({
        scenario: one({ durationSeconds: 60, ratePerSecond: 1, itemMs: 20 }),
        preset: 'lambda',
        world: file.world,
      }),
    ).rejects.toThrow(
      /simulator.visibilityTimeoutSeconds = 20: must be at least simulator.functionTimeoutSeconds \(30\); Lambda refuses an SQS mapping/,
    );
  });

  it('the config file bounds the function timeout to Lambda’s 1 s – 15 minutes', () => {
    expect(() =>
      parseSimConfig(JSON.stringify({ simulator: { functionTimeoutSeconds: 901 } }), 'x.json'),
    ).toThrow(/simulator.functionTimeoutSeconds = 901: must be a number in \[1; 900\]/);
  });
});

describe('a seed is used whole', () => {
  it('the generator refuses what it cannot use, instead of folding 2^32 + 1 onto 1', () => {
    expect(() => new Random(2 ** 32 + 1)).toThrow(/seed 4294967297 is outside \[0, 4294967295\]/);
    expect(() => new Random(1.5)).toThrow(RangeError);
    expect(new Random(2 ** 32 - 1).next()).not.toBe(new Random(1).next());
  });

  it('runs refuse it too, and every accepted seed is a different run', async () => {
    const scenario = one({ durationSeconds: 120, ratePerSecond: 20, itemMs: 20 });
    await expect(runScenario({ scenario, preset: 'lambda', seed: 4_294_967_297 })).rejects.toThrow(
      /seed = 4294967297: must be an integer in \[0; 4294967295\]/,
    );
    const a = await runScenario({ scenario, preset: 'lambda', seed: 0 });
    const b = await runScenario({ scenario, preset: 'lambda', seed: 4_294_967_295 });
    expect(a.summary.seed).toBe(0);
    expect(b.summary.seed).toBe(4_294_967_295);
    expect(a.summary.sent).not.toBe(b.summary.sent);
  });
});

describe('the simulator config file takes own, known keys only', () => {
  it.each<{ comment: string; simulator?: object; text?: string; message: RegExp }>([
    {
      comment: 'constructor',
      simulator: { constructor: 1 },
      message: /unknown field 'simulator.constructor'/,
    },
    { comment: 'toString', simulator: { toString: 1 }, message: /unknown field 'simulator.toString'/ },
    {
      comment: '__proto__',
      text: '{"simulator": {"__proto__": {"batchSize": 1}}}',
      message: /unknown field 'simulator.__proto__'/,
    },
    {
      comment: 'a downstream inherited name',
      simulator: { downstream: { hasOwnProperty: 1 } },
      message: /unknown field 'simulator.downstream.hasOwnProperty'/,
    },
    {
      comment: 'a number given as text',
      simulator: { downstream: { connectionPool: '20' } },
      message: /simulator.downstream.connectionPool = '20': must be an integer in \[1; 100000\]/,
    },
  ])('refuses $comment', ({ simulator, text, message }) => {
    expect(() => parseSimConfig(text ?? JSON.stringify({ simulator }), 'x.json')).toThrow(message);
  });

  it('scenario errors and limit errors are user errors (one line, exit 2)', () => {
    expect(new SimulationLimitError('x')).toBeInstanceOf(LoadFileError);
  });
});
