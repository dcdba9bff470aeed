import type { Phase } from '../load-file/load-file.ts';
import { SIMULATION_LIMITS, SimulationLimitError } from '../sim/limits.ts';

/**
 * How many messages `recommend`'s runs may replay together (its `--budget` flag's default). Measured on this project's 2-core machine
 * (2026-12-01): the simulator replays 0.9–1.5 million messages a wall second (1,000/s of 20 ms items, the age law,
 * native and provisioned alike, slower while other work shares the machine), plus about 1–3 s a simulated week of
 * fixed work per run. 60 million in 15 runs (3 controllers × seeds 1–5) is then 40–70 s of messages and 15–45 s
 * of weeks: a week's recommendation within two minutes (a flat week at 1,000/s, 605 million messages: 75 million
 * took 123 s, over the two minutes).
 */
export const REPLAY_MESSAGE_ALLOWANCE = 60_000_000;

export interface ReplayPlan {
  /** The thinning factor (lib/operator/replay-thinning.ts): 1 replays the trace as it is. */
  readonly k: number;
  /** The trace's messages (rate × duration, summed). */
  readonly traceMessages: number;
  /** What each run replays: traceMessages × k. */
  readonly messagesPerRun: number;
  /**
   * What bounded k: nothing (1), the simulator's 50-million bound per run, or the allowance over the runs
   * (`--budget`: `--json` spells this value after the flag).
   */
  readonly boundBy: 'none' | 'run-bound' | 'budget';
}

export function traceMessages(phases: readonly Phase[]): number {
  return phases.reduce((sum, p) => sum + p.ratePerSecond * p.durationSeconds, 0);
}

/** k rounded down to two significant digits: 0.0271 → 0.027, so the figure printed is the factor used. */
export function roundDown(k: number): number {
  if (k >= 1) return 1;
  const scale = 10 ** (1 - Math.floor(Math.log10(k)));
  return Math.floor(k * scale + 1e-9) / scale;
}

/**
 * The largest k (at most 1) with every run inside the simulator's bound on messages and all `runs` together
 * inside `allowance`. Worked example: a week peaking at 1,000/s, 333 million messages, 15 runs, 60 million: k = 60 M
 * ÷ 15 ÷ 333 M = 0.012.
 */
export function planReplay(
  phases: readonly Phase[],
  runs: number,
  allowance: number = REPLAY_MESSAGE_ALLOWANCE,
): ReplayPlan {
  const messages = traceMessages(phases);
  const perRunBound = SIMULATION_LIMITS.messages;
  const perRunAllowance = allowance / Math.max(1, runs);
  const limit = Math.min(perRunBound, perRunAllowance);
  if (messages <= limit) return { k: 1, traceMessages: messages, messagesPerRun: messages, boundBy: 'none' };
  const k = roundDown(limit / messages);
  return {
    k,
    traceMessages: messages,
    messagesPerRun: messages * k,
    boundBy: perRunBound <= perRunAllowance ? 'run-bound' : 'budget',
  };
}

/** The stretch of a trace a run replays: the phases, and what was left out before them. */
export interface ReplayWindow {
  readonly phases: readonly Phase[];
  /** Simulated seconds left out at the trace's start (0: the whole trace). */
  readonly droppedSeconds: number;
  /** Rows left out whole at the trace's start (a row cut in two counts as kept). */
  readonly droppedPhases: number;
}

/**
 * The trace's most recent stretch one run may replay: at most the simulator's 30 days (SIMULATION_LIMITS; thinning
 * covers the messages). A longer trace (trace exports up to 455 days) is replayed over its last 30 days, not
 * refused with advice `recommend` cannot take: the latest traffic is what the choice is for. The first row kept
 * may be cut to fit. Worked example: 40 days of hourly rows → the last 720 rows, 10 days left out.
 */
export function replayWindow(phases: readonly Phase[]): ReplayWindow {
  let seconds = 0;
  let first = phases.length;
  let cut: Phase | undefined;
  while (first > 0) {
    const p = phases[first - 1] as Phase;
    const room = SIMULATION_LIMITS.seconds - seconds;
    if (room <= 0) break;
    first -= 1;
    if (p.durationSeconds > room) {
      cut = { ...p, durationSeconds: room };
      seconds += room;
      break;
    }
    seconds += p.durationSeconds;
  }
  if (first === 0 && cut === undefined) return { phases, droppedSeconds: 0, droppedPhases: 0 };
  const kept = cut === undefined ? phases.slice(first) : [cut, ...phases.slice(first + 1)];
  const total = phases.reduce((sum, p) => sum + p.durationSeconds, 0);
  return { phases: kept, droppedSeconds: total - seconds, droppedPhases: first };
}

/**
 * Refuses, in one line, a stretch with more rows than a run keeps wait percentiles for (100,000), before any run:
 * the simulator's own refusal names `--time-scale`, which `recommend` does not take.
 */
export function checkReplayRows(phases: readonly Phase[]): void {
  if (phases.length <= SIMULATION_LIMITS.phases) return;
  const grouped = (n: number) => n.toLocaleString('en-US');
  throw new SimulationLimitError(
    `--trace: ${grouped(phases.length)} rows to replay, more than ${grouped(SIMULATION_LIMITS.phases)} (a run keeps each row's wait percentiles): pass a file of fewer, longer rows (merge neighbours: durations add) or a shorter stretch (trace --from and --to)`,
  );
}
