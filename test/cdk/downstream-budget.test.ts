import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { BUDGET_ENVIRONMENT, MAX_BUDGET_MEMBERS } from '../../lib/budget-environment.ts';
import { DownstreamBudget } from '../../lib/cdk/downstream-budget.ts';
import { LAMBDA_ENVIRONMENT_BYTES } from '../../lib/cdk/environment-size.ts';
import { QueueAgeScaler } from '../../lib/cdk/queue-age-scaler.ts';
import { ScalerActuator } from '../../lib/cdk/scaler-settings.ts';
import { annotations, errorsOf, NO_BUNDLING, parts } from './attached-scaler.ts';
import { type BudgetMember, budgetApp, memberParts } from './budget-app.ts';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };

/** A CloudFormation value as text: `{ Ref: X }` is `<X>`, `Fn::GetAtt [X, A]` is `<X.A>`, joins joined. */
function rendered(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  const v = value as Record<string, unknown>;
  if (typeof v.Ref === 'string') return `<${v.Ref}>`;
  if (Array.isArray(v['Fn::GetAtt'])) return `<${(v['Fn::GetAtt'] as string[]).join('.')}>`;
  if (Array.isArray(v['Fn::Join'])) {
    const [separator, items] = v['Fn::Join'] as [string, unknown[]];
    return items.map(rendered).join(separator);
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** The warnings on a construct, without CDK's acknowledgement suffix (`[ack: id]`). */
function warningsOf(construct: IConstruct): string[] {
  return annotations(construct, 'warning').map((w) => w.replace(/ \[ack: [^\]]+\]$/, ''));
}

function resources(stack: Stack, type: string): Record<string, Resource> {
  return Template.fromStack(stack).findResources(type) as Record<string, Resource>;
}

function onlyController(stack: Stack): Resource {
  const controllers = Object.values(resources(stack, 'AWS::Lambda::Function')).filter(
    (fn) =>
      fn.Properties.Handler === 'index.handler' && JSON.stringify(fn).includes(BUDGET_ENVIRONMENT.members),
  );
  expect(controllers).toHaveLength(1);
  return controllers[0] as Resource;
}

function environmentOf(stack: Stack): Record<string, unknown> {
  return (onlyController(stack).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

function membersOf(stack: Stack): Record<string, unknown>[] {
  return JSON.parse(rendered(environmentOf(stack)[BUDGET_ENVIRONMENT.members])) as Record<string, unknown>[];
}

/** `<LogicalId>` of a construct's resource, or of a token such as a mapping's id. */
function ref(stack: Stack, value: unknown): string {
  return rendered(stack.resolve(value));
}

function statementsOf(stack: Stack, policyPrefix: string): Record<string, unknown>[] {
  return Object.entries(resources(stack, 'AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith(policyPrefix))
    .flatMap(
      ([, policy]) =>
        (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
}

/** The errors synth reports (the budget's checks that need every member run at synth, as an aspect). */
function synthErrors(app: App, construct: IConstruct): string[] {
  app.synth();
  return errorsOf(construct);
}

const TWO: BudgetMember[] = [{ name: 'Orders' }, { name: 'Billing' }];

describe('DownstreamBudget: one controller runs every member', () => {
  it('names itself in the stack output BudgetName (status --stack S --budget); a second budget in the stack says how to read it', () => {
    const { stack, budget } = budgetApp({ dbPoolSize: 40 }, TWO);
    expect(Template.fromStack(stack).toJSON().Outputs.BudgetName).toEqual({ Value: budget.budgetName });
    const second = new DownstreamBudget(stack, 'Cache', { maxConcurrency: 10 });
    expect(annotations(second, 'info')).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `BudgetName output is another budget's: read this one with queue-age-scaler status --budget ${second.budgetName}`,
        ),
      ),
    );
  });

  it('two members: one controller, one schedule, one start trigger; the members create none of their own', () => {
    // GIVEN / WHEN
    const { stack, budget, scalers } = budgetApp({ dbPoolSize: 40 }, TWO);
    // THEN
    const template = Template.fromStack(stack);
    onlyController(stack);
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.resourceCountIs('Custom::Trigger', 1);
    // AND the start trigger runs again on every change of the controller: a member added by a redeploy starts at its
    // floor while the others may hold the whole budget, and that run re-plans at once (issue 27 row 8)
    template.hasResourceProperties('Custom::Trigger', {
      ExecuteOnHandlerChange: true,
      InvocationType: 'Event',
    });
    // Two consumers, the budget's controller and aws-cdk-lib's trigger provider.
    template.resourceCountIs('AWS::Lambda::Function', 4);
    for (const scaler of scalers) {
      expect(scaler.controller).toBe(budget.controller);
      expect(scaler.schedule).toBe(budget.schedule);
      for (const id of ['Controller', 'ControllerRole', 'ControllerLogs', 'Schedule', 'Start']) {
        expect(scaler.node.tryFindChild(id), `${scaler.node.path}/${id}`).toBeUndefined();
      }
      expect(errorsOf(scaler)).toEqual([]);
    }
    expect(synthErrors(budget.node.root as App, budget)).toEqual([]);
    // The same hardening as a lone scaler's controller.
    expect(onlyController(stack).Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      ReservedConcurrentExecutions: 1,
      // One sample of both members, 20 s each at worst (controllerTimeoutSeconds).
      Timeout: 40,
      MemorySize: 128,
    });
    // Its ticker queue: the samples between ticks come back through it, one message at a time.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1 });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 40, MessageRetentionPeriod: 300 });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 90,
    });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: Match.absent(),
      Description: Match.stringLikeRegexp('queue-age budget'),
    });
  });

  it('three members: the environment resolves and lists each, with only the settings that differ from the defaults', () => {
    // GIVEN three members: one with a tighter target, one with defaults and no DLQ, one with a pool and a weight
    const { stack, budget, scalers, parts } = budgetApp({ dbPoolSize: 40, budgetName: 'orders-db' }, [
      { name: 'Orders', props: { targetAge: Duration.seconds(30), scalerName: 'orders' } },
      { name: 'Billing', props: { scalerName: 'billing' }, dlq: false },
      { name: 'Email', props: { dbPoolSize: 10, weight: 2, scalerName: 'email' } },
    ]);
    // WHEN
    const environment = environmentOf(stack);
    const members = membersOf(stack);
    // THEN
    expect(environment).toMatchObject({
      [BUDGET_ENVIRONMENT.budgetName]: 'orders-db',
      [BUDGET_ENVIRONMENT.budget]: '40',
      [BUDGET_ENVIRONMENT.metricNamespace]: 'QueueAgeScaler',
    });
    const expected = scalers.map((scaler, i) => {
      const own = parts[i];
      if (!own) throw new Error('unreachable');
      return {
        scalerName: scaler.scalerName,
        queueUrl: ref(stack, own.queue.queueUrl),
        queueName: ref(stack, own.queue.queueName),
        consumerFunctionName: ref(stack, own.consumer.functionName),
        eventSourceMappingUuid: ref(stack, scaler.eventSourceMappingId),
      };
    });
    expect(members).toEqual([
      {
        ...expected[0],
        deadLetterQueueName: ref(stack, parts[0]?.deadLetterQueue.queueName),
        settings: { targetAgeSeconds: 30 },
      },
      // No DLQ: no name (the scaler reports the missing DLQ itself).
      { ...expected[1], settings: {} },
      {
        ...expected[2],
        deadLetterQueueName: ref(stack, parts[2]?.deadLetterQueue.queueName),
        weight: 2,
        // The pool is the cap: both, as the controller's validator reads them.
        settings: { maxConcurrency: 10, dbPoolSize: 10 },
      },
    ]);
    expect(scalers.map((s) => errorsOf(s))).toEqual([
      [],
      [expect.stringMatching(/no dead-letter queue/)],
      [],
    ]);
    expect(synthErrors(budget.node.root as App, budget)).toEqual([]);
  });

  it('a member on the provisioned actuator joins: its mapping in provisioned mode at its floor, its pollers written by the budget', () => {
    const { stack, scalers } = budgetApp({ maxConcurrency: 40 }, [
      { name: 'Lockstep' },
      {
        name: 'Provisioned',
        props: { actuator: ScalerActuator.PROVISIONED, minConcurrency: 20, maxConcurrency: 30 },
      },
    ]);
    expect(scalers.map((s) => errorsOf(s))).toEqual([[], []]);
    // The budget's controller reads the member as provisioned: its grants are whole pollers (budget-allocation.ts).
    const settings = membersOf(stack).map((m) => m.settings as Record<string, unknown>);
    expect(settings[1]).toMatchObject({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 30 });
    // Its mapping starts at its floor's pollers, with no MaximumConcurrency (AWS refuses the two together).
    const mappings = Object.values(resources(stack, 'AWS::Lambda::EventSourceMapping')).filter(
      (m) => (m.Properties.ProvisionedPollerConfig as unknown) !== undefined,
    );
    expect(mappings.map((m) => [m.Properties.ProvisionedPollerConfig, m.Properties.ScalingConfig])).toEqual([
      [{ MinimumPollers: 2, MaximumPollers: 2 }, undefined],
    ]);
    // And the budget's controller may write that mapping (its pollers) and the member's reserved concurrency.
    const statements = statementsOf(stack, 'OrdersDbControllerRoleDefaultPolicy');
    const mapping = ref(stack, scalers[1]?.eventSourceMappingId);
    const writes = statements.filter(
      (s) => s.Action === 'lambda:UpdateEventSourceMapping' && rendered(s.Resource).endsWith(`:${mapping}`),
    );
    expect(writes).toHaveLength(1);
    const reserved = statements.find((s) => s.Sid === 'SetConsumerConcurrency');
    expect([reserved?.Resource].flat()).toHaveLength(2);
  });

  it('a member with scheduled floors is refused, with why (the budget checks its floors’ sum once, at synth)', () => {
    const { scalers } = budgetApp({ maxConcurrency: 40 }, [
      { name: 'Plain' },
      {
        name: 'Floored',
        props: {
          floors: [{ schedule: 'cron(0 9 * * ? *)', minConcurrency: 10, duration: Duration.hours(1) }],
        },
      },
    ]);
    expect(scalers.map((s) => errorsOf(s))).toEqual([
      [],
      [
        expect.stringMatching(
          /^floors \(scheduled floors\) are not available to a shared budget's members yet/,
        ),
      ],
    ]);
  });

  it('IAM, per member as it joins: its queue, its consumer and its mapping, each write as its actuator needs', () => {
    // GIVEN one member per actuator
    const { stack, budget, scalers, parts } = budgetApp({ maxConcurrency: 40 }, [
      { name: 'Lockstep' },
      { name: 'Reserved', props: { actuator: ScalerActuator.RESERVED, minConcurrency: 1 } },
      { name: 'Mapping', props: { actuator: ScalerActuator.EVENT_SOURCE } },
    ]);
    // WHEN
    const statements = statementsOf(stack, 'OrdersDbControllerRoleDefaultPolicy');
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid ?? 'logs', s]));
    // THEN
    const arn = (value: string) => `<${ref(stack, value).slice(1, -1)}>`;
    const queues = parts.map((p) => arn(p.queue.queueArn));
    const consumers = parts.map((p) => arn(p.consumer.functionArn));
    const mapping = (i: number) =>
      `arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:event-source-mapping:${ref(stack, scalers[i]?.eventSourceMappingId)}`;
    const resourcesOf = (sid: string) => [bySid[sid]?.Resource].flat().map(rendered);
    expect(Object.keys(bySid).sort()).toEqual(
      [
        'logs',
        'OwnTickerQueue',
        'ReadQueueDepth',
        'ReadConsumerConcurrency',
        'ReadConsumerOwner',
        'ReadMapping',
        'SetConsumerConcurrency',
        'SetMappingMaximumConcurrency1',
        'SetMappingMaximumConcurrency3',
      ].sort(),
    );
    // Each member's owner parameter, in one statement (a Sid appears once in a policy): read before every write
    const owners = statements.filter((s) => s.Sid === 'ReadConsumerOwner');
    expect(owners).toHaveLength(1);
    expect(owners[0]?.Action).toBe('ssm:GetParameter');
    expect([owners[0]?.Resource].flat()).toHaveLength(3);
    // AND each member's parameter names the budget as its consumer's owner
    const values = Object.values(Template.fromStack(stack).findResources('AWS::SSM::Parameter')).map(
      (p) => (p.Properties as { Value: string }).Value,
    );
    expect(values).toEqual([
      `budget:${budget.budgetName}`,
      `budget:${budget.budgetName}`,
      `budget:${budget.budgetName}`,
    ]);
    expect(bySid.ReadQueueDepth?.Action).toBe('sqs:GetQueueAttributes');
    expect(resourcesOf('ReadQueueDepth')).toEqual(queues);
    // The consumer's timeout too: a shrunk member's units are released to the others after it (the release delay)
    expect(bySid.ReadConsumerConcurrency?.Action).toEqual([
      'lambda:GetFunctionConcurrency',
      'lambda:GetFunctionConfiguration',
    ]);
    expect(resourcesOf('ReadConsumerConcurrency')).toEqual(consumers);
    // Every actuator reads its mapping (a disabled one is a pause).
    expect(resourcesOf('ReadMapping')).toEqual([mapping(0), mapping(1), mapping(2)]);
    // The event-source actuator never writes reserved concurrency (the template owns it)...
    expect(bySid.SetConsumerConcurrency?.Action).toBe('lambda:PutFunctionConcurrency');
    expect(resourcesOf('SetConsumerConcurrency')).toEqual([consumers[0], consumers[1]]);
    // ...and the reserved one never writes its mapping; each write is held to its own consumer.
    for (const [sid, i] of [
      ['SetMappingMaximumConcurrency1', 0],
      ['SetMappingMaximumConcurrency3', 2],
    ] as const) {
      const statement = bySid[sid] as { Action: string; Resource: unknown; Condition: unknown };
      expect(statement.Action).toBe('lambda:UpdateEventSourceMapping');
      expect(rendered(statement.Resource)).toBe(mapping(i));
      const condition = statement.Condition as { ArnLike: { 'lambda:FunctionArn': unknown[] } };
      expect(condition.ArnLike['lambda:FunctionArn'].map(rendered)).toEqual([
        consumers[i],
        `${consumers[i]}:*`,
      ]);
    }
    // The unscoped reads: the same policy, with its acknowledgement, as a lone scaler's.
    expect(statementsOf(stack, 'OrdersDbControllerUnscopedPolicy').map((s) => s.Sid)).toEqual([
      'ReadMetricsAndAccountLimits',
      'PublishOwnMetrics',
    ]);
  });

  it('the -budget-exhausted alarm: BudgetExhausted ≥ 1 in 2 of 2 minutes, missing not breaching, naming what to do', () => {
    const { stack, budget } = budgetApp({ dbPoolSize: 40, budgetName: 'orders-db' }, [
      { name: 'Orders', props: { scalerName: 'orders' } },
      { name: 'Billing', props: { scalerName: 'billing' } },
    ]);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'orders-db-budget-exhausted',
      Metrics: [
        Match.objectLike({
          MetricStat: {
            Metric: {
              Namespace: 'QueueAgeScaler',
              MetricName: 'BudgetExhausted',
              Dimensions: [{ Name: 'BudgetName', Value: 'orders-db' }],
            },
            Period: 60,
            Stat: 'Maximum',
          },
        }),
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: stack.getLogicalId(budget.alarmTopic.node.defaultChild as never) }],
      OKActions: [{ Ref: stack.getLogicalId(budget.alarmTopic.node.defaultChild as never) }],
    });
    const description = String(
      Object.values(resources(stack, 'AWS::CloudWatch::Alarm')).find(
        (a) => a.Properties.AlarmName === 'orders-db-budget-exhausted',
      )?.Properties.AlarmDescription,
    );
    expect(description).toMatch(/fully granted for more than a minute/);
    expect(description).toMatch(
      /Shed or slow the starved members' producers, or raise the downstream's capacity/,
    );
    expect(description).toMatch(/`queue-age-scaler status --budget orders-db` name the starved members/);
    expect(description).toMatch(/Members: orders, billing\.$/);
    expect(description.length).toBeLessThanOrEqual(1024);
  });

  it("each member's dashboard gets the budget's row: every member's grant stacked against the budget line", () => {
    // GIVEN three members, so the first dashboards are made before the later members join
    const { stack, budget, scalers } = budgetApp({ dbPoolSize: 40, budgetName: 'orders-db' }, [
      { name: 'Orders', props: { scalerName: 'orders' } },
      { name: 'Billing', props: { scalerName: 'billing' } },
      { name: 'Email', props: { scalerName: 'email' } },
    ]);
    for (const scaler of scalers) {
      // WHEN
      const dashboard = Template.fromStack(stack).toJSON().Resources[
        stack.getLogicalId(scaler.dashboard.dashboard.node.defaultChild as never)
      ] as Resource;
      const body = JSON.parse(rendered(dashboard.Properties.DashboardBody)) as {
        widgets: { type: string; properties: Record<string, unknown> }[];
      };
      // THEN: its own graphs as before, and the row
      const grants = body.widgets.find((w) => String(w.properties.title).includes('granted per member'));
      expect(grants?.properties).toMatchObject({
        stacked: true,
        annotations: { horizontal: [{ value: 40, label: 'budget 40' }] },
        metrics: ['orders', 'billing', 'email'].map((name) => [
          'QueueAgeScaler',
          'BudgetGrant',
          'BudgetName',
          'orders-db',
          'ScalerName',
          name,
          { label: name, stat: 'Maximum' },
        ]),
      });
      const totals = body.widgets.find((w) => String(w.properties.title).includes('granted vs limit'));
      expect(JSON.stringify(totals?.properties.metrics)).toMatch(
        /BudgetGranted.*BudgetLimit.*BudgetStarvedMembers/,
      );
      const alarm = body.widgets.find((w) => String(w.properties.title).includes('exhausted'));
      expect(JSON.stringify(alarm?.properties.annotations)).toContain(
        `<${stack.getLogicalId(budget.exhaustedAlarm.node.defaultChild as never)}.Arn>`,
      );
      expect(body.widgets.filter((w) => String(w.properties.title).startsWith('Budget'))).toHaveLength(3);
      expect(body.widgets.length).toBe(14);
    }
  });

  it('a member keeps its own alarms and outputs, watching the shared controller', () => {
    const { stack, budget, scalers } = budgetApp({ dbPoolSize: 40 }, TWO);
    const template = Template.fromStack(stack);
    // 7 alarms each and the budget's one.
    template.resourceCountIs('AWS::CloudWatch::Alarm', 15);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 2);
    for (const scaler of scalers) expect(scaler.alarms.all).toHaveLength(7);
    template.hasOutput('ControllerFunctionName', {
      Value: { Ref: ref(stack, budget.controller.functionName).slice(1, -1) },
    });
    template.hasOutput('ScalerName', { Value: scalers[0]?.scalerName });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      // The shared controller publishes each member's applied concurrency under the member's own name.
      AlarmName: `${scalers[1]?.scalerName}-controller-unhealthy`,
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({
              MetricName: 'AppliedConcurrency',
              Dimensions: [{ Name: 'ScalerName', Value: scalers[1]?.scalerName }],
            }),
            Stat: 'SampleCount',
          }),
        }),
      ]),
    });
  });

  it("one alarm topic per budget: the members use the budget's topic unless one names its own", () => {
    const { stack, budget, scalers } = budgetApp({ dbPoolSize: 40, alarmEmail: 'ops@example.com' }, [
      ...TWO,
      { name: 'Emails', props: { alarmEmail: 'emails@example.com' } },
    ]);
    const template = Template.fromStack(stack);
    // The budget's topic, and the one member with an e-mail of its own: nobody else's; no key by default.
    template.resourceCountIs('AWS::SNS::Topic', 2);
    template.resourceCountIs('AWS::KMS::Key', 0);
    const budgetTopic = ref(stack, budget.alarmTopic.topicArn);
    expect(scalers.map((s) => ref(stack, s.alarmTopic.topicArn) === budgetTopic)).toEqual([
      true,
      true,
      false,
    ]);
    for (const alarm of scalers[0]?.alarms.all ?? []) {
      expect(
        (stack.resolve((alarm as unknown as { alarmActionArns: string[] }).alarmActionArns) as unknown[]).map(
          rendered,
        ),
      ).toEqual([budgetTopic]);
    }
    // The budget's e-mail hears the members: no warning that their alarms notify nobody.
    for (const scaler of scalers) expect(warningsOf(scaler)).toEqual([]);
  });

  it('a member of a budget nobody subscribes to is warned, once, in one line, that its alarms notify nobody', () => {
    const { stack, scalers } = budgetApp({ dbPoolSize: 40 }, TWO);
    Template.fromStack(stack).resourceCountIs('AWS::SNS::Topic', 1);
    for (const scaler of scalers) {
      expect(warningsOf(scaler)).toEqual([
        expect.stringMatching(/^its alarms notify nobody: [^\n]*alarmEmail/),
      ]);
    }
  });

  it("alarmTopicEncryption on the budget: one key for the budget's topic; on a member that uses it, refused", () => {
    const { stack, budget, scalers } = budgetApp(
      { dbPoolSize: 40, alarmEmail: 'ops@example.com', alarmTopicEncryption: true },
      [...TWO, { name: 'Emails', props: { alarmTopicEncryption: true } }],
    );
    expect(errorsOf(budget)).toEqual([]);
    expect(errorsOf(scalers[2] as IConstruct)).toEqual([
      expect.stringMatching(/^alarmTopicEncryption is given on a budget's member without an alarmEmail/),
    ]);
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::KMS::Key', 1);
  });

  it("the tick is the budget's: members without one take it, the timeout follows the members' fast path", () => {
    // GIVEN a two-minute budget whose members sample no depth between ticks
    const { stack, scalers } = budgetApp({ dbPoolSize: 40, tick: Duration.minutes(2) }, [
      { name: 'Orders', props: { fastSample: Duration.seconds(0) } },
      { name: 'Billing', props: { fastSample: Duration.seconds(0) } },
    ]);
    // THEN
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
    expect(scalers.map((s) => s.config.tickSeconds)).toEqual([120, 120]);
    expect(membersOf(stack).map((m) => m.settings)).toEqual([
      { tickSeconds: 120, fastSampleSeconds: 0 },
      { tickSeconds: 120, fastSampleSeconds: 0 },
    ]);
    // Half a tick without the fast path; 1.5 ticks of event age.
    expect(onlyController(stack).Properties.Timeout).toBe(60);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumEventAgeInSeconds: 180 });
    // With a member's fast path, one invocation may be one sample of every member: 2 × 20 s.
    const mixed = budgetApp({ dbPoolSize: 40 }, [
      { name: 'A', props: { fastSample: Duration.seconds(0) } },
      { name: 'B' },
    ]);
    expect(onlyController(mixed.stack).Properties.Timeout).toBe(40);
  });

  it('estimates the environment conservatively: every value synth cannot read at its longest plausible length', () => {
    // GIVEN / WHEN
    const sizes = [1, 2, 3].map((n) => {
      const { budget } = budgetApp(
        { dbPoolSize: 100 },
        Array.from({ length: n }, (_, i) => ({ name: `M${i}` })),
      );
      return budget.estimatedEnvironmentBytes();
    });
    // THEN: a member with a DLQ, generated names and default settings is about 570 bytes
    const each = (sizes[2] as number) - (sizes[1] as number);
    expect(each).toBe((sizes[1] as number) - (sizes[0] as number));
    expect(each).toBeGreaterThan(540);
    expect(each).toBeLessThan(600);
    console.log(
      `[budget] environment estimate: ${sizes.join(', ')} bytes for 1, 2, 3 members (${each} a member); ${Math.floor((LAMBDA_ENVIRONMENT_BYTES - ((sizes[0] as number) - each)) / each)} such members fit in ${LAMBDA_ENVIRONMENT_BYTES}`,
    );
  });

  it("the role's inline policies stay within IAM's 10,240 characters with as many members as the environment admits", () => {
    // GIVEN the most members whose environment fits
    const fitting = Array.from({ length: 7 }, (_, i) => ({ name: `Member${i}` }));
    const { stack, budget, app } = budgetApp({ dbPoolSize: 100 }, fitting);
    expect(synthErrors(app, budget)).toEqual([]);
    // WHEN the policies are counted as IAM does (no whitespace), each value at its longest: an ARN of a
    // generated name 120 characters, a mapping's UUID 36, the pseudo parameters their longest
    const longest: Record<string, string> = {
      'AWS::Partition': 'aws-us-gov',
      'AWS::Region': 'ap-southeast-2',
      'AWS::AccountId': '123456789012',
    };
    const resolved = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(resolved);
      if (typeof value !== 'object' || value === null) return value;
      const v = value as Record<string, unknown>;
      if (typeof v.Ref === 'string') return longest[v.Ref] ?? 'x'.repeat(36);
      if (Array.isArray(v['Fn::GetAtt'])) return 'x'.repeat(120);
      if (Array.isArray(v['Fn::Join'])) {
        const [separator, items] = v['Fn::Join'] as [string, unknown[]];
        return items.map((item) => String(resolved(item))).join(separator);
      }
      return Object.fromEntries(Object.entries(v).map(([key, inner]) => [key, resolved(inner)]));
    };
    const sizes = Object.entries(resources(stack, 'AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith('OrdersDbController'))
      .map(([, policy]) => JSON.stringify(resolved(policy.Properties.PolicyDocument)).length);
    const size = sizes.reduce((sum, n) => sum + n, 0);
    console.log(
      `[budget] controller role's inline policies with 7 members: about ${size} of 10,240 characters`,
    );
    // THEN
    expect(size).toBeLessThan(10_240);
  });
});

describe('DownstreamBudget synth checks: each an error on the path concerned, with the fix', () => {
  it("the members' floors must fit in the budget", () => {
    const { app, budget } = budgetApp({ dbPoolSize: 10 }, [
      { name: 'Orders', props: { minConcurrency: 6, maxConcurrency: 10 } },
      { name: 'Billing', props: { minConcurrency: 5, maxConcurrency: 10 } },
    ]);
    expect(synthErrors(app, budget)).toEqual([
      "the members' floors (minConcurrency) add up to 11, above the budget 10 (Budget/OrdersScaler 6, Budget/BillingScaler 5): every floor is granted first, so they must fit; lower the members' minConcurrency by 1 in all, or raise the budget's limit to 11 if the downstream takes it",
    ]);
  });

  it("a member's cap must be at most the budget", () => {
    const { app, scalers } = budgetApp({ dbPoolSize: 20 }, [
      { name: 'Orders', props: { maxConcurrency: 20 } },
      // The default cap, 32.
      { name: 'Billing' },
    ]);
    app.synth();
    expect(errorsOf(scalers[0] as IConstruct)).toEqual([]);
    expect(errorsOf(scalers[1] as IConstruct)).toEqual([
      "maxConcurrency = 32: above the budget Budget/OrdersDb, 20: this member alone could take more of the downstream than the budget holds; set maxConcurrency (or dbPoolSize) to at most 20 on this scaler, or raise the budget's limit if the downstream takes more",
    ]);
  });

  it(`at most ${MAX_BUDGET_MEMBERS} members`, () => {
    const many = Array.from({ length: MAX_BUDGET_MEMBERS + 1 }, (_, i) => ({
      name: `M${i}`,
      props: { maxConcurrency: 4 },
    }));
    // The queues and consumers in a stack of their own: 21 of them and their scalers exceed one stack's 500 resources.
    const { app, budget } = budgetApp({ maxConcurrency: 100 }, many, { partsStack: true });
    const errors = synthErrors(app, budget);
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^21 scalers joined the budget: at most ${MAX_BUDGET_MEMBERS} share one, .*split them into two budgets, each with its share of the downstream \\(Budget/M0Scaler, .*Budget/M20Scaler\\)$`,
        ),
      ),
      // Far beyond the environment too.
      expect.stringMatching(/^the controller's environment would take about \d+ bytes with these 21 members/),
    ]);
  });

  it("the controller's environment must fit Lambda's 4 KB", () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ name: `Member${i}`, props: { maxConcurrency: 4 } }));
    const { app, budget } = budgetApp({ maxConcurrency: 100 }, many);
    expect(budget.estimatedEnvironmentBytes()).toBeGreaterThan(LAMBDA_ENVIRONMENT_BYTES);
    expect(synthErrors(app, budget)).toEqual([
      expect.stringMatching(
        /^the controller's environment would take about \d+ bytes with these 8 members \(about \d+ each, every value synth cannot read counted at its longest plausible length\), above Lambda's 4096 bytes: Lambda would refuse it at deploy; split the members into two budgets/,
      ),
    ]);
  });

  it("every member ticks with the budget: a member's own tick must be the budget's", () => {
    const { app, scalers } = budgetApp({ dbPoolSize: 40 }, [
      { name: 'Orders', props: { tick: Duration.minutes(1) } },
      { name: 'Billing', props: { tick: Duration.minutes(2) } },
    ]);
    app.synth();
    expect(errorsOf(scalers[0] as IConstruct)).toEqual([]);
    expect(errorsOf(scalers[1] as IConstruct)).toEqual([
      "tick = 120 s, but the budget Budget/OrdersDb ticks every 60 s: its one controller runs every member's tick in one invocation, on one schedule; leave tick out on this scaler (it takes the budget's), or give it tick: Duration.minutes(1)",
    ]);
  });

  it('a member in another stack is refused, naming both stacks and the fix, and synth still completes', () => {
    // GIVEN a budget in one stack and a scaler joining it from another
    const app = new App({ context: NO_BUNDLING });
    const shared = new Stack(app, 'Shared');
    const budget = new DownstreamBudget(shared, 'OrdersDb', { dbPoolSize: 40 });
    const home = memberParts(shared, 'Home');
    const member = new QueueAgeScaler(shared, 'HomeScaler', {
      queue: home.queue,
      consumer: home.consumer,
      budget,
    });
    const elsewhere = new Stack(app, 'Elsewhere', { env: { account: '123456789012', region: 'eu-west-1' } });
    const away = memberParts(elsewhere, 'Away');
    const stranger = new QueueAgeScaler(elsewhere, 'AwayScaler', {
      queue: away.queue,
      consumer: away.consumer,
      budget,
    });
    // WHEN
    app.synth();
    // THEN
    expect(errorsOf(member)).toEqual([]);
    expect(errorsOf(stranger)).toEqual([
      expect.stringMatching(
        /^the budget Shared\/OrdersDb is in the stack Shared, this scaler in Elsewhere: .*create this scaler in Shared \(its queue and consumer may stay where they are\), or give Elsewhere a DownstreamBudget of its own$/,
      ),
    ]);
    expect(errorsOf(budget)).toEqual([]);
    // Not wired: the budget's controller lists the member of its own stack only.
    expect(membersOf(shared)).toHaveLength(1);
  });

  it('a consumer joins at most one budget (one scaler per consumer holds across budgets)', () => {
    // GIVEN one consumer on two queues, each scaler in its own budget
    const { stack, queue, consumer } = parts();
    const first = new DownstreamBudget(stack, 'First', { dbPoolSize: 40 });
    const second = new DownstreamBudget(stack, 'Second', { dbPoolSize: 40 });
    const other = new Queue(stack, 'Other', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(stack, 'OtherDlq'), maxReceiveCount: 5 },
    });
    const a = new QueueAgeScaler(stack, 'A', { queue, consumer, budget: first });
    const b = new QueueAgeScaler(stack, 'B', { queue: other, consumer, budget: second, stackOutputs: false });
    // THEN
    expect(errorsOf(a)).toEqual([]);
    expect(errorsOf(b)).toEqual([
      'the consumer Validation/Consumer already has a queue-age scaler, Validation/A: one scaler per consumer, or the two would fight over its reserved concurrency (a consumer joins at most one budget, through one scaler); attach one scaler, or give each queue its own consumer',
    ]);
    // And a consumer with a lone scaler cannot join a budget through a second one.
    const lone = parts();
    new QueueAgeScaler(lone.stack, 'Lone', { queue: lone.queue, consumer: lone.consumer });
    const q2 = new Queue(lone.stack, 'Q2', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(lone.stack, 'Q2Dlq'), maxReceiveCount: 5 },
    });
    const joining = new QueueAgeScaler(lone.stack, 'Joining', {
      queue: q2,
      consumer: lone.consumer,
      budget: new DownstreamBudget(lone.stack, 'Budget', { maxConcurrency: 40 }),
      stackOutputs: false,
    });
    expect(errorsOf(joining)).toEqual([
      expect.stringMatching(/already has a queue-age scaler, Validation\/Lone/),
    ]);
  });

  it('two members of one budget may not share a scalerName: the controller and the metrics tell them apart by it', () => {
    const { app, scalers } = budgetApp({ dbPoolSize: 40 }, [
      { name: 'Orders', props: { scalerName: 'orders' } },
      { name: 'Billing', props: { scalerName: 'orders' } },
    ]);
    app.synth();
    expect(errorsOf(scalers[1] as IConstruct)).toEqual([
      "scalerName = 'orders' is also the name of Budget/OrdersScaler, a member of the budget Budget/OrdersDb: the budget's controller and its metrics tell members apart by name; give this scaler another scalerName",
    ]);
  });

  it('weight: only with a budget, and a number in (0; 1000]', () => {
    const { stack, queue, consumer } = parts();
    const lone = new QueueAgeScaler(stack, 'Lone', { queue, consumer, weight: 2 });
    expect(errorsOf(lone)).toEqual([
      'weight = 2 is given without a budget: a weight ranks a member of a DownstreamBudget when the budget is short; give budget: <the DownstreamBudget> as well, or leave weight out',
    ]);
    for (const weight of [0, -1, 1001, Number.NaN]) {
      const { scalers } = budgetApp({ dbPoolSize: 40 }, [{ name: 'Orders', props: { weight } }]);
      expect(errorsOf(scalers[0] as IConstruct)).toEqual([
        expect.stringMatching(/^weight = .*: must be a number in \(0; 1000\] known at synth/),
      ]);
    }
  });

  it.each([
    {
      comment: 'no limit at all',
      props: {},
      error: /^maxConcurrency is missing: give it or a downstream limit \(dbPoolSize, apiRatePerSecond\)$/,
    },
    {
      comment: 'a fractional pool',
      props: { dbPoolSize: 2.5 },
      error: /^dbPoolSize = 2.5: must be an integer in \[1; 100000\]/,
    },
    {
      comment: 'an API rate without its item time',
      props: { apiRatePerSecond: 100 },
      error: /^itemTime is missing: the API cap is/,
    },
    {
      comment: 'a zero budget',
      props: { maxConcurrency: 0 },
      error: /^maxConcurrency = 0: must be an integer in \[1; 10000\]/,
    },
    {
      comment: 'a tick that is not whole minutes',
      props: { dbPoolSize: 40, tick: Duration.seconds(90) },
      error: /^tick = 90 s: the schedule runs in whole minutes/,
    },
    {
      comment: 'a name with a space',
      props: { dbPoolSize: 40, budgetName: 'orders db' },
      error: /^budgetName = 'orders db': must be 1–64 characters/,
    },
    {
      comment: 'a malformed e-mail',
      props: { dbPoolSize: 40, alarmEmail: 'ops' },
      error: /^alarmEmail = 'ops': must be an e-mail address/,
    },
  ])('the budget refuses $comment', ({ props, error }) => {
    const { app, budget } = budgetApp(props, [
      { name: 'Orders', props: { maxConcurrency: 1, minConcurrency: 1, actuator: ScalerActuator.RESERVED } },
    ]);
    expect(synthErrors(app, budget)).toEqual([expect.stringMatching(error)]);
  });

  it('the API limit sizes the budget as it sizes a cap: rate × item time ÷ calls per item', () => {
    const { budget } = budgetApp({ apiRatePerSecond: 1000, itemTime: Duration.millis(20), callsPerItem: 2 }, [
      { name: 'Orders', props: { maxConcurrency: 10 } },
    ]);
    expect(budget.concurrency).toBe(10);
  });

  it('a budget without members is refused', () => {
    const app = new App({ context: NO_BUNDLING });
    const budget = new DownstreamBudget(new Stack(app, 'Empty'), 'OrdersDb', { dbPoolSize: 40 });
    expect(synthErrors(app, budget)).toEqual([
      expect.stringMatching(
        /^the budget has no members: give it to the scalers of the consumers that share the downstream/,
      ),
    ]);
  });

  it('lists every problem at once, on each path, and synth completes without throwing', () => {
    // GIVEN a budget whose members' floors do not fit, one with a cap above it and one with its own tick
    const { app, budget, scalers } = budgetApp({ dbPoolSize: 8 }, [
      { name: 'Orders', props: { minConcurrency: 5, maxConcurrency: 8 } },
      { name: 'Billing', props: { minConcurrency: 4, maxConcurrency: 9, tick: Duration.minutes(3) } },
    ]);
    // WHEN / THEN
    expect(() => app.synth()).not.toThrow();
    expect(errorsOf(budget)).toEqual([
      expect.stringMatching(/^the members' floors \(minConcurrency\) add up to 9, above the budget 8/),
    ]);
    expect(errorsOf(scalers[1] as IConstruct)).toEqual([
      expect.stringMatching(/^tick = 180 s, but the budget/),
      expect.stringMatching(/^maxConcurrency = 9: above the budget/),
    ]);
  });
});

describe('a consumer alone, without a budget', () => {
  it('keeps its own controller, schedule and trigger (the template snapshot pins the rest)', () => {
    const { stack, queue, consumer } = parts();
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer });
    expect(scaler.budget).toBeUndefined();
    for (const id of ['Controller', 'Schedule', 'Start']) expect(scaler.node.tryFindChild(id)).toBeDefined();
    expect(JSON.stringify(Template.fromStack(stack).toJSON())).not.toContain(BUDGET_ENVIRONMENT.members);
  });

  it('isDownstreamBudget tells a budget from any other construct', () => {
    const app = new App({ context: NO_BUNDLING });
    const stack = new Stack(app, 'S');
    const budget = new DownstreamBudget(stack, 'B', { maxConcurrency: 4 });
    const fn = new LambdaFunction(stack, 'F', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('x'),
    });
    expect(DownstreamBudget.isDownstreamBudget(budget)).toBe(true);
    expect(DownstreamBudget.isDownstreamBudget(fn)).toBe(false);
  });
});
