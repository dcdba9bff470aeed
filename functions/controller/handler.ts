import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import { startLoop } from '../../lib/control/control-loop.ts';
import { type FastPathContext, fastPathContext, fastPathOn, runTick } from '../../lib/control/index.ts';
import type { LambdaActuator } from './actuator.ts';
import { pauseOverpulls } from './actuator.ts';
import { scaleEventPeriod } from './carried-state.ts';
import { failed } from './failure.ts';
import { type InvocationContext, runFastLoop } from './fast-loop.ts';
import type { TickOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import type { ControllerSettings } from './resources.ts';
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
      const { config, resources } = deps.settings;
      const name = resources.scalerName;
      const slot = { started: now, scheduledAt: eventTime(event) };
      const loop = startLoop([{ name, config, context: run.fast.context }], slot);
      const queue = sqsQueuePort(deps.clients.sqs, resources.queueUrl);
      const member = { config, actuator: run.fast.actuator, queue, reporter: deps.reporter };
      await runFastLoop(deps, loop, new Map([[name, member]]), context);
    }
    return run.outcome;
  };
}
