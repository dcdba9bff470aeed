import { errorMessage, failureKind } from '../../lib/aws/aws-errors.ts';
import type { AwsClients, CallLog } from '../../lib/aws/clients.ts';
import { LambdaResponseError } from '../../lib/aws/lambda-reads.ts';
import { QueueResponseError } from '../../lib/aws/queue-depth.ts';
import { runTick } from '../../lib/control/index.ts';
import { scaleEventPeriod } from './carried-state.ts';
import { appliedAfter, type TickOutcome } from './outcome.ts';
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
}

const HINTS: Record<string, string> = {
  'not-found': `a resource is gone: check ${Object.values(RESOURCE_VARIABLES).join(', ')} against the stack; the controller holds and retries at the next tick`,
  throttled: 'Lambda or CloudWatch throttled after the SDK retries: held this tick',
  service: 'AWS answered 5xx after the SDK retries: held this tick',
  conflict: 'the resource is being updated (a deploy?): skipped this tick',
  response: 'an AWS response could not be trusted: held this tick',
};

function failed(error: unknown): TickOutcome {
  const failure =
    error instanceof QueueResponseError || error instanceof LambdaResponseError
      ? 'response'
      : failureKind(error);
  return {
    kind: 'failed',
    failure,
    error: errorMessage(error),
    hint: HINTS[failure] ?? 'unexpected error: held this tick',
  };
}

/**
 * One scheduled tick. Never throws for an AWS failure: a scheduled Lambda that throws is retried and can
 * crash-loop, and a hold is always safe. Only a bug in this code (not an AWS answer) escapes.
 */
export async function controllerTick(
  deps: ControllerDependencies,
  event: unknown,
  now: number,
): Promise<TickOutcome> {
  const { config, resources } = deps.settings;
  const scheduledAt = eventTime(event);
  if (scheduledAt !== undefined && isStale(scheduledAt, now, config.tickSeconds)) {
    return { kind: 'skipped', reason: 'skip:stale-event', detail: { eventAgeSeconds: now - scheduledAt } };
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
      return { kind: 'skipped', reason: 'skip:repeat', detail: { scheduledAt, ...change } };
    }
    const result = await runTick(ports, config, now, options);
    const before = evidence.applied;
    return {
      kind: 'decided',
      result,
      actuation: ports.actuator.actuation,
      writes: ports.actuator.writes,
      appliedAfter: appliedAfter(config, before, ports.actuator.writes),
      config,
    };
  } catch (error) {
    return failed(error);
  }
}

/** The Lambda handler's body: tick, report, return the outcome. */
export function createHandler(deps: ControllerDependencies) {
  return async (event: unknown): Promise<TickOutcome> => {
    deps.calls.reset();
    const now = deps.clock();
    const outcome = await controllerTick(deps, event, now);
    deps.reporter.report(outcome, deps.calls, now);
    return outcome;
  };
}
