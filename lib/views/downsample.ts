import type { TimelineSample } from '../sim/simulation.ts';

/** A chart point: the bucket's start time, the arrival rate's mean, the maxima of the concurrency figures and head age. */
export interface ChartPoint {
  readonly time: number;
  readonly arrivalsPerSecond: number;
  readonly applied: number;
  readonly executions: number;
  readonly headAgeSeconds: number;
}

/** At most `buckets` points; maxima keep a one-tick spike visible however long the run. */
export function downsample(timeline: readonly TimelineSample[], buckets: number): ChartPoint[] {
  if (timeline.length === 0) return [];
  const size = Math.max(1, Math.ceil(timeline.length / buckets));
  const points: ChartPoint[] = [];
  for (let i = 0; i < timeline.length; i += size) {
    const slice = timeline.slice(i, i + size);
    points.push({
      time: (slice[0] as TimelineSample).time,
      arrivalsPerSecond: slice.reduce((s, x) => s + x.arrivalsPerSecond, 0) / slice.length,
      applied: Math.max(...slice.map((x) => x.applied)),
      executions: Math.max(...slice.map((x) => x.executions)),
      headAgeSeconds: Math.max(...slice.map((x) => x.headAgeSeconds)),
    });
  }
  return points;
}
