/**
 * A sample of the queue's real-time depth, and whether one applied value, worked at by the pollers, served the
 * interval that starts at it: the depth trend (depth-trend.ts) reads the workers' service off such an interval only.
 */

/** A visible-depth sample: when it was taken (seconds) and what it showed. */
export interface DepthSample {
  readonly at: number;
  readonly messages: number;
  /** Messages received and not yet deleted (in flight), where the sample read them. */
  readonly inFlight?: number;
  /**
   * False when the applied value is known to have changed within a poller settling time before the sample or at
   * any time after it (the Lambda knows this from the mapping's exact LastModified, finer than its carried
   * `lastChangeAt`). True when the sample's own tick lowered a settled value (`loweredAtOnce`): the value binds
   * from the sample on, whatever `lastChangeAt` says. Undefined: judge by `lastChangeAt`.
   */
  readonly settled?: boolean;
}

/** A sample of `messages` visible at `at`, with those in flight where they were read. */
export function sampleAt(at: number, messages: number, inFlight: number | undefined): DepthSample {
  return { at, messages, ...(inFlight === undefined ? {} : { inFlight }) };
}

/**
 * The event source mapping adds pollers up to 300 a minute (docs/aws-facts.md, "Event source mapping"), so a
 * raised maximum may take a minute to be worked at: until then the depth trend reflects the old concurrency, and
 * c ÷ S would overstate the service.
 */
export const POLLER_SETTLE_SECONDS = 60;

/**
 * One applied value served the interval from `previous` on, the pollers settled on it: a change at least
 * `POLLER_SETTLE_SECONDS` before the interval began, or a lowering at the sample's own instant (`settled: true`)
 * with no change after it.
 */
export function settledThrough(previous: DepthSample, lastChangeAt: number | undefined): boolean {
  if (previous.settled === true) return lastChangeAt === undefined || lastChangeAt <= previous.at;
  return (
    previous.settled !== false &&
    (lastChangeAt === undefined || lastChangeAt + POLLER_SETTLE_SECONDS <= previous.at)
  );
}

/**
 * A lowered limit binds once the batches already taken end: lowering `MaximumConcurrency` stops no running
 * invocation, and new ones past it wait (docs/aws-facts.md, "Event source mapping"), so it holds within a long poll,
 * the batching window and the running invocations, well within a tick. Only a raise waits for the pollers' ramp.
 * Workers above the lowered value early in the minute served more than the value counts, so a reading over it calls
 * the items a little lighter, never heavier. So a tick that lowers a value the pollers had settled on leaves a sample
 * that starts a settled interval at once, and the next tick reads the workers' service over its whole minute rather
 * than waiting a minute more. Worked example (held-out failover-slow, seed 1, one poller step a minute: 300/s, items
 * 15 → 70 ms at 600 s): an idle shrink 7 → 6 at 600 s; at 660 s, 13,299 waiting, the tick reads the heavier items off
 * the minute and grows 6 → 13 (heavier-items.ts bounds that reading), where it grew 6 → 7 on CloudWatch's 16 ms.
 */
export function loweredAtOnce(
  sample: DepthSample,
  from: { readonly applied: number; readonly to: number; readonly settled: boolean },
): DepthSample {
  return from.settled && from.to < from.applied ? { ...sample, settled: true } : sample;
}
