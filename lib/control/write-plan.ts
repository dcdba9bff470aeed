import {
  type ActuatorMode,
  capInSteps,
  EVENT_SOURCE_MAX_CONCURRENCY,
  INVOKES_PER_POLLER,
  PROVISIONED_MIN_CONCURRENCY,
} from './config.ts';

/**
 * The actuator's write plan: which limits to write, in which order, to move the consumer from its limits now to
 * the law's value. Pure and shared: the Lambda's actuator sends these writes to AWS, the simulator applies them to
 * its model, so the order that keeps the invariant is the same in both.
 */

/** One control-plane write. */
export interface Write {
  readonly target: 'reserved' | 'mapping';
  readonly value: number;
}

/** What the consumer's two limits are now: undefined is "not set" (unbounded). */
export interface ConsumerLimits {
  readonly reserved: number | undefined;
  readonly mapping: number | undefined;
}

const unbounded = (v: number | undefined) => v ?? Number.POSITIVE_INFINITY;

/** The concurrency the consumer can run under these limits (undefined: nothing bounds it). */
export function effectiveConcurrency(mode: ActuatorMode, limits: ConsumerLimits): number | undefined {
  const value =
    mode === 'reserved'
      ? unbounded(limits.reserved)
      : Math.min(unbounded(limits.mapping), unbounded(limits.reserved));
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The most executions the consumer may have running now, as a shared budget counts it (undefined: nothing bounds
 * it). Lowering a limit stops no invocation already running, so the lower limit alone is not it:
 * - lockstep: the larger of the two. A shrink lowers the mapping first and reserved trails it by a tick, by which
 *   time the batches the old maximum started have finished (when invocations end within a tick); reserved then comes
 *   down and the units are free. Counting the larger keeps a raise elsewhere from using them before.
 * - reserved: reserved concurrency (no mapping is driven).
 * - event-source: the mapping's maximum, or reserved where that is lower (the user's, at or above the cap).
 */
export function executionCeiling(mode: ActuatorMode, limits: ConsumerLimits): number | undefined {
  if (!movesBoth(mode)) return effectiveConcurrency(mode, limits);
  const set = [limits.reserved, limits.mapping].filter((v): v is number => v !== undefined);
  return set.length === 0 ? undefined : Math.max(...set);
}

/**
 * The pollers may pull more than the function may run: the mapping's maximum above reserved concurrency. Pollers
 * above reserved are throttled, messages return and their receive count climbs toward the DLQ. Reserved 0 is an
 * operator's pause, judged apart (`pauseOverpulls` in the actuator). Reserved mode drives no mapping.
 */
export function overpulls(mode: ActuatorMode, limits: ConsumerLimits): boolean {
  if (mode === 'reserved' || limits.reserved === undefined || limits.reserved === 0) return false;
  return unbounded(limits.mapping) > limits.reserved;
}

/**
 * Whether the tick must rewrite the limits even when the law's value is unchanged: an overpull (above), or in
 * lockstep reserved above the mapping, which holds account concurrency nobody uses. That one is by design for one
 * tick after a shrink (reserved trails the mapping down): a write, not a repair.
 */
export function outOfStep(mode: ActuatorMode, limits: ConsumerLimits): boolean {
  if (limits.reserved === undefined && limits.mapping === undefined) return false;
  if (overpulls(mode, limits)) return true;
  return movesBoth(mode) && unbounded(limits.mapping) !== unbounded(limits.reserved);
}

/**
 * The actuators that move reserved concurrency and the mapping's bound together, in the same order: lockstep (the
 * mapping's MaximumConcurrency) and provisioned (its MaximumPollers, held here as the invocations they drive, 10 a
 * poller: `ConsumerLimits.mapping` is 10 × MaximumPollers in that mode).
 */
export function movesBoth(mode: ActuatorMode): boolean {
  return mode === 'lockstep' || mode === 'provisioned';
}

/**
 * The writes that move the consumer from its limits now to `desired`, in order, repairing on the way whatever a
 * hand edit or a half-done earlier tick left out of step. No value above `cap` is planned.
 *
 * The mapping's pollers do not look at reserved concurrency, so `MaximumConcurrency ≤ reserved` at every instant
 * (docs/controller.md, "Actuator modes"): the mapping is lowered first, reserved raised before the mapping is. A
 * write never takes the mapping further above reserved than it was. Lockstep growing 4 → 6: reserved 6, then
 * mapping 6; shrinking 6 → 5: mapping 5 (reserved stays 6 until the next tick, which writes 5); found at mapping
 * 10 over reserved 3 and holding 3: mapping 3, one write.
 *
 * Event-source mode owns the mapping only: reserved concurrency is the user's (the template sets it at or above
 * the cap), never written, and bounds the mapping: the plan never raises the mapping above it.
 */
export function planWrites(
  mode: ActuatorMode,
  limits: ConsumerLimits,
  desired: number,
  cap: number,
): Write[] {
  const mapping = unbounded(limits.mapping);
  const writes: Write[] = [];
  switch (mode) {
    case 'reserved':
      if (limits.reserved !== desired) writes.push({ target: 'reserved', value: desired });
      return writes;
    case 'lockstep':
    case 'provisioned': {
      // Shrinking, reserved trails the mapping by one tick: it comes down only to the maximum the pollers have
      // already worked under, so a poll in flight when the maximum drops is not throttled by reserved dropping
      // with it (its batch would return after the visibility timeout, one receive nearer the DLQ). The next tick
      // brings reserved down to the mapping. Never above the cap: a mapping found above it is no level to keep.
      const reserved =
        mapping > desired && Number.isFinite(mapping)
          ? Math.max(desired, Math.min(unbounded(limits.reserved), mapping, cap))
          : desired;
      if (mapping > desired) writes.push({ target: 'mapping', value: desired });
      if (limits.reserved !== reserved) writes.push({ target: 'reserved', value: reserved });
      if (mapping < desired) writes.push({ target: 'mapping', value: desired });
      return writes;
    }
    case 'event-source': {
      // Reserved set by hand under the mapping's valid minimum (2) leaves the least overpull the mapping allows.
      const value = Math.max(EVENT_SOURCE_MAX_CONCURRENCY.min, Math.min(desired, unbounded(limits.reserved)));
      if (value !== mapping) writes.push({ target: 'mapping', value });
      return writes;
    }
  }
}

export class UnsafeWriteError extends Error {
  override name = 'UnsafeWriteError';
}

/**
 * The last guard before the SDK: reserved 0 throttles every invocation, moto accepts -1 and NaN has no meaning,
 * so nothing outside [1, cap] (reserved) or [2, min(cap, 1000)] (the mapping, valid 2–1000) is sent; in provisioned
 * mode the mapping's bound is whole pollers: a multiple of 10 in [20, cap].
 */
export function assertWritable(write: Write, cap: number, mode: ActuatorMode = 'lockstep'): void {
  const { value } = write;
  const provisioned = mode === 'provisioned' && write.target === 'mapping';
  const low = provisioned
    ? PROVISIONED_MIN_CONCURRENCY
    : write.target === 'mapping'
      ? EVENT_SOURCE_MAX_CONCURRENCY.min
      : 1;
  const high = provisioned
    ? capInSteps(cap, mode)
    : write.target === 'mapping'
      ? Math.min(cap, EVENT_SOURCE_MAX_CONCURRENCY.max)
      : cap;
  const onGrid = !provisioned || value % INVOKES_PER_POLLER === 0;
  if (!Number.isInteger(value) || value < low || value > high || !onGrid) {
    const what = provisioned
      ? `MaximumPollers = ${value / INVOKES_PER_POLLER} (${value} concurrent invocations)`
      : `${write.target === 'mapping' ? 'MaximumConcurrency' : 'reserved concurrency'} = ${value}`;
    const range = provisioned
      ? `a multiple of ${INVOKES_PER_POLLER} in [${low}; ${high}]`
      : `an integer in [${low}; ${high}]`;
    throw new UnsafeWriteError(`refusing to write ${what}: must be ${range}`);
  }
}
