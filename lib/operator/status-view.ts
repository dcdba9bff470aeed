import type { Datapoint } from '../control/index.ts';
import { statusChart } from './status-chart.ts';
import type { ReadProblem, StatusReading } from './status-reader.ts';
import { summarize } from './status-summary.ts';
import { troubles } from './status-trouble.ts';

const clock = (t: number) => new Date(t * 1000).toISOString().slice(11, 19);
function ago(t: number, now: number): string {
  const s = Math.max(0, Math.round(now - t));
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}
const unknown = 'unknown';
const orUnknown = (v: number | undefined, unit = '') => (v === undefined ? unknown : `${v}${unit}`);
const setting = (v: number | null | undefined, notAsked: string, failed: ReadProblem | undefined) =>
  failed !== undefined ? 'not read' : v === undefined ? notAsked : v === null ? 'none set' : String(v);

/** One row per minute of the controller's metrics: its tick as the flags tell it (the log has the reason). */
export function tickRows(r: StatusReading, limit: number): string[] {
  const s = r.series;
  const minutes = new Set<number>();
  for (const series of [s.applied, s.desired, s.errors, s.skipped, s.noData]) {
    for (const p of series) minutes.add(p.timestamp);
  }
  const at = (series: readonly Datapoint[], t: number) => series.find((p) => p.timestamp === t)?.value;
  const rows = [...minutes]
    .sort((a, b) => a - b)
    .slice(-limit)
    .map((t) => {
      const flags = [
        ['scaled', s.scaleEvents],
        ['saturated', s.saturated],
        ['at-cap', s.atCap],
        ['no-data', s.noData],
        ['items-slower', s.downstreamSlower],
        ['error', s.errors],
        ['skipped', s.skipped],
        ['clamped', s.clamped],
      ]
        .filter(([, series]) => (at(series as Datapoint[], t) ?? 0) >= 1)
        .map(([name]) => name);
      const age = at(s.headAge, t);
      // A lone scaler publishes its desired value only where it differs from the applied one (lib/telemetry.ts).
      const desired = at(s.desired, t) ?? at(s.applied, t);
      return `  ${clock(t)}  applied ${orUnknown(at(s.applied, t)).padStart(4)}  desired ${orUnknown(desired).padStart(4)}  age ${(age === undefined ? unknown : `${age.toFixed(0)} s`).padStart(6)}  ${flags.join(' ') || '-'}`;
    });
  return rows;
}

/** The status screen. */
export function statusScreen(r: StatusReading, options: { color?: boolean; ticks?: number } = {}): string {
  const sum = summarize(r);
  const now = r.readAt;
  const lines: string[] = [];
  const t = r.target;
  const failed = (part: ReadProblem['part']) => r.problems.find((p) => p.part === part);
  lines.push(
    `scaler ${t.scalerName ?? '(no --scaler-name: controller metrics not read)'} · queue ${r.queueName} · ${new Date(now * 1000).toISOString().slice(0, 19)}Z`,
  );
  lines.push('');
  const trouble = troubles(r, sum);
  if (trouble.length > 0) {
    trouble.forEach((item, i) => {
      lines.push(`${i === 0 ? 'trouble' : ''}`.padEnd(17) + item.message);
    });
    lines.push('');
  }
  const applied = sum.controllerApplied
    ? `controller applied ${sum.controllerApplied.value}${sum.controllerDesired ? `, wanted ${sum.controllerDesired.value}` : ''} (${ago(sum.controllerApplied.timestamp, now)})`
    : 'no controller tick in the window';
  const state =
    sum.mappingState === undefined || sum.mappingState === 'Enabled'
      ? ''
      : ` (${sum.mappingState.toLowerCase()})`;
  lines.push(
    `concurrency      reserved ${setting(sum.reservedConcurrency, 'not read (no --function-name)', failed('reserved'))} · mapping maximum ${setting(sum.mappingMaximum, 'not read (no --mapping-uuid)', failed('mapping'))}${state}`,
  );
  for (const part of ['reserved', 'mapping'] as const) {
    const problem = failed(part);
    if (problem) lines.push(`                 ${part}: ${problem.error}`);
  }
  lines.push(`                 ${applied}`);
  const metricsFailed = failed('metrics');
  lines.push(
    metricsFailed === undefined
      ? `cap / floor      ${orUnknown(sum.cap)} / ${orUnknown(sum.floor)}   (the controller's last tick)`
      : `cap / floor      unknown: metrics not read (${metricsFailed.error})`,
  );
  const target = sum.targetAgeSeconds === undefined ? 'target unknown' : `target ${sum.targetAgeSeconds} s`;
  const age = sum.headAge
    ? `${sum.headAge.value.toFixed(0)} s vs ${target}   (AWS/SQS, minute of ${clock(sum.headAge.timestamp)}; SQS metrics run 1–2 min late)`
    : metricsFailed !== undefined
      ? 'unknown: metrics not read (see cap / floor)'
      : `unknown (no AWS/SQS age datapoint in the window) · ${target}`;
  lines.push(`head age         ${age}`);
  if (sum.controllerHeadAge) {
    lines.push(
      `                 the controller's last tick used ${sum.controllerHeadAge.value.toFixed(0)} s (${ago(sum.controllerHeadAge.timestamp, now)})`,
    );
  }
  lines.push(
    `depth            visible ${sum.visible} · in flight ${sum.inFlight} · delayed ${sum.delayed}   (now)`,
  );
  const saturated =
    sum.saturated === undefined
      ? metricsFailed !== undefined
        ? 'unknown: metrics not read'
        : 'unknown (no controller tick in the window)'
      : sum.saturated
        ? `YES: at the cap with the age above target: shed load or raise the cap (the downstream's limit)`
        : `no${sum.atCap ? ' (at the cap, age within target)' : ''}`;
  lines.push(`saturated        ${saturated}`);
  lines.push('');
  const alarmsFailed = failed('alarms');
  if (alarmsFailed !== undefined) lines.push(`alarms           not read (${alarmsFailed.error})`);
  else if (r.alarms === undefined) lines.push('alarms           not read (no --scaler-name)');
  else if (r.alarms.length === 0) lines.push(`alarms           none named ${t.scalerName}-*`);
  else {
    lines.push('alarms');
    for (const a of r.alarms) {
      lines.push(
        `  ${a.state.padEnd(17)} ${a.name}${a.since === undefined ? '' : `  (since ${ago(a.since, now)})`}`,
      );
    }
  }
  lines.push('');
  const decisionsFailed = failed('decisions');
  if (decisionsFailed !== undefined) {
    lines.push(`decisions        log not read (${decisionsFailed.error})`);
  } else if (r.decisions === undefined) {
    lines.push('decisions        log not read (give --stack, or --log-group with the controller log group)');
  } else if (r.decisions.length === 0) {
    lines.push(`decisions        none logged in the last ${Math.round(r.windowSeconds / 60)} min`);
  } else {
    lines.push('last decisions (controller log: ticks and fast-path growth, newest last)');
    for (const d of r.decisions) {
      const change =
        d.applied === undefined
          ? ''
          : d.appliedAfter !== undefined && d.appliedAfter !== d.applied
            ? `${d.applied} → ${d.appliedAfter}`
            : `${d.applied}`;
      const wanted = d.desired === undefined ? '' : `  desired ${d.desired}`;
      const ageText = d.ageSeconds === undefined ? '' : `  age ${d.ageSeconds.toFixed(0)} s`;
      // A fast-path sample grows on the real-time depth, not on the age.
      const depthText = d.visibleMessages === undefined ? '' : `  visible ${d.visibleMessages}`;
      const errorText =
        d.error === undefined ? '' : `  ${d.source === 'fast path' ? 'fast path: ' : ''}${d.error}`;
      lines.push(
        `  ${clock(d.time)}  ${d.reason.padEnd(24)} ${change}${wanted}${ageText}${depthText}${errorText}`,
      );
    }
  }
  const ticks = tickRows(r, options.ticks ?? 5);
  if (t.scalerName !== undefined) {
    lines.push('');
    lines.push(
      ticks.length === 0
        ? `ticks            no controller metrics in the last ${Math.round(r.windowSeconds / 60)} min`
        : 'last ticks (controller metrics per minute: flags, the reason code is in the log)',
    );
    lines.push(...ticks);
  }
  lines.push('');
  lines.push(
    statusChart({
      applied: r.series.applied,
      age: r.series.sqsAge.length > 0 ? r.series.sqsAge : r.series.headAge,
      cap: sum.cap,
      targetAgeSeconds: sum.targetAgeSeconds,
      start: now - r.windowSeconds,
      end: now,
      color: options.color,
    }),
  );
  const missing = r.series.partial.filter((n) => n === 'sqsAge' || t.scalerName !== undefined);
  if (missing.length > 0 && metricsFailed === undefined) {
    lines.push('');
    lines.push(`incomplete metric data (shown as unknown): ${missing.join(', ')}`);
  }
  return lines.join('\n');
}
