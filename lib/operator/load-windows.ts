import { type ActuatorMode, capInSteps, concurrencyStep } from '../control/config.ts';
import { steadyNeed } from '../control/need.ts';
import { INVOKES_PER_POLLER, PROVISIONED_MAX_WARM_POLLERS } from '../control/poller-grid.ts';
import type { ScalerConfig } from '../control/settings-table.ts';
import type { Phase } from '../load-file/load-file.ts';

/**
 * A trace read in windows (hours, mostly): each whole window's arrivals and work, and the concurrency the age law's
 * steady need (Little's law at the target utilisation, lib/control/need.ts) gives it. `recommend` picks the floor
 * from the quietest window and looks for a daily peak in the hours.
 */
export interface WindowNeed {
  /** Seconds from the trace's start. */
  readonly start: number;
  readonly seconds: number;
  readonly ratePerSecond: number;
  readonly need: number;
}

const HOUR = 3600;
const DAY = 24;

/** The mapping's MaximumConcurrency is at least 2 (AWS: 2–1000), and the law drives it with the floor. */
export const LOWEST_FLOOR = 2;

/**
 * The trace's whole windows of `windowSeconds` (a phase that spans a window's edge counts to both, by its seconds
 * in each; a last, partial window is left out); a trace shorter than one window is one window of its own length.
 */
export function windowNeeds(
  phases: readonly Phase[],
  config: ScalerConfig,
  windowSeconds: number,
): WindowNeed[] {
  const total = phases.reduce((s, p) => s + p.durationSeconds, 0);
  const whole = Math.floor(total / windowSeconds + 1e-9);
  const window = whole === 0 ? total : windowSeconds;
  const count = Math.max(1, whole);
  const messages = new Float64Array(count);
  const work = new Float64Array(count);
  let start = 0;
  for (const p of phases) {
    const end = start + p.durationSeconds;
    for (let w = Math.floor(start / window); w < count && w * window < end; w++) {
      const seconds = Math.min(end, (w + 1) * window) - Math.max(start, w * window);
      if (seconds <= 0) continue;
      messages[w] = (messages[w] ?? 0) + p.ratePerSecond * seconds;
      work[w] = (work[w] ?? 0) + (p.ratePerSecond * seconds * p.itemMs) / 1000;
    }
    start = end;
  }
  return Array.from({ length: count }, (_, w) => {
    const m = messages[w] ?? 0;
    const itemSeconds = m > 0 ? (work[w] ?? 0) / m : 0;
    const rate = m / window;
    return {
      start: w * window,
      seconds: window,
      ratePerSecond: rate,
      need: steadyNeed(rate, itemSeconds, config),
    };
  });
}

export function hourlyNeeds(phases: readonly Phase[], config: ScalerConfig): WindowNeed[] {
  return windowNeeds(phases, config, HOUR);
}

/**
 * The quiet periods the floor is chosen from: hours, or a quarter of a trace shorter than four hours (an hour of
 * a one-hour trace is its mean, busy minutes and all).
 */
export function floorWindowSeconds(totalSeconds: number): number {
  return Math.min(HOUR, totalSeconds / 4);
}

export interface FloorChoice {
  readonly floor: number;
  /** The quietest window and its need. */
  readonly quietest: WindowNeed;
  /** The quietest window's need was above the cap: the floor is the cap. */
  readonly limitedByCap: boolean;
}

/**
 * The floor: the quietest window's need, at least 2. The law holds at least the need of a busy window anyway; a
 * floor up to the quietest window's need only saves it shrinking below what every window of the trace uses, and
 * growing back from there into the next busy minute. Above it, the floor would hold idle reserved concurrency.
 * Worked example: a week whose quietest hour is 100/s of 20 ms items: 2 ÷ 0.9 → 3.
 */
export function chooseFloor(windows: readonly WindowNeed[], cap: number): FloorChoice {
  const quietest = windows.reduce((a, b) =>
    b.need < a.need || (b.need === a.need && b.ratePerSecond < a.ratePerSecond) ? b : a,
  );
  const floor = Math.min(cap, Math.max(LOWEST_FLOOR, quietest.need));
  return { floor, quietest, limitedByCap: quietest.need > cap };
}

export interface DailyPeak {
  /** The hour of the day (0–23, from the trace's start, or UTC when the start is known) of the busiest hour. */
  readonly hourOfDay: number;
  readonly days: number;
  /** The days whose busiest hour fell within an hour of `hourOfDay`. */
  readonly daysAtThatHour: number;
  /** The median day's busiest and quietest hour's need. */
  readonly peakNeed: number;
  readonly troughNeed: number;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * A daily peak: at least two whole days, the busiest hour of most days (two in three) within an hour of the same
 * hour of the day, and that hour's need at least twice the quietest hour's and 2 above it (a cycle a floor
 * scheduled ahead of it could serve, not noise on a flat load). `offsetHours` is the hour of the day the trace
 * starts at (0 when unknown: hours counted from its start).
 */
export function dailyPeak(hours: readonly WindowNeed[], offsetHours = 0): DailyPeak | undefined {
  const days = Math.floor(hours.length / DAY);
  if (days < 2) return undefined;
  const peakHours: number[] = [];
  const peaks: number[] = [];
  const troughs: number[] = [];
  for (let d = 0; d < days; d++) {
    const day = hours.slice(d * DAY, (d + 1) * DAY);
    const busiest = day.reduce((a, b) => (b.need > a.need ? b : a));
    peakHours.push((Math.round(busiest.start / HOUR) + offsetHours) % DAY);
    peaks.push(busiest.need);
    troughs.push(Math.min(...day.map((h) => h.need)));
  }
  // The hour of the day most days' peaks fall within an hour of (circular: 23 and 0 are neighbours).
  const near = (a: number, b: number) => Math.min((a - b + DAY) % DAY, (b - a + DAY) % DAY) <= 1;
  // Ties (peaks at 16 are near 15, 16 and 17) go to the hour most peaks fall on exactly.
  let best = { hourOfDay: 0, count: 0, exact: 0 };
  for (let h = 0; h < DAY; h++) {
    const count = peakHours.filter((p) => near(p, h)).length;
    const exact = peakHours.filter((p) => p === h).length;
    if (count > best.count || (count === best.count && exact > best.exact))
      best = { hourOfDay: h, count, exact };
  }
  const peakNeed = median(peaks);
  const troughNeed = median(troughs);
  if (best.count * 3 < days * 2 || peakNeed < 2 * troughNeed || peakNeed < troughNeed + 2) return undefined;
  return { hourOfDay: best.hourOfDay, days, daysAtThatHour: best.count, peakNeed, troughNeed };
}

/** A scheduled floor for a daily peak (the construct's `floors`), as `recommend` proposes it. */
export interface FloorProposal {
  /** EventBridge's cron: 15 minutes before the hour ahead of the peak's, every day. */
  readonly schedule: string;
  readonly minConcurrency: number;
  /** Through the end of the hour after the peak's: the days whose peak fell an hour either side are covered. */
  readonly durationSeconds: number;
}

/** Lead before the earliest hour the peak falls in, so the limit (and provisioned mode's pollers) are up first. */
const FLOOR_LEAD_SECONDS = 15 * 60;

/**
 * The floor a daily peak calls for: its median need, within the cap, from 15 minutes before the hour ahead of the
 * peak's to the end of the hour after it (3 h 15 min); none where the floor already holds the peak's need.
 */
export function proposedFloor(
  peak: DailyPeak,
  floor: number,
  cap: number,
  actuator: ActuatorMode = 'lockstep',
): FloorProposal | undefined {
  // On the actuator's levels: whole pollers in provisioned mode (rounded up, as the law rounds a need), at most the
  // 200 MinimumPollers SQS warms, within the cap's whole pollers.
  const step = concurrencyStep(actuator);
  const most =
    actuator === 'provisioned'
      ? Math.min(capInSteps(cap, actuator), PROVISIONED_MAX_WARM_POLLERS * INVOKES_PER_POLLER)
      : cap;
  const minConcurrency = Math.min(most, Math.ceil(peak.peakNeed / step) * step);
  if (minConcurrency <= floor) return undefined;
  const startMinuteOfDay = ((((peak.hourOfDay - 1) * 60 - FLOOR_LEAD_SECONDS / 60) % 1440) + 1440) % 1440;
  const hour = Math.floor(startMinuteOfDay / 60);
  const minute = startMinuteOfDay % 60;
  return {
    schedule: `cron(${minute} ${hour} * * ? *)`,
    minConcurrency,
    durationSeconds: 3 * HOUR + FLOOR_LEAD_SECONDS,
  };
}
