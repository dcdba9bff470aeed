import { Duration } from 'aws-cdk-lib';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, type Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct, IConstruct } from 'constructs';
import { TICKER_QUEUE_VARIABLE } from '../ticker-environment.ts';
import { acknowledgeNagFinding } from './nag-acknowledgement.ts';

/**
 * The controller's clock between ticks: a small queue of its own whose mapping invokes the controller once per
 * message, one message at a time. At each tick the controller sends one batch to it, a message per sample with
 * `DelaySeconds` up to the sample's time; each delivery is one short sample (docs/controller.md, "Between ticks").
 * Sampling by short invocations costs requests and milliseconds, where a sleeping invocation paid for 50 s a minute.
 */
export interface TickerQueue {
  readonly queue: Queue;
  readonly mapping: EventSourceMapping;
}

/**
 * How long a ticker message lives: a sample is worthless once its tick's slot has ended, so its message needs no
 * dead-letter queue and no long retention; SQS's minimum is 60 s, and a message delayed up to 50 s must still be
 * deliverable after its delay (docs/aws-facts.md, "Sub-minute clocks").
 */
const TICKER_RETENTION = Duration.minutes(5);

export function createTickerQueue(
  scope: Construct,
  controller: LambdaFunctionResource,
  role: IRole,
  controllerTimeout: Duration,
): TickerQueue {
  const queue = new Queue(scope, 'TickerQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: TICKER_RETENTION,
    // Lambda refuses a mapping whose queue hides a message for less than the function's timeout; a delivery that
    // was throttled (the controller busy with its tick) comes back after it, superseded, and does nothing.
    visibilityTimeout: controllerTimeout,
  });
  // On the queue resource alone, not on the queue's TLS-only policy beside it.
  acknowledgeNagFinding(queue.node.defaultChild as IConstruct, {
    rule: 'AwsSolutions-SQS3',
    reason:
      "the ticker queue carries only the controller's own sample times: a message that is not delivered in time is a missed sample, superseded by the next tick, so there is nothing to keep in a dead-letter queue",
  });
  // The tick sends its samples; the mapping receives and deletes them with the controller's role.
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'OwnTickerQueue',
      actions: [
        'sqs:SendMessage',
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
      ],
      resources: [queue.queueArn],
    }),
  );
  const mapping = new EventSourceMapping(scope, 'TickerMapping', {
    target: controller,
    eventSourceArn: queue.queueArn,
    batchSize: 1,
  });
  // The role's grants must be in place before Lambda validates the mapping's access to the queue.
  mapping.node.addDependency(role);
  controller.addEnvironment(TICKER_QUEUE_VARIABLE, queue.queueUrl);
  return { queue, mapping };
}
