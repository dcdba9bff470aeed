import { Annotations, CfnOutput, Duration, Names, Stack, Token } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  type IEventSourceMapping,
  type IFunction,
  Function as LambdaFunctionResource,
} from 'aws-cdk-lib/aws-lambda';
import type { SqsEventSource, SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { controllerTimeoutSeconds } from '../aws/call-timing.ts';
import { budgetOwner, ownerParameterName, scalerOwner } from '../consumer-owner.ts';
import { DOWNSTREAM_HEALTH_VARIABLE, type DownstreamHealthSpec } from '../control/downstream-health.ts';
import {
  ACTUATOR_MODES,
  type ActuatorMode,
  ConfigError,
  EVENT_SOURCE_MAX_CONCURRENCY,
  fastPathOn,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  settingsToEnvironment,
} from '../control/index.ts';
import { METRIC_NAMESPACE } from '../telemetry.ts';
import { type AlarmTopicOptions, createAlarmTopic } from './alarm-topic.ts';
import { ScalerAlarms } from './alarms.ts';
import { addWarning, checkedAlarmEmail, checkedAlarmTopicEncryption, checkedName } from './checked-props.ts';
import { type ConcurrencyOwner, concurrencyOwnerOf, unqualifiedFunctionArn } from './concurrency-owner.ts';
import {
  createControllerFunction,
  createControllerSchedule,
  startControllerAtDeploy,
} from './controller-function.ts';
import {
  eventSourceMappingArn,
  mappingUpdateConditions,
  writesMapping,
  writesReservedConcurrency,
} from './controller-permissions.ts';
import { ScalerDashboard } from './dashboard.ts';
import { checkAttachedResources } from './deployment-checks.ts';
import type { DownstreamBudget } from './downstream-budget.ts';
import { checkedDownstreamHealth, type DownstreamHealth } from './downstream-health.ts';
import { attachMapping } from './event-source.ts';
import { ScalerMetricFactory } from './metrics.ts';
import {
  propName,
  type QueueAgeScalerSettings,
  settingsFromProps,
  wholeMinuteTickProblem,
} from './scaler-settings.ts';
import { floorsFromProps, inFloorPropsTerms, type ScheduledFloorProps } from './scheduled-floor-props.ts';

export { CONTROLLER_ASSET_DIR, CONTROLLER_HANDLER } from './controller-function.ts';

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
  /**
   * Floors raised on a schedule, ahead of peaks you know: with `ScalerActuator.PROVISIONED` they also warm the
   * mapping's event pollers, only while they are on. At most 10. Not for a `DownstreamBudget`'s members.
   * @default none
   */
  readonly floors?: readonly ScheduledFloorProps[];
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
   * Where alarm and OK notifications go. A member of a `budget` given neither this nor `alarmEmail` uses the
   * budget's topic (and so the budget's `alarmEmail`).
   * @default a new topic, TLS only and not encrypted at rest (see `alarmTopicEncryption`); a budget's member: the
   * budget's topic
   */
  readonly alarmTopic?: ITopic;
  /**
   * Encrypts the alarm topic the scaler creates with a new customer-managed KMS key ($1 a month). Off by default:
   * the notifications carry only the alarm's name, state and reason, no message data, and CloudWatch alarms cannot
   * publish to a topic encrypted with the AWS-managed `aws/sns` key. Not with `alarmTopic` (encrypt your own topic
   * as you made it); a budget's member without an `alarmEmail` of its own uses the budget's topic: set it on the
   * budget.
   * @default false
   */
  readonly alarmTopicEncryption?: boolean;
  /**
   * An e-mail address subscribed to the alarm topic (confirm the subscription from the e-mail). A budget's member
   * given one gets a topic of its own with this subscription. Without this and without `alarmTopic` (for a member:
   * and without the budget's), synth warns that the alarms notify nobody.
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Scale events in 10 minutes, with the concurrency changing direction, above which the controller counts as
   * oscillating: the dashboard's line, and the oscillation alarm's threshold with `oscillationAlarm`. Valid:
   * integer [1; 9] (a one-minute tick makes at most 10 changes in 10 minutes).
   * @default 3
   */
  readonly oscillationThreshold?: number;
  /**
   * Adds the `-oscillation` alarm. It reads three metrics ($0.30 a month: the scale events, and the applied
   * concurrency's highest and lowest in 10 minutes) for a tuning signal rather than a stuck state, so it is off
   * unless asked for; the dashboard graphs its expression either way.
   * @default false
   */
  readonly oscillationAlarm?: boolean;
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
  /**
   * The downstream budget this scaler's consumer shares with other scalers' (a database's connections, an API's
   * rate): their applied limits never add up to more than it. The scaler then creates no controller, schedule or
   * start trigger of its own: the budget's one controller runs its tick with every other member's. It keeps its own
   * floor (`minConcurrency`, granted first), cap, alarms, dashboard (with the budget's row) and outputs.
   * @default no budget: the scaler's own controller, bounded only by its cap
   */
  readonly budget?: DownstreamBudget;
  /**
   * How much this member's lateness counts when the budget is short: 2 ranks it at half its target with another
   * member at its target. Only with `budget`. Valid: (0; 1000].
   * @default 1
   */
  readonly weight?: number;
  /**
   * A health signal for the downstream: a CloudWatch metric of this stack's account and region with a threshold
   * (RDS `DatabaseConnections` or `DBLoad`, an API's 429 count, a custom latency metric), read at each tick with
   * the queue's metrics (one metric more a tick, $0.43 a month). Past its threshold nothing grows, at the tick or
   * between ticks, and while the age is above the target the tick holds (`hold:downstream-saturated`) and raises
   * `Saturated` (the `-saturated` alarm: shed upstream). No datapoint is no evidence: the scaler decides as without.
   * A budget's member may name its own.
   * @default none: the scaler sees the downstream only through the consumer's per-item time
   * @see https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html
   */
  readonly downstreamHealth?: DownstreamHealth;
}

// Above a tick of a minute, 10 minutes hold at most 10 changes: a threshold of 10 could never be exceeded.
const OSCILLATION_THRESHOLD_RANGE = { min: 1, max: 9 } as const;
const THROTTLE_THRESHOLD_RANGE = { min: 1, max: 1_000_000 } as const;
const DEFAULT_OSCILLATION_THRESHOLD = 3;
const DEFAULT_THROTTLE_THRESHOLD = 1;
const WEIGHT_RANGE = { min: 0, max: 1000 } as const;
const DEFAULT_WEIGHT = 1;
// Marks scalers across copies of this module (an app may load two), for the one-scaler-per-consumer check.
const SCALER_MARK = Symbol.for('queue-age-scaler.QueueAgeScaler');

function integerIn(value: number, range: { min: number; max: number }): boolean {
  return Number.isInteger(value) && value >= range.min && value <= range.max;
}

/** Where MaximumConcurrency starts: the floor when the scaler drives it; the cap when only reserved is driven. */
function initialMaximumConcurrency(config: ScalerConfig): number {
  // Provisioned mode starts at the floor's pollers (10 invocations each: the floor is a multiple of 10).
  if (config.actuator === 'provisioned') return config.minConcurrency;
  const start = config.actuator === 'reserved' ? config.maxConcurrency : config.minConcurrency;
  return Math.min(Math.max(start, EVENT_SOURCE_MAX_CONCURRENCY.min), EVENT_SOURCE_MAX_CONCURRENCY.max);
}

/**
 * Holds an SQS queue's oldest-message age at a target with the least consumer concurrency: a controller
 * Lambda, run once a tick, reads the age and sets the consumer's reserved concurrency and its mapping's
 * MaximumConcurrency within [floor, cap]. Attaches to any standard queue and its consumer. With a `budget`, the
 * budget's one controller runs it, with the other consumers that share the downstream.
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
  /** The controller that runs this scaler: its own, or its budget's. */
  readonly controller: LambdaFunctionResource;
  /** The controller's schedule: its own, or its budget's. */
  readonly schedule: Rule;
  readonly alarmTopic: ITopic;
  readonly metrics: ScalerMetricFactory;
  readonly alarms: ScalerAlarms;
  readonly dashboard: ScalerDashboard;
  /** The budget this scaler is a member of, if any. */
  readonly budget?: DownstreamBudget;
  /** How much its lateness counts in its budget's shortfall (1 without a budget). */
  readonly weight: number;
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
    const budget = props.budget;
    const validated = validatedConfig(props, problems);
    const config = validated ?? resolveScalerConfig({});
    this.config = config;
    if (config.targetAgeSeconds < SHORTEST_HELD_TARGET_SECONDS) {
      addWarning(
        this,
        TARGET_UNDER_A_MINUTE,
        `targetAge ${config.targetAgeSeconds} s is under a minute: SQS publishes the age once a minute and late, so no tick can hold it; the samples between ticks grow within 10 s of a burst, but expect the p99 wait above the target (see it in the simulator: npx queue-age-scaler simulate --config FILE.json, the file holding { "targetAgeSeconds": ${config.targetAgeSeconds} })`,
      );
    }
    const options = checkedOptions(
      props,
      Names.uniqueResourceName(this, { maxLength: 64, separator: '-' }),
      problems,
    );
    this.budget = budget;
    this.weight = options.weight;
    const downstreamHealth = checkedDownstreamHealth(this, props.downstreamHealth, problems);

    this.owner = concurrencyOwnerOf(props.consumer);
    this.concurrencyOwner = this.owner.function;
    const rival = this.scalerOfSameConsumer();
    if (rival) {
      const budgets = [budget, rival.budget].some((b) => b !== undefined)
        ? ' (a consumer joins at most one budget, through one scaler)'
        : '';
      problems.push(
        `the consumer ${this.concurrencyOwner.node.path} already has a queue-age scaler, ${rival.node.path}: one scaler per consumer, or the two would fight over its reserved concurrency${budgets}; attach one scaler, or give each queue its own consumer`,
      );
    }

    const mapping = attachMapping(
      this,
      props,
      initialMaximumConcurrency(config),
      givenActuator(props) === 'provisioned',
    );
    this.eventSourceMappingId = mapping.mappingId;
    problems.push(...mapping.problems);
    const findings = checkAttachedResources(
      { queue: props.queue, consumer: props.consumer, concurrencyOwner: this.concurrencyOwner, mapping },
      validated,
      // The actuator as given, even when another setting is invalid: its check is reported with the rest.
      givenActuator(props),
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
    const ownerParameter = this.nameOwner(
      budget ? budgetOwner(budget.budgetName) : scalerOwner(options.scalerName),
    );
    let controllerToWatch: IFunction;
    if (budget) {
      this.controller = budget.controller;
      this.schedule = budget.schedule;
      // A member in another stack is refused (the budget says why); its alarms then name no function of the
      // budget's stack, or the two stacks would import from each other.
      controllerToWatch =
        Stack.of(budget) === Stack.of(this)
          ? budget.controller
          : LambdaFunctionResource.fromFunctionName(
              this,
              'RefusedBudgetController',
              'refused-budget-controller',
            );
    } else {
      this.controller = this.createController(
        props,
        config,
        options.scalerName,
        deadLetterQueue,
        ownerParameter,
        downstreamHealth,
      );
      this.schedule = createControllerSchedule(
        this,
        this.controller,
        config.tickSeconds,
        `Runs the queue-age scaler ${options.scalerName} every ${config.tickSeconds / 60} minute(s)`,
      );
      startControllerAtDeploy(this, this.controller, this.schedule);
      controllerToWatch = this.controller;
    }
    this.alarmTopic = alarmTopicFor(
      this,
      props,
      { alarmEmail: options.alarmEmail, encrypted: options.alarmTopicEncryption },
      budget,
    );
    this.metrics = new ScalerMetricFactory({
      queue: props.queue,
      deadLetterQueue,
      consumer: this.concurrencyOwner,
      controller: controllerToWatch,
      scalerName: options.scalerName,
    });
    this.alarms = new ScalerAlarms(this, 'Alarms', {
      metrics: this.metrics,
      scalerName: options.scalerName,
      targetAge: Duration.seconds(config.targetAgeSeconds),
      maxConcurrency: config.maxConcurrency,
      tick: Duration.seconds(config.tickSeconds),
      oscillationThreshold: options.oscillationThreshold,
      oscillationAlarm: props.oscillationAlarm ?? false,
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
      headAgeSeen: budget !== undefined,
    });
    if (props.stackOutputs ?? true) this.createOutputs(props.queue, controllerToWatch);
    budget?.addMember({
      scaler: this,
      scalerName: options.scalerName,
      config: validated,
      tickGivenSeconds: tickGivenSeconds(props),
      weight: options.weight,
      queue: props.queue,
      deadLetterQueue,
      consumerFunctionArn: this.owner.functionArn,
      consumerFunctionName: this.owner.functionName,
      eventSourceMappingId: this.eventSourceMappingId,
      ownerParameterArn: ownerParameter.parameterArn,
      dashboard: this.dashboard.dashboard,
      downstreamHealth,
    });
  }

  /**
   * Another scaler of this app on the same consumer function: aliases and versions count as their function, and
   * ARNs are compared without their qualifier (`…:orders-consumer:live` is `…:orders-consumer`). The other scaler's
   * ARN is stripped here rather than read from it, since it may come from another copy of this library. Scalers in
   * budgets count like any other: a consumer joins at most one budget.
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
          (!Token.isUnresolved(arn) && unqualifiedFunctionArn(other.concurrencyOwner.functionArn) === arn) ||
          this.sameImportedFunction(other),
      );
  }

  /**
   * Two imports of one function (`Function.fromFunctionName` twice): their ARNs hold tokens, but the same
   * CloudFormation expression in one stack, or the same readable name in stacks of the same account and region.
   */
  private sameImportedFunction(other: QueueAgeScaler): boolean {
    const theirs = concurrencyOwnerOf(other.concurrencyOwner);
    const [mine, their] = [Stack.of(this.concurrencyOwner), Stack.of(other.concurrencyOwner)];
    if (mine === their) {
      const resolved = (a: string) => JSON.stringify(mine.resolve(a));
      if (resolved(this.owner.functionArn) === resolved(theirs.functionArn)) return true;
    }
    const name = readableFunctionName(this.owner);
    return (
      name !== undefined &&
      name === readableFunctionName(theirs) &&
      mine.account === their.account &&
      mine.region === their.region
    );
  }

  /**
   * Names the controller that drives the consumer, in a parameter the deploy updates in place: when this scaler
   * joins or leaves a budget, its old controller lives on until CloudFormation's cleanup, and stands down as soon as
   * the parameter names the new one (lib/consumer-owner.ts). The controller's read grant makes the parameter exist
   * before the controller that reads it is updated. A second scaler of the same consumer in another stack or app
   * fails its deploy on the parameter's name, which synth cannot check.
   */
  private nameOwner(owner: string): StringParameter {
    return new StringParameter(this, 'ConsumerOwner', {
      parameterName: ownerParameterName(this.owner.functionName),
      simpleName: false,
      stringValue: owner,
      description: `The queue-age controller that drives ${this.owner.functionName}: the others stand down`,
    });
  }

  /** The lone scaler's own controller: its role names this queue, this consumer and this mapping. */
  private createController(
    props: QueueAgeScalerProps,
    config: ScalerConfig,
    scalerName: string,
    deadLetterQueue: IQueue | undefined,
    ownerParameter: StringParameter,
    downstreamHealth: DownstreamHealthSpec | undefined,
  ): LambdaFunctionResource {
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
    if (downstreamHealth) {
      // Compact JSON; a dimension from a token (an instance's Ref) resolves in the template.
      resourceEnvironment[DOWNSTREAM_HEALTH_VARIABLE] = Stack.of(this).toJsonString(downstreamHealth);
    }
    const { function: controller, role } = createControllerFunction(this, {
      description: `Queue-age scaler ${scalerName}: holds the oldest message's age at ${config.targetAgeSeconds} s`,
      roleDescription: `The queue-age scaler ${scalerName}: reads its queue's age, sets its consumer's concurrency`,
      tickSeconds: config.tickSeconds,
      timeout: Duration.seconds(controllerTimeoutSeconds(config)),
      samplesBetweenTicks: fastPathOn(config),
      environment: { ...settingsToEnvironment(settingsOf(config)), ...resourceEnvironment },
    });
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
        actions: writesReservedConcurrency(config.actuator)
          ? ['lambda:GetFunctionConcurrency', 'lambda:PutFunctionConcurrency']
          : ['lambda:GetFunctionConcurrency'],
        resources: [this.owner.functionArn],
      }),
    );
    const mappingArn = eventSourceMappingArn(this, this.eventSourceMappingId);
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadMapping',
        actions: ['lambda:GetEventSourceMapping'],
        resources: [mappingArn],
      }),
    );
    if (writesMapping(config.actuator)) {
      role.addToPolicy(
        new PolicyStatement({
          sid: 'SetMappingMaximumConcurrency',
          actions: ['lambda:UpdateEventSourceMapping'],
          resources: [mappingArn],
          conditions: mappingUpdateConditions(this.owner.functionArn),
        }),
      );
    }
    // Who drives the consumer, read before every write (nameOwner).
    role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadConsumerOwner',
        actions: ['ssm:GetParameter'],
        resources: [ownerParameter.parameterArn],
      }),
    );
    return controller;
  }

  /**
   * The outputs the operator tools read from a stack, under the exact keys they look for. Another output of the
   * stack with one of these keys (a second scaler's, or the app's own) is reported rather than overwritten.
   */
  private createOutputs(queue: IQueue, controller: IFunction): void {
    const stack = Stack.of(this);
    const values: Record<(typeof SCALER_OUTPUTS)[number], string> = {
      QueueUrl: queue.queueUrl,
      QueueName: queue.queueName,
      ConsumerFunctionName: this.owner.functionName,
      EventSourceMappingUuid: this.eventSourceMappingId,
      ControllerFunctionName: controller.functionName,
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

/**
 * The control law's settings from the props, validated; undefined (with the problems added) where any is
 * invalid. The schedule runs in whole minutes, so a tick must be one. A member of a budget that gives no tick
 * takes the budget's.
 */
function validatedConfig(props: QueueAgeScalerProps, problems: string[]): ScalerConfig | undefined {
  const tick = props.tick ?? (props.budget ? Duration.seconds(props.budget.tickSeconds) : undefined);
  const given = settingsFromProps({ ...props, tick });
  problems.push(...given.problems);
  const floors = floorsFromProps(props.floors, problems);
  let validated: ScalerConfig | undefined;
  try {
    validated = resolveScalerConfig(
      { ...given.settings, ...(floors === undefined ? {} : { floors }) } as ScalerSettings,
      { label: propName },
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems.map(inFloorPropsTerms));
  }
  const tickProblem = validated && wholeMinuteTickProblem(validated.tickSeconds);
  if (tickProblem) {
    problems.push(tickProblem);
    return undefined;
  }
  return validated;
}

/** The tick the app gave, in seconds, where synth can read it. */
function tickGivenSeconds(props: QueueAgeScalerProps): number | undefined {
  const tick = props.tick as Partial<Duration> | undefined;
  if (typeof tick?.toSeconds !== 'function') return undefined;
  const seconds = tick.toSeconds({ integral: false });
  return Token.isUnresolved(seconds) ? undefined : seconds;
}

/** The props that are not control-law settings, each checked, an invalid one replaced by its default. */
interface CheckedOptions {
  readonly scalerName: string;
  readonly dashboardName: string;
  readonly alarmEmail?: string;
  readonly alarmTopicEncryption: boolean;
  readonly oscillationThreshold: number;
  readonly throttleThreshold: number;
  readonly weight: number;
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

/** A member's weight: a number in (0; 1000], and only with a budget. */
function checkedWeight(props: QueueAgeScalerProps, problems: string[]): number {
  const weight = props.weight;
  if (weight === undefined) return DEFAULT_WEIGHT;
  if (props.budget === undefined) {
    problems.push(
      `weight = ${weight} is given without a budget: a weight ranks a member of a DownstreamBudget when the budget is short; give budget: <the DownstreamBudget> as well, or leave weight out`,
    );
    return DEFAULT_WEIGHT;
  }
  if (
    typeof weight !== 'number' ||
    Token.isUnresolved(weight) ||
    !Number.isFinite(weight) ||
    weight <= WEIGHT_RANGE.min ||
    weight > WEIGHT_RANGE.max
  ) {
    problems.push(
      `weight = ${weight}: must be a number in (${WEIGHT_RANGE.min}; ${WEIGHT_RANGE.max}] known at synth (how much this member's lateness counts; 1 by default)`,
    );
    return DEFAULT_WEIGHT;
  }
  return weight;
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
  const alarmEmail = checkedAlarmEmail(props, 'scaler', problems);
  let alarmTopicEncryption = checkedAlarmTopicEncryption(props, 'scaler', problems);
  if (alarmTopicEncryption && props.budget && props.alarmEmail === undefined) {
    problems.push(
      "alarmTopicEncryption is given on a budget's member without an alarmEmail of its own: its alarms use the budget's topic; set alarmTopicEncryption on the DownstreamBudget instead",
    );
    alarmTopicEncryption = false;
  }
  return {
    scalerName,
    dashboardName,
    alarmEmail,
    alarmTopicEncryption,
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
    weight: checkedWeight(props, problems),
  };
}

function settingsOf(config: ScalerConfig): ScalerSettings {
  const settings: Record<string, unknown> = {};
  for (const field of SETTING_NAMES) {
    const value = config[field];
    if (value !== undefined) settings[field] = value;
  }
  if (config.floors !== undefined) settings.floors = config.floors;
  return settings as ScalerSettings;
}

/** A function's name where synth can read it: the given name, or the name field of its ARN. */
function readableFunctionName(owner: ConcurrencyOwner): string | undefined {
  if (!Token.isUnresolved(owner.functionName)) return owner.functionName;
  const field = owner.functionArn.startsWith('arn:') ? owner.functionArn.split(':')[6] : undefined;
  return field !== undefined && !Token.isUnresolved(field) ? field : undefined;
}

/** SQS's age metric has one-minute resolution (docs/aws-facts.md, "SQS metrics"): a shorter target is not held. */
const SHORTEST_HELD_TARGET_SECONDS = 60;

/** The warning of a target under a minute (acknowledge it by this id). */
export const TARGET_UNDER_A_MINUTE = 'queue-age-scaler:target-under-a-minute';

/** The warning of a scaler whose alarm topic nobody subscribes to (acknowledge it by this id). */
export const ALARMS_NOTIFY_NOBODY = 'queue-age-scaler:alarms-notify-nobody';

/**
 * The scaler's alarm topic: the app's own; else, for a budget's member without an e-mail of its own, the budget's
 * (one topic per budget, so a member never adds a topic nobody subscribes to, nor its key); else a new one with
 * the e-mail's subscription. With no e-mail and no topic anywhere, one warning line: the alarms notify nobody.
 */
function alarmTopicFor(
  scaler: QueueAgeScaler,
  props: Pick<QueueAgeScalerProps, 'alarmTopic'>,
  topicOptions: AlarmTopicOptions,
  budget: DownstreamBudget | undefined,
): ITopic {
  if (props.alarmTopic) return props.alarmTopic;
  const alarmEmail = topicOptions.alarmEmail;
  // A member refused for being in another stack keeps a topic of its own: the two stacks must not import each other.
  if (alarmEmail === undefined && budget && Stack.of(budget) === Stack.of(scaler)) {
    if (!budget.alarmsNotify) {
      addWarning(
        scaler,
        ALARMS_NOTIFY_NOBODY,
        `its alarms notify nobody: they go to the budget ${budget.node.path}'s topic, which has no alarmEmail and is not an alarmTopic of the app's; give the budget (or this scaler) an alarmEmail or an alarmTopic`,
      );
    }
    return budget.alarmTopic;
  }
  if (alarmEmail === undefined) {
    addWarning(
      scaler,
      ALARMS_NOTIFY_NOBODY,
      'its alarms notify nobody: give it an alarmEmail, or an alarmTopic of your own (the topic it creates has no subscription; its ARN is the AlarmTopicArn output)',
    );
  }
  return createAlarmTopic(scaler, topicOptions);
}

/** The actuator the props name, where it is one (an invalid one is reported by the settings' own check). */
function givenActuator(props: QueueAgeScalerProps): ActuatorMode {
  const given = props.actuator as string | undefined;
  return ACTUATOR_MODES.find((mode) => mode === given) ?? 'lockstep';
}
