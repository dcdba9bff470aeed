import { type DepthSample, STANDARD_STARTING_INVOKES, workersRunning } from './depth-trend.ts';

/** What `pollersStepped` reads of a fast path's context (lib/control/fast-context.ts). */
interface SteppedContext {
  readonly applied: number;
  readonly lastChangeAt?: number;
  readonly batchSize?: number;
}

/**
 * The executions rose by more than half, and by at least the starting five, over an interval the applied value had
 * held through since before it began: the pollers stepped up to a value applied earlier (docs/aws-facts.md, "Event
 * source mapping"; under the one-step reading, a minute after the growth). A fall of the depth over that interval is
 * the new workers', not an end of the arrivals, and the rises before it were fewer workers' than now run: they prove
 * nothing of a burst's end.
 * Worked example (cold-steady, 150/s of 80 ms items from a new queue, one poller step a minute): slow start applied
 * 16 at 60 s while 8 ran; at 130 s the pollers stepped to 16 (80 → 160 in flight) and the depth fell 10,245 →
 * 9,854: read as a burst's end, the backlog's drain took 16 to 28 for a need of 14.
 */
export function pollersStepped(
  previous: DepthSample | undefined,
  sample: DepthSample,
  context: SteppedContext,
): boolean {
  if (previous === undefined || (context.lastChangeAt !== undefined && !(context.lastChangeAt < previous.at)))
    return false;
  const before = workersRunning(context.applied, previous.inFlight, context.batchSize);
  const now = workersRunning(context.applied, sample.inFlight, context.batchSize);
  return (
    before !== undefined &&
    now !== undefined &&
    now > STEPPED_RUNNING_FACTOR * before &&
    now - before >= STANDARD_STARTING_INVOKES
  );
}

/**
 * More than half again as many running, and at least the pollers' starting five more: a poller step, not workers
 * between two batches (10 ms items in batches of 10 show 1, 2 or 3 of 4 workers from one sample to the next).
 */
const STEPPED_RUNNING_FACTOR = 1.5;
