import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { createMetrics, logEntryFor, metricsFor } from '../../functions/controller/report.ts';
import { CallLog } from '../../lib/aws/clients.ts';
import { type Decision, type QueueSnapshot, resolveScalerConfig } from '../../lib/control/index.ts';
import {
  BUDGET_MEMBER_BEHIND_METRICS,
  CONTROLLER_METRICS,
  DENSE_CONTROLLER_METRICS,
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
      [CONTROLLER_METRICS.atCap]: 1,
      [CONTROLLER_METRICS.saturated]: 1,
    });
    // A lone scaler's desired value as applied: not published (billed only in the hours it differs)
    expect(m[CONTROLLER_METRICS.desiredConcurrency]).toBeUndefined();
    // A lone scaler publishes no age or target (AWS/SQS's age and the settings serve its readers); a budget's
    // member does, for status --budget.
    expect(m[CONTROLLER_METRICS.headAgeSeconds]).toBeUndefined();
    expect(m[CONTROLLER_METRICS.targetAgeSeconds]).toBeUndefined();
    const member = Object.fromEntries(
      metricsFor(outcome, { memberAges: true }).map((x) => [x.name, x.value]),
    );
    expect(member).toMatchObject({
      // A budget's member: its age and target every tick, for status --budget
      [CONTROLLER_METRICS.headAgeSeconds]: 400,
      [CONTROLLER_METRICS.targetAgeSeconds]: config.targetAgeSeconds,
    });
    // Its demand as granted: not published either (status --budget reads a minute without it as applied)
    expect(member[CONTROLLER_METRICS.desiredConcurrency]).toBeUndefined();
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
      // The law's 16 differs from the 8 applied: published (a lone scaler's desired value only then)
      [CONTROLLER_METRICS.desiredConcurrency]: 16,
      [CONTROLLER_METRICS.clampedByAccountHeadroom]: 1,
      // with the age (300 s) above the target: the account-headroom alarm's one metric
      [CONTROLLER_METRICS.clampedAboveTarget]: 1,
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

  it('the decision line carries an owner parameter that could not be read (the tick drove anyway)', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: { snapshot, decision, applied: 8, changed: false, repaired: false },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 8,
      pauseOverpull: false,
      ownerReadFault: 'AccessDeniedException: denied',
      config,
    };
    expect(logEntryFor(outcome, new CallLog()).fields.ownerReadFault).toBe('AccessDeniedException: denied');
    const { ownerReadFault: _, ...read } = outcome;
    expect(logEntryFor(read, new CallLog()).fields).not.toHaveProperty('ownerReadFault');
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
    // Exactly the dense names: no depth (AWS/SQS publishes it for free), no cap or floor (settings), which the
    // cost counts as billed every hour (test/bench/deployed-inputs.ts reads the same list).
    expect(
      metricsFor(outcome)
        .map((x) => x.name)
        .sort(),
    ).toEqual([...DENSE_CONTROLLER_METRICS].sort());
    // A budget's member on target publishes no age or target: they say something only while it is behind
    expect(
      metricsFor(outcome, { memberAges: true })
        .map((x) => x.name)
        .sort(),
    ).toEqual([...DENSE_CONTROLLER_METRICS].sort());
  });

  it('a budget member behind its target publishes its age and its target (what status --budget reads)', () => {
    const behind = pausedOutcome({ ageSeconds: 400, visibleMessages: 40 });
    const published = Object.fromEntries(
      metricsFor(behind, { memberAges: true }).map((x) => [x.name, x.value]),
    );
    for (const name of BUDGET_MEMBER_BEHIND_METRICS) expect(published[name], name).toBeDefined();
    expect(published[CONTROLLER_METRICS.headAgeSeconds]).toBe(400);
    // A lone scaler publishes neither
    const lone = metricsFor(behind).map((x) => x.name);
    for (const name of BUDGET_MEMBER_BEHIND_METRICS) expect(lone).not.toContain(name);
  });

  it('a behind tick publishes only names the cost counts, dense or sparse', () => {
    const outcome = pausedOutcome({ ageSeconds: 400, visibleMessages: 40 });
    const names = metricsFor(outcome).map((x) => x.name);
    for (const name of names) {
      expect(DENSE_CONTROLLER_METRICS.has(name) || SPARSE_CONTROLLER_METRICS.has(name), name).toBe(true);
    }
  });
});

/** A pause held with the given age, at the default target. */
function pausedOutcome(at: { ageSeconds: number; visibleMessages: number }): TickOutcome {
  return {
    kind: 'decided',
    result: {
      snapshot: {
        ...snapshot,
        visibleMessages: at.visibleMessages,
        oldestAge: { seconds: at.ageSeconds, observedAt: 960 },
      },
      decision: { ...decision, reason: 'hold:paused', inputs: {} },
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
}

describe('the alarm flags carry their age condition', () => {
  it('paused above the target: PausedAboveTarget 1; paused within it: Paused only', () => {
    const behind = Object.fromEntries(
      metricsFor(pausedOutcome({ ageSeconds: 400, visibleMessages: 40 })).map((x) => [x.name, x.value]),
    );
    expect(behind[CONTROLLER_METRICS.paused]).toBe(1);
    expect(behind[CONTROLLER_METRICS.pausedAboveTarget]).toBe(1);
    const within = Object.fromEntries(
      metricsFor(pausedOutcome({ ageSeconds: 5, visibleMessages: 40 })).map((x) => [x.name, x.value]),
    );
    expect(within[CONTROLLER_METRICS.paused]).toBe(1);
    expect(within[CONTROLLER_METRICS.pausedAboveTarget]).toBeUndefined();
  });

  it.each([
    { comment: 'messages waiting', visibleMessages: 40, noData: 1 },
    { comment: 'an idle queue (SQS stops publishing for it)', visibleMessages: 0, noData: undefined },
    { comment: 'the depth not read', visibleMessages: undefined, noData: undefined },
  ])('no age data with $comment: NoData $noData', ({ visibleMessages, noData }) => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { ...snapshot, oldestAge: undefined, visibleMessages },
        decision: { ...decision, reason: 'hold:no-data', inputs: {} },
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
    expect(m[CONTROLLER_METRICS.noData]).toBe(noData);
  });
});

describe('logEntryFor', () => {
  it("a decision's line carries the settings the tick ran under (no longer published as metrics)", () => {
    const outcome = pausedOutcome({ ageSeconds: 400, visibleMessages: 40 });
    const entry = logEntryFor(outcome, new CallLog());
    expect(entry.fields.settings).toEqual({
      targetAgeSeconds: config.targetAgeSeconds,
      maxConcurrency: 8,
      minConcurrency: 2,
    });
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
