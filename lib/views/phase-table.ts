import { describeDownstream } from '../sim/downstream.ts';
import type { PhaseSummary, RunSummary } from '../sim/summary.ts';
import { formatSeconds } from './terminal-chart.ts';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const rate = (r: number) => `${Number(r.toFixed(r < 10 ? 2 : 0))}/s`;

/** A trace of hundreds of one-minute phases would print a page per hour: at most this many rows, phases grouped. */
const MAX_ROWS = 24;

interface Row {
  readonly label: string;
  readonly durationSeconds: number;
  readonly rate: string;
  readonly item: string;
  readonly sent: number;
  readonly need: number;
  readonly min: number;
  readonly peak: number;
  readonly final: number;
  readonly peakExecutions: number;
  readonly meanExecutions: number;
  readonly waits: readonly [number, number, number];
}

/**
 * Consecutive phases merged: arrivals and durations add up, the rate is the mean (the peak in brackets), the need
 * and the concurrency figures are the extremes, and the waits are the group's worst phase's (a percentile of a
 * group cannot be rebuilt from its phases' percentiles; the worst is the honest bound).
 */
function group(phases: readonly PhaseSummary[], from: number, to: number): Row {
  const slice = phases.slice(from, to);
  const seconds = slice.reduce((s, p) => s + p.durationSeconds, 0);
  const sent = slice.reduce((s, p) => s + p.sent, 0);
  const meanRate = slice.reduce((s, p) => s + p.ratePerSecond * p.durationSeconds, 0) / seconds;
  const peakRate = Math.max(...slice.map((p) => p.ratePerSecond));
  const items = [...new Set(slice.map((p) => p.itemMs))];
  const first = slice[0] as PhaseSummary;
  const lastPhase = slice[slice.length - 1] as PhaseSummary;
  return {
    label: slice.length === 1 ? String(first.index + 1) : `${first.index + 1}–${lastPhase.index + 1}`,
    durationSeconds: seconds,
    rate: slice.length === 1 ? rate(first.ratePerSecond) : `${rate(meanRate)} (≤${rate(peakRate)})`,
    item: items.length === 1 ? `${items[0]}ms` : `${Math.min(...items)}–${Math.max(...items)}ms`,
    sent,
    need: Math.max(...slice.map((p) => p.littleNeed)),
    min: Math.min(...slice.map((p) => p.minConcurrency)),
    peak: Math.max(...slice.map((p) => p.peakConcurrency)),
    final: lastPhase.finalConcurrency,
    peakExecutions: Math.max(...slice.map((p) => p.peakExecutions)),
    meanExecutions: slice.reduce((s, p) => s + p.meanExecutions * p.durationSeconds, 0) / seconds,
    waits: [
      Math.max(...slice.map((p) => p.p50WaitSeconds)),
      Math.max(...slice.map((p) => p.p99WaitSeconds)),
      Math.max(...slice.map((p) => p.maxWaitSeconds)),
    ],
  };
}

/**
 * One row per phase (or per group of phases, for long traces): arrivals, the Little's-law need, the applied limit
 * min/peak/final, the concurrent executions the downstream felt (peak, mean), waits.
 */
export function phaseTable(summary: RunSummary): string {
  const phases = summary.phases;
  const size = Math.ceil(phases.length / MAX_ROWS);
  const rows: Row[] = [];
  for (let i = 0; i < phases.length; i += size)
    rows.push(group(phases, i, Math.min(phases.length, i + size)));
  return table(
    [
      size === 1 ? 'phase' : 'phases',
      'length',
      'rate',
      'item',
      'arrivals',
      'λ·S',
      'limit min',
      'peak',
      'final',
      'exec peak',
      'exec mean',
      size === 1 ? 'p50 wait' : 'worst p50',
      size === 1 ? 'p99 wait' : 'worst p99',
      'max wait',
    ],
    rows.map((r) => [
      r.label,
      formatSeconds(r.durationSeconds),
      r.rate,
      r.item,
      String(r.sent),
      String(r.need),
      String(r.min),
      String(r.peak),
      String(r.final),
      String(r.peakExecutions),
      r.meanExecutions.toFixed(1),
      formatSeconds(r.waits[0]),
      formatSeconds(r.waits[1]),
      formatSeconds(r.waits[2]),
    ]),
  );
}

export function runFooter(summary: RunSummary): string {
  const ratio = summary.concurrencySeconds / summary.oracleConcurrencySeconds;
  const e = summary.executions;
  const w = summary.warmEnvironments;
  const lines = [
    `downstream felt: concurrent executions peak ${e.peak}, p99 ${e.p99}, mean ${e.mean.toFixed(2)}; warm environments peak ${w.peak}, mean ${w.mean.toFixed(2)}; reserved concurrency held ${summary.reservedSeconds === null ? '– (no account: in-process pool)' : `${summary.reservedSeconds.toFixed(0)} concurrency-seconds`}`,
    `applied limit: ${summary.concurrencySeconds.toFixed(0)} concurrency-seconds (${ratio.toFixed(2)} × the clairvoyant's ${summary.oracleConcurrencySeconds.toFixed(0)}: max(floor, ⌈λ·S⌉) per phase), ${summary.scaleEvents} scale events, ${formatSeconds(summary.saturatedSeconds)} saturated`,
    `messages: ${summary.sent} sent = ${summary.completed} processed + ${summary.queued} queued + ${summary.inFlight} in flight + ${summary.deadLettered} dead-lettered${summary.lost === 0 ? ' (none lost)' : ` + ${summary.lost} LOST`}; ${summary.throttledInvocations} throttled invocations, ${summary.timedOutInvocations} timed out, ${summary.failedItems} failed items`,
  ];
  const d = summary.downstream;
  if (d !== undefined) {
    const parts = [`downstream: ${describeDownstream(d)}`];
    if (d.connectionPool !== undefined)
      parts.push(
        `connections in use peak ${d.peakConnectionsInUse}, waiting peak ${d.peakWaitingForConnection}, ${d.connectionWaits ?? 0} items waited`,
      );
    if (d.apiRatePerSecond !== undefined) parts.push(`${d.apiCalls} calls, ${d.rejectedCalls} refused (429)`);
    lines.push(parts.join('; '));
  }
  lines.push(
    `${formatSeconds(summary.simulatedSeconds)} simulated in ${summary.wallSeconds.toFixed(1)} s (${(summary.simulatedSeconds / Math.max(summary.wallSeconds, 1e-9)).toFixed(0)} simulated seconds per second)`,
  );
  return lines.join('\n');
}
