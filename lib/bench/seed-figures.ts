import type { ControllerKind } from '../sim/run.ts';
import type { BenchRow } from './bench.ts';

/**
 * One controller's bench rows over several seeds, as a user weighs them: the worst seed on every count, so an
 * option "meets the target" only when it does on every seed. `recommend` chooses from these, and
 * scripts/measure-rate-scale.ts compares them.
 */
export interface SeedFigures {
  readonly controller: ControllerKind;
  readonly seeds: number;
  /** The worst seed's p99 wait ÷ the target. */
  readonly p99OverTarget: number;
  /** Concurrent executions: the highest peak and the highest time-weighted mean of any seed. */
  readonly peak: number;
  readonly mean: number;
  readonly deadLetters: number;
  readonly scaleEvents: number;
  /** What the controller adds to the bill a month (lib/bench/cost.ts): the mean over seeds (provisioned's varies). */
  readonly monthlyCost: number;
  /** Reserved concurrency held, as a mean level over the run (concurrency-seconds ÷ seconds); the mean of seeds. */
  readonly reservedMean: number;
}

export function seedFigures(rows: readonly BenchRow[]): SeedFigures {
  const first = rows[0];
  if (first === undefined) throw new Error('seedFigures: no rows');
  if (rows.some((r) => r.controller !== first.controller))
    throw new Error('seedFigures: rows of more than one controller');
  const max = (f: (r: BenchRow) => number) => Math.max(...rows.map(f));
  const mean = (f: (r: BenchRow) => number) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
  return {
    controller: first.controller,
    seeds: rows.length,
    p99OverTarget: max((r) => r.p99OverTarget),
    peak: max((r) => r.summary.executions.peak),
    mean: max((r) => r.summary.executions.mean),
    deadLetters: max((r) => r.summary.deadLettered),
    scaleEvents: max((r) => r.summary.scaleEvents),
    monthlyCost: mean((r) => r.monthlyCost ?? 0),
    reservedMean: mean((r) => (r.summary.reservedSeconds ?? 0) / r.summary.simulatedSeconds),
  };
}
