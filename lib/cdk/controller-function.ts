import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, CfnResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  Function as LambdaFunctionResource,
  Runtime,
  RuntimeFamily,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { InvocationType, Trigger } from 'aws-cdk-lib/triggers';
import type { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../telemetry.ts';
import { acknowledgeNagFinding } from './nag-acknowledgement.ts';
import { dependOnRolePoliciesOnly } from './role-dependency.ts';
import { createTickerQueue } from './ticker-queue.ts';

/**
 * The controller Lambda as a lone scaler and a shared budget both deploy it: the same pre-built bundle, the same
 * hardening (its own role without managed policies, its own log group, one invocation at a time, no async retries),
 * its schedule and its start trigger. Each caller adds the statements of the resources it drives.
 */

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
export const CONTROLLER_RUNTIME = new Runtime('nodejs24.x', RuntimeFamily.NODEJS, {
  supportsInlineCode: true,
});

// The controller's event is worthless after one and a half periods (drop events older than ~1.5 periods); Lambda
// accepts a maximum event age of 60 s to 6 h (docs/aws-facts.md, "EventBridge schedules").
export const MIN_EVENT_AGE_SECONDS = 60;

/**
 * The controller's memory, arm64: Lambda's smallest size, 128 MB, bills half of 256's GB-seconds at the same speed
 * for a tick that waits on AWS calls (docs/aws-facts.md, "Prices"). Measured: the bundle's peak resident set over
 * a tick and its fast path on Node 24 (test/package/controller-node24.test.ts keeps it below this less the
 * runtime's headroom).
 */
export const CONTROLLER_MEMORY_MB = 128;

/** What differs between a lone scaler's controller and a budget's. */
export interface ControllerFunctionProps {
  /** The function's description. */
  readonly description: string;
  /** The role's description. */
  readonly roleDescription: string;
  /** The schedule's period (whole minutes): it sets the maximum event age. */
  readonly tickSeconds: number;
  /** The function's timeout (`controllerTimeoutSeconds`). */
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  /** Whether it samples between ticks: then it gets its ticker queue (lib/cdk/ticker-queue.ts). */
  readonly samplesBetweenTicks: boolean;
}

export interface ControllerFunction {
  readonly function: LambdaFunctionResource;
  /** The controller's own role: the caller adds the statements of the queues, consumers and mappings it drives. */
  readonly role: Role;
}

/**
 * The controller function, its log group, its role (logs on its own log group; the unscoped reads in a policy of
 * their own, with its cdk-nag acknowledgement) under `scope`, with the construct ids a lone scaler has always had.
 */
export function createControllerFunction(
  scope: Construct,
  props: ControllerFunctionProps,
): ControllerFunction {
  if (!existsSync(join(CONTROLLER_ASSET_DIR, 'index.mjs'))) {
    // Only a checkout of the sources can lack it: the package ships it built.
    throw new Error(
      `the controller's pre-built bundle is missing from ${CONTROLLER_ASSET_DIR}: run npm run build (or npm run build:controller) in the queue-age-scaler checkout`,
    );
  }
  const logGroup = new LogGroup(scope, 'ControllerLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  // A role of our own, without AWSLambdaBasicExecutionRole: its logs statement covers every log group.
  const role = new Role(scope, 'ControllerRole', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: props.roleDescription,
  });
  logGroup.grantWrite(role);
  // The actions with no resource type live in a policy of their own, so the one acknowledgement below
  // covers exactly them.
  const unscoped = new Policy(scope, 'ControllerUnscopedPolicy', {
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

  const maxEventAge = Duration.seconds(Math.max(MIN_EVENT_AGE_SECONDS, Math.round(1.5 * props.tickSeconds)));
  const fn = new LambdaFunctionResource(scope, 'Controller', {
    description: props.description,
    code: Code.fromAsset(CONTROLLER_ASSET_DIR),
    handler: CONTROLLER_HANDLER,
    runtime: CONTROLLER_RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: CONTROLLER_MEMORY_MB,
    // One invocation is a tick or one sample between ticks (controllerTimeoutSeconds).
    timeout: props.timeout,
    // One tick at a time: two concurrent ticks would race on the same absolute target.
    reservedConcurrentExecutions: 1,
    retryAttempts: 0,
    maxEventAge,
    role,
    logGroup,
    // The start trigger invokes a version of the controller: the same async settings as the function's (a
    // version has its own), and a deploy that changes it need not keep the old one.
    currentVersionOptions: { removalPolicy: RemovalPolicy.DESTROY, retryAttempts: 0, maxEventAge },
    environment: props.environment,
  });
  // The role's default policy exists already (the logs grant made it): statements added later land in it.
  dependOnRolePoliciesOnly(fn, [role.node.tryFindChild('DefaultPolicy'), unscoped]);
  if (props.samplesBetweenTicks) createTickerQueue(scope, fn, role, props.timeout);
  return { function: fn, role };
}

/** The schedule: one tick per `tick`, never retried (a retried tick is stale by the next one). */
export function createControllerSchedule(
  scope: Construct,
  controller: LambdaFunctionResource,
  tickSeconds: number,
  description: string,
): Rule {
  return new Rule(scope, 'Schedule', {
    description,
    schedule: Schedule.rate(Duration.minutes(tickSeconds / 60)),
    targets: [
      // EventBridge delivers at least once; a retried tick is stale by the next one, so none are retried.
      new LambdaFunction(controller, {
        retryAttempts: 0,
        maxEventAge: Duration.seconds(MIN_EVENT_AGE_SECONDS),
      }),
    ],
  });
}

/**
 * The controller's first run, when it is created: an EventBridge rate schedule first fires up to a tick after it
 * is created, and a new queue's producers may start sooner. Invoked once, asynchronously (the deploy does not wait
 * for the tick and its fast path); with the schedule's own run, the controller's reserved concurrency of 1 keeps
 * them one at a time. A lone scaler's is not re-run on later deploys: the schedule is running by then. A budget's
 * is (`onEveryChange`): a deploy that adds a member creates its mapping at its floor before the controller learns
 * of it (the controller's environment names the mapping), while the other members may hold the whole budget; the
 * run right after the update re-plans with the new member at once, lowerings first, instead of up to a tick later.
 */
export function startControllerAtDeploy(
  scope: Construct,
  controller: LambdaFunctionResource,
  schedule: Rule,
  { onEveryChange = false }: { readonly onEveryChange?: boolean } = {},
): Trigger {
  const start = new Trigger(scope, 'Start', {
    handler: controller,
    invocationType: InvocationType.EVENT,
    executeOnHandlerChange: onEveryChange,
    executeAfter: [schedule],
  });
  adjustTriggerProvider(start, CONTROLLER_RUNTIME);
  // aws-cdk-lib warns on every synth that invoke permissions on a function with a version may not cover a call
  // with a Qualifier. Nothing here calls with one but the start trigger, and the trigger grants itself the
  // version's invoke; the schedule and the ticker mapping invoke the function unqualified. A user cannot act on
  // the warning, and it fails `cdk synth --strict` on an otherwise clean app.
  Annotations.of(controller).acknowledgeWarning(
    '@aws-cdk/aws-lambda:addPermissionsToVersionOrAlias',
    "the schedule and the ticker queue invoke the controller unqualified; only the start trigger invokes its version, with that version's own grant",
  );
  return start;
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
