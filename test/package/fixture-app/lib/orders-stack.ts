import * as cdk from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QueueAgeScaler } from 'queue-age-scaler';

/**
 * A user's stack as the README shows it: a queue with its DLQ, a consumer, an SqsEventSource, and the scaler.
 * The consumer is inline code, so nothing in this app needs a bundler.
 */
export class OrdersStack extends cdk.Stack {
  readonly scaler: QueueAgeScaler;

  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);
    const deadLetters = new sqs.Queue(this, 'OrdersDlq', {
      retentionPeriod: cdk.Duration.days(14),
      enforceSSL: true,
    });
    const queue = new sqs.Queue(this, 'Orders', {
      visibilityTimeout: cdk.Duration.minutes(3),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
      enforceSSL: true,
    });
    const consumer = new lambda.Function(this, 'OrdersConsumer', {
      runtime: lambda.Runtime.NODEJS_20_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
      timeout: cdk.Duration.seconds(30),
    });
    this.scaler = new QueueAgeScaler(this, 'Scaler', {
      queue,
      consumer,
      eventSource: new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }),
      targetAge: cdk.Duration.minutes(1),
      maxConcurrency: 20,
      // Read and evaluated by the installed controller at every tick; its one year is past, so it never comes on.
      floors: [
        { schedule: 'cron(0 9 ? * MON-FRI 2020)', minConcurrency: 4, duration: cdk.Duration.hours(1) },
      ],
    });
  }
}
