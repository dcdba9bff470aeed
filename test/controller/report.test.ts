import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { createMetrics, metricsFor } from '../../functions/controller/report.ts';
import { type Decision, type QueueSnapshot, resolveScalerConfig } from '../../lib/control/index.ts';
import {
  CONTROLLER_METRICS,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
  SPARSE_CONTROLLER_METRICS,
} from '../../lib/telemetry.ts';

const config = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 8 });
const snapshot: QueueSnapshot = {
  now: 1000,
  appliedConcurrency: 8,
  oldestAge: { seconds: 400, observedAt: 960 },
  visibleMessages: 40,
  inFlightMessages: 8,
};
const decision: Decision = {
  desired: 8,
  reason: 'hold:at-cap',
  atCap: true,
  saturated: true,
  shed: false,
  downstreamSlower: false,
  inputs: { ageSeconds: 400 },
  state: {},
};

describe('metricsFor', () => {
  it('a saturated hold at the cap', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: { snapshot, decision, applied: 8, changed: false, repaired: false },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: false,
      config,
    };
    const m = Object.fromEntries(metricsFor(outcome).map((x) => [x.name, x.value]));
    expect(m).toMatchObject({
      [CONTROLLER_METRICS.appliedConcurrency]: 8,
      [CONTROLLER_METRICS.desiredConcurrency]: 8,
      [CONTROLLER_METRICS.cap]: 8,
      [CONTROLLER_METRICS.headAgeSeconds]: 400,
      [CONTROLLER_METRICS.visibleMessages]: 40,
      [CONTROLLER_METRICS.atCap]: 1,
      [CONTROLLER_METRICS.saturated]: 1,
    });
    // No change: ScaleEvents, a sparse count, is not published at 0 (billed only in the hours it says something).
    expect(m[CONTROLLER_METRICS.scaleEvents]).toBeUndefined();
  });
  it('a change counts one scale event', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, appliedConcurrency: 4 },
        decision: { ...decision, desired: 6 },
        applied: 4,
        changed: true,
        repaired: false,
      },
      actuation: { kind: 'applied', value: 6 },
      writes: [],
      appliedAfter: 6,
      pauseOverpull: false,
      config,
    };
    expect(metricsFor(outcome).find((x) => x.name === CONTROLLER_METRICS.scaleEvents)?.value).toBe(1);
  });
});

describe('the flags describe what is applied', () => {
  const cap16 = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 16 });
  it('a raise clamped by the account headroom at 8 of 16 is not at cap: ClampedByAccountHeadroom is the signal', () => {
    // GIVEN the law wanted the cap (16) with the age at 300 s, and the account's headroom allowed 8
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, appliedConcurrency: 4, oldestAge: { seconds: 300, observedAt: 960 } },
        decision: { ...decision, desired: 16, reason: 'grow:age-above-target', inputs: { ageSeconds: 300 } },
        applied: 4,
        changed: true,
        repaired: false,
      },
      actuation: { kind: 'clamped', requested: 16, value: 8, unreservedFloor: 100, maxReservable: 8 },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: false,
      config: cap16,
    };
    const m = Object.fromEntries(metricsFor(outcome).map((x) => [x.name, x.value]));
    // THEN AtCap and Saturated are 0 (8 is applied, not 16): sparse, so not published; the clamp is reported
    expect(m).toMatchObject({
      [CONTROLLER_METRICS.appliedConcurrency]: 8,
      [CONTROLLER_METRICS.clampedByAccountHeadroom]: 1,
    });
    expect(m[CONTROLLER_METRICS.atCap]).toBeUndefined();
    expect(m[CONTROLLER_METRICS.saturated]).toBeUndefined();
  });

  it('adopting an unbounded consumer is a scale event (it was published as 0)', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, appliedConcurrency: Number.POSITIVE_INFINITY },
        decision: { ...decision, desired: 8, reason: 'adopt:unbounded' },
        applied: Number.POSITIVE_INFINITY,
        changed: true,
        repaired: false,
      },
      actuation: { kind: 'applied', value: 8 },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: false,
      config,
    };
    expect(metricsFor(outcome).find((x) => x.name === CONTROLLER_METRICS.scaleEvents)?.value).toBe(1);
  });

  it.each([
    { comment: 'paused with reserved 0 and the mapping polling', reason: 'hold:paused', overpull: true },
    { comment: 'paused by a disabled mapping', reason: 'hold:paused', overpull: false },
  ] as const)('$comment: Paused 1, PauseOverpull as read', ({ reason, overpull }) => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: { snapshot, decision: { ...decision, reason }, applied: 8, changed: false, repaired: false },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: overpull,
      config,
    };
    const m = Object.fromEntries(metricsFor(outcome).map((x) => [x.name, x.value]));
    expect(m[CONTROLLER_METRICS.paused]).toBe(1);
    expect(m[CONTROLLER_METRICS.pauseOverpull]).toBe(overpull ? 1 : undefined);
  });

  it('a quiet tick publishes the dense state only: no 0 flag, each sparse metric only when non-zero', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, now: 1_025 },
        decision: { ...decision, desired: 4, atCap: false, saturated: false },
        applied: 4,
        changed: false,
        repaired: false,
      },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 4,
      pauseOverpull: false,
      config: { ...config, maxConcurrency: 32, targetAgeSeconds: 1_000 },
    };
    const names = metricsFor(outcome).map((x) => x.name);
    expect(names.filter((n) => SPARSE_CONTROLLER_METRICS.has(n))).toEqual([]);
    for (const dense of [
      CONTROLLER_METRICS.appliedConcurrency,
      CONTROLLER_METRICS.desiredConcurrency,
      CONTROLLER_METRICS.headAgeSeconds,
      CONTROLLER_METRICS.visibleMessages,
      CONTROLLER_METRICS.visibleSampleOffsetSeconds,
    ]) {
      expect(names).toContain(dense);
    }
  });

  it('the depth sample is stamped with its offset into the minute', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, now: 1_025 },
        decision,
        applied: 8,
        changed: false,
        repaired: false,
      },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: false,
      config,
    };
    const m = Object.fromEntries(metricsFor(outcome).map((x) => [x.name, x.value]));
    expect(m[CONTROLLER_METRICS.visibleSampleOffsetSeconds]).toBe(5);
  });
});

describe('createMetrics', () => {
  it('publishes under the namespace with exactly one dimension, ScalerName (no Powertools service dimension)', () => {
    const metrics = createMetrics('orders', Metrics);
    metrics.addMetric('AppliedConcurrency', 'Count', 3);
    const emf = metrics.serializeMetrics();
    expect(emf._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRIC_NAMESPACE);
    expect(emf._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([[SCALER_DIMENSION]]);
    expect((emf as unknown as Record<string, unknown>)[SCALER_DIMENSION]).toBe('orders');
  });
});
