import type { RunSummary } from './summary.ts';
import { formatSeconds } from './terminal-chart.ts';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** One row per phase: arrivals, the Little's-law need, applied concurrency min/peak/final, waits. */
export function phaseTable(summary: RunSummary): string {
  const rows = summary.phases.map((p) => [
    String(p.index + 1),
    formatSeconds(p.durationSeconds),
    `${p.ratePerSecond}/s`,
    `${p.itemMs}ms`,
    String(p.sent),
    String(p.littleNeed),
    String(p.minConcurrency),
    String(p.peakConcurrency),
    String(p.finalConcurrency),
    formatSeconds(p.p50WaitSeconds),
    formatSeconds(p.p99WaitSeconds),
    formatSeconds(p.maxWaitSeconds),
  ]);
  return table(
    [
      'phase',
      'length',
      'rate',
      'item',
      'arrivals',
      'λ·S',
      'min',
      'peak',
      'final',
      'p50 wait',
      'p99 wait',
      'max wait',
    ],
    rows,
  );
}

export function runFooter(summary: RunSummary): string {
  const ratio = summary.concurrencySeconds / summary.oracleConcurrencySeconds;
  return [
    `concurrency-seconds ${summary.concurrencySeconds.toFixed(0)} (${ratio.toFixed(2)} × the clairvoyant ${summary.oracleConcurrencySeconds.toFixed(0)}), ${summary.scaleEvents} scale events, ${formatSeconds(summary.saturatedSeconds)} saturated`,
    `messages: ${summary.sent} sent = ${summary.completed} processed + ${summary.queued} queued + ${summary.inFlight} in flight + ${summary.deadLettered} dead-lettered${summary.lost === 0 ? ' (none lost)' : ` + ${summary.lost} LOST`}; ${summary.throttledInvocations} throttled invocations`,
    `${formatSeconds(summary.simulatedSeconds)} simulated in ${summary.wallSeconds.toFixed(1)} s (${(summary.simulatedSeconds / Math.max(summary.wallSeconds, 1e-9)).toFixed(0)} simulated seconds per second)`,
  ].join('\n');
}
