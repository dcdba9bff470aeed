import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, EventSourceMapping, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { MIN_MAX_RECEIVE_COUNT, VISIBILITY_TIMEOUT_FACTOR } from '../lib/cdk/deployment-checks.ts';
import { QueueAgeScaler } from '../lib/cdk/queue-age-scaler.ts';
import { dependOnRolePoliciesOnly } from '../lib/cdk/role-dependency.ts';
import { propsFromSettings } from '../lib/cdk/scaler-settings.ts';
import { EVENT_SOURCE_MAX_CONCURRENCY, type ScalerSettings, SETTING_NAMES } from '../lib/control/index.ts';
import type { ExampleContext } from './context.ts';

export const CONSUMER_ENTRY = join(import.meta.dirname, '..', 'functions', 'consumer', 'handler.ts');

export interface ExampleStackProps extends StackProps {
  readonly example: ExampleContext;
}

/**
 * The example: an encrypted queue with its DLQ, a consumer that works a configurable time per item, its
 * event source mapping, and a `QueueAgeScaler` holding the queue's age at the target (aws-solutions-constructs'
 * `aws-sqs-lambda` shape, plus the scaler).
 */
export class QueueAgeScalerExampleStack extends Stack {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: NodejsFunction;
  readonly eventSourceMapping: EventSourceMapping;
  readonly scaler: QueueAgeScaler;

  constructor(scope: Construct, id: string, props: ExampleStackProps) {
    super(scope, id, props);
    const { example } = props;
    const { config } = example;

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS keeps a message: time to read the failures and redrive them.
      retentionPeriod: Duration.days(14),
      // Dead letters are failures someone has yet to read: `cdk destroy` (or a replacement) keeps the DLQ and
      // its messages unless the app says otherwise (-c retainDeadLetters=false).
      removalPolicy: example.retainDeadLetters ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * example.consumerTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MIN_MAX_RECEIVE_COUNT },
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const consumerLogs = new LogGroup(this, 'ConsumerLogs', {
      retention: RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A role of our own, without AWSLambdaBasicExecutionRole (its logs statement covers every log group).
    const consumerRole = new Role(this, 'ConsumerRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The example consumer: receives and deletes messages from its queue',
    });
    consumerLogs.grantWrite(consumerRole);
    this.queue.grantConsumeMessages(consumerRole);

    this.consumer = new NodejsFunction(this, 'Consumer', {
      description: `Example consumer: ${example.workMilliseconds} ms per item, batches of ${example.batchSize}`,
      entry: CONSUMER_ENTRY,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(example.consumerTimeoutSeconds),
      // No reservedConcurrentExecutions: the scaler owns it, and a value here would be reset by every deploy.
      role: consumerRole,
      logGroup: consumerLogs,
      environment: {
        WORK_MILLISECONDS: String(example.workMilliseconds),
        POWERTOOLS_SERVICE_NAME: 'queue-age-scaler-consumer',
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        externalModules: ['@aws-sdk/*'],
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });

    dependOnRolePoliciesOnly(this.consumer, [consumerRole.node.tryFindChild('DefaultPolicy')]);

    // The pollers start capped: at the floor when the scaler drives the mapping, at the cap when it only
    // drives reserved concurrency (AWS: never above reserved, or the pollers overpull into throttles).
    const initialMaximum = config.actuator === 'reserved' ? config.maxConcurrency : config.minConcurrency;
    this.eventSourceMapping = new EventSourceMapping(this, 'ConsumerMapping', {
      target: this.consumer,
      eventSourceArn: this.queue.queueArn,
      batchSize: example.batchSize,
      reportBatchItemFailures: true,
      maxConcurrency:
        initialMaximum >= EVENT_SOURCE_MAX_CONCURRENCY.min
          ? Math.min(initialMaximum, EVENT_SOURCE_MAX_CONCURRENCY.max)
          : undefined,
    });
    // The mapping is validated on creation: the role must already be able to receive from the queue.
    this.eventSourceMapping.node.addDependency(consumerRole);

    const settings: Record<string, unknown> = {};
    for (const field of SETTING_NAMES) {
      if (config[field] !== undefined) settings[field] = config[field];
    }
    this.scaler = new QueueAgeScaler(this, 'Scaler', {
      ...propsFromSettings(settings as ScalerSettings),
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      consumer: this.consumer,
      eventSourceMapping: this.eventSourceMapping,
      scalerName: example.scalerName,
      alarmEmail: example.alarmEmail,
      oscillationThreshold: example.oscillationThreshold,
    });

    // The scaler emits the outputs the operator tools read (QueueUrl, ScalerName, …); the DLQ's are the example's.
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueName', { value: this.deadLetterQueue.queueName });
  }
}
