import type { LoadFile } from '../load-file/load-file.ts';

/**
 * What `npm run load` will send: the load file's phases, scaled, with each phase's message count fixed up front
 * so the run can be checked against it (sent + failed + unsent = planned, always).
 */
export interface PlannedPhase {
  /** 1-based, as the phase table numbers phases. */
  readonly index: number;
  /** Seconds from the start of the run. */
  readonly startSeconds: number;
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  /** Carried in each message, so a consumer can work the item time the load file asks for. */
  readonly itemMs: number;
  /** round(rate × duration): the messages this phase sends. */
  readonly messages: number;
  /** Sequence number of the phase's first message (0-based over the run). */
  readonly firstSequence: number;
}

export interface LoadPlan {
  readonly scenario: string;
  readonly rateScale: number;
  readonly timeScale: number;
  readonly phases: readonly PlannedPhase[];
  readonly totalMessages: number;
  readonly totalSeconds: number;
  readonly peakRatePerSecond: number;
}

export class PlanError extends Error {
  override name = 'PlanError';
}

// A run must end: a week of sending is already beyond what anyone replays by hand.
const MAX_PLAN_SECONDS = 7 * 86_400;
const MAX_PLAN_MESSAGES = 1_000_000_000;

function checkScale(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new PlanError(`${name} = ${value}: must be a number > 0 (a multiplier, e.g. 0.1 for a tenth)`);
  }
}

/**
 * `rateScale` multiplies every phase's rate, `timeScale` every phase's duration (0.1 turns a 10-minute phase into
 * one minute at the same rate). Both shrink a scenario for a quick try without editing the file.
 */
export function buildPlan(scenario: LoadFile, rateScale = 1, timeScale = 1): LoadPlan {
  checkScale('--rate-scale', rateScale);
  checkScale('--time-scale', timeScale);
  const phases: PlannedPhase[] = [];
  let start = 0;
  let sequence = 0;
  for (const [i, phase] of scenario.phases.entries()) {
    const durationSeconds = phase.durationSeconds * timeScale;
    const ratePerSecond = phase.ratePerSecond * rateScale;
    const messages = Math.round(ratePerSecond * durationSeconds);
    phases.push({
      index: i + 1,
      startSeconds: start,
      durationSeconds,
      ratePerSecond,
      itemMs: phase.itemMs,
      messages,
      firstSequence: sequence,
    });
    start += durationSeconds;
    sequence += messages;
  }
  if (start > MAX_PLAN_SECONDS) {
    throw new PlanError(
      `the plan lasts ${Math.round(start)} s, more than ${MAX_PLAN_SECONDS} s (7 days): shrink it with --time-scale`,
    );
  }
  if (sequence > MAX_PLAN_MESSAGES) {
    throw new PlanError(
      `the plan sends ${sequence} messages, more than ${MAX_PLAN_MESSAGES}: use --rate-scale`,
    );
  }
  return {
    scenario: scenario.name,
    rateScale,
    timeScale,
    phases,
    totalMessages: sequence,
    totalSeconds: start,
    peakRatePerSecond: Math.max(0, ...phases.map((p) => p.ratePerSecond)),
  };
}

/**
 * The intended send time of message `sequence`, seconds from the start: evenly spaced within its phase, the
 * phase's n messages at start + k·duration/n (k = 0 … n−1), so a phase's last message is due before it ends.
 */
export function intendedSeconds(plan: LoadPlan, sequence: number): number {
  const phase = phaseOf(plan, sequence);
  const k = sequence - phase.firstSequence;
  return phase.startSeconds + (k * phase.durationSeconds) / phase.messages;
}

/** The phase a message belongs to (sequence within [0, totalMessages)). */
export function phaseOf(plan: LoadPlan, sequence: number): PlannedPhase {
  for (const phase of plan.phases) {
    if (sequence < phase.firstSequence + phase.messages) return phase;
  }
  throw new RangeError(`sequence ${sequence} is beyond the plan's ${plan.totalMessages} messages`);
}

/** How many messages are due by `elapsedSeconds`: every message whose intended time is at or before it. */
export function dueBy(plan: LoadPlan, elapsedSeconds: number): number {
  let due = 0;
  for (const phase of plan.phases) {
    if (phase.messages === 0) continue;
    if (elapsedSeconds >= phase.startSeconds + phase.durationSeconds) {
      due += phase.messages;
      continue;
    }
    if (elapsedSeconds < phase.startSeconds) break;
    // The epsilon keeps this consistent with `intendedSeconds` under floating point: k·d/m·m/d can be k − 1e-15.
    const k = Math.floor(
      ((elapsedSeconds - phase.startSeconds) * phase.messages) / phase.durationSeconds + 1e-9,
    );
    due += Math.min(phase.messages, k + 1);
    break;
  }
  return due;
}

/**
 * Parallel `SendMessageBatch` calls the run may have in flight: one per 100 messages/s of the peak rate (a call
 * of 10 taking up to 100 ms), at least 4, at most 64 (the SDK's HTTP agent keeps 50 sockets per host by default).
 */
export function defaultSenders(plan: LoadPlan): number {
  return Math.min(64, Math.max(4, Math.ceil(plan.peakRatePerSecond / 100)));
}
