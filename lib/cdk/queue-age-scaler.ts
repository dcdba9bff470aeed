import { join } from 'node:path';
import { Duration, Names, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, type IEventSourceMapping, type IFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type ActuatorMode,
  ConfigError,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  settingsToEnvironment,
} from '../control/index.ts';
import { METRIC_NAMESPACE } from '../telemetry.ts';
import { ScalerAlarms } from './alarms.ts';
import { ScalerDashboard } from './dashboard.ts';
import { checkAttachedResources } from './deployment-checks.ts';
import { ScalerMetricFactory } from './metrics.ts';
import { dependOnRolePoliciesOnly } from './role-dependency.ts';

/** The controller's resource variables (its settings use `settingsToEnvironment`'s names). */
export const CONTROLLER_RESOURCE_ENVIRONMENT = {
  queueUrl: 'QUEUE_URL',
  queueName: 'QUEUE_NAME',
  deadLetterQueueName: 'DLQ_NAME',
  consumerFunctionName: 'CONSUMER_FUNCTION_NAME',
  eventSourceMappingUuid: 'EVENT_SOURCE_MAPPING_UUID',
  scalerName: 'SCALER_NAME',
  metricNamespace: 'METRIC_NAMESPACE',
} as const;

/** The controller's entry: `functions/controller/index.ts` wires the SDK clients and exports `handler`. */
export const CONTROLLER_ENTRY = join(import.meta.dirname, '..', '..', 'functions', 'controller', 'index.ts');

/**
 * The control law's settings, as construct props. Every value is validated at synth by the same validator the
 * controller runs at init (`resolveScalerConfig`), so a value that synthesizes is a value the controller accepts.
 */
export interface QueueAgeScalerSettings {
  /**
   * The latency budget: the oldest message should not wait longer than this.
   * Valid: (0; 86400] seconds. Below 60 it cannot be held: the age metric has one-minute resolution.
   * @default 60
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html
   */
  readonly targetAgeSeconds?: number;
  /**
   * The floor of the consumer's concurrency. Valid: integer [1; 10000], at least 2 when the actuator drives the
   * event source mapping (`lockstep`, `event-source`), whose MaximumConcurrency is 2–1000; at most the cap.
   * @default 2
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
   */
  readonly minConcurrency?: number;
  /**
   * An explicit cap. The applied cap is the lowest of this, `dbPoolSize` and
   * `apiRatePerSecond × itemTimeSeconds ÷ callsPerItem`. Valid: integer [1; 10000] (at most 1000 when the
   * mapping is driven).
   * @default 32
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
   */
  readonly maxConcurrency?: number;
  /**
   * Connections in the database pool each consumer holds while it works: concurrency above it only waits.
   * Valid: integer [1; 100000].
   * @default no database limit
   */
  readonly dbPoolSize?: number;
  /**
   * Calls per second the rate-limited downstream API allows. Requires `itemTimeSeconds`.
   * Valid: (0; 1e9].
   * @default no API limit
   */
  readonly apiRatePerSecond?: number;
  /**
   * Seconds one item takes (with `apiRatePerSecond`, sizes the API cap). Valid: (0; 900].
   * @default unset
   */
  readonly itemTimeSeconds?: number;
  /**
   * API calls one item makes. Valid: (0; 1e6].
   * @default 1
   */
  readonly callsPerItem?: number;
  /**
   * How often the controller runs. EventBridge schedules run in whole minutes, so a multiple of 60.
   * Valid: 60, 120, … 3600.
   * @default 60
   * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html
   */
  readonly tickSeconds?: number;
  /**
   * The most one tick may add. Valid: integer [1; 10000].
   * @default 1000 (grow straight to the need; the cap bounds it)
   */
  readonly maxScaleUpStep?: number;
  /**
   * What one shrink removes. Valid: integer [1; 10000].
   * @default 1
   */
  readonly scaleDownStep?: number;
  /**
   * What one shrink removes at most, as a fraction of the surplus above the need (0 keeps to
   * `scaleDownStep`; 0.5 halves the surplus each interval, never below the need). Valid: [0; 1].
   * @default 0.5
   */
  readonly scaleDownSurplusFraction?: number;
  /**
   * How long the queue must be idle before the first shrink; longer than the 1–2 minute metric delay.
   * Valid: [0; 86400] seconds.
   * @default 300
   */
  readonly scaleDownDelaySeconds?: number;
  /**
   * The least time between two shrinks. Valid: [0; 86400] seconds.
   * @default 60
   */
  readonly scaleDownIntervalSeconds?: number;
  /**
   * The utilisation the Little's-law need is sized for. Valid: (0; 1].
   * @default 0.9
   */
  readonly targetUtilization?: number;
  /**
   * Age at or below this fraction of the target counts as idle. Valid: [0; 1].
   * @default 0.25
   */
  readonly idleAgeFraction?: number;
  /**
   * Per-item time above this multiple of its healthy baseline is "downstream slower": hold, do not grow.
   * Valid: (1; 100].
   * @default 1.5
   */
  readonly slowdownFactor?: number;
  /**
   * The horizon over which growth also drains the backlog above the target. Valid: (0; 86400] seconds.
   * @default 300
   */
  readonly backlogDrainSeconds?: number;
  /**
   * An age datapoint older than this is missing data (hold). Valid: (0; 86400] seconds.
   * @default 300
   */
  readonly maxDataAgeSeconds?: number;
  /**
   * How the concurrency reaches Lambda: `lockstep` drives reserved concurrency and the mapping's
   * MaximumConcurrency together (MaximumConcurrency ≤ reserved at every instant), `reserved` only the reserved
   * concurrency, `event-source` only the mapping's maximum.
   * @default 'lockstep'
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html#events-sqs-max-concurrency
   */
  readonly actuator?: ActuatorMode;
}

// Every setting of the shared validator is a documented prop: a setting added there without one here fails the
// typecheck (the props are read by the validator's own field names).
type UndocumentedSettings = Exclude<keyof ScalerSettings, keyof QueueAgeScalerSettings>;
const everySettingIsAProp: [UndocumentedSettings] extends [never] ? true : UndocumentedSettings = true;
void everySettingIsAProp;

export interface QueueAgeScalerProps extends QueueAgeScalerSettings {
  /** The queue whose oldest message's age the scaler holds at the target. */
  readonly queue: IQueue;
  /**
   * The queue's dead-letter queue, watched by the dead-letters alarm.
   * @default the queue's `deadLetterQueue` when it is a `Queue` of this app; otherwise no DLQ alarm
   */
  readonly deadLetterQueue?: IQueue;
  /** The function that consumes the queue; the scaler sets its reserved concurrency. */
  readonly consumer: IFunction;
  /** The consumer's SQS event source mapping; the scaler sets its `ScalingConfig.MaximumConcurrency`. */
  readonly eventSourceMapping: IEventSourceMapping;
  /**
   * Names the scaler's metrics (the `ScalerName` dimension), alarms and dashboard.
   * Valid: 1–64 of `A–Z a–z 0–9 - _`.
   * @default a name unique in the app, derived from the construct's path
   */
  readonly scalerName?: string;
  /**
   * Where alarm and OK notifications go.
   * @default a new topic, encrypted with a new customer-managed KMS key (CloudWatch cannot publish to a
   * topic encrypted with the AWS-managed SNS key)
   */
  readonly alarmTopic?: ITopic;
  /**
   * An e-mail address subscribed to the alarm topic (confirm the subscription from the e-mail).
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Scale events in 10 minutes, with the concurrency changing direction, above which the oscillation alarm
   * fires. Valid: integer [1; 9] (a one-minute tick makes at most 10 changes in 10 minutes).
   * @default 3
   */
  readonly oscillationThreshold?: number;
  /**
   * Consumer throttles per minute that count as a bad minute for the throttle alarm (2 bad of 3 alarm).
   * Valid: integer [1; 1000000].
   * @default 1
   */
  readonly throttleThreshold?: number;
  /**
   * The dashboard's name. Valid: 1–255 of `A–Z a–z 0–9 - _`.
   * @default the scaler's name
   */
  readonly dashboardName?: string;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
// Above a tick of a minute, 10 minutes hold at most 10 changes: a threshold of 10 could never be exceeded.
const OSCILLATION_THRESHOLD_RANGE = { min: 1, max: 9 } as const;
const THROTTLE_THRESHOLD_RANGE = { min: 1, max: 1_000_000 } as const;
// The controller's event is worthless after one and a half periods (AWS-FACTS: drop events older than ~1.5
// periods); Lambda accepts a maximum event age of 60 s to 6 h.
const MIN_EVENT_AGE_SECONDS = 60;

function integerIn(value: number, range: { min: number; max: number }): boolean {
  return Number.isInteger(value) && value >= range.min && value <= range.max;
}

/**
 * Holds an SQS queue's oldest-message age at a target with the least consumer concurrency: a controller
 * Lambda, run once a tick, reads the age and sets the consumer's reserved concurrency and its mapping's
 * MaximumConcurrency within [floor, cap]. Attaches to any queue, consumer function and SQS event source mapping.
 */
export class QueueAgeScaler extends Construct {
  readonly config: ScalerConfig;
  readonly scalerName: string;
  readonly controller: NodejsFunction;
  readonly schedule: Rule;
  readonly alarmTopic: ITopic;
  readonly metrics: ScalerMetricFactory;
  readonly alarms: ScalerAlarms;
  readonly dashboard: ScalerDashboard;

  constructor(scope: Construct, id: string, props: QueueAgeScalerProps) {
    super(scope, id);

    const problems: string[] = [];
    const settings: Record<string, unknown> = {};
    for (const field of SETTING_NAMES) {
      const value = (props as unknown as Record<string, unknown>)[field];
      if (value !== undefined) settings[field] = value;
    }
    let config: ScalerConfig | undefined;
    try {
      config = resolveScalerConfig(settings);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
    if (config && config.tickSeconds % 60 !== 0) {
      problems.push(
        `tickSeconds = ${config.tickSeconds}: the schedule runs in whole minutes (EventBridge rate expressions), so it must be a multiple of 60`,
      );
    }
    const scalerName = props.scalerName ?? Names.uniqueResourceName(this, { maxLength: 64, separator: '-' });
    if (!Token.isUnresolved(scalerName) && !(NAME_PATTERN.test(scalerName) && scalerName.length <= 64)) {
      problems.push(`scalerName = '${scalerName}': must be 1–64 characters of A–Z a–z 0–9 - _`);
    }
    const dashboardName = props.dashboardName ?? scalerName;
    if (
      !Token.isUnresolved(dashboardName) &&
      !(NAME_PATTERN.test(dashboardName) && dashboardName.length <= 255)
    ) {
      problems.push(`dashboardName = '${dashboardName}': must be 1–255 characters of A–Z a–z 0–9 - _`);
    }
    if (props.alarmEmail !== undefined && !Token.isUnresolved(props.alarmEmail)) {
      if (!EMAIL_PATTERN.test(props.alarmEmail)) {
        problems.push(
          `alarmEmail = '${props.alarmEmail}': must be an e-mail address such as ops@example.com`,
        );
      }
    }
    if (props.alarmEmail !== undefined && props.alarmTopic !== undefined) {
      problems.push(
        'alarmEmail is given with alarmTopic: subscribe the address to your own topic, or leave alarmTopic out so the scaler creates one',
      );
    }
    const oscillationThreshold = props.oscillationThreshold ?? 3;
    if (!integerIn(oscillationThreshold, OSCILLATION_THRESHOLD_RANGE)) {
      problems.push(
        `oscillationThreshold = ${oscillationThreshold}: must be an integer in [${OSCILLATION_THRESHOLD_RANGE.min}; ${OSCILLATION_THRESHOLD_RANGE.max}] (scale events per 10 minutes)`,
      );
    }
    const throttleThreshold = props.throttleThreshold ?? 1;
    if (!integerIn(throttleThreshold, THROTTLE_THRESHOLD_RANGE)) {
      problems.push(
        `throttleThreshold = ${throttleThreshold}: must be an integer in [${THROTTLE_THRESHOLD_RANGE.min}; ${THROTTLE_THRESHOLD_RANGE.max}] (throttles per minute)`,
      );
    }
    problems.push(...checkAttachedResources(props, config));
    if (problems.length > 0 || !config) throw new ConfigError(problems);

    this.config = config;
    this.scalerName = scalerName;
    const deadLetterQueue =
      props.deadLetterQueue ??
      (props.queue instanceof Queue ? props.queue.deadLetterQueue?.queue : undefined);

    this.controller = this.createController(props, config, scalerName, deadLetterQueue);
    this.schedule = new Rule(this, 'Schedule', {
      description: `Runs the queue-age scaler ${scalerName} every ${config.tickSeconds / 60} minute(s)`,
      schedule: Schedule.rate(Duration.minutes(config.tickSeconds / 60)),
      targets: [
        // EventBridge delivers at least once; a retried tick is stale by the next one, so none are retried.
        new LambdaFunction(this.controller, {
          retryAttempts: 0,
          maxEventAge: Duration.seconds(MIN_EVENT_AGE_SECONDS),
        }),
      ],
    });

    this.alarmTopic = props.alarmTopic ?? this.createTopic(props.alarmEmail);
    const actions: IAlarmAction[] = [new SnsAction(this.alarmTopic)];
    this.metrics = new ScalerMetricFactory({
      queue: props.queue,
      deadLetterQueue,
      consumer: props.consumer,
      controller: this.controller,
      scalerName,
    });
    this.alarms = new ScalerAlarms(this, 'Alarms', {
      metrics: this.metrics,
      scalerName,
      targetAgeSeconds: config.targetAgeSeconds,
      maxConcurrency: config.maxConcurrency,
      tickSeconds: config.tickSeconds,
      oscillationThreshold,
      throttleThreshold,
      actions,
    });
    this.dashboard = new ScalerDashboard(this, 'Dashboard', {
      dashboardName,
      metrics: this.metrics,
      alarms: this.alarms,
      targetAgeSeconds: config.targetAgeSeconds,
      maxConcurrency: config.maxConcurrency,
      minConcurrency: config.minConcurrency,
      oscillationThreshold,
    });
  }

  private createController(
    props: QueueAgeScalerProps,
    config: ScalerConfig,
    scalerName: string,
    deadLetterQueue: IQueue | undefined,
  ): NodejsFunction {
    const logGroup = new LogGroup(this, 'ControllerLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A role of our own, without AWSLambdaBasicExecutionRole: its logs statement covers every log group.
    const role = new Role(this, 'ControllerRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `The queue-age scaler ${scalerName}: reads its queue's age, sets its consumer's concurrency`,
    });
    logGroup.grantWrite(role);
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadQueueDepth',
        actions: ['sqs:GetQueueAttributes'],
        resources: [props.queue.queueArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        sid: 'SetConsumerConcurrency',
        actions: ['lambda:GetFunctionConcurrency', 'lambda:PutFunctionConcurrency'],
        resources: [props.consumer.functionArn],
      }),
    );
    // The `reserved` actuator never reads or writes the mapping.
    if (config.actuator !== 'reserved') {
      role.addToPolicy(
        new PolicyStatement({
          sid: 'SetMappingMaximumConcurrency',
          actions: ['lambda:GetEventSourceMapping', 'lambda:UpdateEventSourceMapping'],
          resources: [props.eventSourceMapping.eventSourceMappingArn],
        }),
      );
    }
    // The actions with no resource type live in a policy of their own, so the one acknowledgement below
    // covers exactly them.
    const unscoped = new Policy(this, 'ControllerUnscopedPolicy', {
      statements: [
        new PolicyStatement({
          sid: 'ReadMetricsAndAccountLimits',
          actions: ['cloudwatch:GetMetricData', 'lambda:GetAccountSettings'],
          resources: ['*'],
        }),
        new PolicyStatement({
          sid: 'PublishOwnMetrics',
          effect: Effect.ALLOW,
          actions: ['cloudwatch:PutMetricData'],
          resources: ['*'],
          conditions: { StringEquals: { 'cloudwatch:namespace': METRIC_NAMESPACE } },
        }),
      ],
    });
    unscoped.attachToRole(role);
    Validations.of(unscoped).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudwatch:GetMetricData and lambda:GetAccountSettings have no resource type, so IAM accepts only "*"; cloudwatch:PutMetricData has none either and is limited to the QueueAgeScaler namespace by the cloudwatch:namespace condition',
    });

    const resourceEnvironment: Record<string, string> = {
      [CONTROLLER_RESOURCE_ENVIRONMENT.queueUrl]: props.queue.queueUrl,
      [CONTROLLER_RESOURCE_ENVIRONMENT.queueName]: props.queue.queueName,
      [CONTROLLER_RESOURCE_ENVIRONMENT.consumerFunctionName]: props.consumer.functionName,
      [CONTROLLER_RESOURCE_ENVIRONMENT.eventSourceMappingUuid]: props.eventSourceMapping.eventSourceMappingId,
      [CONTROLLER_RESOURCE_ENVIRONMENT.scalerName]: scalerName,
      [CONTROLLER_RESOURCE_ENVIRONMENT.metricNamespace]: METRIC_NAMESPACE,
    };
    if (deadLetterQueue) {
      resourceEnvironment[CONTROLLER_RESOURCE_ENVIRONMENT.deadLetterQueueName] = deadLetterQueue.queueName;
    }

    const controller = new NodejsFunction(this, 'Controller', {
      description: `Queue-age scaler ${scalerName}: holds the oldest message's age at ${config.targetAgeSeconds} s`,
      entry: CONTROLLER_ENTRY,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      // A tick is a handful of calls; the SDK's adaptive retry may stretch it, but never past the next tick.
      timeout: Duration.seconds(Math.min(60, config.tickSeconds / 2)),
      // One tick at a time: two concurrent ticks would race on the same absolute target.
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      maxEventAge: Duration.seconds(Math.max(MIN_EVENT_AGE_SECONDS, Math.round(1.5 * config.tickSeconds))),
      role,
      logGroup,
      environment: {
        ...settingsToEnvironment(settingsOf(config)),
        ...resourceEnvironment,
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: false,
        // The Node 24 runtime ships the AWS SDK v3.
        externalModules: ['@aws-sdk/*'],
        // ESM bundles of CommonJS dependencies still call require().
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    dependOnRolePoliciesOnly(controller, [role.node.tryFindChild('DefaultPolicy'), unscoped]);
    return controller;
  }

  private createTopic(alarmEmail: string | undefined): Topic {
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the queue-age scaler alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    // CloudWatch must be able to encrypt what it publishes to the topic.
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'Queue-age scaler alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL gives the topic a resource policy, which replaces SNS's default one: allow CloudWatch alarms
    // of this account explicitly.
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
    return topic;
  }
}

function settingsOf(config: ScalerConfig): ScalerSettings {
  const settings: Record<string, number | string> = {};
  for (const field of SETTING_NAMES) {
    const value = config[field];
    if (value !== undefined) settings[field] = value;
  }
  return settings as ScalerSettings;
}
