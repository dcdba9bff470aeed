import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { createMetrics, metricsFor } from '../../functions/controller/report.ts';
import { type Decision, type QueueSnapshot, resolveScalerConfig } from '../../lib/control/index.ts';
import { CONTROLLER_METRICS, METRIC_NAMESPACE, SCALER_DIMENSION } from '../../lib/telemetry.ts';

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
  inputs: { ageSeconds: 400 },
  state: {},
};

describe('metricsFor', () => {
  it('a saturated hold at the cap', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: { snapshot, decision, applied: 8, changed: false },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 8,
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
      [CONTROLLER_METRICS.scaleEvents]: 0,
    });
  });
  it('a change counts one scale event', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, appliedConcurrency: 4 },
        decision: { ...decision, desired: 6 },
        applied: 4,
        changed: true,
      },
      actuation: { kind: 'applied', value: 6 },
      writes: [],
      appliedAfter: 6,
      config,
    };
    expect(metricsFor(outcome).find((x) => x.name === CONTROLLER_METRICS.scaleEvents)?.value).toBe(1);
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
