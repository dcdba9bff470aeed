import type { LoadFile } from '../load-file/load-file.ts';
import type { PresetName } from '../sim/presets.ts';
import {
  CONTROLLER_KINDS,
  type ControllerKind,
  MAPPING_BASELINES,
  type Run,
  type RunOptions,
  runScenario,
} from '../sim/run.ts';
import type { RunSummary } from '../sim/summary.ts';
import { markdownHeader } from '../views/markdown.ts';
import { monthlyCost } from './cost.ts';

/**
 * The bench: every scenario × every controller (the age law, AWS's own scaling with no controller — `native` and
 * `provisioned` — and our baselines), in one preset. What it compares is what a user weighs: how late messages are
 * (p99 wait ÷ target, dead letters) against what the downstream feels (concurrent executions, peak and mean).
 */
export interface BenchRow {
  readonly scenario: string;
  readonly controller: ControllerKind;
  readonly summary: RunSummary;
  readonly p99OverTarget: number;
  /** Scale events per hour in the settled part of long flat phases (none: undefined). */
  readonly settledScaleEventsPerHour?: number;
  /** What the controller adds to the bill a month, us-east-1 list prices (lib/bench/cost.ts; none: undefined). */
  readonly monthlyCost?: number;
}

// A flat phase of at least 25 minutes counts as steady once 15 minutes have passed: long enough for the return
// from a spike (delay 5 min + a step a minute) to finish, so what is left is the controller's own restlessness.
const STEADY_PHASE_SECONDS = 1500;
const SETTLE_SECONDS = 900;

/**
 * Scale events per hour once the load has settled: in flat phases of at least 25 minutes, after their first 15.
 * The bench and scripts/measure-law.ts both count them so.
 */
export function settledScaleEventsPerHour(
  phases: readonly { readonly durationSeconds: number }[],
  changes: readonly (readonly [number, number])[],
): number | undefined {
  let start = 0;
  let events = 0;
  let seconds = 0;
  for (const phase of phases) {
    const end = start + phase.durationSeconds;
    if (phase.durationSeconds >= STEADY_PHASE_SECONDS) {
      events += changes.filter(([t]) => t >= start + SETTLE_SECONDS && t < end).length;
      seconds += phase.durationSeconds - SETTLE_SECONDS;
    }
    start = end;
  }
  return seconds === 0 ? undefined : (events * 3600) / seconds;
}

/** The controllers a preset can run: the mapping's own modes exist only in front of Lambda. */
export function benchControllers(preset: PresetName): ControllerKind[] {
  return CONTROLLER_KINDS.filter((c) => preset === 'lambda' || !MAPPING_BASELINES.includes(c));
}

export async function benchScenario(
  scenario: LoadFile,
  preset: PresetName,
  onRun?: (row: BenchRow) => void,
  options: Pick<RunOptions, 'settings' | 'world' | 'downstream'> = {},
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const controller of benchControllers(preset)) {
    const row = benchRow(
      scenario.name,
      preset,
      controller,
      await runScenario({ scenario, preset, controller, ...options }),
    );
    rows.push(row);
    onRun?.(row);
  }
  return rows;
}

/** One run as the bench reports it: `recommend` builds its rows from its own runs (its seeds) the same way. */
export function benchRow(
  scenario: string,
  preset: PresetName,
  controller: ControllerKind,
  { summary, result, config }: Pick<Run, 'summary' | 'result' | 'config'>,
): BenchRow {
  return {
    scenario,
    controller,
    summary,
    p99OverTarget: summary.p99WaitSeconds / summary.targetAgeSeconds,
    settledScaleEventsPerHour: settledScaleEventsPerHour(summary.phases, result.concurrencyChanges.slice(1)),
    // Prices are the AWS account's: the seed's in-process pool has none.
    monthlyCost: preset === 'lambda' ? monthlyCost(controller, config, summary) : undefined,
  };
}

// ---- dominance ---------------------------------------------------------------------------------------------

/**
 * Differences smaller than this (relative) are noise between seeds, not a ranking: a mean of 2.95 concurrent
 * executions is no lighter a load than 3.0.
 */
const TOLERANCE = 0.05;

/**
 * Latency as the user asked for it: a p99 wait at or under the target meets it (1); beyond, how far beyond.
 * Messages in the DLQ never arrive: dead letters count apart.
 */
export function latency(row: BenchRow): number {
  return Math.max(1, row.p99OverTarget);
}

function better(a: number, b: number): boolean {
  return a < b * (1 - TOLERANCE) && b - a > 1e-9;
}

function noWorse(a: number, b: number): boolean {
  return a <= b * (1 + TOLERANCE) + 1e-9;
}

/**
 * `a` dominates `b` when it is no later (latency, dead letters) and puts no more load on the downstream (peak and
 * mean concurrent executions), and is clearly better on at least one of them (beyond the 5 % tolerance).
 */
export function dominates(a: BenchRow, b: BenchRow): boolean {
  const axes: [number, number][] = [
    [latency(a), latency(b)],
    [a.summary.deadLettered, b.summary.deadLettered],
    [a.summary.executions.peak, b.summary.executions.peak],
    [a.summary.executions.mean, b.summary.executions.mean],
  ];
  return axes.every(([x, y]) => noWorse(x, y)) && axes.some(([x, y]) => better(x, y));
}

/** Each dominated controller of a scenario with the controllers that dominate it. */
export function dominated(rows: readonly BenchRow[]): { controller: ControllerKind; by: ControllerKind[] }[] {
  return rows
    .map((row) => ({
      controller: row.controller,
      by: rows.filter((other) => other !== row && dominates(other, row)).map((other) => other.controller),
    }))
    .filter((d) => d.by.length > 0);
}

/** A plain statement per scenario: who is dominated, by whom, and who is not. */
export function dominanceStatement(rows: readonly BenchRow[]): string {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  return scenarios
    .map((scenario) => {
      const own = rows.filter((r) => r.scenario === scenario);
      const losers = dominated(own);
      const winners = own
        .filter((r) => !losers.some((l) => l.controller === r.controller))
        .map((r) => r.controller);
      const lost =
        losers.length === 0
          ? 'none dominated'
          : `dominated: ${losers.map((l) => `${l.controller} (by ${l.by.join(', ')})`).join('; ')}`;
      return `- **${scenario}**: ${lost}. Not dominated: ${winners.join(', ')}.`;
    })
    .join('\n');
}

// ---- the table ---------------------------------------------------------------------------------------------

const fmt = (x: number, digits = 2) => (x >= 1000 ? x.toExponential(1) : x.toFixed(digits));

export function benchTable(rows: readonly BenchRow[]): string {
  const header = [
    'scenario',
    'controller',
    'p99 wait ÷ target',
    'dead letters',
    'exec peak',
    'exec p99',
    'exec mean',
    'warm peak',
    'warm mean',
    'reserved conc-s',
    '$ / month',
    'limit conc-s ÷ clairvoyant',
    'scale events',
    'settled events/h',
    'throttled',
    'timed out',
    'failed items',
    'sim s / wall s',
  ];
  const lines = [...markdownHeader(header)];
  for (const r of rows) {
    const s = r.summary;
    lines.push(
      `| ${[
        r.scenario,
        r.controller,
        fmt(r.p99OverTarget),
        String(s.deadLettered),
        String(s.executions.peak),
        String(s.executions.p99),
        fmt(s.executions.mean),
        String(s.warmEnvironments.peak),
        fmt(s.warmEnvironments.mean),
        s.reservedSeconds === null ? '–' : s.reservedSeconds.toFixed(0),
        r.monthlyCost === undefined ? '–' : r.monthlyCost.toFixed(2),
        fmt(s.concurrencySeconds / s.oracleConcurrencySeconds),
        String(s.scaleEvents),
        r.settledScaleEventsPerHour === undefined ? '–' : r.settledScaleEventsPerHour.toFixed(1),
        String(s.throttledInvocations),
        String(s.timedOutInvocations),
        String(s.failedItems),
        (s.simulatedSeconds / s.wallSeconds).toFixed(0),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** One preset's part of the bench's output: its table and who is dominated in it. */
/**
 * One preset's table and who is dominated in it. `pollerScaleSeconds`, where given, names the reading of the
 * pollers' ramp the runs used (the lambda preset runs under both: docs/aws-facts.md).
 */
export function benchSection(
  preset: PresetName,
  rows: readonly BenchRow[],
  pollerScaleSeconds?: number,
): string {
  const title =
    pollerScaleSeconds === undefined
      ? `${preset} preset`
      : `${preset} preset, the pollers' ramp in ${pollerScaleSeconds} s steps`;
  return `### ${title}\n\n${benchTable(rows)}\n\nDominated (no later and no heavier on the downstream than another, and clearly worse on one):\n\n${dominanceStatement(rows)}`;
}
