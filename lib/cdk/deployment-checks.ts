import { Token } from 'aws-cdk-lib';
import type { CfnEventSourceMapping, CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue, IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  type ActuatorMode,
  EVENT_SOURCE_MAX_CONCURRENCY,
  INVOKES_PER_POLLER,
  type ScalerConfig,
} from '../control/index.ts';
import { type AttachedMapping, maximumOf, sameValue } from './event-source.ts';
import { resourceOfType } from './resource-type.ts';

/**
 * Checks of the resources a scaler attaches to, made at synth wherever their values can be read: resources
 * defined in this app with resolved values. What synth cannot read is said in a warning rather than skipped in
 * silence. Each problem names the value and the fix.
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
  /** What the mapping invokes: the function, or one of its aliases or versions. */
  readonly consumer: IFunction;
  /** The function whose reserved concurrency the scaler sets (AWS: it applies to all versions and aliases). */
  readonly concurrencyOwner: IFunction;
  readonly mapping: AttachedMapping;
}

export interface CheckFindings {
  /** Mistakes that fail synth. */
  readonly errors: string[];
  /** What synth cannot verify or what the chosen mode costs, with an id the app may acknowledge. */
  readonly warnings: { readonly id: string; readonly message: string }[];
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

/** The app's own `provisionedPollerConfig` on the mapping, where synth can read it. */
function pollersOf(resource: CfnEventSourceMapping): { minimum?: number; maximum?: number } | undefined {
  const config = (resource as { provisionedPollerConfig?: unknown }).provisionedPollerConfig;
  if (config === undefined || Token.isUnresolved(config)) return undefined;
  const { minimumPollers, maximumPollers } = config as {
    minimumPollers?: unknown;
    maximumPollers?: unknown;
  };
  const number = (v: unknown) => (typeof v === 'number' && !Token.isUnresolved(v) ? v : undefined);
  return { minimum: number(minimumPollers), maximum: number(maximumPollers) };
}

/**
 * What an imported mapping must carry for the actuator, which synth cannot read: provisioned mode refuses
 * MaximumConcurrency (docs/aws-facts.md, "Provisioned mode"), the other modes are bounded by it until the first tick.
 */
function importedMappingLimits(actuator: ActuatorMode): string {
  if (actuator === 'provisioned') {
    return 'that it is in provisioned mode (ProvisionedPollerConfig, MinimumPollers at least 2) with no MaximumConcurrency (AWS refuses the two together)';
  }
  return 'that its MaximumConcurrency is set (until the first tick it is what bounds the pollers)';
}

/**
 * The checks that need the cap run only when the config itself is valid; the one that needs only the actuator (a
 * reserved concurrency the scaler would fight) runs on `actuator` as given, so it is reported with the rest.
 */
export function checkAttachedResources(
  resources: AttachedResources,
  config: ScalerConfig | undefined,
  actuator: ActuatorMode = config?.actuator ?? 'lockstep',
): CheckFindings {
  const errors: string[] = [];
  const warnings: CheckFindings['warnings'] = [];
  const queue = resourceOfType<CfnQueue>(resources.queue.node.defaultChild, 'AWS::SQS::Queue');
  const owner = resourceOfType<CfnFunction>(
    resources.concurrencyOwner.node.defaultChild,
    'AWS::Lambda::Function',
  );
  const mapping = resources.mapping.resource;
  const maximum = mapping ? maximumOf(mapping) : undefined;

  if (resources.queue.fifo) {
    errors.push(
      'the queue is a FIFO queue: the scaler does not support FIFO yet (a FIFO queue runs at most one batch per message group at a time, so its concurrency is bounded by the active groups, which the controller does not size for); attach it to a standard queue',
    );
  }

  if (mapping) {
    if (sameValue(mapping, mapping.eventSourceArn, resources.queue.queueArn) === false) {
      errors.push(
        `the event source mapping ${mapping.node.path} reads another queue, not ${resources.queue.node.path}: give the mapping (or SqsEventSource) that joins the scaler's queue to its consumer`,
      );
    }
    const target = mapping.functionName;
    const byName = sameValue(mapping, target, resources.consumer.functionName);
    const byArn = sameValue(mapping, target, resources.consumer.functionArn);
    if (byName === false && byArn !== true) {
      errors.push(
        `the event source mapping ${mapping.node.path} invokes another function, not the consumer ${resources.consumer.node.path}: give the consumer the mapping invokes (the same function, alias or version)`,
      );
    }
  } else {
    warnings.push({
      id: 'queue-age-scaler:imported-mapping',
      message: `the event source mapping ${resources.mapping.mappingId} is imported, so synth cannot check that it joins ${resources.queue.node.path} to ${resources.consumer.node.path}, nor read its limits or batching window: make sure it does, ${importedMappingLimits(actuator)}, and that the queue's visibility timeout covers 6 × the consumer's timeout plus its batching window`,
    });
  }

  if (queue && owner) {
    const visibility = queue.visibilityTimeout ?? SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS;
    const timeout = owner.timeout ?? LAMBDA_DEFAULT_TIMEOUT_SECONDS;
    const windowSeconds = mapping ? (mapping.maximumBatchingWindowInSeconds ?? 0) : 0;
    if (readable(visibility) && readable(timeout) && readable(windowSeconds)) {
      const needed = VISIBILITY_TIMEOUT_FACTOR * timeout + windowSeconds;
      if (visibility < needed) {
        errors.push(
          `queue visibility timeout = ${visibility} s: must be at least ${VISIBILITY_TIMEOUT_FACTOR} × the consumer's timeout (${timeout} s) + the batching window (${windowSeconds} s) = ${needed} s; set visibilityTimeout: Duration.seconds(${needed}) on the queue, or shorten the consumer's timeout or the batching window`,
        );
      }
    }
  }

  if (queue) {
    const redrive = redriveOf(queue);
    if (redrive === undefined) {
      errors.push(
        `queue has no dead-letter queue: messages that keep failing (or return after throttling) would be retried until they expire; give it deadLetterQueue: { queue: <a DLQ>, maxReceiveCount: ${MIN_MAX_RECEIVE_COUNT} }`,
      );
    } else if (redrive !== 'unreadable' && readable(redrive.maxReceiveCount)) {
      if (redrive.maxReceiveCount < MIN_MAX_RECEIVE_COUNT) {
        errors.push(
          `queue deadLetterQueue.maxReceiveCount = ${redrive.maxReceiveCount}: must be at least ${MIN_MAX_RECEIVE_COUNT}, or messages returned by throttling reach the DLQ without having failed; set maxReceiveCount: ${MIN_MAX_RECEIVE_COUNT}`,
        );
      }
    }
  }

  const reserved = owner?.reservedConcurrentExecutions;
  if (readable(reserved) && actuator !== 'event-source') {
    errors.push(
      `consumer reservedConcurrentExecutions = ${reserved}: the scaler owns the reserved concurrency with actuator '${actuator}', and every deploy would reset it to this value; remove reservedConcurrentExecutions from the consumer`,
    );
  }

  if (!config) return { errors, warnings };

  if (readable(reserved)) {
    if (config.actuator === 'event-source') {
      // Only the mapping is driven: its maximum goes up to the cap, and above the reserved concurrency the
      // pollers pull more than the function may run (AWS: MaximumConcurrency must not exceed reserved).
      const highest = Math.max(config.maxConcurrency, maximum ?? 0);
      if (reserved < highest) {
        const start =
          maximum !== undefined && maximum > reserved ? `, and the mapping starts at ${maximum}` : '';
        errors.push(
          `consumer reservedConcurrentExecutions = ${reserved}: below the cap ${config.maxConcurrency} up to which actuator 'event-source' raises the mapping's MaximumConcurrency${start}, so the pollers would overpull into throttles and the DLQ; set reservedConcurrentExecutions to at least ${highest}, lower maxConcurrency to ${Math.max(reserved, EVENT_SOURCE_MAX_CONCURRENCY.min)}, or use ScalerActuator.LOCKSTEP`,
        );
      }
    }
  }

  const pollers = mapping ? pollersOf(mapping) : undefined;
  if (config.actuator === 'provisioned' && pollers?.maximum !== undefined) {
    if (pollers.maximum * INVOKES_PER_POLLER > config.maxConcurrency) {
      errors.push(
        `event source mapping provisionedPollerConfig.maximumPollers = ${pollers.maximum}: ${pollers.maximum * INVOKES_PER_POLLER} concurrent invocations, above the scaler's cap ${config.maxConcurrency}, so until the first tick (and after every deploy that sets it again) the pollers could overload the downstream; set it to at most ${Math.floor(config.maxConcurrency / INVOKES_PER_POLLER)}, or leave provisionedPollerConfig out and the scaler starts it at the floor`,
      );
    }
    if (pollers.minimum !== undefined && pollers.minimum > pollers.maximum) {
      errors.push(
        `event source mapping provisionedPollerConfig.minimumPollers = ${pollers.minimum}: above its maximumPollers ${pollers.maximum}; set it at most ${pollers.maximum}`,
      );
    }
  }

  if (maximum !== undefined && maximum > config.maxConcurrency) {
    errors.push(
      `event source mapping maxConcurrency = ${maximum}: above the scaler's cap ${config.maxConcurrency}, so until the first tick the pollers could overload the downstream; set it between ${EVENT_SOURCE_MAX_CONCURRENCY.min} and ${config.maxConcurrency}`,
    );
  }

  if (config.actuator === 'reserved') {
    const pollers = maximum === undefined ? 'its MaximumConcurrency' : `its MaximumConcurrency ${maximum}`;
    warnings.push({
      id: 'queue-age-scaler:reserved-actuator-overpull',
      message: `actuator 'reserved' leaves the mapping at ${pollers} while the reserved concurrency moves within [${config.minConcurrency}; ${config.maxConcurrency}]: whenever the reserved concurrency is lower, the pollers overpull into throttles and the DLQ; ScalerActuator.LOCKSTEP moves both together`,
    });
  }
  return { errors, warnings };
}
