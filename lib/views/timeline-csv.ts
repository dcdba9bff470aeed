import type { TimelineSample } from '../sim/simulation.ts';

/** The run's timeline, one row per controller tick. */
export function timelineCsv(timeline: readonly TimelineSample[]): string {
  const rows = [
    'time_s,arrivals_per_s,applied_concurrency,concurrent_executions,warm_environments,head_age_s,visible,in_flight,reason,saturated',
  ];
  for (const s of timeline) {
    rows.push(
      [
        s.time.toFixed(3),
        s.arrivalsPerSecond.toFixed(2),
        s.applied,
        s.executions,
        s.warm,
        s.headAgeSeconds.toFixed(4),
        s.visible,
        s.inFlight,
        s.reason,
        s.saturated ? 1 : 0,
      ].join(','),
    );
  }
  return `${rows.join('\n')}\n`;
}
