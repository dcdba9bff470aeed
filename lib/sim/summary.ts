import type { Phase } from './scenario.ts';
import type { SimulationResult } from './simulation.ts';

/** What one run comes to: the figures `npm start -- --json` prints and the bench compares. */
export interface PhaseSummary {
  readonly index: number;
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly itemMs: number;
  readonly sent: number;
  /** Little's law: λ·S busy workers, rounded up. */
  readonly littleNeed: number;
  readonly minConcurrency: number;
  readonly peakConcurrency: number;
  readonly finalConcurrency: number;
  readonly p50WaitSeconds: number;
  readonly p99WaitSeconds: number;
  readonly maxWaitSeconds: number;
}

export interface RunSummary {
  readonly scenario: string;
  readonly preset: string;
  readonly controller: string;
  readonly seed: number;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
  readonly peakConcurrency: number;
  readonly minConcurrency: number;
  readonly finalConcurrency: number;
  readonly p50WaitSeconds: number;
  readonly p99WaitSeconds: number;
  readonly maxWaitSeconds: number;
  readonly concurrencySeconds: number;
  readonly oracleConcurrencySeconds: number;
  readonly scaleEvents: number;
  readonly saturatedSeconds: number;
  readonly throttledInvocations: number;
  readonly sent: number;
  readonly completed: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly deadLettered: number;
  readonly lost: number;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly phases: readonly PhaseSummary[];
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** The applied concurrency over [from, to): min, peak, final and its integral. */
function concurrencyOver(changes: SimulationResult['concurrencyChanges'], from: number, to: number) {
  let value = changes[0]?.[1] ?? 0;
  let min = Number.POSITIVE_INFINITY;
  let peak = 0;
  let integral = 0;
  let cursor = from;
  for (const [time, next] of changes) {
    if (time <= from) {
      value = next;
      continue;
    }
    if (time >= to) break;
    min = Math.min(min, value);
    peak = Math.max(peak, value);
    integral += value * (time - cursor);
    cursor = time;
    value = next;
  }
  min = Math.min(min, value);
  peak = Math.max(peak, value);
  integral += value * (to - cursor);
  return { min, peak, final: value, integral };
}

export function oracleConcurrencySeconds(phases: readonly Phase[], floor: number): number {
  return phases.reduce(
    (sum, p) =>
      sum + p.durationSeconds * Math.max(floor, Math.ceil((p.ratePerSecond * p.itemMs) / 1000 - 1e-9)),
    0,
  );
}

export function summarize(
  result: SimulationResult,
  meta: {
    scenario: string;
    preset: string;
    controller: string;
    seed: number;
    floor: number;
    cap: number;
    targetAgeSeconds: number;
    wallSeconds: number;
  },
): RunSummary {
  let start = 0;
  const phases = result.phases.map((phase, index): PhaseSummary => {
    const end = start + phase.durationSeconds;
    const c = concurrencyOver(result.concurrencyChanges, start, end);
    const waits = (result.tally[index] as SimulationResult['tally'][number]).waits.sorted();
    start = end;
    return {
      index,
      durationSeconds: phase.durationSeconds,
      ratePerSecond: phase.ratePerSecond,
      itemMs: phase.itemMs,
      sent: (result.tally[index] as SimulationResult['tally'][number]).sent,
      littleNeed: Math.ceil((phase.ratePerSecond * phase.itemMs) / 1000 - 1e-9),
      minConcurrency: c.min,
      peakConcurrency: c.peak,
      finalConcurrency: c.final,
      p50WaitSeconds: quantile(waits, 0.5),
      p99WaitSeconds: quantile(waits, 0.99),
      maxWaitSeconds: waits.length === 0 ? 0 : (waits[waits.length - 1] as number),
    };
  });
  const all = concurrencyOver(result.concurrencyChanges, 0, result.simulatedSeconds);
  const merged = new Float64Array(result.tally.reduce((n, t) => n + t.waits.length, 0));
  let offset = 0;
  for (const t of result.tally) {
    merged.set(t.waits.sorted(), offset);
    offset += t.waits.length;
  }
  merged.sort();
  return {
    ...meta,
    peakConcurrency: all.peak,
    minConcurrency: all.min,
    finalConcurrency: all.final,
    p50WaitSeconds: quantile(merged, 0.5),
    p99WaitSeconds: quantile(merged, 0.99),
    maxWaitSeconds: merged.length === 0 ? 0 : (merged[merged.length - 1] as number),
    concurrencySeconds: all.integral,
    oracleConcurrencySeconds: oracleConcurrencySeconds(result.phases, meta.floor),
    scaleEvents: result.concurrencyChanges.length - 1,
    saturatedSeconds: result.saturatedSeconds,
    throttledInvocations: result.throttledInvocations,
    sent: result.sent,
    completed: result.completed,
    queued: result.queued,
    inFlight: result.inFlight,
    deadLettered: result.deadLettered,
    lost: result.sent - result.completed - result.queued - result.inFlight - result.deadLettered,
    simulatedSeconds: result.simulatedSeconds,
    phases,
  };
}
