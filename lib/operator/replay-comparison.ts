import type { Phase } from '../load-file/load-file.ts';
import type { RunSummary } from '../sim/summary.ts';
import type { TimelineSample } from '../sim/timeline.ts';

/**
 * What the queue really did (the trace's observed columns, lib/load-file/load-file.ts) beside the replay of the controller
 * the user runs today, per window of the trace: the oldest message's age at its highest and the peak of concurrent
 * executions. How far the two are apart is how far the model is from the user's account, so it is shown before
 * anyone trusts the other figures. A few windows, not a page: per day for a week, per hour for a few hours.
 *
 * What is compared with what: `observed_age_s` is AWS/SQS ApproximateAgeOfOldestMessage (Maximum a period), the
 * replay's the true head age at each controller tick and the longest wait of a message received in the phase;
 * `observed_concurrency` is AWS/Lambda ConcurrentExecutions (Maximum a period), the replay's the peak of
 * concurrent executions in the phase.
 */

/** What one replayed run contributes: per phase, and the head age at each tick. */
export interface ReplaySeries {
  readonly phasePeakExecutions: readonly number[];
  readonly phaseMaxWaitSeconds: readonly number[];
  /** [time, head age] at each controller tick. */
  readonly ticks: readonly (readonly [number, number])[];
}

export function replaySeries(summary: RunSummary, timeline: readonly TimelineSample[]): ReplaySeries {
  return {
    phasePeakExecutions: summary.phases.map((p) => p.peakExecutions),
    phaseMaxWaitSeconds: summary.phases.map((p) => p.maxWaitSeconds),
    ticks: timeline.map((s) => [s.time, s.headAgeSeconds] as const),
  };
}

export interface WindowComparison {
  /** Seconds from the trace's start. */
  readonly start: number;
  readonly seconds: number;
  readonly observedMaxAge?: number;
  readonly observedPeakConcurrency?: number;
  /** The worst seed's. */
  readonly replayedMaxAge: number;
  readonly replayedPeakExecutions: number;
}

export interface ReplayComparison {
  readonly windowSeconds: number;
  readonly windows: readonly WindowComparison[];
  /** Replayed ÷ observed peak concurrency over the windows where both are above 0: lowest, median, highest. */
  readonly concurrencyRatio?: { readonly low: number; readonly median: number; readonly high: number };
  /** Replayed − observed max age (seconds) over the windows with an observed age: lowest, median, highest. */
  readonly ageDifference?: { readonly low: number; readonly median: number; readonly high: number };
}

/**
 * The window sizes tried, shortest first: the first that gives at most `MAX_WINDOWS` lines and holds the trace's
 * typical phase (its period: a window shorter than a phase would be empty) is used.
 */
const WINDOW_LADDER = [600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 7 * 86_400] as const;
export const MAX_WINDOWS = 10;

export function windowSeconds(totalSeconds: number, periodSeconds = 60): number {
  return (
    WINDOW_LADDER.find((w) => w >= periodSeconds && Math.ceil(totalSeconds / w - 1e-9) <= MAX_WINDOWS) ??
    30 * 86_400
  );
}

/** The trace's period: the median phase's length (a gap's long row is one phase among many). */
function period(phases: readonly Phase[]): number {
  const s = phases.map((p) => p.durationSeconds).sort((a, b) => a - b);
  return s[s.length >> 1] ?? 60;
}

export function hasObserved(phases: readonly Phase[]): boolean {
  return phases.some((p) => p.observed !== undefined);
}

function spread(values: readonly number[]): { low: number; median: number; high: number } | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  return { low: s[0] as number, median, high: s[s.length - 1] as number };
}

const maxOf = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/**
 * The comparison, or undefined when the trace has no observed values. Each phase counts to the windows it
 * overlaps, a tick to the window it falls in.
 */
export function compareReplay(
  phases: readonly Phase[],
  runs: readonly ReplaySeries[],
): ReplayComparison | undefined {
  if (!hasObserved(phases) || runs.length === 0) return undefined;
  const total = phases.reduce((s, p) => s + p.durationSeconds, 0);
  const w = windowSeconds(total, period(phases));
  const count = Math.max(1, Math.ceil(total / w));
  const windows = Array.from({ length: count }, (_, i) => ({
    start: i * w,
    seconds: Math.min(w, total - i * w),
    observedMaxAge: undefined as number | undefined,
    observedPeakConcurrency: undefined as number | undefined,
    replayedMaxAge: 0,
    replayedPeakExecutions: 0,
  }));
  const at = (t: number) => windows[Math.min(count - 1, Math.floor(t / w))] as (typeof windows)[number];
  let start = 0;
  phases.forEach((p, i) => {
    const end = start + p.durationSeconds;
    // A phase's maxima count to every window it overlaps (a gap's row may last days).
    for (let n = Math.floor(start / w); n < count && n * w < end; n++) {
      const win = windows[n] as (typeof windows)[number];
      win.observedMaxAge = maxOf(win.observedMaxAge, p.observed?.ageSeconds);
      win.observedPeakConcurrency = maxOf(win.observedPeakConcurrency, p.observed?.concurrency);
      for (const run of runs) {
        win.replayedPeakExecutions = Math.max(win.replayedPeakExecutions, run.phasePeakExecutions[i] ?? 0);
        win.replayedMaxAge = Math.max(win.replayedMaxAge, run.phaseMaxWaitSeconds[i] ?? 0);
      }
    }
    start = end;
  });
  for (const run of runs)
    for (const [time, age] of run.ticks) {
      const win = at(time);
      win.replayedMaxAge = Math.max(win.replayedMaxAge, age);
    }
  const ratios = windows.flatMap((x) =>
    x.observedPeakConcurrency !== undefined && x.observedPeakConcurrency > 0
      ? [x.replayedPeakExecutions / x.observedPeakConcurrency]
      : [],
  );
  const differences = windows.flatMap((x) =>
    x.observedMaxAge === undefined ? [] : [x.replayedMaxAge - x.observedMaxAge],
  );
  return {
    windowSeconds: w,
    windows: windows.map(({ observedMaxAge, observedPeakConcurrency, ...rest }) => ({
      ...rest,
      ...(observedMaxAge === undefined ? {} : { observedMaxAge }),
      ...(observedPeakConcurrency === undefined ? {} : { observedPeakConcurrency }),
    })),
    concurrencyRatio: spread(ratios),
    ageDifference: spread(differences),
  };
}
