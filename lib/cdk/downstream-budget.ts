import { Annotations, Aspects, CfnOutput, Duration, Lazy, Names, Stack, Token } from 'aws-cdk-lib';
import type { Alarm, Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { controllerTimeoutSeconds } from '../aws/call-timing.ts';
import {
  BUDGET_ENVIRONMENT,
  type BudgetMemberEnvironment,
  MAX_BUDGET_MEMBERS,
  SCHEDULED_FLOORS_MEMBER_PROBLEM,
} from '../budget-environment.ts';
import type { DownstreamHealthSpec } from '../control/downstream-health.ts';
import {
  ConfigError,
  LAMBDA_DEFAULTS,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
} from '../control/index.ts';
import { METRIC_NAMESPACE } from '../telemetry.ts';
import { createAlarmTopic } from './alarm-topic.ts';
import { budgetExhaustedAlarm } from './alarms.ts';
import { checkedAlarmEmail, checkedAlarmTopicEncryption, checkedName } from './checked-props.ts';
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
import { BudgetRow } from './dashboard.ts';
import {
  ESTIMATED_LENGTH,
  environmentBytes,
  estimatedValue,
  LAMBDA_ENVIRONMENT_BYTES,
} from './environment-size.ts';
import { BudgetMetricFactory } from './metrics.ts';
import { propName, settingsFromProps, wholeMinuteTickProblem } from './scaler-settings.ts';

/**
 * The downstream's limits, as a scaler's cap takes them: the budget is the lowest of those given.
 */
export interface DownstreamBudgetProps {
  /**
   * Connections in the database pool the members' consumers share, one per running consumer.
   * Valid: integer [1; 100000].
   * @default no database limit
   */
  readonly dbPoolSize?: number;
  /**
   * Calls per second the shared downstream API allows. Requires `itemTime`. Valid: (0; 1e9].
   * @default no API limit
   */
  readonly apiRatePerSecond?: number;
  /**
   * How long one item takes (with `apiRatePerSecond`, sizes the API's share: rate × itemTime ÷ callsPerItem).
   * Valid: (0 s; 15 minutes].
   * @default unset
   */
  readonly itemTime?: Duration;
  /**
   * API calls one item makes. Valid: (0; 1e6].
   * @default 1
   */
  readonly callsPerItem?: number;
  /**
   * The budget set by hand, in concurrent executions. Valid: integer [1; 10000].
   * @default the lowest of the limits above (one of them, or this, must be given)
   */
  readonly maxConcurrency?: number;
  /**
   * Names the budget's metrics (the `BudgetName` dimension), its alarm and its dashboard row.
   * Valid: 1–64 of `A–Z a–z 0–9 - _`.
   * @default a name unique in the app, derived from the construct's path
   */
  readonly budgetName?: string;
  /**
   * Where the `-budget-exhausted` alarm notifies, and every member's alarms unless the member names its own topic
   * or e-mail: one topic per budget.
   * @default a new topic, TLS only and not encrypted at rest (see `alarmTopicEncryption`)
   */
  readonly alarmTopic?: ITopic;
  /**
   * Encrypts the alarm topic the budget creates (and its members use) with a new customer-managed KMS key ($1 a
   * month), as a scaler's `alarmTopicEncryption`. Not with `alarmTopic`.
   * @default false
   */
  readonly alarmTopicEncryption?: boolean;
  /**
   * An e-mail address subscribed to the budget's alarm topic (confirm the subscription from the e-mail): it hears
   * the members' alarms too, unless a member names its own.
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * How often the controller runs every member's tick. A member's `tick`, when given, must be this.
   * Valid: 1, 2, … 60 minutes.
   * @default Duration.minutes(1)
   */
  readonly tick?: Duration;
}

/**
 * What a scaler hands its budget when it joins (`QueueAgeScaler` does, from its constructor).
 * @internal
 */
export interface BudgetMemberSpec {
  /** The scaler: its path and its stack. */
  readonly scaler: IConstruct;
  readonly scalerName: string;
  /** Its validated settings, or undefined when they are invalid (the scaler reports why). */
  readonly config?: ScalerConfig;
  /** The scaler's `tick` as given, in seconds. */
  readonly tickGivenSeconds?: number;
  readonly weight: number;
  readonly queue: IQueue;
  readonly deadLetterQueue?: IQueue;
  /** The consumer function, unqualified. */
  readonly consumerFunctionArn: string;
  readonly consumerFunctionName: string;
  readonly eventSourceMappingId: string;
  /** The parameter naming its consumer's owner (lib/consumer-owner.ts): the controller reads it before it writes. */
  readonly ownerParameterArn: string;
  /** Its dashboard, which gets the budget's row. */
  readonly dashboard: Dashboard;
  /** Its own health signal for the downstream, checked (`downstreamHealth`). */
  readonly downstreamHealth?: DownstreamHealthSpec;
}

/** A member the controller drives: its environment entry, and what it adds to the checks. */
interface WiredMember {
  readonly spec: BudgetMemberSpec;
  readonly environment: BudgetMemberEnvironment;
}

// Marks budgets across copies of this module (an app may load two).
const BUDGET_MARK = Symbol.for('queue-age-scaler.DownstreamBudget');
// CloudWatch allows an alarm description of 1024 characters.
const ALARM_DESCRIPTION_MAX = 1024;

/** A budget's limits validated with the scaler's own rules; no default cap (the budget is what is given). */
const BUDGET_DEFAULTS: ScalerSettings = {
  ...LAMBDA_DEFAULTS,
  maxConcurrency: undefined,
  // Only the limits are the budget's: a floor and an actuator that can never be what an error is about.
  minConcurrency: 1,
  actuator: 'reserved',
};

/**
 * A downstream's capacity (a database's connections, an API's rate) shared by several `QueueAgeScaler`s: their
 * consumers' applied limits never add up to more than the budget. Declared once with the downstream's limits, as a
 * lone scaler's cap is; each scaler joins with `budget: <this>` (and an optional `weight`), keeping its own floor
 * (`minConcurrency`, granted first), cap, alarms, dashboard and outputs.
 *
 * One controller runs every member's tick in one invocation, on one schedule: the members create no controller of
 * their own. Synth checks that the floors fit in the budget, that no member's cap exceeds it, that every member
 * ticks with the budget and sits in its stack, and that at most `MAX_BUDGET_MEMBERS` members (whose environment
 * must fit Lambda's 4 KB) join: each problem is an error on the path concerned, with the fix.
 */
export class DownstreamBudget extends Construct {
  /** Whether `x` is a budget, whichever copy of this library made it. */
  static isDownstreamBudget(x: unknown): x is DownstreamBudget {
    return typeof x === 'object' && x !== null && BUDGET_MARK in x;
  }

  readonly budgetName: string;
  /** The budget, in concurrent executions: the lowest of the limits given (1 when they are invalid). */
  readonly concurrency: number;
  /** The tick every member runs at, in seconds. */
  readonly tickSeconds: number;
  /** The controller every member shares. */
  readonly controller: LambdaFunctionResource;
  readonly schedule: Rule;
  readonly alarmTopic: ITopic;
  /**
   * Whether anyone hears the budget's topic: the app gave its own topic, or an e-mail to subscribe. A member
   * without a topic or an e-mail of its own uses the budget's topic, and is warned at synth when this is false.
   */
  readonly alarmsNotify: boolean;
  readonly metrics: BudgetMetricFactory;
  /** Fully granted with a member above its target starved, for more than a minute. */
  readonly exhaustedAlarm: Alarm;

  private readonly role: Role;
  /** Whether the limits are valid: the checks against the budget run only then. */
  private readonly limitsValid: boolean;
  private readonly joined: BudgetMemberSpec[] = [];
  private readonly wired: WiredMember[] = [];
  private readonly rows: BudgetRow[] = [];
  private statements?: {
    readQueues: PolicyStatement;
    readConcurrency: PolicyStatement;
    readMappings: PolicyStatement;
    readOwners: PolicyStatement;
    setConcurrency?: PolicyStatement;
  };

  constructor(scope: Construct, id: string, props: DownstreamBudgetProps = {}) {
    super(scope, id);
    Object.defineProperty(this, BUDGET_MARK, { value: true });

    const problems: string[] = [];
    const limits = validatedLimits(props, problems);
    this.limitsValid = limits !== undefined;
    this.concurrency = limits?.budget ?? 1;
    this.tickSeconds = limits?.tickSeconds ?? LAMBDA_DEFAULTS.tickSeconds;
    const generatedName = Names.uniqueResourceName(this, { maxLength: 64, separator: '-' });
    this.budgetName = checkedName(
      'budgetName',
      props.budgetName ?? generatedName,
      64,
      generatedName,
      problems,
    );
    const alarmEmail = checkedAlarmEmail(props, 'budget', problems);
    const alarmTopicEncryption = checkedAlarmTopicEncryption(props, 'budget', problems);
    for (const problem of problems) Annotations.of(this).addError(problem);

    const controller = createControllerFunction(this, {
      description: `Queue-age budget ${this.budgetName}: its members' consumers share ${this.concurrency} concurrent executions`,
      roleDescription: `The queue-age budget ${this.budgetName}: reads its members' queues, sets their consumers' concurrency`,
      tickSeconds: this.tickSeconds,
      // One sample of every member fits (controllerTimeoutSeconds).
      timeout: Duration.seconds(Lazy.number({ produce: () => this.timeoutSeconds() })),
      // Its members are added after it; every member samples between ticks by default.
      samplesBetweenTicks: true,
      environment: {
        [BUDGET_ENVIRONMENT.budgetName]: this.budgetName,
        [BUDGET_ENVIRONMENT.budget]: String(this.concurrency),
        [BUDGET_ENVIRONMENT.members]: Lazy.string({
          produce: () => Stack.of(this).toJsonString(this.wired.map((member) => member.environment)),
        }),
        [BUDGET_ENVIRONMENT.metricNamespace]: METRIC_NAMESPACE,
      },
    });
    this.controller = controller.function;
    this.role = controller.role;
    this.schedule = createControllerSchedule(
      this,
      this.controller,
      this.tickSeconds,
      `Runs the queue-age budget ${this.budgetName} (every member's tick) every ${this.tickSeconds / 60} minute(s)`,
    );
    // Re-run on every change of the controller (a member added or removed, a new budget): see startControllerAtDeploy.
    startControllerAtDeploy(this, this.controller, this.schedule, { onEveryChange: true });
    this.alarmTopic =
      props.alarmTopic ?? createAlarmTopic(this, { alarmEmail, encrypted: alarmTopicEncryption });
    this.alarmsNotify = props.alarmTopic !== undefined || alarmEmail !== undefined;
    this.metrics = new BudgetMetricFactory(this.budgetName);
    this.exhaustedAlarm = budgetExhaustedAlarm(this, 'BudgetExhausted', {
      metrics: this.metrics,
      budgetName: this.budgetName,
      description: Lazy.string({ produce: () => this.exhaustedDescription() }),
      actions: [new SnsAction(this.alarmTopic)],
    });
    this.createOutput();

    // The checks that need every member run once all have joined, at synth, as error annotations (a validation
    // added with node.addValidation would throw, and print a stack trace, instead).
    Aspects.of(this).add({
      visit: (node) => {
        if (node === this) this.checkMembers();
      },
    });
  }

  /** The members so far, in the order they joined. */
  get members(): readonly IConstruct[] {
    return this.joined.map((member) => member.scaler);
  }

  /**
   * Lambda's count of the controller's environment, estimated as synth can: every value it cannot read (a queue's
   * URL, a generated name) at its longest plausible length (`ESTIMATED_LENGTH`).
   */
  estimatedEnvironmentBytes(): number {
    const members = this.wired.map((member) => estimatedMember(this, member.environment));
    return environmentBytes({
      [BUDGET_ENVIRONMENT.budgetName]: estimatedValue(this, this.budgetName, ESTIMATED_LENGTH.other),
      [BUDGET_ENVIRONMENT.budget]: String(this.concurrency),
      [BUDGET_ENVIRONMENT.members]: JSON.stringify(members),
      [BUDGET_ENVIRONMENT.metricNamespace]: METRIC_NAMESPACE,
    });
  }

  /**
   * A scaler joins: the checks of the member alone (an error on its path), then its environment entry, its IAM
   * statements and the budget's row on its dashboard. `QueueAgeScaler` calls this for `budget: <this>`.
   * @internal
   */
  addMember(member: BudgetMemberSpec): void {
    this.joined.push(member);
    const annotations = Annotations.of(member.scaler);
    const here = Stack.of(this);
    const there = Stack.of(member.scaler);
    if (there !== here) {
      // The controller's environment and role name the member's queue, consumer and mapping, and the member's
      // alarms name the controller: across two stacks, each would import from the other.
      annotations.addError(
        `the budget ${this.node.path} is in the stack ${here.node.path}, this scaler in ${there.node.path}: the budget's controller names each member's queue, consumer and mapping, and each member's alarms name the controller, so a member cannot be in another stack; create this scaler in ${here.node.path} (its queue and consumer may stay where they are), or give ${there.node.path} a DownstreamBudget of its own`,
      );
      return;
    }
    for (const problem of this.memberProblems(member)) annotations.addError(problem);
    this.wire(member);
  }

  /** What one member's settings must satisfy against the budget. */
  private memberProblems(member: BudgetMemberSpec): string[] {
    const problems: string[] = [];
    const budget = `the budget ${this.node.path}`;
    const tick = member.tickGivenSeconds;
    if (tick !== undefined && tick !== this.tickSeconds) {
      problems.push(
        `tick = ${tick} s, but ${budget} ticks every ${this.tickSeconds} s: its one controller runs every member's tick in one invocation, on one schedule; leave tick out on this scaler (it takes the budget's), or give it tick: Duration.minutes(${this.tickSeconds / 60})`,
      );
    }
    const config = member.config;
    if (config?.floors !== undefined) problems.push(SCHEDULED_FLOORS_MEMBER_PROBLEM);
    if (config && this.limitsValid && config.maxConcurrency > this.concurrency) {
      problems.push(
        `maxConcurrency = ${config.maxConcurrency}: above ${budget}, ${this.concurrency}: this member alone could take more of the downstream than the budget holds; set maxConcurrency (or dbPoolSize) to at most ${this.concurrency} on this scaler, or raise the budget's limit if the downstream takes more`,
      );
    }
    const namesake = this.wired.find(
      (other) => !Token.isUnresolved(member.scalerName) && other.spec.scalerName === member.scalerName,
    );
    if (namesake) {
      problems.push(
        `scalerName = '${member.scalerName}' is also the name of ${namesake.spec.scaler.node.path}, a member of ${budget}: the budget's controller and its metrics tell members apart by name; give this scaler another scalerName`,
      );
    }
    return problems;
  }

  /** The member's entry in the controller's environment, its statements in the controller's role, its row. */
  private wire(member: BudgetMemberSpec): void {
    const config = member.config ?? resolveScalerConfig({});
    const environment: BudgetMemberEnvironment = {
      scalerName: member.scalerName,
      queueUrl: member.queue.queueUrl,
      queueName: member.queue.queueName,
      ...(member.deadLetterQueue ? { deadLetterQueueName: member.deadLetterQueue.queueName } : {}),
      consumerFunctionName: member.consumerFunctionName,
      eventSourceMappingUuid: member.eventSourceMappingId,
      ...(member.weight === 1 ? {} : { weight: member.weight }),
      settings: settingsBesidesDefaults(config),
      ...(member.downstreamHealth ? { downstreamHealth: member.downstreamHealth } : {}),
    };
    this.wired.push({ spec: member, environment });
    this.grant(member, config);

    for (const row of this.rows) row.addMember(member.scalerName);
    const row = new BudgetRow({
      budgetName: this.budgetName,
      budget: this.concurrency,
      metrics: this.metrics,
      exhausted: this.exhaustedAlarm,
      members: this.wired.map((wired) => wired.spec.scalerName),
    });
    this.rows.push(row);
    member.dashboard.addWidgets(...row.widgets);
  }

  /**
   * The member's resources in the controller's role. The reads and the reserved-concurrency writes are one
   * statement each for every member (a role's inline policies hold 10,240 characters in all); each mapping write
   * keeps its own statement, conditioned on its own consumer as a lone scaler's is.
   */
  private grant(member: BudgetMemberSpec, config: ScalerConfig): void {
    if (!this.statements) {
      const statements = {
        readQueues: new PolicyStatement({ sid: 'ReadQueueDepth', actions: ['sqs:GetQueueAttributes'] }),
        // GetFunctionConfiguration: the consumer's timeout, after which a shrunk member's freed units are released
        // to the others between ticks (budget-member.ts, the release delay).
        readConcurrency: new PolicyStatement({
          sid: 'ReadConsumerConcurrency',
          actions: ['lambda:GetFunctionConcurrency', 'lambda:GetFunctionConfiguration'],
        }),
        readMappings: new PolicyStatement({ sid: 'ReadMapping', actions: ['lambda:GetEventSourceMapping'] }),
        readOwners: new PolicyStatement({ sid: 'ReadConsumerOwner', actions: ['ssm:GetParameter'] }),
      };
      this.role.addToPolicy(statements.readQueues);
      this.role.addToPolicy(statements.readConcurrency);
      this.role.addToPolicy(statements.readMappings);
      this.role.addToPolicy(statements.readOwners);
      this.statements = statements;
    }
    const statements = this.statements;
    const mappingArn = eventSourceMappingArn(this, member.eventSourceMappingId);
    statements.readQueues.addResources(member.queue.queueArn);
    statements.readConcurrency.addResources(member.consumerFunctionArn);
    statements.readMappings.addResources(mappingArn);
    statements.readOwners.addResources(member.ownerParameterArn);
    if (writesReservedConcurrency(config.actuator)) {
      if (!statements.setConcurrency) {
        statements.setConcurrency = new PolicyStatement({
          sid: 'SetConsumerConcurrency',
          actions: ['lambda:PutFunctionConcurrency'],
        });
        this.role.addToPolicy(statements.setConcurrency);
      }
      statements.setConcurrency.addResources(member.consumerFunctionArn);
    }
    if (writesMapping(config.actuator)) {
      this.role.addToPolicy(
        new PolicyStatement({
          sid: `SetMappingMaximumConcurrency${this.wired.length}`,
          actions: ['lambda:UpdateEventSourceMapping'],
          resources: [mappingArn],
          conditions: mappingUpdateConditions(member.consumerFunctionArn),
        }),
      );
    }
  }

  /** The checks that need every member, as errors on the budget. */
  /**
   * The budget's name as the stack output `status --stack S --budget` reads. A second budget in one stack (the key
   * taken) gets none: the tools then take its name (`status --budget NAME`), which an info line gives.
   */
  private createOutput(): void {
    const stack = Stack.of(this);
    const taken = stack.node
      .findAll()
      .some((c) => c instanceof CfnOutput && stack.resolve(c.logicalId) === BUDGET_OUTPUT);
    if (taken) {
      Annotations.of(this).addInfo(
        `the stack's ${BUDGET_OUTPUT} output is another budget's: read this one with queue-age-scaler status --budget ${this.budgetName}`,
      );
      return;
    }
    new CfnOutput(this, BUDGET_OUTPUT, { value: this.budgetName }).overrideLogicalId(BUDGET_OUTPUT);
  }

  private checkMembers(): void {
    const annotations = Annotations.of(this);
    const members = this.joined;
    if (members.length === 0) {
      annotations.addError(
        `the budget has no members: give it to the scalers of the consumers that share the downstream (new QueueAgeScaler(…, { budget: <this budget>, … })), or remove it`,
      );
      return;
    }
    if (members.length > MAX_BUDGET_MEMBERS) {
      annotations.addError(
        `${members.length} scalers joined the budget: at most ${MAX_BUDGET_MEMBERS} share one, since its one controller reads and writes every member each tick within Lambda's 15 control-plane requests a second; split them into two budgets, each with its share of the downstream (${members.map((m) => m.scaler.node.path).join(', ')})`,
      );
    }
    const valid = members.filter(
      (m): m is BudgetMemberSpec & { config: ScalerConfig } => m.config !== undefined,
    );
    const floors = valid.reduce((sum, m) => sum + m.config.minConcurrency, 0);
    if (this.limitsValid && floors > this.concurrency) {
      annotations.addError(
        `the members' floors (minConcurrency) add up to ${floors}, above the budget ${this.concurrency} (${valid.map((m) => `${m.scaler.node.path} ${m.config.minConcurrency}`).join(', ')}): every floor is granted first, so they must fit; lower the members' minConcurrency by ${floors - this.concurrency} in all, or raise the budget's limit to ${floors} if the downstream takes it`,
      );
    }
    const bytes = this.estimatedEnvironmentBytes();
    if (bytes > LAMBDA_ENVIRONMENT_BYTES) {
      const each = Math.round(bytes / Math.max(1, this.wired.length));
      annotations.addError(
        `the controller's environment would take about ${bytes} bytes with these ${this.wired.length} members (about ${each} each, every value synth cannot read counted at its longest plausible length), above Lambda's ${LAMBDA_ENVIRONMENT_BYTES} bytes: Lambda would refuse it at deploy; split the members into two budgets, each with its share of the downstream, or give them fewer settings that differ from the defaults`,
      );
    }
  }

  /** The longest invocation any member needs: one sample of every member, or the longest tick. */
  private timeoutSeconds(): number {
    const configs = this.wired.map((member) => member.spec.config ?? resolveScalerConfig({}));
    const shared = configs.length > 0 ? configs : [resolveScalerConfig({ tickSeconds: this.tickSeconds })];
    return Math.max(...shared.map((config) => controllerTimeoutSeconds(config, shared.length)));
  }

  /** The alarm's runbook line, with the members' names where synth knows them, within CloudWatch's 1024. */
  private exhaustedDescription(): string {
    const text = [
      `The budget ${this.budgetName} (${this.concurrency} concurrent executions of the downstream its members share)`,
      "has been fully granted for more than a minute while a member's oldest message is older than its target and",
      'it got less than its own law asked: the shared downstream, not the controller, is the limit. Shed or slow the',
      "starved members' producers, or raise the downstream's capacity and then the budget.",
      "The controller's log line and `queue-age-scaler status --budget",
      `${this.budgetName}\` name the starved members.`,
    ].join(' ');
    const names = this.wired.map((member) => member.spec.scalerName);
    const known = names.filter((name) => !Token.isUnresolved(name));
    const listed = `${text} Members: ${known.join(', ')}.`;
    return known.length === names.length && names.length > 0 && listed.length <= ALARM_DESCRIPTION_MAX
      ? listed
      : text;
  }
}

/** The budget's limits and tick validated with the scaler's rules, or undefined (with the problems added). */
function validatedLimits(
  props: DownstreamBudgetProps,
  problems: string[],
): { budget: number; tickSeconds: number } | undefined {
  const given = settingsFromProps({
    dbPoolSize: props.dbPoolSize,
    apiRatePerSecond: props.apiRatePerSecond,
    itemTime: props.itemTime,
    callsPerItem: props.callsPerItem,
    maxConcurrency: props.maxConcurrency,
    tick: props.tick,
  });
  problems.push(...given.problems);
  let config: ScalerConfig;
  try {
    config = resolveScalerConfig(given.settings, { label: propName, defaults: BUDGET_DEFAULTS });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
  const tickProblem = wholeMinuteTickProblem(config.tickSeconds);
  if (tickProblem) {
    problems.push(tickProblem);
    return undefined;
  }
  return given.problems.length > 0
    ? undefined
    : { budget: config.maxConcurrency, tickSeconds: config.tickSeconds };
}

/** The member's control-law settings that differ from the defaults, by field name: all the controller needs. */
export function settingsBesidesDefaults(config: ScalerConfig): Record<string, string | number> {
  const defaults: Record<string, string | number | undefined> = LAMBDA_DEFAULTS;
  const settings: Record<string, string | number> = {};
  for (const field of SETTING_NAMES) {
    const value = config[field];
    if (value !== undefined && value !== defaults[field]) settings[field] = value;
  }
  return settings;
}

/** A member's entry with every value synth cannot read at its longest plausible length. */
function estimatedMember(scope: IConstruct, member: BudgetMemberEnvironment): BudgetMemberEnvironment {
  const estimate = (value: string, whole: number) => estimatedValue(scope, value, whole);
  return {
    ...member,
    scalerName: estimate(member.scalerName, ESTIMATED_LENGTH.other),
    queueUrl: estimate(member.queueUrl, ESTIMATED_LENGTH.queueUrl),
    queueName: estimate(member.queueName, ESTIMATED_LENGTH.queueName),
    ...(member.deadLetterQueueName === undefined
      ? {}
      : { deadLetterQueueName: estimate(member.deadLetterQueueName, ESTIMATED_LENGTH.queueName) }),
    consumerFunctionName: estimate(member.consumerFunctionName, ESTIMATED_LENGTH.functionName),
    ...(member.eventSourceMappingUuid === undefined
      ? {}
      : { eventSourceMappingUuid: estimate(member.eventSourceMappingUuid, ESTIMATED_LENGTH.mappingUuid) }),
  };
}

/** The stack output that names the budget (lib/operator/stack-outputs.ts reads it). */
const BUDGET_OUTPUT = 'BudgetName';
