import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  Annotations,
  ArnFormat,
  CfnOutput,
  CfnResource,
  Duration,
  Names,
  RemovalPolicy,
  Stack,
  Token,
} from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import {
  Architecture,
  Code,
  type IEventSourceMapping,
  type IFunction,
  Function as LambdaFunctionResource,
  Runtime,
  RuntimeFamily,
} from 'aws-cdk-lib/aws-lambda';
import type { SqsEventSource, SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { InvocationType, Trigger } from 'aws-cdk-lib/triggers';
import { Construct, type IConstruct } from 'constructs';
import { controllerTimeoutSeconds } from '../aws/call-budget.ts';
import {
  ConfigError,
  EVENT_SOURCE_MAX_CONCURRENCY,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  settingsToEnvironment,
} from '../control/index.ts';
import { METRIC_NAMESPACE } from '../telemetry.ts';
import { ScalerAlarms } from './alarms.ts';
import { type ConcurrencyOwner, concurrencyOwnerOf, unqualifiedFunctionArn } from './concurrency-owner.ts';
import { ScalerDashboard } from './dashboard.ts';
import { checkAttachedResources } from './deployment-checks.ts';
import { attachMapping } from './event-source.ts';
import { ScalerMetricFactory } from './metrics.ts';
import { acknowledgeNagFinding } from './nag-acknowledgement.ts';
import { dependOnRolePoliciesOnly } from './role-dependency.ts';
import { propName, type QueueAgeScalerSettings, settingsFromProps } from './scaler-settings.ts';

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

/**
 * The pre-built controller: `functions/controller/index.ts` bundled once by `npm run build` (scripts/build.ts),
 * with everything it imports, into one ESM file. This module sits two levels below the package root both in the
 * sources (lib/cdk/) and in the published package (dist/lib/), so the same path serves the repo and an install:
 * the user's synth bundles nothing (no esbuild, no Docker).
 */
export const CONTROLLER_ASSET_DIR = join(import.meta.dirname, '..', '..', 'assets', 'controller');
export const CONTROLLER_HANDLER = 'index.handler';

/**
 * The controller's runtime, named rather than taken from `Runtime.NODEJS_24_X` (added in aws-cdk-lib 2.224):
 * the name works with every aws-cdk-lib in the peer range.
 */
const CONTROLLER_RUNTIME = new Runtime('nodejs24.x', RuntimeFamily.NODEJS, { supportsInlineCode: true });

/** The stack outputs `queue-age-scaler status --stack` reads (lib/operator/stack-outputs.ts names them). */
export const SCALER_OUTPUTS = [
  'QueueUrl',
  'QueueName',
  'ConsumerFunctionName',
  'EventSourceMappingUuid',
  'ControllerFunctionName',
  'ScalerName',
  'AlarmTopicArn',
  'DashboardName',
] as const;

export interface QueueAgeScalerProps extends QueueAgeScalerSettings {
  /** The queue whose oldest message's age the scaler holds at the target. A standard queue (not FIFO). */
  readonly queue: IQueue;
  /**
   * The function that consumes the queue: its reserved concurrency is what the scaler sets. An alias or a
   * version is accepted, and so is a function imported by a qualified ARN: the mapping invokes it, and the
   * reserved concurrency is set on its function, named without the qualifier (AWS: reserved concurrency applies
   * to the function as a whole, all versions and aliases included).
   */
  readonly consumer: IFunction;
  /**
   * The consumer's `SqsEventSource` on `queue`. If the app has not added it to the consumer yet, the scaler
   * does (`consumer.addEventSource`); do not add it again afterwards. Without `MaximumConcurrency` it gets the
   * scaler's starting value.
   * @default the mapping given as `eventSourceMapping`, else the consumer's mapping on the queue in this app,
   * else one the scaler creates with `eventSourceProps`
   */
  readonly eventSource?: SqsEventSource;
  /**
   * The consumer's event source mapping on `queue`, when the app made it as an `EventSourceMapping` (or
   * imported it: then synth cannot check it and says so in a warning).
   * @default see `eventSource`
   */
  readonly eventSourceMapping?: IEventSourceMapping;
  /**
   * Options of the mapping the scaler creates when the app gives no `eventSource` or `eventSourceMapping` and
   * has none on this queue and consumer. Its `maxConcurrency` is the scaler's starting value unless given.
   * @default `SqsEventSource` defaults, `MaximumConcurrency` = the floor (the cap with `ScalerActuator.RESERVED`)
   */
  readonly eventSourceProps?: SqsEventSourceProps;
  /**
   * The queue's dead-letter queue, watched by the dead-letters alarm.
   * @default the queue's `deadLetterQueue` when it is a `Queue` of this app; otherwise no DLQ alarm
   */
  readonly deadLetterQueue?: IQueue;
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
  /**
   * Stack outputs named as `queue-age-scaler status --stack` and `load --stack` read them (`QueueUrl`,
   * `ConsumerFunctionName`, `EventSourceMappingUuid`, `ScalerName`, `ControllerFunctionName`, …). One scaler per
   * stack can have them; with a second one in the same stack, turn them off on one of the two.
   * @default true
   */
  readonly stackOutputs?: boolean;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
// Above a tick of a minute, 10 minutes hold at most 10 changes: a threshold of 10 could never be exceeded.
const OSCILLATION_THRESHOLD_RANGE = { min: 1, max: 9 } as const;
const THROTTLE_THRESHOLD_RANGE = { min: 1, max: 1_000_000 } as const;
const DEFAULT_OSCILLATION_THRESHOLD = 3;
const DEFAULT_THROTTLE_THRESHOLD = 1;
// The controller's event is worthless after one and a half periods (drop events older than ~1.5 periods); Lambda
// accepts a maximum event age of 60 s to 6 h (docs/aws-facts.md, "EventBridge schedules").
const MIN_EVENT_AGE_SECONDS = 60;
// Marks scalers across copies of this module (an app may load two), for the one-scaler-per-consumer check.
const SCALER_MARK = Symbol.for('queue-age-scaler.QueueAgeScaler');

function integerIn(value: number, range: { min: number; max: number }): boolean {
  return Number.isInteger(value) && value >= range.min && value <= range.max;
}

/** Where MaximumConcurrency starts: the floor when the scaler drives it; the cap when only reserved is driven. */
function initialMaximumConcurrency(config: ScalerConfig): number {
  const start = config.actuator === 'reserved' ? config.maxConcurrency : config.minConcurrency;
  return Math.min(Math.max(start, EVENT_SOURCE_MAX_CONCURRENCY.min), EVENT_SOURCE_MAX_CONCURRENCY.max);
}

/**
 * Holds an SQS queue's oldest-message age at a target with the least consumer concurrency: a controller
 * Lambda, run once a tick, reads the age and sets the consumer's reserved concurrency and its mapping's
 * MaximumConcurrency within [floor, cap]. Attaches to any standard queue and its consumer.
 *
 * Every mistake it can see at synth (a bad setting, a mapping of another queue, a second scaler on the same
 * consumer, …) is reported as an error annotation on this construct, all at once: `cdk synth` then lists each
 * with this construct's path and fails, without a stack trace.
 */
export class QueueAgeScaler extends Construct {
  /** Whether `x` is a scaler, whichever copy of this library made it. */
  static isQueueAgeScaler(x: unknown): x is QueueAgeScaler {
    return typeof x === 'object' && x !== null && SCALER_MARK in x;
  }

  /** The validated settings (the defaults when synth reports a setting as invalid). */
  readonly config: ScalerConfig;
  readonly scalerName: string;
  readonly controller: LambdaFunctionResource;
  readonly schedule: Rule;
  readonly alarmTopic: ITopic;
  readonly metrics: ScalerMetricFactory;
  readonly alarms: ScalerAlarms;
  readonly dashboard: ScalerDashboard;
  /** The id of the event source mapping the scaler drives. */
  readonly eventSourceMappingId: string;
  /**
   * The function whose reserved concurrency is set (the consumer, or the function of a consumer alias). A consumer
   * imported by a qualified ARN is this function as given: the controller's IAM and environment name it without
   * the qualifier.
   */
  readonly concurrencyOwner: IFunction;
  /** The owner named without a qualifier: what IAM, the controller and the one-scaler check use. */
  private readonly owner: ConcurrencyOwner;

  constructor(scope: Construct, id: string, props: QueueAgeScalerProps) {
    super(scope, id);
    Object.defineProperty(this, SCALER_MARK, { value: true });

    // Every invalid value is reported and replaced by its default, so the app's own code and CDK's checks
    // downstream run to the end and synth lists every problem at once, never a stack trace.
    const problems: string[] = [];
    const validated = validatedConfig(props, problems);
    const config = validated ?? resolveScalerConfig({});
    this.config = config;
    const options = checkedOptions(
      props,
      Names.uniqueResourceName(this, { maxLength: 64, separator: '-' }),
      problems,
    );

    this.owner = concurrencyOwnerOf(props.consumer);
    this.concurrencyOwner = this.owner.function;
    const rival = this.scalerOfSameConsumer();
    if (rival) {
      problems.push(
        `the consumer ${this.concurrencyOwner.node.path} already has a queue-age scaler, ${rival.node.path}: one scaler per consumer, or the two would fight over its reserved concurrency; attach one scaler, or give each queue its own consumer`,
      );
    }

    const mapping = attachMapping(this, props, initialMaximumConcurrency(config));
    this.eventSourceMappingId = mapping.mappingId;
    problems.push(...mapping.problems);
    const findings = checkAttachedResources(
      { queue: props.queue, consumer: props.consumer, concurrencyOwner: this.concurrencyOwner, mapping },
      validated,
    );
    problems.push(...findings.errors);
    const annotations = Annotations.of(this);
    for (const problem of problems) annotations.addError(problem);
    for (const warning of findings.warnings) addWarning(this, warning.id, warning.message);
    for (const note of mapping.notes) annotations.addInfo(note);

    this.scalerName = options.scalerName;
    const deadLetterQueue =
      props.deadLetterQueue ??
      (props.queue instanceof Queue ? props.queue.deadLetterQueue?.queue : undefined);
    this.controller = this.createController(props, config, options.scalerName, deadLetterQueue);
    this.schedule = this.createSchedule(config, options.scalerName);
    this.startAtDeploy();
    this.alarmTopic = props.alarmTopic ?? this.createTopic(options.alarmEmail);
    this.metrics = new ScalerMetricFactory({
      queue: props.queue,
      deadLetterQueue,
      consumer: this.concurrencyOwner,
      controller: this.controller,
      scalerName: options.scalerName,
    });
    this.alarms = new ScalerAlarms(this, 'Alarms', {
      metrics: this.metrics,
      scalerName: options.scalerName,
      targetAge: Duration.seconds(config.targetAgeSeconds),
      maxConcurrency: config.maxConcurrency,
      slowdownFactor: config.slowdownFactor,
      tick: Duration.seconds(config.tickSeconds),
      oscillationThreshold: options.oscillationThreshold,
      throttleThreshold: options.throttleThreshold,
      actions: [new SnsAction(this.alarmTopic)],
    });
    this.dashboard = new ScalerDashboard(this, 'Dashboard', {
      dashboardName: options.dashboardName,
      metrics: this.metrics,
      alarms: this.alarms,
      targetAge: Duration.seconds(config.targetAgeSeconds),
      maxConcurrency: config.maxConcurrency,
      minConcurrency: config.minConcurrency,
      oscillationThreshold: options.oscillationThreshold,
    });
    if (props.stackOutputs ?? true) this.createOutputs(props.queue);
  }

  /** The schedule: one tick per `tick`, never retried (a retried tick is stale by the next one). */
  private createSchedule(config: ScalerConfig, scalerName: string): Rule {
    return new Rule(this, 'Schedule', {
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
  }

  /**
   * The controller's first run, when the scaler is created: an EventBridge rate schedule first fires up to a tick
   * after it is created, and a new queue's producers may start sooner. Invoked once, asynchronously (the deploy does
   * not wait for the tick and its fast path); with the schedule's own run, the controller's reserved concurrency of
   * 1 keeps them one at a time. Not on later deploys: the schedule is running by then.
   */
  private startAtDeploy(): void {
    const start = new Trigger(this, 'Start', {
      handler: this.controller,
      invocationType: InvocationType.EVENT,
      executeOnHandlerChange: false,
      executeAfter: [this.schedule],
    });
    adjustTriggerProvider(start, CONTROLLER_RUNTIME);
  }

  /**
   * Another scaler of this app on the same consumer function: aliases and versions count as their function, and
   * ARNs are compared without their qualifier (`…:orders-consumer:live` is `…:orders-consumer`). The other scaler's
   * ARN is stripped here rather than read from it, since it may come from another copy of this library.
   */
  private scalerOfSameConsumer(): QueueAgeScaler | undefined {
    const owner = this.concurrencyOwner;
    const arn = this.owner.functionArn;
    return this.node.root.node
      .findAll()
      .filter((c): c is QueueAgeScaler => c !== this && QueueAgeScaler.isQueueAgeScaler(c))
      .find(
        (other) =>
          other.concurrencyOwner === owner ||
          (!Token.isUnresolved(arn) && unqualifiedFunctionArn(other.concurrencyOwner.functionArn) === arn),
      );
  }

  private createController(
    props: QueueAgeScalerProps,
    config: ScalerConfig,
    scalerName: string,
    deadLetterQueue: IQueue | undefined,
  ): LambdaFunctionResource {
    if (!existsSync(join(CONTROLLER_ASSET_DIR, 'index.mjs'))) {
      // Only a checkout of the sources can lack it: the package ships it built.
      throw new Error(
        `the controller's pre-built bundle is missing from ${CONTROLLER_ASSET_DIR}: run npm run build (or npm run build:controller) in the queue-age-scaler checkout`,
      );
    }
    const stack = Stack.of(this);
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
        // Event-source mode reads reserved concurrency (it bounds the mapping) and never writes it: the template owns it.
        actions:
          config.actuator === 'event-source'
            ? ['lambda:GetFunctionConcurrency']
            : ['lambda:GetFunctionConcurrency', 'lambda:PutFunctionConcurrency'],
        resources: [this.owner.functionArn],
      }),
    );
    const mappingArn = stack.formatArn({
      service: 'lambda',
      resource: 'event-source-mapping',
      resourceName: this.eventSourceMappingId,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // Every mode reads the mapping (a disabled mapping is a pause); the `reserved` actuator never writes it.
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadMapping',
        actions: ['lambda:GetEventSourceMapping'],
        resources: [mappingArn],
      }),
    );
    if (config.actuator !== 'reserved') {
      role.addToPolicy(
        new PolicyStatement({
          sid: 'SetMappingMaximumConcurrency',
          actions: ['lambda:UpdateEventSourceMapping'],
          resources: [mappingArn],
          // AWS (Service Authorization Reference, Lambda): UpdateEventSourceMapping takes lambda:FunctionArn, the
          // function the mapping invokes. It may be an alias or version of the consumer, hence `:*` beside the
          // bare ARN. The role then cannot point the mapping at another function; it can still change the other
          // fields of this one (BatchSize, Enabled, …): IAM has no condition key for them (docs/deploy.md).
          conditions: {
            ArnLike: { 'lambda:FunctionArn': [this.owner.functionArn, `${this.owner.functionArn}:*`] },
          },
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
    acknowledgeNagFinding(unscoped, {
      rule: 'AwsSolutions-IAM5',
      finding: 'Resource::*',
      reason:
        'cloudwatch:GetMetricData and lambda:GetAccountSettings have no resource type, so IAM accepts only "*"; cloudwatch:PutMetricData has none either and is limited to the QueueAgeScaler namespace by the cloudwatch:namespace condition',
    });

    const resourceEnvironment: Record<string, string> = {
      [CONTROLLER_RESOURCE_ENVIRONMENT.queueUrl]: props.queue.queueUrl,
      [CONTROLLER_RESOURCE_ENVIRONMENT.queueName]: props.queue.queueName,
      // Unqualified: reserved concurrency belongs to the function, whatever alias or version the mapping invokes.
      [CONTROLLER_RESOURCE_ENVIRONMENT.consumerFunctionName]: this.owner.functionName,
      [CONTROLLER_RESOURCE_ENVIRONMENT.eventSourceMappingUuid]: this.eventSourceMappingId,
      [CONTROLLER_RESOURCE_ENVIRONMENT.scalerName]: scalerName,
      [CONTROLLER_RESOURCE_ENVIRONMENT.metricNamespace]: METRIC_NAMESPACE,
    };
    if (deadLetterQueue) {
      resourceEnvironment[CONTROLLER_RESOURCE_ENVIRONMENT.deadLetterQueueName] = deadLetterQueue.queueName;
    }

    const controller = new LambdaFunctionResource(this, 'Controller', {
      description: `Queue-age scaler ${scalerName}: holds the oldest message's age at ${config.targetAgeSeconds} s`,
      code: Code.fromAsset(CONTROLLER_ASSET_DIR),
      handler: CONTROLLER_HANDLER,
      runtime: CONTROLLER_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      // A tick is a handful of calls; with the fast path the invocation then samples the depth until 10 s before
      // the next tick (controllerTimeoutSeconds says why the timeout is a tick plus 10 s).
      timeout: Duration.seconds(controllerTimeoutSeconds(config)),
      // One tick at a time: two concurrent ticks would race on the same absolute target.
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      maxEventAge: Duration.seconds(Math.max(MIN_EVENT_AGE_SECONDS, Math.round(1.5 * config.tickSeconds))),
      role,
      logGroup,
      // The start trigger invokes a version of the controller: the same async settings as the function's (a
      // version has its own), and a deploy that changes it need not keep the old one.
      currentVersionOptions: {
        removalPolicy: RemovalPolicy.DESTROY,
        retryAttempts: 0,
        maxEventAge: Duration.seconds(Math.max(MIN_EVENT_AGE_SECONDS, Math.round(1.5 * config.tickSeconds))),
      },
      environment: {
        ...settingsToEnvironment(settingsOf(config)),
        ...resourceEnvironment,
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
    });
    // TLS only (the statement `enforceSSL: true` writes, spelt out: that prop needs aws-cdk-lib 2.129).
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowPublishThroughSSLOnly',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    // A topic policy replaces SNS's default one: allow CloudWatch alarms of this account explicitly.
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

  /**
   * The outputs the operator tools read from a stack, under the exact keys they look for. Another output of the
   * stack with one of these keys (a second scaler's, or the app's own) is reported rather than overwritten.
   */
  private createOutputs(queue: IQueue): void {
    const stack = Stack.of(this);
    const values: Record<(typeof SCALER_OUTPUTS)[number], string> = {
      QueueUrl: queue.queueUrl,
      QueueName: queue.queueName,
      ConsumerFunctionName: this.owner.functionName,
      EventSourceMappingUuid: this.eventSourceMappingId,
      ControllerFunctionName: this.controller.functionName,
      ScalerName: this.scalerName,
      AlarmTopicArn: this.alarmTopic.topicArn,
      DashboardName: this.dashboard.dashboard.dashboardName,
    };
    const taken = new Set(
      stack.node
        .findAll()
        .filter((c): c is CfnOutput => c instanceof CfnOutput)
        .map((output) => stack.resolve(output.logicalId) as string),
    );
    const clash = SCALER_OUTPUTS.filter((key) => taken.has(key));
    if (clash.length > 0) {
      Annotations.of(this).addError(
        `the stack already has outputs named ${clash.join(', ')} (another scaler's, or the app's own): set stackOutputs: false on this scaler, and point the tools at it by name (queue-age-scaler status --queue-url … --scaler-name ${Token.isUnresolved(this.scalerName) ? '…' : this.scalerName})`,
      );
      return;
    }
    const outputs = new Construct(this, 'Outputs');
    for (const key of SCALER_OUTPUTS) {
      new CfnOutput(outputs, key, { value: values[key] }).overrideLogicalId(key);
    }
  }
}

/** A warning the app can acknowledge by id, where this aws-cdk-lib supports it. */
/**
 * The control law's settings from the props, validated; undefined (with the problems added) where any is
 * invalid. The schedule runs in whole minutes, so a tick must be one.
 */
function validatedConfig(props: QueueAgeScalerProps, problems: string[]): ScalerConfig | undefined {
  const given = settingsFromProps(props);
  problems.push(...given.problems);
  let validated: ScalerConfig | undefined;
  try {
    validated = resolveScalerConfig(given.settings, { label: propName });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (validated && validated.tickSeconds % 60 !== 0) {
    problems.push(
      `tick = ${validated.tickSeconds} s: the schedule runs in whole minutes (EventBridge rate expressions), so it must be Duration.minutes(1), Duration.minutes(2), …`,
    );
    return undefined;
  }
  return validated;
}

/** The props that are not control-law settings, each checked, an invalid one replaced by its default. */
interface CheckedOptions {
  readonly scalerName: string;
  readonly dashboardName: string;
  readonly alarmEmail?: string;
  readonly oscillationThreshold: number;
  readonly throttleThreshold: number;
}

/** A concrete name outside 1–`max` characters of A–Z a–z 0–9 - _ is a problem, and the fallback is used. */
function checkedName(
  field: string,
  value: string,
  max: number,
  fallback: string,
  problems: string[],
): string {
  if (Token.isUnresolved(value) || (NAME_PATTERN.test(value) && value.length <= max)) return value;
  problems.push(`${field} = '${value}': must be 1–${max} characters of A–Z a–z 0–9 - _`);
  return fallback;
}

function checkedThreshold(
  field: string,
  value: number,
  range: { min: number; max: number },
  unit: string,
  fallback: number,
  problems: string[],
): number {
  if (integerIn(value, range)) return value;
  problems.push(`${field} = ${value}: must be an integer in [${range.min}; ${range.max}] (${unit})`);
  return fallback;
}

function checkedOptions(
  props: QueueAgeScalerProps,
  generatedName: string,
  problems: string[],
): CheckedOptions {
  const scalerName = checkedName(
    'scalerName',
    props.scalerName ?? generatedName,
    64,
    generatedName,
    problems,
  );
  const dashboardName = checkedName(
    'dashboardName',
    props.dashboardName ?? scalerName,
    255,
    scalerName,
    problems,
  );
  let alarmEmail = props.alarmEmail;
  if (alarmEmail !== undefined && !Token.isUnresolved(alarmEmail) && !EMAIL_PATTERN.test(alarmEmail)) {
    problems.push(`alarmEmail = '${alarmEmail}': must be an e-mail address such as ops@example.com`);
    alarmEmail = undefined;
  }
  if (props.alarmEmail !== undefined && props.alarmTopic !== undefined) {
    problems.push(
      'alarmEmail is given with alarmTopic: subscribe the address to your own topic, or leave alarmTopic out so the scaler creates one',
    );
  }
  return {
    scalerName,
    dashboardName,
    alarmEmail,
    oscillationThreshold: checkedThreshold(
      'oscillationThreshold',
      props.oscillationThreshold ?? DEFAULT_OSCILLATION_THRESHOLD,
      OSCILLATION_THRESHOLD_RANGE,
      'scale events per 10 minutes',
      DEFAULT_OSCILLATION_THRESHOLD,
      problems,
    ),
    throttleThreshold: checkedThreshold(
      'throttleThreshold',
      props.throttleThreshold ?? DEFAULT_THROTTLE_THRESHOLD,
      THROTTLE_THRESHOLD_RANGE,
      'throttles per minute',
      DEFAULT_THROTTLE_THRESHOLD,
      problems,
    ),
  };
}

function addWarning(scope: IConstruct, id: string, message: string): void {
  const annotations = Annotations.of(scope) as Annotations & {
    addWarningV2?: (id: string, message: string) => void;
  };
  if (typeof annotations.addWarningV2 === 'function') annotations.addWarningV2(id, message);
  else annotations.addWarning(message);
}

function settingsOf(config: ScalerConfig): ScalerSettings {
  const settings: Record<string, number | string> = {};
  for (const field of SETTING_NAMES) {
    const value = config[field];
    if (value !== undefined) settings[field] = value;
  }
  return settings as ScalerSettings;
}

/**
 * aws-cdk-lib's trigger provider (one per stack, shared by every Trigger), made deployable and lint-clean:
 * - its runtime is the controller's: older aws-cdk-lib releases in the peer range give it `nodejs18.x`, which Lambda
 *   no longer accepts for a new function (docs/aws-facts.md, "Lambda runtimes"); its handler is plain Node with the
 *   runtime's AWS SDK, so any later Node runtime runs it;
 * - it declares `DependsOn` its role next to a `Fn::GetAtt` of the same role, which cfn-lint reports (W3005). The
 *   `GetAtt` orders them already: the redundant `DependsOn` goes.
 */
function adjustTriggerProvider(start: Trigger, runtime: Runtime): void {
  const provider = Stack.of(start).node.children.find((child) => TRIGGER_PROVIDER_ID.test(child.node.id));
  const handler = provider?.node.tryFindChild('Handler');
  const role = provider?.node.tryFindChild('Role');
  if (!(handler instanceof CfnResource && role instanceof CfnResource)) return;
  handler.addPropertyOverride('Runtime', runtime.name);
  // removeResourceDependency where this aws-cdk-lib has it (removeDependency, its older name, warns as deprecated).
  const remove = handler.removeResourceDependency ?? handler.removeDependency;
  remove.call(handler, role);
}

/** The id aws-cdk-lib gives the stack's trigger provider (`AWSCDK.TriggerCustomResourceProviderCustomResourceProvider`). */
const TRIGGER_PROVIDER_ID = /TriggerCustomResourceProvider/;
