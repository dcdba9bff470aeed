import type { PresetName } from './presets.ts';
import { CONTROLLER_KINDS, type ControllerKind, runScenario } from './run.ts';
import type { Scenario } from './scenario.ts';
import type { RunSummary } from './summary.ts';

/**
 * The bench: every scenario × every controller, in one preset. The trade-off score is the mission in one
 * number: concurrency-seconds over the clairvoyant's, multiplied by how far the p99 wait overshoots the target
 * (meeting the target scores 1: beyond it, latency is not what the user asked to buy).
 */
export interface BenchRow {
  readonly scenario: string;
  readonly controller: ControllerKind;
  readonly summary: RunSummary;
  readonly p99OverTarget: number;
  readonly concurrencyOverOracle: number;
  readonly tradeOff: number;
  /** Scale events per hour in the settled part of long flat phases (none: undefined). */
  readonly settledScaleEventsPerHour?: number;
}

// A flat phase of at least 25 minutes counts as steady once 15 minutes have passed: long enough for the return
// from a spike (delay 5 min + a step a minute) to finish, so what is left is the controller's own restlessness.
const STEADY_PHASE_SECONDS = 1500;
const SETTLE_SECONDS = 900;

function settledScaleEventsPerHour(
  summary: RunSummary,
  changes: readonly (readonly [number, number])[],
): number | undefined {
  let start = 0;
  let events = 0;
  let seconds = 0;
  for (const phase of summary.phases) {
    const end = start + phase.durationSeconds;
    if (phase.durationSeconds >= STEADY_PHASE_SECONDS) {
      events += changes.filter(([t]) => t >= start + SETTLE_SECONDS && t < end).length;
      seconds += phase.durationSeconds - SETTLE_SECONDS;
    }
    start = end;
  }
  return seconds === 0 ? undefined : (events * 3600) / seconds;
}

export async function benchScenario(
  scenario: Scenario,
  preset: PresetName,
  onRun?: (row: BenchRow) => void,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const controller of CONTROLLER_KINDS) {
    const { summary, result } = await runScenario({ scenario, preset, controller });
    const p99OverTarget = summary.p99WaitSeconds / summary.targetAgeSeconds;
    const concurrencyOverOracle = summary.concurrencySeconds / summary.oracleConcurrencySeconds;
    const row: BenchRow = {
      scenario: scenario.name,
      controller,
      summary,
      p99OverTarget,
      concurrencyOverOracle,
      tradeOff: concurrencyOverOracle * Math.max(1, p99OverTarget),
      settledScaleEventsPerHour: settledScaleEventsPerHour(summary, result.concurrencyChanges.slice(1)),
    };
    rows.push(row);
    onRun?.(row);
  }
  return rows;
}

const fmt = (x: number, digits = 2) => (x >= 1000 ? x.toExponential(1) : x.toFixed(digits));

export function benchTable(rows: readonly BenchRow[]): string {
  const header = [
    'scenario',
    'controller',
    'p99 wait ÷ target',
    'conc-s ÷ oracle',
    'trade-off',
    'scale events',
    'settled events/h',
    'peak',
    'saturated s',
    'throttled',
    'dead-lettered',
    'sim s / wall s',
  ];
  const best = new Map<string, number>();
  for (const r of rows)
    best.set(r.scenario, Math.min(best.get(r.scenario) ?? Number.POSITIVE_INFINITY, r.tradeOff));
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const s = r.summary;
    lines.push(
      `| ${[
        r.scenario,
        r.controller,
        fmt(r.p99OverTarget),
        fmt(r.concurrencyOverOracle),
        r.tradeOff === best.get(r.scenario) ? `**${fmt(r.tradeOff)}**` : fmt(r.tradeOff),
        String(s.scaleEvents),
        r.settledScaleEventsPerHour === undefined ? '–' : r.settledScaleEventsPerHour.toFixed(1),
        String(s.peakConcurrency),
        s.saturatedSeconds.toFixed(0),
        String(s.throttledInvocations),
        String(s.deadLettered),
        (s.simulatedSeconds / s.wallSeconds).toFixed(0),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
