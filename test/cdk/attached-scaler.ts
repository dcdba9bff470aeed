import { App, Duration, Stack } from 'aws-cdk-lib';
import { Code, EventSourceMapping, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { QueueAgeScaler, type QueueAgeScalerProps } from '../../lib/cdk/queue-age-scaler.ts';

// Synthesis skips bundling for stacks not listed here: these tests are about validation, not code.
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

export interface Resources {
  readonly visibilityTimeoutSeconds?: number;
  readonly consumerTimeoutSeconds?: number;
  /** null: no DLQ. */
  readonly maxReceiveCount?: number | null;
  readonly reservedConcurrency?: number;
  readonly mappingMaxConcurrency?: number;
  readonly batchingWindowSeconds?: number;
}

export interface AttachedParts {
  readonly stack: Stack;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: LambdaFunction;
}

/** A queue with its DLQ and a consumer (inline code: nothing to bundle), not yet joined. */
export function parts(resources: Resources = {}): AttachedParts {
  const app = new App({ context: NO_BUNDLING });
  const stack = new Stack(app, 'Validation');
  const deadLetterQueue = new Queue(stack, 'Dlq', { enforceSSL: true });
  const queue = new Queue(stack, 'Queue', {
    visibilityTimeout: Duration.seconds(resources.visibilityTimeoutSeconds ?? 180),
    deadLetterQueue:
      resources.maxReceiveCount === null
        ? undefined
        : { queue: deadLetterQueue, maxReceiveCount: resources.maxReceiveCount ?? 5 },
  });
  const consumer = new LambdaFunction(stack, 'Consumer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(resources.consumerTimeoutSeconds ?? 30),
    reservedConcurrentExecutions: resources.reservedConcurrency,
  });
  return { stack, queue, deadLetterQueue, consumer };
}

/** A queue, a consumer and its mapping (an `EventSourceMapping` of the app), with the scaler attached. */
export function attach(
  props: Partial<QueueAgeScalerProps> | ((stack: Stack) => Partial<QueueAgeScalerProps>),
  resources: Resources = {},
): QueueAgeScaler {
  const { stack, queue, consumer } = parts(resources);
  const mapping = new EventSourceMapping(stack, 'Mapping', {
    target: consumer,
    eventSourceArn: queue.queueArn,
    maxConcurrency: resources.mappingMaxConcurrency,
    maxBatchingWindow:
      resources.batchingWindowSeconds === undefined
        ? undefined
        : Duration.seconds(resources.batchingWindowSeconds),
  });
  const given = typeof props === 'function' ? props(stack) : props;
  return new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSourceMapping: mapping, ...given });
}

/** The messages of one level the construct annotated itself with (what `cdk synth` lists under its path). */
export function annotations(construct: IConstruct, level: 'error' | 'warning' | 'info'): string[] {
  return construct.node.metadata
    .filter((entry) => entry.type === `aws:cdk:${level}`)
    .map((entry) => String(entry.data));
}

export function errorsOf(construct: IConstruct): string[] {
  return annotations(construct, 'error');
}
