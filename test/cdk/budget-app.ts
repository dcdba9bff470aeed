import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DownstreamBudget, type DownstreamBudgetProps } from '../../lib/cdk/downstream-budget.ts';
import { QueueAgeScaler, type QueueAgeScalerProps } from '../../lib/cdk/queue-age-scaler.ts';
import { dependOnRolePoliciesOnly } from '../../lib/cdk/role-dependency.ts';
import { ScalerActuator } from '../../lib/cdk/scaler-settings.ts';
import { NO_BUNDLING } from './attached-scaler.ts';

/** A queue with its DLQ and a consumer of its own role and log group: what cdk-nag's AwsSolutions pack accepts. */
export interface MemberParts {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: LambdaFunction;
}

export function memberParts(scope: Construct, name: string, options: { dlq?: boolean } = {}): MemberParts {
  const deadLetterQueue = new Queue(scope, `${name}Dlq`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, `${name}Queue`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(180),
    deadLetterQueue: options.dlq === false ? undefined : { queue: deadLetterQueue, maxReceiveCount: 5 },
  });
  const logs = new LogGroup(scope, `${name}ConsumerLogs`, {
    retention: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, `${name}ConsumerRole`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `The ${name} consumer`,
  });
  logs.grantWrite(role);
  queue.grantConsumeMessages(role);
  const consumer = new LambdaFunction(scope, `${name}Consumer`, {
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(30),
    role,
    logGroup: logs,
  });
  dependOnRolePoliciesOnly(consumer, [role.node.tryFindChild('DefaultPolicy')]);
  return { queue, deadLetterQueue, consumer };
}

export interface BudgetMember {
  readonly name: string;
  readonly props?: Partial<QueueAgeScalerProps>;
  /** Without a dead-letter queue (the scaler then reports it: only for the environment's shape). */
  readonly dlq?: boolean;
}

export interface BudgetApp {
  readonly app: App;
  readonly stack: Stack;
  readonly budget: DownstreamBudget;
  readonly scalers: QueueAgeScaler[];
  readonly parts: MemberParts[];
}

/**
 * A stack with a budget and its members, each on a queue of its own (an SqsEventSource the scaler adds); the
 * first member keeps the stack outputs.
 */
export function budgetApp(
  budgetProps: DownstreamBudgetProps,
  members: readonly BudgetMember[],
  options: { bundle?: boolean; outdir?: string; partsStack?: boolean } = {},
): BudgetApp {
  const app = new App({ context: options.bundle ? {} : NO_BUNDLING, outdir: options.outdir });
  const stack = new Stack(app, 'Budget');
  // Queues and consumers may live in a stack of their own (a stack holds at most 500 resources).
  const partsScope = options.partsStack ? new Stack(app, 'Parts') : stack;
  const budget = new DownstreamBudget(stack, 'OrdersDb', budgetProps);
  const scalers: QueueAgeScaler[] = [];
  const parts: MemberParts[] = [];
  members.forEach((member, i) => {
    const own = memberParts(partsScope, member.name, { dlq: member.dlq });
    parts.push(own);
    scalers.push(
      new QueueAgeScaler(stack, `${member.name}Scaler`, {
        queue: own.queue,
        consumer: own.consumer,
        eventSource: new SqsEventSource(own.queue, { batchSize: 10, reportBatchItemFailures: true }),
        budget,
        stackOutputs: i === 0,
        ...member.props,
      }),
    );
  });
  return { app, stack, budget, scalers, parts };
}

/** The compliance stack: a budget of three members (one per actuator), its template written to disk. */
export function synthesizeBudgetApp(): { app: App; stack: Stack; templatePath: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-budget-'));
  const { app, stack } = budgetApp(
    { dbPoolSize: 40, alarmEmail: 'ops@example.com' },
    [
      { name: 'Orders', props: { minConcurrency: 4, maxConcurrency: 30, weight: 2 } },
      {
        name: 'Billing',
        props: { actuator: ScalerActuator.RESERVED, minConcurrency: 1, maxConcurrency: 10 },
      },
      { name: 'Email', props: { targetAge: Duration.minutes(5), maxConcurrency: 8 } },
    ],
    { bundle: true, outdir },
  );
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stack.stackName);
  return { app, stack, templatePath: join(outdir, artifact.templateFile) };
}
