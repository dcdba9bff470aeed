import type { Phase } from '../load-file/load-file.ts';
import { SIMULATION_LIMITS } from '../sim/limits.ts';

/**
 * How many messages `recommend`'s runs may replay together. Measured on this project's 2-core machine
 * (2026-12-01): the simulator replays 0.9–1.5 million messages a wall second (1,000/s of 20 ms items, the age law,
 * native and provisioned alike, slower while other work shares the machine), plus about 1–3 s a simulated week of
 * fixed work per run. 60 million in 15 runs (3 controllers × seeds 1–5) is then 40–70 s of messages and 15–45 s
 * of weeks: a week's recommendation within two minutes (a flat week at 1,000/s, 605 million messages: 75 million
 * took 123 s, over the two minutes).
 */
export const REPLAY_BUDGET_MESSAGES = 60_000_000;

export interface ReplayPlan {
  /** The thinning factor (lib/operator/replay-thinning.ts): 1 replays the trace as it is. */
  readonly k: number;
  /** The trace's messages (rate × duration, summed). */
  readonly traceMessages: number;
  /** What each run replays: traceMessages × k. */
  readonly messagesPerRun: number;
  /** What bounded k: nothing (1), the simulator's 50-million bound per run, or the budget over the runs. */
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
 * inside `budget`. Worked example: a week peaking at 1,000/s, 333 million messages, 15 runs, 60 million: k = 60 M
 * ÷ 15 ÷ 333 M = 0.012.
 */
export function planReplay(
  phases: readonly Phase[],
  runs: number,
  budget: number = REPLAY_BUDGET_MESSAGES,
): ReplayPlan {
  const messages = traceMessages(phases);
  const perRunBound = SIMULATION_LIMITS.messages;
  const perRunBudget = budget / Math.max(1, runs);
  const limit = Math.min(perRunBound, perRunBudget);
  if (messages <= limit) return { k: 1, traceMessages: messages, messagesPerRun: messages, boundBy: 'none' };
  const k = roundDown(limit / messages);
  return {
    k,
    traceMessages: messages,
    messagesPerRun: messages * k,
    boundBy: perRunBound <= perRunBudget ? 'run-bound' : 'budget',
  };
}
