import { resolveScalerConfig, type ScalerConfig, type ScalerSettings } from '../../lib/control/config.ts';
import type { FastPathContext } from '../../lib/control/fast-path.ts';
import type { ControllerState, QueueSnapshot } from '../../lib/control/snapshot.ts';

/** A one-minute controller: target 60 s, floor 2, cap 32, five minutes of idleness before a shrink. */
export function config(settings: ScalerSettings = {}): ScalerConfig {
  return resolveScalerConfig(settings);
}

export const NOW = 10_000;

/** The context a tick at NOW leaves after an hour of silence: 2 applied, nothing reported, no per-item time. */
export function afterSilence(overrides: Partial<FastPathContext> = {}): FastPathContext {
  return {
    applied: 2,
    tickApplied: 2,
    lastChangeAt: NOW - 3600,
    tickSample: { at: NOW, messages: 0 },
    previous: { at: NOW, messages: 0 },
    reportedArrivals: 0,
    tickArrivals: 0,
    confirmed: false,
    ...overrides,
  };
}

/**
 * A healthy queue at 800/s with 20 ms items and 18 applied, its age datapoint fresh (lag 0) unless changed.
 */
export function snapshot(
  overrides: Partial<QueueSnapshot> & { age?: number; lag?: number } = {},
): QueueSnapshot {
  const { age = 1, lag = 0, ...rest } = overrides;
  return {
    now: NOW,
    appliedConcurrency: 18,
    oldestAge: { seconds: age, observedAt: NOW - lag },
    arrivalRatePerSecond: 800,
    completionRatePerSecond: 800,
    itemSeconds: 0.02,
    ...rest,
  };
}

/**
 * A tick behind (age 200 s, 300/s arriving) whose newest one-minute rate period ended at `end`, with these
 * completions and per-item time: where a growth's probe is judged.
 */
export function periodEndingAt(
  end: number,
  completions: number,
  itemSeconds: number,
  applied = 32,
): QueueSnapshot {
  return snapshot({
    appliedConcurrency: applied,
    age: 200,
    lag: NOW - end,
    arrivalRatePerSecond: 300,
    completionRatePerSecond: completions,
    itemSeconds,
    ratePeriodSeconds: 60,
  });
}

/** Carried state of a healthy queue: baselines at 800/s and 20 ms. */
export function state(overrides: Partial<ControllerState> = {}): ControllerState {
  return { baselineItemSeconds: 0.02, baselineArrivalRate: 800, ...overrides };
}

/** A health signal on an RDS instance's load: unhealthy above 8 sessions, one-minute averages. */
export const DB_LOAD_HEALTH = {
  namespace: 'AWS/RDS',
  metricName: 'DBLoad',
  dimensions: { DBInstanceIdentifier: 'orders' },
  statistic: 'Average',
  periodSeconds: 60,
  threshold: 8,
  unhealthyWhen: 'above',
} as const;
