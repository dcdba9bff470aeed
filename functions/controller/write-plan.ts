import {
  type ActuatorMode,
  EVENT_SOURCE_MAX_CONCURRENCY,
  type ScalerConfig,
} from '../../lib/control/index.ts';

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

/**
 * Whether the limits break the actuator's contract, so the tick must rewrite them even when the law's value is
 * unchanged. Lockstep: the mapping's maximum and reserved concurrency equal (above reserved the pollers overpull;
 * below it reserved holds account concurrency nobody uses, as it does for one tick after a shrink). Event-source: the mapping's maximum not above
 * reserved. Reserved mode drives nothing else.
 */
export function outOfStep(mode: ActuatorMode, limits: ConsumerLimits): boolean {
  if (limits.reserved === undefined && limits.mapping === undefined) return false;
  switch (mode) {
    case 'reserved':
      return false;
    case 'lockstep':
      return unbounded(limits.mapping) !== unbounded(limits.reserved);
    case 'event-source':
      return limits.reserved !== undefined && unbounded(limits.mapping) > limits.reserved;
  }
}

/**
 * The writes that move the consumer from its limits now to `desired`, in order, repairing on the way whatever a
 * hand edit or a half-done earlier tick left out of step. Pure, so the ordering is tested without AWS.
 *
 * The mapping's pollers do not look at reserved concurrency: pollers above it get throttled, messages return,
 * their receive count grows and good messages reach the DLQ. So `MaximumConcurrency ≤ reserved` at every
 * instant (AWS-FACTS): the mapping is lowered first, reserved raised before the mapping is. A write never takes
 * the mapping further above reserved than it was. Lockstep growing 4 → 6: reserved 6, then mapping 6; shrinking
 * 6 → 5: mapping 5 (reserved stays 6 until the next tick, which writes 5); found at mapping 10 over reserved 3
 * and holding 3: mapping 3, one write.
 */
export function planWrites(
  mode: ActuatorMode,
  limits: ConsumerLimits,
  desired: number,
  config: ScalerConfig,
): Write[] {
  const mapping = unbounded(limits.mapping);
  const writes: Write[] = [];
  switch (mode) {
    case 'reserved':
      if (limits.reserved !== desired) writes.push({ target: 'reserved', value: desired });
      return writes;
    case 'lockstep': {
      // Shrinking, reserved trails the mapping by one tick: it comes down only to the maximum the pollers have
      // already worked under, so a poll in flight when the maximum drops is not throttled by reserved dropping
      // with it (its batch would return after the visibility timeout, one receive nearer the DLQ). The next tick
      // brings reserved down to the mapping.
      const reserved =
        mapping > desired && Number.isFinite(mapping)
          ? Math.max(desired, Math.min(unbounded(limits.reserved), mapping))
          : desired;
      if (mapping > desired) writes.push({ target: 'mapping', value: desired });
      if (limits.reserved !== reserved) writes.push({ target: 'reserved', value: reserved });
      if (mapping < desired) writes.push({ target: 'mapping', value: desired });
      return writes;
    }
    case 'event-source': {
      // Reserved is held at the cap; asserting it before every raise keeps the invariant even if a deploy or
      // a hand edit lowered it. Lowering the mapping can never break it, so shrinking writes once.
      const growing = mapping < desired;
      const reservedBelow = limits.reserved !== undefined && Math.min(mapping, desired) > limits.reserved;
      if (mapping > desired) writes.push({ target: 'mapping', value: desired });
      if (growing || reservedBelow) writes.push({ target: 'reserved', value: config.maxConcurrency });
      if (growing) writes.push({ target: 'mapping', value: desired });
      return writes;
    }
  }
}

export class UnsafeWriteError extends Error {
  override name = 'UnsafeWriteError';
}

/**
 * The last guard before the SDK: reserved 0 throttles every invocation, moto accepts -1 and NaN has no meaning,
 * so nothing outside [1, cap] (reserved) or [max(2, 1), min(cap, 1000)] (the mapping, valid 2–1000) is sent.
 */
export function assertWritable(write: Write, config: ScalerConfig): void {
  const { value } = write;
  const low = write.target === 'mapping' ? EVENT_SOURCE_MAX_CONCURRENCY.min : 1;
  const high =
    write.target === 'mapping'
      ? Math.min(config.maxConcurrency, EVENT_SOURCE_MAX_CONCURRENCY.max)
      : config.maxConcurrency;
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new UnsafeWriteError(
      `refusing to write ${write.target === 'mapping' ? 'MaximumConcurrency' : 'reserved concurrency'} = ${value}: must be an integer in [${low}; ${high}]`,
    );
  }
}
