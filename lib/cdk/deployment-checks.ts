import { Token } from 'aws-cdk-lib';
import {
  CfnEventSourceMapping,
  CfnFunction,
  type IEventSourceMapping,
  type IFunction,
} from 'aws-cdk-lib/aws-lambda';
import { CfnQueue, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { type ActuatorMode, EVENT_SOURCE_MAX_CONCURRENCY, type ScalerConfig } from '../control/index.ts';

/**
 * Checks of the resources a scaler attaches to, made at synth wherever their values can be read: resources
 * defined in this app with resolved values. Imported resources and tokens are skipped (aws-cdk validates only
 * resolved values). Each problem names the value and the fix.
 */

// AWS: set the source queue's visibility timeout to at least six times the function's timeout, plus the
// batching window, so a message is not redelivered while a throttled or retried batch still holds it.
export const VISIBILITY_TIMEOUT_FACTOR = 6;
// AWS: a maxReceiveCount of at least 5 gives a message room for retries after throttling before the DLQ.
export const MIN_MAX_RECEIVE_COUNT = 5;
// Lambda's default function timeout and SQS's default visibility timeout, for resources that leave them out.
const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;
const SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;

export interface AttachedResources {
  readonly queue: IQueue;
  readonly consumer: IFunction;
  readonly eventSourceMapping: IEventSourceMapping;
}

function cfnQueue(queue: IQueue): CfnQueue | undefined {
  const child = queue.node.defaultChild;
  return child instanceof CfnQueue ? child : undefined;
}

function cfnFunction(fn: IFunction): CfnFunction | undefined {
  const child = fn.node.defaultChild;
  return child instanceof CfnFunction ? child : undefined;
}

function cfnMapping(mapping: IEventSourceMapping): CfnEventSourceMapping | undefined {
  const child = mapping.node.defaultChild;
  return child instanceof CfnEventSourceMapping ? child : undefined;
}

function readable(value: unknown): value is number {
  return typeof value === 'number' && !Token.isUnresolved(value);
}

/** The queue's redrive policy as an object, whichever casing (L2 or raw CloudFormation) wrote it. */
function redriveOf(queue: CfnQueue): { maxReceiveCount?: unknown } | undefined | 'unreadable' {
  const policy: unknown = queue.redrivePolicy;
  if (policy === undefined) return undefined;
  if (typeof policy !== 'object' || policy === null || Token.isUnresolved(policy)) return 'unreadable';
  const record = policy as Record<string, unknown>;
  return { maxReceiveCount: record.maxReceiveCount ?? record.MaxReceiveCount };
}

/** The checks that need the config (the actuator, the cap) run only when the config itself is valid. */
export function checkAttachedResources(
  resources: AttachedResources,
  config: ScalerConfig | undefined,
): string[] {
  const problems: string[] = [];
  const queue = cfnQueue(resources.queue);
  const consumer = cfnFunction(resources.consumer);
  const mapping = cfnMapping(resources.eventSourceMapping);

  if (queue && consumer) {
    const visibility = queue.visibilityTimeout ?? SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS;
    const timeout = consumer.timeout ?? LAMBDA_DEFAULT_TIMEOUT_SECONDS;
    const windowSeconds = mapping?.maximumBatchingWindowInSeconds ?? 0;
    if (readable(visibility) && readable(timeout) && readable(windowSeconds)) {
      const needed = VISIBILITY_TIMEOUT_FACTOR * timeout + windowSeconds;
      if (visibility < needed) {
        problems.push(
          `queue visibility timeout = ${visibility} s: must be at least ${VISIBILITY_TIMEOUT_FACTOR} × the consumer's timeout (${timeout} s) + the batching window (${windowSeconds} s) = ${needed} s; set visibilityTimeout: Duration.seconds(${needed}) on the queue or shorten the consumer's timeout`,
        );
      }
    }
  }

  if (queue) {
    const redrive = redriveOf(queue);
    if (redrive === undefined) {
      problems.push(
        `queue has no dead-letter queue: messages that keep failing (or return after throttling) would be retried until they expire; give it deadLetterQueue: { queue: <a DLQ>, maxReceiveCount: ${MIN_MAX_RECEIVE_COUNT} }`,
      );
    } else if (redrive !== 'unreadable' && readable(redrive.maxReceiveCount)) {
      if (redrive.maxReceiveCount < MIN_MAX_RECEIVE_COUNT) {
        problems.push(
          `queue deadLetterQueue.maxReceiveCount = ${redrive.maxReceiveCount}: must be at least ${MIN_MAX_RECEIVE_COUNT}, or messages returned by throttling reach the DLQ without having failed; set maxReceiveCount: ${MIN_MAX_RECEIVE_COUNT}`,
        );
      }
    }
  }

  if (
    config &&
    consumer &&
    readable(consumer.reservedConcurrentExecutions) &&
    drivesReserved(config.actuator)
  ) {
    problems.push(
      `consumer reservedConcurrentExecutions = ${consumer.reservedConcurrentExecutions}: the scaler owns the reserved concurrency with actuator '${config.actuator}', and every deploy would reset it to this value; remove reservedConcurrentExecutions from the consumer`,
    );
  }

  if (config && mapping) {
    const scaling = mapping.scalingConfig;
    const maximum =
      scaling && !Token.isUnresolved(scaling)
        ? (scaling as CfnEventSourceMapping.ScalingConfigProperty).maximumConcurrency
        : undefined;
    if (readable(maximum) && maximum > config.maxConcurrency) {
      problems.push(
        `event source mapping maxConcurrency = ${maximum}: above the scaler's cap ${config.maxConcurrency}, so until the first tick the pollers could overload the downstream; set it between ${EVENT_SOURCE_MAX_CONCURRENCY.min} and ${config.maxConcurrency}`,
      );
    }
  }
  return problems;
}

function drivesReserved(actuator: ActuatorMode): boolean {
  return actuator === 'lockstep' || actuator === 'reserved';
}
