import { LoadFileError, type Phase } from '../load-file/load-file.ts';

/**
 * What one simulated run may ask for. Each bound is sized so that every accepted run fits in 2 GB and finishes
 * in minutes on this project's 2-core machine (measured: docs/simulator.md, "Speed and memory"):
 * - messages: every message sent is a send time in memory while it waits (8 bytes) and a wait afterwards
 *   (≤ 10 bytes); 50 million is about 1 GB at worst, and 1–3 minutes of work;
 * - controller ticks: each is a timeline row and a run of the control law; a million ticks is ~100 MB;
 * - phases: each keeps its own wait percentiles; 100,000 is a day at one row a second;
 * - simulated time: the CloudWatch age is sampled every second; 30 days is 2.6 million samples.
 */
export const SIMULATION_LIMITS = {
  messages: 50_000_000,
  ticks: 1_000_000,
  phases: 100_000,
  seconds: 30 * 86_400,
} as const;

export class SimulationLimitError extends LoadFileError {
  override name = 'SimulationLimitError';
}

export interface RunSize {
  readonly messages: number;
  readonly ticks: number;
  readonly phases: number;
  readonly seconds: number;
}

export function runSize(phases: readonly Phase[], tickSeconds: number): RunSize {
  let messages = 0;
  let seconds = 0;
  for (const p of phases) {
    messages += p.ratePerSecond * p.durationSeconds;
    seconds += p.durationSeconds;
  }
  return { messages, ticks: seconds / tickSeconds, phases: phases.length, seconds };
}

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

/** Refuses a run beyond the bounds, naming each bound exceeded, the figure and how to shrink it. */
export function checkRunSize(phases: readonly Phase[], tickSeconds: number): void {
  const size = runSize(phases, tickSeconds);
  const problems: string[] = [];
  if (size.phases > SIMULATION_LIMITS.phases)
    problems.push(
      `${grouped(size.phases)} phases, more than ${grouped(SIMULATION_LIMITS.phases)} (each keeps its own wait percentiles): merge rows`,
    );
  if (size.seconds > SIMULATION_LIMITS.seconds)
    problems.push(
      `${grouped(size.seconds)} s of simulated time, more than ${grouped(SIMULATION_LIMITS.seconds)} (30 days): shorten it with --time-scale`,
    );
  if (size.messages > SIMULATION_LIMITS.messages)
    problems.push(
      `${grouped(size.messages)} messages (rate × duration, summed), more than ${grouped(SIMULATION_LIMITS.messages)} (so that a run fits in 2 GB and ends in minutes): thin it with --rate-scale or shorten it with --time-scale`,
    );
  if (size.ticks > SIMULATION_LIMITS.ticks)
    problems.push(
      `${grouped(size.ticks)} controller ticks (${grouped(size.seconds)} s ÷ tickSeconds ${tickSeconds}), more than ${grouped(SIMULATION_LIMITS.ticks)}: raise tickSeconds or shorten the run`,
    );
  if (problems.length > 0) throw new SimulationLimitError(`the run is too large: ${problems.join('; ')}`);
}

/**
 * A group's run (several queues on one downstream, lib/sim/group-simulation.ts) is one run: the same bounds hold
 * for the group as a whole, so a group that validates fits where a single run does. Messages and phases add up
 * over the members; simulated time is the longest member's (they run side by side); every member records a
 * timeline row a tick, so the ticks count once per member.
 */
export function checkGroupRunSize(members: readonly (readonly Phase[])[], tickSeconds: number): void {
  const sizes = members.map((phases) => runSize(phases, tickSeconds));
  const seconds = Math.max(0, ...sizes.map((s) => s.seconds));
  const size: RunSize = {
    messages: sizes.reduce((sum, s) => sum + s.messages, 0),
    phases: sizes.reduce((sum, s) => sum + s.phases, 0),
    seconds,
    ticks: (seconds / tickSeconds) * members.length,
  };
  const problems: string[] = [];
  if (size.phases > SIMULATION_LIMITS.phases)
    problems.push(
      `${grouped(size.phases)} phases over the members, more than ${grouped(SIMULATION_LIMITS.phases)} (each keeps its own wait percentiles): merge rows`,
    );
  if (size.seconds > SIMULATION_LIMITS.seconds)
    problems.push(
      `${grouped(size.seconds)} s of simulated time (the longest member), more than ${grouped(SIMULATION_LIMITS.seconds)} (30 days): shorten the loads`,
    );
  if (size.messages > SIMULATION_LIMITS.messages)
    problems.push(
      `${grouped(size.messages)} messages over the members (rate × duration, summed), more than ${grouped(SIMULATION_LIMITS.messages)} (so that a run fits in 2 GB and ends in minutes): thin or shorten the loads`,
    );
  if (size.ticks > SIMULATION_LIMITS.ticks)
    problems.push(
      `${grouped(size.ticks)} timeline rows (${grouped(seconds)} s ÷ tickSeconds ${tickSeconds} × ${members.length} members), more than ${grouped(SIMULATION_LIMITS.ticks)}: shorten the loads or use fewer members`,
    );
  if (problems.length > 0) throw new SimulationLimitError(`the group is too large: ${problems.join('; ')}`);
}
