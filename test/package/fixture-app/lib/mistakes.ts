import * as cdk from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DownstreamBudget, QueueAgeScaler, ScalerActuator } from 'queue-age-scaler';

/** A stack with a queue (DLQ, visibility 3 minutes) and a consumer (30 s timeout): a sound start for one mistake. */
class Parts extends cdk.Stack {
  readonly queue: sqs.Queue;
  readonly consumer: lambda.Function;

  constructor(scope: Construct, id: string, options: { reserved?: number; fifo?: boolean } = {}) {
    super(scope, id);
    const suffix = options.fifo ? '.fifo' : '';
    const dlq = new sqs.Queue(this, 'Dlq', {
      fifo: options.fifo,
      queueName: options.fifo ? `${id}-dlq${suffix}` : undefined,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      fifo: options.fifo,
      queueName: options.fifo ? `${id}${suffix}` : undefined,
      visibilityTimeout: cdk.Duration.minutes(3),
      deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },
    });
    this.consumer = new lambda.Function(this, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_20_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({});'),
      timeout: cdk.Duration.seconds(30),
      reservedConcurrentExecutions: options.reserved,
    });
  }
}

/** One stack per mistake the construct refuses, named for it: `cdk synth` must fail on each with its message. */
export function addMistakes(app: cdk.App): void {
  {
    // An SqsEventSource whose maxConcurrency is above the scaler's cap.
    const s = new Parts(app, 'MaxConcurrencyAboveCap');
    const eventSource = new SqsEventSource(s.queue, { maxConcurrency: 50 });
    new QueueAgeScaler(s, 'Scaler', {
      queue: s.queue,
      consumer: s.consumer,
      eventSource,
      maxConcurrency: 20,
    });
  }
  {
    // An SqsEventSource with a batching window the queue's visibility timeout does not cover.
    const s = new Parts(app, 'BatchingWindowUncounted');
    const eventSource = new SqsEventSource(s.queue, { maxBatchingWindow: cdk.Duration.seconds(30) });
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer, eventSource });
  }
  {
    // Two scalers on one consumer.
    const s = new Parts(app, 'TwoScalersOneConsumer');
    const other = new sqs.Queue(s, 'Other', {
      visibilityTimeout: cdk.Duration.minutes(3),
      deadLetterQueue: { queue: new sqs.Queue(s, 'OtherDlq'), maxReceiveCount: 5 },
    });
    new QueueAgeScaler(s, 'First', { queue: s.queue, consumer: s.consumer });
    new QueueAgeScaler(s, 'Second', { queue: other, consumer: s.consumer, stackOutputs: false });
  }
  {
    // A mapping of another queue.
    const s = new Parts(app, 'MappingOfAnotherQueue');
    const other = new sqs.Queue(s, 'Other', { visibilityTimeout: cdk.Duration.minutes(3) });
    const mapping = new lambda.EventSourceMapping(s, 'Mapping', {
      target: s.consumer,
      eventSourceArn: other.queueArn,
      maxConcurrency: 2,
    });
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer, eventSourceMapping: mapping });
  }
  {
    // A setting the validator refuses: an error on the scaler's path, not a ConfigError's stack trace.
    const s = new Parts(app, 'InvalidSetting');
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer, maxConcurrency: 0 });
  }
  {
    // Only the mapping driven, with the consumer's reserved concurrency below the mapping's maximum.
    const s = new Parts(app, 'EventSourceOverpull', { reserved: 5 });
    const eventSource = new SqsEventSource(s.queue, { maxConcurrency: 20 });
    new QueueAgeScaler(s, 'Scaler', {
      queue: s.queue,
      consumer: s.consumer,
      eventSource,
      actuator: ScalerActuator.EVENT_SOURCE,
      maxConcurrency: 32,
    });
  }
  {
    // A FIFO queue.
    const s = new Parts(app, 'FifoQueue', { fifo: true });
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer });
  }
  {
    // A scheduled floor in cron's five fields, not EventBridge's six (croner, a dependency of the package, reads it).
    const s = new Parts(app, 'ScheduledFloorFiveFields');
    new QueueAgeScaler(s, 'Scaler', {
      queue: s.queue,
      consumer: s.consumer,
      floors: [{ schedule: 'cron(45 8 * * 1-5)', minConcurrency: 10, duration: cdk.Duration.hours(2) }],
    });
  }
  {
    // A budget its members' floors do not fit in (checked once every member has joined), and a member whose
    // cap is above the budget.
    const s = new Parts(app, 'BudgetTooSmall');
    const other = new sqs.Queue(s, 'Other', {
      visibilityTimeout: cdk.Duration.minutes(3),
      deadLetterQueue: { queue: new sqs.Queue(s, 'OtherDlq'), maxReceiveCount: 5 },
    });
    const otherConsumer = new lambda.Function(s, 'OtherConsumer', {
      runtime: lambda.Runtime.NODEJS_20_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({});'),
      timeout: cdk.Duration.seconds(30),
    });
    const budget = new DownstreamBudget(s, 'Budget', { dbPoolSize: 10 });
    new QueueAgeScaler(s, 'First', {
      queue: s.queue,
      consumer: s.consumer,
      budget,
      minConcurrency: 6,
      maxConcurrency: 10,
    });
    new QueueAgeScaler(s, 'Second', {
      queue: other,
      consumer: otherConsumer,
      budget,
      minConcurrency: 6,
      stackOutputs: false,
    });
  }
}

/** What looks like a mistake but is supported: each synthesizes, and the test checks what the template holds. */
export function addFixedMistakes(app: cdk.App): void {
  {
    // A mapping without MaximumConcurrency: the scaler sets it.
    const s = new Parts(app, 'MappingWithoutMaximum');
    const mapping = new lambda.EventSourceMapping(s, 'Mapping', {
      target: s.consumer,
      eventSourceArn: s.queue.queueArn,
    });
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer, eventSourceMapping: mapping });
  }
  {
    // An alias as the consumer: the mapping invokes the alias, the reserved concurrency is its function's.
    const s = new Parts(app, 'AliasConsumer');
    const live = new lambda.Alias(s, 'Live', { aliasName: 'live', version: s.consumer.currentVersion });
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: live });
  }
  {
    // An imported mapping: synth cannot check it, and says so.
    const s = new Parts(app, 'ImportedMapping');
    const mapping = lambda.EventSourceMapping.fromEventSourceMappingId(
      s,
      'Mapping',
      '11111111-2222-3333-4444-555555555555',
    );
    new QueueAgeScaler(s, 'Scaler', { queue: s.queue, consumer: s.consumer, eventSourceMapping: mapping });
  }
}
