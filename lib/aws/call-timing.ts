import { FAST_LOOP_END_BEFORE_TICK_SECONDS, fastPathOn, type ScalerConfig } from '../control/index.ts';

/**
 * How long the controller's AWS calls may take, and what follows from it: the client's timeouts and
 * retries are set here once, and the function's timeout and the fast path's deadlines follow from them. No SDK
 * import: the CDK construct reads the function timeout from here at synth.
 */

/**
 * Throttling (`TooManyRequestsException`: Lambda's control plane shares 15 requests/second per account) and 5xx
 * are retried by the SDK's adaptive mode, which also slows this client down when the account is throttled.
 * Three attempts keep a tick well inside one schedule period; whatever still fails holds this tick.
 */
export const RETRY_SETTINGS = { retryMode: 'adaptive', maxAttempts: 3 } as const;

/** How long one attempt of one call may take; the SDK retries a timed-out attempt like any transient error. */
export interface HttpTimeouts {
  /** Until the TCP connection is up (DNS included). */
  readonly connectMs: number;
  /**
   * From sending the request until the response starts; also the longest a socket may sit silent after that. The
   * whole attempt, body included, gets connectMs + 2 × answerMs (lib/aws/deadline-handler.ts).
   */
  readonly answerMs: number;
}

/**
 * Sized for a tick. The controller's function timeout is min(60, tick ÷ 2) s and the tick is a whole number of
 * minutes (EventBridge rates), so a tick has 30 s at the least. Its calls come in at most 6 rounds, one after
 * another: the reads (in parallel), a write, a raise the unreserved floor refuses, the account-headroom reads (in
 * parallel), and the 2 writes that bring both limits to what the headroom allows (docs/controller.md, "One
 * tick"). A round whose 3 attempts all time out ends the tick (it holds), so the longest tick times out twice in
 * each of 5 rounds and three times in the last: (5 × 2 + 3) × 2 s = 26 s, plus the SDK's backoff (under 0.2 s a
 * call for a timeout) and the answers themselves, inside 30 s with room for init and the log line. A silent
 * endpoint holds the tick after about 6 s (3 × 2 s). In the same region an AWS API call answers in tens to
 * hundreds of milliseconds and connects in a few, so 2 s and 1 s leave 10× slack.
 */
export const CONTROLLER_TIMEOUTS: HttpTimeouts = { connectMs: 1_000, answerMs: 2_000 };

/**
 * One call's worst case: every attempt times out (the connect timeout or the answer timeout, whichever fires).
 * 3 attempts × 2 s = 6 s.
 */
export const CALL_WORST_SECONDS =
  (RETRY_SETTINGS.maxAttempts * Math.max(CONTROLLER_TIMEOUTS.connectMs, CONTROLLER_TIMEOUTS.answerMs)) / 1000;

/**
 * No fast-path write starts later than one call's worst case before the next scheduled tick, so every fast-path
 * write lands in its own tick's slot, never in the next one, where the next tick would take the mapping's
 * `LastModified` for a repeat of itself.
 */
export const FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS = CALL_WORST_SECONDS;

/**
 * The longest one member's sample may take: it starts at least 10 s before the next tick, its writes start no later
 * than one call's worst case before it and end by the tick, and a refused raise adds the headroom reads (one more
 * call's worst case): 10 + 6 = 16 s, and 4 s of slack for the backoff and the answers.
 */
export const FAST_SAMPLE_WORST_SECONDS = FAST_LOOP_END_BEFORE_TICK_SECONDS + CALL_WORST_SECONDS + 4;

/**
 * The controller function's timeout. One invocation is a tick or one sample between ticks (the samples come back
 * through the ticker queue, lib/cdk/ticker-queue.ts): a tick is a handful of calls, half a tick at most a minute;
 * a sample takes up to `FAST_SAMPLE_WORST_SECONDS` (20 s) a member, and a shared budget samples every member in
 * one invocation. 15 minutes is Lambda's maximum. The ticker queue's visibility timeout is this (Lambda refuses a
 * mapping whose queue's is shorter).
 */
export function controllerTimeoutSeconds(config: ScalerConfig, members = 1): number {
  const tick = Math.min(60, config.tickSeconds / 2);
  return fastPathOn(config) ? Math.min(900, Math.max(tick, members * FAST_SAMPLE_WORST_SECONDS)) : tick;
}
