import asciichart from 'asciichart';
import type { TimelineSample } from '../sim/simulation.ts';
import { downsample } from './downsample.ts';

/** Two terminal charts, concurrency (with the cap) and head age (with the target), over the run. */
export function terminalChart(
  timeline: readonly TimelineSample[],
  cap: number,
  targetAgeSeconds: number,
  options: { width?: number; color?: boolean } = {},
): string {
  const width = options.width ?? 72;
  // Escape codes only for a terminal: piped into a file they are noise.
  const colors = options.color ? [asciichart.default, asciichart.darkgray, asciichart.magenta] : undefined;
  const points = downsample(timeline, width);
  if (points.length < 2) return '(run too short to chart)';
  const applied = points.map((p) => p.applied);
  const executions = points.map((p) => p.executions);
  const age = points.map((p) => p.headAgeSeconds);
  const end = timeline[timeline.length - 1]?.time ?? 0;
  const concurrencyChart = asciichart.plot([applied, applied.map(() => cap), executions], {
    height: 8,
    colors,
    format: (x: number) => x.toFixed(0).padStart(6),
  });
  const ageChart = asciichart.plot([age, age.map(() => targetAgeSeconds)], {
    height: 6,
    colors,
    format: (x: number) => formatSeconds(x).padStart(6),
  });
  return [
    `applied concurrency, the cap ${cap}, and concurrent executions at ticks (at or below the applied line), 0 → ${formatSeconds(end)}`,
    concurrencyChart,
    `head age (grey: target ${formatSeconds(targetAgeSeconds)})`,
    ageChart,
  ].join('\n');
}

export function formatSeconds(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds < 0.0001) return '<0.1ms';
  if (seconds < 1) return `${(seconds * 1000).toFixed(seconds < 0.01 ? 1 : 0)}ms`;
  if (seconds < 120) return `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  return `${(seconds / 60).toFixed(0)}m`;
}
