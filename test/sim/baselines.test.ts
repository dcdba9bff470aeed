import { describe, expect, it } from 'vitest';
import { type LoadFile, loadScenario } from '../../lib/load-file/load-file.ts';
import { provisionedMaximumPollers, runScenario } from '../../lib/sim/run.ts';

const spike: LoadFile = {
  name: 'spike',
  phases: [
    { durationSeconds: 300, ratePerSecond: 50, itemMs: 20 },
    { durationSeconds: 300, ratePerSecond: 800, itemMs: 20 },
    { durationSeconds: 600, ratePerSecond: 50, itemMs: 20 },
  ],
};

describe('native: no controller, MaximumConcurrency at the cap, reserved concurrency unset', () => {
  it('never writes, never exceeds the mapping maximum, holds no reserved concurrency and is never throttled', async () => {
    const { summary, result } = await runScenario({
      scenario: spike,
      preset: 'lambda',
      controller: 'native',
    });
    expect(summary.scaleEvents).toBe(0);
    expect(result.concurrencyChanges).toEqual([[0, summary.cap]]);
    expect(summary.executions.peak).toBeLessThanOrEqual(summary.cap);
    expect(summary.reservedSeconds).toBe(0);
    expect(summary.throttledInvocations).toBe(0);
    expect(summary.lost).toBe(0);
    // The pollers scaled up on the spike: the mapping's own scaling, not a controller's.
    expect(summary.executions.peak).toBeGreaterThan(16);
  });

  it('the applied limit overstates what the downstream feels: executions average near λ·S, not the cap', async () => {
    // Fixed at the cap, the limit counts 32 for every second while a few invocations run.
    const { summary } = await runScenario({ scenario: spike, preset: 'lambda', controller: 'fixed-cap' });
    const limitMean = summary.concurrencySeconds / summary.simulatedSeconds;
    expect(limitMean).toBeGreaterThan(30);
    expect(summary.executions.mean).toBeLessThan(limitMean / 4);
    // Its reserved concurrency is the account concurrency held back.
    expect(summary.reservedSeconds).toBe(summary.concurrencySeconds);
  });
});

describe('provisioned mode', () => {
  it('keeps MaximumPollers under the cap at 10 invokes a poller, never below the documented minimum of 2', () => {
    expect(provisionedMaximumPollers(32)).toBe(3);
    expect(provisionedMaximumPollers(100)).toBe(10);
    expect(provisionedMaximumPollers(10)).toBe(2);
  });

  it('runs 20 invokes from the start (2 pollers), at most 10 × MaximumPollers, no reserved concurrency', async () => {
    const { summary } = await runScenario({ scenario: spike, preset: 'lambda', controller: 'provisioned' });
    const ceiling = 10 * provisionedMaximumPollers(summary.cap);
    expect(summary.executions.peak).toBeLessThanOrEqual(ceiling);
    expect(summary.executions.peak).toBeGreaterThan(16);
    expect(summary.reservedSeconds).toBe(0);
    expect(summary.scaleEvents).toBe(0);
    expect(summary.throttledInvocations).toBe(0);
    expect(summary.lost).toBe(0);
    // Two pollers drive 20 invokes from the first second: the spike's first minute has no minute-long ramp.
    expect(summary.phases[1]?.p99WaitSeconds).toBeLessThan(1);
  });
});

describe('what every run reports', () => {
  it('reserved concurrency held: the cap for the whole run in event-source mode, in lockstep the applied integral plus a tick of each shrink', async () => {
    const eventSource = await runScenario({
      scenario: spike,
      preset: 'lambda',
      settings: { actuator: 'event-source' },
    });
    expect(eventSource.summary.reservedSeconds).toBe(eventSource.summary.cap * 1200);
    const lockstep = await runScenario({ scenario: spike, preset: 'lambda' });
    // Reserved trails each shrink of the mapping by a tick (a poll in flight is not throttled): at least the
    // applied integral, at most a tick of every shrink on top.
    const changes = lockstep.result.concurrencyChanges;
    const shrunk = changes.reduce((sum, [, v], i) => sum + Math.max(0, (changes[i - 1]?.[1] ?? v) - v), 0);
    expect(lockstep.summary.reservedSeconds).toBeGreaterThanOrEqual(lockstep.summary.concurrencySeconds);
    expect(lockstep.summary.reservedSeconds).toBeLessThanOrEqual(
      lockstep.summary.concurrencySeconds + shrunk * lockstep.config.tickSeconds,
    );
    expect(lockstep.summary.executions.peak).toBeLessThanOrEqual(lockstep.summary.peakConcurrency);
  });

  it('warm environments: at least the executions at any time, and kept after a burst (ten minutes by default)', async () => {
    const { summary, result } = await runScenario({
      scenario: spike,
      preset: 'lambda',
      controller: 'native',
    });
    expect(summary.warmEnvironments.peak).toBeGreaterThanOrEqual(summary.executions.peak);
    expect(summary.warmEnvironments.mean).toBeGreaterThan(summary.executions.mean);
    for (const s of result.timeline) expect(s.warm).toBeGreaterThanOrEqual(s.executions);
    // Within ten minutes of the spike's end the environments it warmed are still there.
    const afterSpike = result.timeline.find((s) => s.time === 900);
    expect(afterSpike?.warm).toBeGreaterThan(16);
  });

  it('the seed preset has no event source mapping: native and provisioned are refused', async () => {
    for (const controller of ['native', 'provisioned'] as const) {
      await expect(
        runScenario({ scenario: loadScenario('seed-spike'), preset: 'seed', controller }),
      ).rejects.toThrow(
        /is a setting of Lambda's event source mapping; the seed preset models an in-process pool/,
      );
    }
  });
});
