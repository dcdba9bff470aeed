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

/**
 * The writes that move the consumer from `applied` to `desired`, in order. Pure, so the ordering is tested
 * without AWS.
 *
 * The mapping's pollers do not look at reserved concurrency: pollers above it get throttled, messages return,
 * their receive count grows and good messages reach the DLQ. So `MaximumConcurrency ≤ reserved` at every
 * instant (AWS-FACTS): growing raises reserved first, shrinking lowers the mapping first. Growing 4 → 6 in
 * lockstep: reserved 6, then mapping 6 (between the two, 4 ≤ 6); shrinking 6 → 5: mapping 5, then reserved 5.
 */
export function planWrites(
  mode: ActuatorMode,
  applied: number,
  desired: number,
  config: ScalerConfig,
): Write[] {
  const growing = desired > applied;
  switch (mode) {
    case 'reserved':
      return [{ target: 'reserved', value: desired }];
    case 'lockstep':
      return growing
        ? [
            { target: 'reserved', value: desired },
            { target: 'mapping', value: desired },
          ]
        : [
            { target: 'mapping', value: desired },
            { target: 'reserved', value: desired },
          ];
    case 'event-source':
      // Reserved is held at the cap; asserting it before every raise keeps the invariant even if a deploy or
      // a hand edit lowered it. Lowering the mapping can never break it, so shrinking writes once.
      return growing
        ? [
            { target: 'reserved', value: config.maxConcurrency },
            { target: 'mapping', value: desired },
          ]
        : [{ target: 'mapping', value: desired }];
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
