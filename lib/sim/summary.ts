import type { Phase } from '../load-file/load-file.ts';
import type { DownstreamModel } from './downstream.ts';
import type { DownstreamStats, SimulationResult } from './simulation.ts';
import { WaitStats } from './wait-stats.ts';

/** What one run comes to: the figures `npm start -- --json` prints and the bench compares. */
export interface PhaseSummary {
  readonly index: number;
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly itemMs: number;
  readonly sent: number;
  /** Little's law: λ·S busy workers, rounded up. */
  readonly littleNeed: number;
  /** The applied concurrency limit over the phase. */
  readonly minConcurrency: number;
  readonly peakConcurrency: number;
  readonly finalConcurrency: number;
  /** Concurrent executions over the phase: what the downstream felt. */
  readonly peakExecutions: number;
  readonly meanExecutions: number;
  readonly p50WaitSeconds: number;
  readonly p99WaitSeconds: number;
  readonly maxWaitSeconds: number;
}

/** A level's figures over the run. */
export interface LoadFigures {
  readonly peak: number;
  /** Time-weighted: the level's integral ÷ the run's length. */
  readonly mean: number;
}

export interface RunSummary {
  readonly scenario: string;
  readonly preset: string;
  readonly controller: string;
  /** The controller's short name (`age-law`, `native`, …). */
  readonly controllerKind: string;
  readonly seed: number;
  /** The multipliers the scenario was replayed with (1 and 1: as written). */
  readonly rateScale: number;
  readonly timeScale: number;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
  /** The applied concurrency limit: what the controller set (native: the mapping's maximum). */
  readonly peakConcurrency: number;
  readonly minConcurrency: number;
  readonly finalConcurrency: number;
  /** The applied limit's integral, in concurrency-seconds. */
  readonly concurrencySeconds: number;
  /**
   * The clairvoyant reference for the applied limit: max(floor, ⌈λ·S⌉) held through each phase, i.e. what a
   * controller that knew every phase's arrival rate and item time in advance, and nothing of queueing, would
   * hold. A yardstick for `concurrencySeconds`, not an optimum: with a downstream capacity or bursts it can be low.
   */
  readonly oracleConcurrencySeconds: number;
  /** Concurrent executions (invocations running; the pool's busy workers): the load the downstream feels. */
  readonly executions: LoadFigures & { readonly p99: number };
  /** Warm execution environments (the pool's workers): each may hold a connection to the downstream. */
  readonly warmEnvironments: LoadFigures;
  /**
   * Account concurrency held back by reserved concurrency, in concurrency-seconds (native and provisioned: 0; the
   * in-process pool: null, it has no account).
   */
  readonly reservedSeconds: number | null;
  /** Provisioned mode's event-poller-seconds (billed per EPU-hour); 0 in standard mode. */
  readonly billedPollerSeconds: number;
  /** The share of the controller's ticks that read the rates (the rest reused a quiet queue's). */
  readonly rateReadShare: number;
  readonly p50WaitSeconds: number;
  readonly p99WaitSeconds: number;
  readonly maxWaitSeconds: number;
  readonly scaleEvents: number;
  readonly saturatedSeconds: number;
  readonly throttledInvocations: number;
  readonly timedOutInvocations: number;
  readonly failedItems: number;
  readonly sent: number;
  readonly completed: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly deadLettered: number;
  readonly lost: number;
  readonly downstream?: DownstreamModel & DownstreamStats;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly phases: readonly PhaseSummary[];
}

export function oracleConcurrencySeconds(phases: readonly Phase[], floor: number): number {
  return phases.reduce(
    (sum, p) =>
      sum + p.durationSeconds * Math.max(floor, Math.ceil((p.ratePerSecond * p.itemMs) / 1000 - 1e-9)),
    0,
  );
}

interface Applied {
  min: number;
  peak: number;
  final: number;
  integral: number;
}

/**
 * The applied concurrency (a step function given by its changes) over consecutive windows [ends[i-1], ends[i]):
 * min, peak, final and integral of each, in one sweep.
 */
export function appliedOver(
  changes: SimulationResult['concurrencyChanges'],
  ends: readonly number[],
): Applied[] {
  const out: Applied[] = [];
  let value = changes[0]?.[1] ?? 0;
  let c = 1;
  let start = 0;
  for (const end of ends) {
    // Changes at or before the window's start set its opening value.
    while (c < changes.length && (changes[c] as readonly [number, number])[0] <= start) {
      value = (changes[c] as readonly [number, number])[1];
      c++;
    }
    const w: Applied = { min: value, peak: value, final: value, integral: 0 };
    let cursor = start;
    while (c < changes.length && (changes[c] as readonly [number, number])[0] < end) {
      const [time, next] = changes[c] as readonly [number, number];
      w.integral += value * (time - cursor);
      cursor = time;
      value = next;
      w.min = Math.min(w.min, value);
      w.peak = Math.max(w.peak, value);
      c++;
    }
    w.integral += value * (end - cursor);
    w.final = value;
    out.push(w);
    start = end;
  }
  return out;
}

export interface SummaryMeta {
  readonly scenario: string;
  readonly preset: string;
  readonly controller: string;
  readonly controllerKind: string;
  readonly seed: number;
  readonly rateScale?: number;
  readonly timeScale?: number;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
  readonly wallSeconds: number;
  readonly downstream?: DownstreamModel;
}

export function summarize(result: SimulationResult, meta: SummaryMeta): RunSummary {
  const ends: number[] = [];
  let t = 0;
  for (const p of result.phases) {
    t += p.durationSeconds;
    ends.push(t);
  }
  const applied = appliedOver(result.concurrencyChanges, ends);
  const all = new WaitStats();
  const phases = result.phases.map((phase, index): PhaseSummary => {
    const c = applied[index] as Applied;
    const tally = result.tally[index] as SimulationResult['tally'][number];
    const executions = result.phaseExecutions[index];
    all.merge(tally.waits);
    return {
      index,
      durationSeconds: phase.durationSeconds,
      ratePerSecond: phase.ratePerSecond,
      itemMs: phase.itemMs,
      sent: tally.sent,
      littleNeed: Math.ceil((phase.ratePerSecond * phase.itemMs) / 1000 - 1e-9),
      minConcurrency: c.min,
      peakConcurrency: c.peak,
      finalConcurrency: c.final,
      peakExecutions: executions?.peak ?? 0,
      meanExecutions: executions === undefined ? 0 : executions.integral / phase.durationSeconds,
      p50WaitSeconds: tally.waits.quantile(0.5),
      p99WaitSeconds: tally.waits.quantile(0.99),
      maxWaitSeconds: tally.waits.max,
    };
  });
  const whole = appliedOver(result.concurrencyChanges, [result.simulatedSeconds])[0] as Applied;
  const { downstream: model, rateScale, timeScale, ...rest } = meta;
  return {
    ...rest,
    rateScale: rateScale ?? 1,
    timeScale: timeScale ?? 1,
    peakConcurrency: whole.peak,
    minConcurrency: whole.min,
    finalConcurrency: whole.final,
    concurrencySeconds: whole.integral,
    oracleConcurrencySeconds: oracleConcurrencySeconds(result.phases, meta.floor),
    executions: {
      peak: result.executions.peak,
      p99: result.executions.p99,
      mean: result.executions.mean,
    },
    warmEnvironments: { peak: result.warmEnvironments.peak, mean: result.warmEnvironments.mean },
    reservedSeconds: result.reservedSeconds,
    billedPollerSeconds: result.billedPollerSeconds,
    rateReadShare: result.rateReadShare,
    p50WaitSeconds: all.quantile(0.5),
    p99WaitSeconds: all.quantile(0.99),
    maxWaitSeconds: all.max,
    scaleEvents: result.concurrencyChanges.length - 1,
    saturatedSeconds: result.saturatedSeconds,
    throttledInvocations: result.throttledInvocations,
    timedOutInvocations: result.timedOutInvocations,
    failedItems: result.failedItems,
    sent: result.sent,
    completed: result.completed,
    queued: result.queued,
    inFlight: result.inFlight,
    deadLettered: result.deadLettered,
    lost: result.sent - result.completed - result.queued - result.inFlight - result.deadLettered,
    ...(result.downstream === undefined ? {} : { downstream: { ...model, ...result.downstream } }),
    simulatedSeconds: result.simulatedSeconds,
    phases,
  };
}
