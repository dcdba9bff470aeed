import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import type { TickerPort } from '../../lib/aws/ticker.ts';
import { startLoop } from '../../lib/control/control-loop.ts';
import { type FastPathContext, fastPathContext, fastPathOn, runTick } from '../../lib/control/index.ts';
import type { LambdaActuator } from './actuator.ts';
import { pauseOverpulls } from './actuator.ts';
import { scaleEventPeriod } from './carried-state.ts';
import { failed } from './failure.ts';
import { drivenElsewhereSkip, type TickOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import type { ControllerSettings } from './resources.ts';
import { type LoopMemberRun, Sampler } from './sampler.ts';
import { eventTime, isRepeat, isStale, repeatCheckTime } from './schedule-event.ts';
import { TickMemory } from './tick-memory.ts';
import { actuatorFor, createTickPorts, lambdaTickOptions } from './tick-ports.ts';
import { isTickerEvent } from './ticker-message.ts';

export interface ControllerDependencies {
  readonly settings: ControllerSettings;
  readonly clients: AwsClients;
  readonly calls: CallLog;
  readonly reporter: Reporter;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** The ticker queue the samples between ticks come through; none: the controller only ticks. */
  readonly ticker?: TickerPort;
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
  memory: TickMemory = new TickMemory(),
): Promise<TickRun> {
  const { config, resources } = deps.settings;
  const scheduledAt = eventTime(event);
  if (scheduledAt !== undefined && isStale(scheduledAt, now, config.tickSeconds)) {
    const detail = { eventAgeSeconds: now - scheduledAt };
    return { outcome: { kind: 'skipped', reason: 'skip:stale-event', detail } };
  }
  const ports = createTickPorts(deps.clients, resources, config, now, { memory });
  try {
    const evidence = await ports.evidence();
    const change = {
      mappingModifiedAt: evidence.mappingModifiedAt,
      scaleEventPeriod: scaleEventPeriod(evidence),
    };
    const handover = drivenElsewhereSkip(await ports.actuator.read());
    if (handover) return { outcome: handover };
    const options = lambdaTickOptions(config);
    const slotAt = repeatCheckTime(scheduledAt, now, options.periodSeconds);
    if (isRepeat(slotAt, change, options.periodSeconds)) {
      return {
        outcome: { kind: 'skipped', reason: 'skip:repeat', detail: { scheduledAt: slotAt, ...change } },
      };
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

/** What the handler answers: the tick's outcome, or that a ticker delivery was handled (it never fails). */
export type ControllerAnswer = TickOutcome | { readonly kind: 'sampled' };

/**
 * The Lambda handler's body: a scheduled tick (report it, then send its samples to the ticker queue), or one of
 * those samples delivered back (docs/controller.md, "Between ticks"); idle queue or busy, so a burst after silence
 * is met within a sample, not a minute later.
 */
export function createHandler(deps: ControllerDependencies) {
  const { config, resources } = deps.settings;
  const name = resources.scalerName;
  const queue = sqsQueuePort(deps.clients.sqs, resources.queueUrl);
  const member = (actuator: LambdaActuator): LoopMemberRun => ({
    config,
    actuator,
    queue,
    reporter: deps.reporter,
  });
  // This container's memory of its ticks: the next tick's carried state without reading it back (tick-memory.ts).
  const memory = new TickMemory();
  const sampler = new Sampler(
    { ...deps, memory },
    () => new Map([[name, member(actuatorFor(deps.clients, resources, config))]]),
  );
  return async (event: unknown): Promise<ControllerAnswer> => {
    if (isTickerEvent(event)) {
      await sampler.deliver(event);
      return { kind: 'sampled' };
    }
    deps.calls.reset();
    const now = deps.clock();
    const run = await controllerTick(deps, event, now, memory);
    deps.reporter.report(run.outcome, deps.calls, now);
    if (run.fast) {
      const slot = { started: now, scheduledAt: eventTime(event) };
      const loop = startLoop([{ name, config, context: run.fast.context }], slot);
      await sampler.start(loop, new Map([[name, member(run.fast.actuator)]]));
    }
    return run.outcome;
  };
}
