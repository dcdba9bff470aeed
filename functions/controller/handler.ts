import { errorMessage, failureKind } from '../../lib/aws/aws-errors.ts';
import {
  FAST_SAMPLE_WORST_SECONDS,
  FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS,
} from '../../lib/aws/call-budget.ts';
import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { LambdaResponseError } from '../../lib/aws/lambda-reads.ts';
import { QueueResponseError, sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import {
  FAST_LOOP_END_BEFORE_TICK_SECONDS,
  type FastPathContext,
  type FastSampleResult,
  fastPathContext,
  fastPathOn,
  runFastSample,
  runTick,
} from '../../lib/control/index.ts';
import type { Actuation, LambdaActuator } from './actuator.ts';
import { pauseOverpulls } from './actuator.ts';
import { scaleEventPeriod } from './carried-state.ts';
import type { FastLoopSummary, FastOutcome, TickOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import { type ControllerSettings, RESOURCE_VARIABLES } from './resources.ts';
import { eventTime, isRepeat, isStale } from './schedule-event.ts';
import { createTickPorts, tickOptions } from './tick-ports.ts';

export interface ControllerDependencies {
  readonly settings: ControllerSettings;
  readonly clients: AwsClients;
  readonly calls: CallLog;
  readonly reporter: Reporter;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** Waits; the tests step a virtual clock instead. @default setTimeout */
  readonly sleep?: (seconds: number) => Promise<void>;
}

/** What Lambda passes as the handler's context (only the remaining time is used). */
export interface InvocationContext {
  getRemainingTimeInMillis?(): number;
}

const HINTS: Record<string, string> = {
  'not-found': `a resource is gone: check ${Object.values(RESOURCE_VARIABLES).join(', ')} against the stack; the controller holds and retries at the next tick`,
  throttled: 'Lambda or CloudWatch throttled after the SDK retries: held this tick',
  service: 'AWS answered 5xx after the SDK retries: held this tick',
  // The limits are CONTROLLER_TIMEOUTS (clients.ts; the error names the one that fired). The function runs outside
  // any VPC and Lambda sets AWS_REGION itself: what remains is an endpoint variable pointing nowhere, or AWS itself.
  timeout:
    "AWS did not answer in time after the SDK retries: check any AWS_ENDPOINT_URL* variable on the function, else the region's AWS Health Dashboard; held this tick",
  conflict: 'the resource is being updated (a deploy?): skipped this tick',
  response: 'an AWS response could not be trusted: held this tick',
};

function failureOf(error: unknown) {
  return error instanceof QueueResponseError || error instanceof LambdaResponseError
    ? 'response'
    : failureKind(error);
}

/** A failed tick, or a failed fast-path sample (the same fields: what failed, the error, what to check). */
export function failed(error: unknown): Extract<TickOutcome, { kind: 'failed' }> {
  const failure = failureOf(error);
  return {
    kind: 'failed',
    failure,
    error: errorMessage(error),
    hint: HINTS[failure] ?? 'unexpected error: held this tick',
  };
}

/** The tick's outcome, and what the fast path needs to go on sampling after it. */
export interface TickRun {
  readonly outcome: TickOutcome;
  readonly fast?: { readonly context: FastPathContext; readonly actuator: LambdaActuator };
}

/**
 * One scheduled tick. Never throws for an AWS failure: a scheduled Lambda that throws is retried and can
 * crash-loop, and a hold is always safe. Only a bug in this code (not an AWS answer) escapes.
 */
export async function controllerTick(
  deps: ControllerDependencies,
  event: unknown,
  now: number,
): Promise<TickRun> {
  const { config, resources } = deps.settings;
  const scheduledAt = eventTime(event);
  if (scheduledAt !== undefined && isStale(scheduledAt, now, config.tickSeconds)) {
    return {
      outcome: {
        kind: 'skipped',
        reason: 'skip:stale-event',
        detail: { eventAgeSeconds: now - scheduledAt },
      },
    };
  }
  const ports = createTickPorts(deps.clients, resources, config, now);
  try {
    const evidence = await ports.evidence();
    const change = {
      mappingModifiedAt: evidence.mappingModifiedAt,
      scaleEventPeriod: scaleEventPeriod(evidence),
    };
    const options = tickOptions(config);
    if (scheduledAt !== undefined && isRepeat(scheduledAt, change, options.periodSeconds)) {
      return { outcome: { kind: 'skipped', reason: 'skip:repeat', detail: { scheduledAt, ...change } } };
    }
    const {
      value: result,
      actuation,
      writes,
    } = await ports.actuator.recording(() => runTick(ports, config, now, options));
    const reading = await ports.actuator.read();
    const appliedAfter = ports.actuator.appliedNow;
    const outcome: TickOutcome = {
      kind: 'decided',
      result,
      actuation,
      writes,
      appliedAfter,
      pauseOverpull: pauseOverpulls(reading),
      config,
    };
    if (!fastPathOn(config) || appliedAfter === undefined) return { outcome };
    return {
      outcome,
      fast: {
        context: fastPathContext(result.snapshot, result.decision, appliedAfter, config),
        actuator: ports.actuator,
      },
    };
  } catch (error) {
    return { outcome: failed(error) };
  }
}

/**
 * The fast path: between this tick and the next, idle or busy, one GetQueueAttributes about every
 * `fastSampleSeconds`, growth when the depth demands it. No Lambda read per sample (the control plane is 15
 * requests/s per account): the actuator carries the limits the tick read and wrote, and reads them afresh only
 * before a growth, so an operator's pause or hand edit since the tick is seen first.
 *
 * The loop belongs to its schedule slot, not to the invocation: its samples fall on the slot's grid and end 10 s
 * before the next scheduled tick, and no write starts within 6 s of it. An event delivered late (a retry, a
 * duplicate) samples what is left of its slot and never writes into the next one, where that tick would take the
 * write for its own and skip (`skip:repeat`).
 */
async function fastLoop(
  deps: ControllerDependencies,
  fast: NonNullable<TickRun['fast']>,
  slot: { readonly started: number; readonly scheduledAt: number | undefined },
  context: InvocationContext | undefined,
): Promise<FastLoopSummary> {
  const { config, resources } = deps.settings;
  const sleep = deps.sleep ?? ((s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000)));
  const queue = sqsQueuePort(deps.clients.sqs, resources.queueUrl);
  const { actuator } = fast;
  let ctx = fast.context;
  let samples = 0;
  let growths = 0;
  let maxVisible = 0;
  const slotStart = Math.min(slot.started, slot.scheduledAt ?? slot.started);
  const nextTick = slotStart + config.tickSeconds;
  const end = nextTick - FAST_LOOP_END_BEFORE_TICK_SECONDS;
  actuator.writeDeadline = { at: nextTick - FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS, clock: deps.clock };
  const summary = (stoppedBy: FastLoopSummary['stoppedBy']): FastLoopSummary => ({
    samples,
    growths,
    maxVisible,
    appliedAfter: actuator.appliedNow,
    stoppedBy,
  });
  for (let at = slotStart + config.fastSampleSeconds; at <= end; at += config.fastSampleSeconds) {
    if (at <= slot.started) continue;
    const wait = Math.max(0, at - deps.clock());
    // Lambda's time left when the sample would start: too little for its worst case, and it is not waited for.
    const remaining = context?.getRemainingTimeInMillis?.();
    if (remaining !== undefined && remaining - wait * 1000 < FAST_SAMPLE_WORST_SECONDS * 1000) {
      return summary('remaining-time');
    }
    if (wait > 0) await sleep(wait);
    deps.calls.reset();
    const now = deps.clock();
    let recorded: Awaited<ReturnType<typeof actuator.recording<FastSampleResult>>>;
    try {
      recorded = await actuator.recording(() =>
        runFastSample({ queue, concurrency: actuator }, ctx, config, now),
      );
    } catch (error) {
      deps.reporter.reportFast(failed(error), deps.calls, now);
      return summary('error');
    }
    const { value: sample, actuation, writes } = recorded;
    samples++;
    maxVisible = Math.max(maxVisible, sample.depth.visible);
    ctx = sample.context;
    if (sample.paused) {
      deps.reporter.reportFast({ kind: 'paused', paused: sample.paused, sample }, deps.calls, now);
      return summary('paused');
    }
    // A write the deadline kept back is no error: the calls were slow, and the next tick decides.
    if (actuation.kind === 'failed' && actuation.failure === 'deadline') return summary('deadline');
    if (actuation.kind === 'failed') {
      // Nothing is written again this minute: a throttled control plane is not asked again every 10 s. What a
      // failed write left out of step the next tick repairs.
      deps.reporter.reportFast(failedWrite(actuation), deps.calls, now);
      return summary('error');
    }
    if (sample.changed || actuation.kind === 'clamped') {
      if (sample.changed) growths++;
      const outcome: FastOutcome = {
        kind: sample.changed ? 'grew' : 'clamped',
        sample,
        actuation,
        writes,
        applied: sample.applied,
        appliedAfter: actuator.appliedNow,
        config,
      };
      deps.reporter.reportFast(outcome, deps.calls, now);
      // The headroom will not have grown in 10 s: the next tick asks again.
      if (!sample.changed) return summary('headroom');
    }
  }
  return summary('deadline');
}

/** A fast-path write that failed, reported like a failed sample (what failed, the error, what to check). */
export function failedWrite(actuation: Extract<Actuation, { kind: 'failed' }>): FastOutcome {
  const failure =
    actuation.failure === 'unsafe' || actuation.failure === 'deadline' ? 'other' : actuation.failure;
  return {
    kind: 'failed',
    failure,
    error: actuation.error,
    hint: `${HINTS[failure] ?? 'unexpected error: held this tick'}; the fast path stops until the next tick`,
  };
}

/**
 * The Lambda handler's body: tick, report, then the fast path until 10 s before the next tick, idle queue or
 * busy (a burst after silence is met within a sample, not a minute later); returns the tick's outcome.
 */
export function createHandler(deps: ControllerDependencies) {
  return async (event: unknown, context?: InvocationContext): Promise<TickOutcome> => {
    deps.calls.reset();
    const now = deps.clock();
    const run = await controllerTick(deps, event, now);
    deps.reporter.report(run.outcome, deps.calls, now);
    if (run.fast) {
      const slot = { started: now, scheduledAt: eventTime(event) };
      const summary = await fastLoop(deps, run.fast, slot, context);
      deps.reporter.reportFastLoop(summary);
    }
    return run.outcome;
  };
}
