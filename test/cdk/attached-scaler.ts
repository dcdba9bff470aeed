import { App, Duration, Stack } from 'aws-cdk-lib';
import { Code, EventSourceMapping, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
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
}

/** A queue, a consumer (inline code: nothing to bundle) and its mapping, with the scaler attached. */
export function attach(
  props: Partial<QueueAgeScalerProps> | ((stack: Stack) => Partial<QueueAgeScalerProps>),
  resources: Resources = {},
): QueueAgeScaler {
  const app = new App({ context: NO_BUNDLING });
  const stack = new Stack(app, 'Validation');
  const dlq = new Queue(stack, 'Dlq', { enforceSSL: true });
  const queue = new Queue(stack, 'Queue', {
    visibilityTimeout: Duration.seconds(resources.visibilityTimeoutSeconds ?? 180),
    deadLetterQueue:
      resources.maxReceiveCount === null
        ? undefined
        : { queue: dlq, maxReceiveCount: resources.maxReceiveCount ?? 5 },
  });
  const consumer = new LambdaFunction(stack, 'Consumer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(resources.consumerTimeoutSeconds ?? 30),
    reservedConcurrentExecutions: resources.reservedConcurrency,
  });
  const mapping = new EventSourceMapping(stack, 'Mapping', {
    target: consumer,
    eventSourceArn: queue.queueArn,
    maxConcurrency: resources.mappingMaxConcurrency,
  });
  const given = typeof props === 'function' ? props(stack) : props;
  return new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSourceMapping: mapping, ...given });
}
