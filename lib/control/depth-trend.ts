/**
 * What two samples of the real-time visible depth say about arrivals, shared by the tick's law and the fast path.
 * SQS's depth is near real time while its metrics arrive 1–2 minutes late (docs/aws-facts.md, "SQS metrics"):
 * between datapoints the trend is the only view of a surge.
 */

import { type DepthSample, POLLER_SETTLE_SECONDS, settledThrough } from './depth-sample.ts';

export { type DepthSample, POLLER_SETTLE_SECONDS } from './depth-sample.ts';

export interface DepthTrend {
  /**
   * Arrivals were at least this many per second: the depth rose this fast (less its noise, `DEPTH_NOISE_MESSAGES`),
   * and completions are never negative.
   * True whatever the per-item time and whatever concurrency served the interval, so it is the one figure that
   * can tell a spike from a slower downstream: a slower downstream alone never makes the queue grow faster than
   * its arrivals were.
   */
  readonly arrivalsAtLeast: number;
  /**
   * λ = dV/dt + c ÷ S: only where the workers c that served the whole interval are known (the settled applied
   * value, or where a change began in it the fewest its messages in flight show: `workersThroughInterval`) and a
   * backlog waited at both ends (every worker busy: a full batch waiting for each).
   * Worked example: 2 workers at 20 ms serve 100/s; the queue went from 0 to 42,000 in 60 s: dV/dt = 700/s,
   * so λ ≈ 800/s.
   */
  readonly arrivalsEstimate?: number;
}

/**
 * What two readings of the approximate depth may differ by with nothing arriving (a few messages each way: SQS
 * counts by sampling its hosts). The lower bound on arrivals discounts it, so readings a moment apart cannot
 * prove a spike out of noise: 8 messages over 50 ms would read as 160/s; over 10 s the discount is 1/s.
 */
export const DEPTH_NOISE_MESSAGES = 10;

/**
 * A backlog is a full batch (the mapping's default BatchSize, 10) waiting for every applied worker. A few
 * messages come and go at any load: 50/s on 2 workers leaves 0–5 visible at any instant.
 */
export const BACKLOG_MESSAGES_PER_WORKER = 10;

/**
 * The standard mapping starts with five concurrent invokes and steps up from there (docs/aws-facts.md, "Event source
 * mapping"): five running says where the pollers start, not what a limit allowed.
 */
export const STANDARD_STARTING_INVOKES = 5;

/** The mapping's BatchSize where the adapter does not say (SQS's default). */
export const DEFAULT_BATCH_SIZE = 10;

/**
 * Messages in flight that make a worker busy: half a batch (the pollers still ramping to a raised maximum show
 * fewer), at least one. BatchSize 10: 5; BatchSize 1: 1, so a consumer with small batches gets slow start too.
 */
export function busyMessagesPerWorker(batchSize: number | undefined): number {
  return Math.max(1, Math.ceil(batchOf(batchSize) / 2));
}

/** The mapping's BatchSize where it makes sense, else SQS's default. */
export interface TrendInput {
  readonly previous: DepthSample | undefined;
  readonly now: number;
  readonly visible: number | undefined;
  /** The concurrency applied now. */
  readonly applied: number;
  /** Messages in flight now, where the sample read them (with the previous sample's: the workers that ran). */
  readonly inFlight?: number;
  /** The mapping's BatchSize (a busy worker holds a batch in flight). @default 10 */
  readonly batchSize?: number;
  readonly itemSeconds: number | undefined;
  /** When the applied value last changed. */
  readonly lastChangeAt: number | undefined;
  /** An older sample than this says little about now. */
  readonly maxElapsedSeconds: number;
}

export function depthTrend(input: TrendInput): DepthTrend | undefined {
  const { previous, visible, now } = input;
  if (previous === undefined || visible === undefined) return undefined;
  const elapsed = now - previous.at;
  if (!(elapsed > 0) || elapsed > input.maxElapsedSeconds) return undefined;
  const rise = (visible - previous.messages) / elapsed;
  const arrivalsAtLeast = Math.max(0, (visible - previous.messages - DEPTH_NOISE_MESSAGES) / elapsed);
  const workers = workersThroughInterval(input);
  const busy =
    workers !== undefined && Math.min(previous.messages, visible) >= BACKLOG_MESSAGES_PER_WORKER * workers;
  const s = input.itemSeconds;
  const serving = workersServing(input.applied, [previous.inFlight, input.inFlight], input.batchSize);
  const arrivalsEstimate =
    busy && s !== undefined && s > 0 && Number.isFinite(serving)
      ? Math.max(0, rise + serving / s)
      : undefined;
  return { arrivalsAtLeast, arrivalsEstimate };
}

/**
 * The per-item time the depth shows, a minute or two before CloudWatch's Duration can (its datapoints arrive late:
 * docs/aws-facts.md, "SQS metrics"). Over an interval one applied value held through, the depth rising to a
 * backlog (every worker busy), the workers served what arrived less the rise; at the arrival rate CloudWatch reports, that
 * is λ − rise, each item taking serving ÷ (λ − rise). Only where the depth rose beyond its noise and less than λ:
 * a rise of λ or more means the arrivals rose, which says nothing of the items. Where the arrivals did rise a
 * little (less than `RATE_CHANGE_FACTOR`, else a spike is proven and sized instead), this overstates the time, and
 * the need sized on it by at most a third. Heavier items and a saturated downstream look alike here: only growth
 * tells them apart (saturation.ts), so this sizes growth and the probe judges what it bought.
 * Worked example (heavier-items: 400/s, 5 workers, items 10 → 30 ms): 277 → 15,070 in 60 s is 246/s, so the 5
 * served 154/s: 32 ms an item, where CloudWatch still reports 10.
 */
export function itemSecondsShown(
  input: TrendInput,
  reportedArrivals: number | undefined,
): { readonly itemSeconds: number; readonly servedPerSecond: number } | undefined {
  const { previous, visible, now } = input;
  if (previous === undefined || visible === undefined || reportedArrivals === undefined) return undefined;
  const elapsed = now - previous.at;
  if (!(elapsed > 0) || elapsed > input.maxElapsedSeconds || !Number.isFinite(input.applied))
    return undefined;
  // One applied value served the whole interval, the pollers settled on it: a growth within it would have its
  // workers counted as if they had served all of it, and call the items heavier than they are.
  const settled = settledThrough(previous, input.lastChangeAt);
  // A backlog at the end, risen from the start: every worker was busy through most of the interval.
  const busy = visible >= BACKLOG_MESSAGES_PER_WORKER * input.applied;
  if (!settled || !busy || visible - previous.messages <= DEPTH_NOISE_MESSAGES) return undefined;
  const served = reportedArrivals - (visible - previous.messages) / elapsed;
  if (!(served > 0)) return undefined;
  const serving = workersForItemReading(input);
  if (serving === undefined) return undefined;
  return { itemSeconds: serving / served, servedPerSecond: served };
}

/**
 * The workers the arrivals over an interval are estimated with (`depthTrend`): the applied value, where the pollers
 * had settled on it (`settledThrough`); where they had not (a change within a settling time before the interval, or
 * in it), the fewest its messages in flight show running at either end, with a backlog waiting at the start. A raise
 * the pollers follow within the interval adds workers its start misses, a lowering removes some its end misses: the
 * fewest served throughout, and the arrivals estimated on them are the fewest the interval allows. Without them an
 * interval a growth began in (a tick's, a sample's) gave only the rise as the arrivals, and a tick after a sample's
 * growth CloudWatch's rate, two minutes old. Worked example (seed-spike with the controller 10 s into the minute, 10 s
 * poller steps: 50/s, then 800/s of 20 ms items from 600 s): the tick grew 2 → 4 at 610 s; at 620 s 13,392 wait,
 * risen 627/s, and 20 and 40 in flight at the two ends show 2 running throughout, which served 2 ÷ 0.022 s = 91/s
 * more: 718/s arriving, so the sample grows 4 → 19, where the rise alone sized 17 and the backlog then grew for
 * minutes (p99 0.52 × the target).
 */
function workersThroughInterval(input: TrendInput): number | undefined {
  const { previous, applied } = input;
  if (previous === undefined) return undefined;
  if (settledThrough(previous, input.lastChangeAt)) return applied;
  if (previous.inFlight === undefined || input.inFlight === undefined) return undefined;
  const running = workersServing(applied, [previous.inFlight, input.inFlight], input.batchSize);
  if (!(running > 0) || previous.messages < BACKLOG_MESSAGES_PER_WORKER * running) return undefined;
  return running;
}

/**
 * The workers that served a settled interval the depth rose through to a backlog. With a backlog at its start too,
 * the applied value: the pollers had reached it, and every worker was busy throughout; the messages in flight at one
 * instant miss the workers between two batches (held-out heavier-in-steps-mid-minute, seed 1: 20 in flight for 5
 * busy workers read 24 ms items as 11 ms, and the law grew two ticks later, on CloudWatch's figures). From a start
 * with no backlog, those running by the end, as their messages in flight show: the fewer at the start were waiting
 * for work, and the applied value, had some never run, would call the items heavier than they are.
 */
function workersForItemReading(input: TrendInput): number | undefined {
  const { previous, applied } = input;
  const running = workersRunning(applied, input.inFlight, input.batchSize);
  // Nothing in flight read: no proof the consumer runs at all, and nothing is read.
  if (running === undefined) return undefined;
  const backlogAtStart = previous !== undefined && previous.messages >= BACKLOG_MESSAGES_PER_WORKER * applied;
  return backlogAtStart ? applied : running;
}

/**
 * The workers that served an interval with a backlog waiting: the applied value, or fewer where the messages in
 * flight at either end show fewer batches running (the executions lagged the applied value: the mapping's pollers
 * had not stepped up to it yet, docs/aws-facts.md, "Event source mapping"). Sizing the arrivals on the applied
 * value there overstates them by what the missing workers would have served, and the growth sized on them winds
 * the limit up against pollers that cannot follow yet. Worked example (20 ms items, 14 applied, 4 running with 40
 * in flight, the depth rising 400/s): 400 + 4 ÷ 0.02 = 600/s, not 400 + 14 ÷ 0.02 = 1,100/s.
 */
function workersServing(
  applied: number,
  inFlight: readonly (number | undefined)[],
  batchSize: number | undefined,
): number {
  if (inFlight.some((n) => n === undefined || !Number.isFinite(n))) return applied;
  const fewest = Math.min(...(inFlight as number[]));
  return Math.min(applied, Math.ceil(fewest / batchOf(batchSize)));
}

/** The workers running at a sample: its messages in flight in whole batches, at most the applied value. */
export function workersRunning(applied: number, inFlight: number | undefined, batchSize: number | undefined) {
  if (inFlight === undefined || !Number.isFinite(inFlight) || inFlight <= 0) return undefined;
  return Math.min(applied, Math.ceil(inFlight / batchOf(batchSize)));
}

export const batchOf = (batchSize: number | undefined): number =>
  batchSize !== undefined && Number.isFinite(batchSize) && batchSize >= 1 ? batchSize : DEFAULT_BATCH_SIZE;

/**
 * The sample found a backlog waiting and fewer messages in flight than the applied workers hold when busy
 * (`busyMessagesPerWorker` each): the executions lagged the applied value, the pollers not up to it yet ("up to
 * 300 more concurrent invokes per minute", in steps AWS does not document; docs/aws-facts.md, "Event source
 * mapping"). The depth's course from such a sample is the course of fewer workers than the applied value, so
 * growth no need sizes waits for an interval the applied value worked throughout (the tick's growth before data)
 * rather than wind the limit up against pollers that cannot follow yet.
 * Worked example (150/s of 80 ms items from quiet, pollers stepping once a minute): at 60 s slow start has applied
 * 16 while 5 run (50 in flight, 5,863 waiting); at 120 s the 16 run and the depth fell to 3,297: growth waits.
 */
export function executionsLagged(sample: DepthSample, applied: number, batchSize?: number): boolean {
  // Nothing in flight at all is not a ramp (the pollers start at five): the mapping is not delivering, and the
  // depth says nothing of how far its pollers are.
  if (sample.inFlight === undefined || !(sample.inFlight > 0) || !Number.isFinite(applied)) return false;
  const backlog = sample.messages >= BACKLOG_MESSAGES_PER_WORKER * applied;
  return backlog && sample.inFlight < busyMessagesPerWorker(batchSize) * applied;
}

/**
 * How long after a change the executions may lag it before the lag is no longer the pollers' ramp: two of its
 * steps at the coarsest reading (one a minute, docs/aws-facts.md, "Event source mapping"). Past it, fewer running
 * than allowed is the consumer's own (a worker between batches of one, a FIFO queue's few message groups), and
 * holding growth for it would hold for good while the age climbs.
 */
export const LAG_AFTER_CHANGE_SECONDS = 2 * POLLER_SETTLE_SECONDS;

/** `executionsLagged`, within `LAG_AFTER_CHANGE_SECONDS` of the last change: the pollers still ramping to it. */
export function lagSinceGrowth(
  sample: DepthSample,
  applied: number,
  lastChangeAt: number | undefined,
  batchSize?: number,
): boolean {
  if (lastChangeAt === undefined || !(sample.at - lastChangeAt < LAG_AFTER_CHANGE_SECONDS)) return false;
  return executionsLagged(sample, applied, batchSize);
}

/**
 * A backlog waits, and the messages in flight fit in full batches of the value the last growth started from
 * (`grownFrom`): the pollers may not have followed it. Half a batch a worker (`busyMessagesPerWorker`) calls a
 * growth of less than double followed at once, and a rise over such an interval is the old value's, not the new
 * one's. Worked example (held-out quiet-then-surge, one poller step a minute: 400/s of 40 ms items after 40 quiet
 * minutes): slow start doubled 16 → 28 ten seconds after the pollers stepped to 16; 10 s on, 150 in flight (15
 * running) and 18,402 waiting read as 28 busy, and slow start fitted a service to "a rise at 28" and grew to the
 * cap.
 */
export function executionsAtGrownFrom(
  sample: DepthSample,
  applied: number,
  batchSize: number | undefined,
  growth: { readonly from: number | undefined; readonly at: number | undefined },
): boolean {
  const grownFrom = growth.from;
  if (grownFrom === undefined || !(grownFrom < applied) || sample.inFlight === undefined) return false;
  // Later than the pollers' ramp can lag (`LAG_AFTER_CHANGE_SECONDS`), fewer running is the consumer's own.
  if (growth.at === undefined || !(sample.at - growth.at < LAG_AFTER_CHANGE_SECONDS)) return false;
  const backlog = sample.messages >= BACKLOG_MESSAGES_PER_WORKER * applied;
  return backlog && sample.inFlight > 0 && sample.inFlight <= batchOf(batchSize) * grownFrom;
}

/**
 * The depth alone shows a backlog the applied concurrency cannot work off within the setpoint: a backlog at both
 * samples, and not falling fast enough to be gone by then. It needs no per-item time.
 */
export function depthShowsBacklog(
  previous: DepthSample | undefined,
  now: number,
  visible: number | undefined,
  applied: number,
  setpointSeconds: number,
  maxElapsedSeconds: number,
): boolean {
  if (previous === undefined || visible === undefined) return false;
  const elapsed = now - previous.at;
  if (!(elapsed > 0) || elapsed > maxElapsedSeconds) return false;
  if (Math.min(visible, previous.messages) < BACKLOG_MESSAGES_PER_WORKER * applied) return false;
  const drainPerSecond = (previous.messages - visible) / elapsed;
  return drainPerSecond * setpointSeconds < visible;
}

/**
 * The trend shows arrivals well above what CloudWatch last reported: a spike, not noise (40 Poisson arrivals in
 * 50 ms vary by ±16 %) and not a slower downstream. Without a reported rate nothing is confirmed.
 */
export const RATE_CHANGE_FACTOR = 1.5;

export function arrivalsRose(trend: DepthTrend | undefined, reported: number | undefined): boolean {
  return (
    trend !== undefined &&
    reported !== undefined &&
    trend.arrivalsAtLeast > 0 &&
    trend.arrivalsAtLeast > RATE_CHANGE_FACTOR * reported
  );
}

/**
 * The workers the depth proves busy at a sample: every applied one, where a backlog waits (`BACKLOG_MESSAGES_PER_WORKER`
 * each) and each holds at least half a batch in flight (`busyMessagesPerWorker`). Whatever the per-item time, the
 * load keeps that many at work now, a fact CloudWatch's late datapoints cannot contradict: growth it has not
 * confirmed is measured from it as from the need it confirmed (`unconfirmedLimit`), so a load that rises step after
 * step faster than CloudWatch reports it is not held at half again a need two minutes old. Undefined where fewer
 * run (the pollers still ramping to a raised maximum prove nothing past what runs) or no backlog waits.
 * Worked example (20 ms items, 480 applied, 35,000/s arriving where CloudWatch still reports 10,000/s, a need of
 * 223 at 0.9): 4,400 in flight and 945,041 waiting prove 480 busy, so unconfirmed growth may reach 720, not stop at
 * 480.
 */
export function workersProvenBusy(
  sample: { readonly messages: number | undefined; readonly inFlight?: number | undefined },
  applied: number,
  batchSize?: number,
): number | undefined {
  const { messages, inFlight } = sample;
  if (messages === undefined || inFlight === undefined || !Number.isFinite(applied) || !(applied > 0)) {
    return undefined;
  }
  const backlog = messages >= BACKLOG_MESSAGES_PER_WORKER * applied;
  return backlog && inFlight >= busyMessagesPerWorker(batchSize) * applied ? applied : undefined;
}

/**
 * Slow start's proof, for a queue whose per-item time is not known yet (a new queue, or the first burst after a
 * silence longer than the metric window): the depth rose beyond its noise since the previous sample, with a
 * backlog waiting and every allowed worker busy (`busyMessagesPerWorker`: half a batch of the mapping's
 * BatchSize, at least one, in flight for each: pollers still ramping to a raised maximum show fewer). With no healthy per-item time to be
 * slower than, that rise proves arrivals above what the applied concurrency serves, not a slower downstream.
 * Worked example: 2 applied, 0 → 6,700 visible in 10 s with 20 in flight: proof.
 */
export function slowStartProof(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  batchSize?: number,
): boolean {
  if (previous === undefined || !(sample.at > previous.at)) return false;
  const rose = sample.messages - previous.messages > DEPTH_NOISE_MESSAGES;
  return rose && workersProvenBusy(sample, applied, batchSize) !== undefined;
}

/**
 * The depth rose beyond its noise over an interval the applied value held through, with every allowed worker busy
 * at one end of it (`busyMessagesPerWorker` in flight each, as for slow start's proof): arrivals above what that value serves.
 * Where it falls next with the value unchanged, the arrivals fell: a burst ended (`backlogLeftBehind`).
 */
export function roseWithAppliedHeld(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  lastChangeAt: number | undefined,
  batchSize?: number,
): boolean {
  if (previous === undefined || !(sample.at > previous.at) || !Number.isFinite(applied)) return false;
  if (previous.settled === false || (lastChangeAt !== undefined && lastChangeAt > previous.at)) return false;
  const inFlight = Math.max(previous.inFlight ?? 0, sample.inFlight ?? 0);
  return (
    sample.messages - previous.messages > DEPTH_NOISE_MESSAGES &&
    inFlight >= busyMessagesPerWorker(batchSize) * applied
  );
}

/**
 * A backlog a burst left behind, for a queue whose per-item time is not known yet: the depth falls, but at this
 * pace what waits is not gone within the target. Once the burst has ended (the depth rose at this applied value,
 * then fell with it unchanged), what runs works off at least the drain, each worker at least drain ÷ applied, so
 * the concurrency that works the backlog off within the setpoint is at most applied × visible ÷ (drain ×
 * setpoint). Undefined when the depth is not falling, or falls fast enough. While a burst still arrives the drain
 * understates what the workers serve (the head then waits backlog ÷ service, not backlog ÷ drain): the caller
 * uses this only after the burst ended. The bound is above 2 × applied whenever the setpoint is at most half the
 * target (the default), so there the caller's doubling is what limits the step; it binds only for a setpoint
 * closer to the target.
 * Worked example (60,000 messages in 20 s after half an hour of silence, 4 applied, target 60 s, setpoint 30 s):
 * 52,133 → 48,942 in 10 s is 319/s, 153 s to drain: a bound of 4 × 48,942 ÷ (319 × 30) → 21, so the step is the
 * doubling, 4 → 8.
 */
export function backlogLeftBehind(
  previous: DepthSample | undefined,
  sample: DepthSample,
  applied: number,
  seconds: { readonly target: number; readonly setpoint: number },
): number | undefined {
  if (previous === undefined || !(sample.at > previous.at) || !Number.isFinite(applied)) return undefined;
  if (!depthFalling(previous, sample.messages)) return undefined;
  if (sample.messages < BACKLOG_MESSAGES_PER_WORKER * applied) return undefined;
  const drainPerSecond = (previous.messages - sample.messages) / (sample.at - previous.at);
  if (drainPerSecond * seconds.target >= sample.messages) return undefined;
  return Math.ceil((applied * sample.messages) / (drainPerSecond * seconds.setpoint));
}

/** The depth fell beyond its noise since the previous sample: what runs is working the backlog off. */
export function depthFalling(previous: DepthSample | undefined, visible: number): boolean {
  return previous !== undefined && previous.messages - visible > DEPTH_NOISE_MESSAGES;
}
