import asciichart from 'asciichart';
import type { Datapoint } from '../control/index.ts';

/**
 * Per-minute values on a grid from `start` to `end` (epoch seconds). A minute with no datapoint repeats the one
 * before it (CloudWatch omits empty periods; asciichart cannot draw a hole); minutes before the first datapoint
 * are left out. Returns undefined when nothing is known.
 */
export function minuteGrid(series: readonly Datapoint[], start: number, end: number): number[] | undefined {
  const byMinute = new Map(series.map((p) => [Math.floor(p.timestamp / 60), p.value]));
  const out: number[] = [];
  let last: number | undefined;
  for (let m = Math.floor(start / 60); m <= Math.floor(end / 60); m++) {
    last = byMinute.get(m) ?? last;
    if (last !== undefined) out.push(last);
  }
  return out.length > 0 ? out : undefined;
}

export interface StatusChartInput {
  readonly applied: readonly Datapoint[];
  readonly age: readonly Datapoint[];
  readonly cap?: number;
  readonly targetAgeSeconds?: number;
  readonly start: number;
  readonly end: number;
  readonly color?: boolean;
}

function plot(values: number[], reference: number | undefined, height: number, color: boolean): string {
  // One point cannot be drawn as a line: repeat it.
  const line = values.length === 1 ? [values[0] ?? 0, values[0] ?? 0] : values;
  const series = reference === undefined ? [line] : [line, line.map(() => reference)];
  return asciichart.plot(series, {
    height,
    colors: color ? [asciichart.default, asciichart.darkgray] : undefined,
    format: (x: number) => x.toFixed(0).padStart(6),
  });
}

/** Concurrency (with the cap) and head age (with the target), one column per minute of the window. */
export function statusChart(input: StatusChartInput): string {
  const parts: string[] = [];
  const applied = minuteGrid(input.applied, input.start, input.end);
  const age = minuteGrid(input.age, input.start, input.end);
  const minutes = Math.round((input.end - input.start) / 60);
  parts.push(
    `applied concurrency per minute${input.cap === undefined ? '' : ` (flat line: cap ${input.cap})`}, last ${minutes} min`,
  );
  parts.push(
    applied ? plot(applied, input.cap, 6, input.color ?? false) : '  (no AppliedConcurrency datapoints)',
  );
  parts.push(
    `head age, seconds per minute${input.targetAgeSeconds === undefined ? '' : ` (flat line: target ${input.targetAgeSeconds} s)`}`,
  );
  parts.push(age ? plot(age, input.targetAgeSeconds, 6, input.color ?? false) : '  (no age datapoints)');
  return parts.join('\n');
}
