import type { LoadProgress, LoadReport } from './load-run.ts';
import type { LoadPlan } from './plan.ts';

const rate = (r: number) => (r >= 100 ? r.toFixed(0) : r.toFixed(1));
const seconds = (s: number) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`);

/** The dry run's answer: what would be sent, phase by phase. */
export function planTable(
  plan: LoadPlan,
  senders: number,
  queueUrl: string | undefined,
  groups?: number,
): string {
  const rows = plan.phases.map(
    (p) =>
      `| ${p.index} | ${seconds(p.startSeconds)} | ${seconds(p.durationSeconds)} | ${rate(p.ratePerSecond)} | ${p.messages} | ${p.itemMs} |`,
  );
  return [
    `plan for ${plan.scenario} (rate × ${plan.rateScale}, time × ${plan.timeScale}) → ${queueUrl ?? '(no queue: dry run)'}${groups === undefined ? '' : ` (FIFO: ${groups} message groups)`}`,
    '',
    '| phase | starts | lasts | rate/s | messages | item ms |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `${plan.totalMessages} messages over ${seconds(plan.totalSeconds)} in ${Math.ceil(plan.totalMessages / 10)}+ SendMessageBatch calls, up to ${senders} in flight (peak ${rate(plan.peakRatePerSecond)}/s)`,
  ].join('\n');
}

/** One line for a terminal: rewritten in place on stderr. */
export function progressLine(p: LoadProgress, width = 24): string {
  const done = p.planned === 0 ? 1 : (p.sent + p.failed) / p.planned;
  const filled = Math.round(done * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const behind = p.behindSeconds > 1 ? `  BEHIND ${p.behindSeconds.toFixed(1)} s` : '';
  return (
    `phase ${p.phase}/${p.phases} ${bar} ${(done * 100).toFixed(0).padStart(3)}%  sent ${p.sent}/${p.planned}` +
    `  rate ${rate(p.achievedRatePerSecond)}/${rate(p.targetRatePerSecond)} per s  errors ${p.failed}` +
    `  retries ${p.retried}${behind}`
  );
}

/** The closing summary: per-phase target vs achieved rate and lateness, then the counts. */
export function reportText(report: LoadReport, stoppedBy = 'Ctrl-C'): string {
  const rows = report.phases.map(
    (p) =>
      `| ${p.index} | ${p.planned} | ${p.sent} | ${p.failed} | ${p.retried} | ${rate(p.targetRatePerSecond)} | ${rate(p.achievedRatePerSecond)} | ${(p.pacingError * 100).toFixed(1)}% | ${p.maxLagSeconds.toFixed(2)} s${p.fellBehind ? ' (fell behind)' : ''} |`,
  );
  const lines = [
    '| phase | planned | sent | failed | retried | target/s | achieved/s | pacing error | max lateness |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ];
  const behind = report.phases.filter((p) => p.fellBehind).map((p) => p.index);
  if (behind.length > 0) {
    lines.push(
      `fell behind in phase ${behind.join(', ')}: the queue did not take the rate with this many senders (try --senders, or a smaller --rate-scale)`,
    );
  }
  if (report.interrupted)
    lines.push(`interrupted (${stoppedBy}): stopped dispatching, waited for the calls in flight`);
  if (report.abortedBy !== undefined) lines.push(`stopped: ${report.abortedBy}`);
  const codes = Object.entries(report.failureCodes)
    .map(([code, n]) => `${code} × ${n}`)
    .join(', ');
  lines.push(
    `sent ${report.sent} of ${report.planned}, failed ${report.failed}${codes ? ` (${codes})` : ''}, unsent ${report.unsent}, ` +
      `${report.retried} entries retried, in ${report.elapsedSeconds.toFixed(1)} s`,
  );
  return lines.join('\n');
}
