import type { ScalerConfig } from './config.ts';
import type { Decision } from './decision.ts';
import { readAndDecide, type TickOptions, type TickPorts, type TickReading } from './tick.ts';

/** A shared budget's member as its tick reads it: its ports and settings, its reading, what it counts for. */

/**
 * The longest an SQS poll waits for messages (`WaitTimeSeconds` at most 20): a poll the pollers started before the
 * maximum dropped can return a batch, and invoke, that long after (docs/aws-facts.md, "Event source mapping").
 */
export const LONG_POLL_SECONDS = 20;

/**
 * How long after a lockstep shrink the units it freed are known free: every poll in flight then has returned and
 * invoked (the long poll plus the mapping's batching window), and every invocation the old maximum started has
 * ended. Only the consumer's function timeout bounds that: a mean says nothing of the tail (mean 1 s, some near a
 * 30 s timeout), and an invocation started under the old maximum still runs on the downstream. Undefined when the
 * timeout is unknown: then the units wait for the next tick, when reserved comes down anyway.
 */
export function releaseDelaySeconds(
  functionTimeoutSeconds: number | undefined,
  batchingWindowSeconds = 0,
): number | undefined {
  if (
    functionTimeoutSeconds === undefined ||
    !Number.isFinite(functionTimeoutSeconds) ||
    functionTimeoutSeconds <= 0
  ) {
    return undefined;
  }
  return LONG_POLL_SECONDS + batchingWindowSeconds + functionTimeoutSeconds;
}

export interface BudgetTickMember {
  /** Unique in the budget. */
  readonly name: string;
  readonly ports: TickPorts;
  /** Its own settings: its floor, cap and target are the budget's floor, cap and lateness for it. */
  readonly config: ScalerConfig;
  /** How much its lateness counts. @default 1 */
  readonly weight?: number;
  /** What it was last known to hold, counted when it cannot be read. @default its cap */
  readonly lastKnown?: number;
}

export interface BudgetTickHooks {
  /** Called after every write with every member's count then (the invariant's tests watch it). */
  afterWrite?(counts: ReadonlyMap<string, number>): void;
}

export type OkReading = TickReading & {
  readonly ok: true;
  /** What it counts for: its execution ceiling where the port knows it, else its applied limit. */
  readonly ceiling: number | undefined;
};
export type MemberReading = OkReading | { readonly ok: false; readonly error: unknown };

/** A member's reads and its own law, as `runTick` does them; a failed read is kept, not thrown. */
export async function readMember(
  member: BudgetTickMember,
  now: number,
  options: TickOptions,
): Promise<MemberReading> {
  try {
    const reading = await readAndDecide(member.ports, member.config, now, options);
    return { ok: true, ...reading, ceiling: await ceilingOf(member.ports.concurrency) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The port's execution ceiling, or its applied limit where it has none (the simulator's pool). */
export function ceilingOf(port: TickPorts['concurrency']): Promise<number | undefined> {
  return port.ceiling ? port.ceiling() : port.applied();
}

/** What a member counts for in the budget: its execution ceiling, or its cap when nothing bounds it. */
export function budgetCount(applied: number | undefined, cap: number): number {
  return applied !== undefined && Number.isFinite(applied) ? applied : cap;
}

/** A member's demand: its own law's value within [floor, cap], as the split takes it. */
export function demandOf(decision: Decision, config: ScalerConfig): number {
  return Math.min(config.maxConcurrency, Math.max(config.minConcurrency, decision.desired));
}

/** The age the member's decision used (the datapoint bounded by real-time depth), else the datapoint. */
export function ageOf(reading: OkReading): number | undefined {
  return reading.decision.inputs.ageSeconds ?? reading.snapshot.oldestAge?.seconds;
}

export function countedBefore(member: BudgetTickMember, reading: MemberReading): number {
  return reading.ok
    ? budgetCount(reading.ceiling, member.config.maxConcurrency)
    : (member.lastKnown ?? member.config.maxConcurrency);
}
