import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.ts';
import { METRIC_NAMESPACE } from '../../lib/telemetry.ts';
import { NO_BUNDLING } from './attached-scaler.ts';
import { synthesizeExample } from './example-app.ts';

// GIVEN the example app with every setting from context (test/cdk/example-app.ts), synthesized once.
let template: Template;
let scalerName: string;

function logicalId(type: string, pathFragment: string): string {
  const ids = Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(pathFragment));
  expect(ids, `${type} starting with ${pathFragment}`).toHaveLength(1);
  return (ids[0] as [string, unknown])[0];
}

function alarmProperties(suffix: string): Record<string, unknown> {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
    (alarm) => (alarm.Properties as { AlarmName: string }).AlarmName === `${scalerName}-${suffix}`,
  );
  expect(alarms, `alarm ${suffix}`).toHaveLength(1);
  return (alarms[0] as { Properties: Record<string, unknown> }).Properties;
}

beforeAll(() => {
  const synthesized = synthesizeExample();
  template = synthesized.template;
  scalerName = synthesized.stack.scaler.scalerName;
});

describe('the queues', () => {
  it('the queue is encrypted, redrives to the DLQ after 5 receives, and hides a message for 6 × the consumer timeout', () => {
    // THEN: the consumer's timeout is 30 s, so visibility is 180 s (AWS: at least 6 × the function timeout).
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ WORK_MILLISECONDS: '20' }) },
      Timeout: 30,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'DeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('the DLQ and its messages survive cdk destroy and a replacement; the queue does not', () => {
    const dlq = logicalId('AWS::SQS::Queue', 'DeadLetterQueue');
    const queue = logicalId('AWS::SQS::Queue', 'Queue4');
    const resources = template.toJSON().Resources as Record<string, Record<string, unknown>>;
    expect(resources[dlq]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(resources[queue]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
  });

  it('-c retainDeadLetters=false lets cdk destroy delete the DLQ', () => {
    const { stack } = createApp({ context: { ...NO_BUNDLING, retainDeadLetters: 'false' } });
    const dlq = Object.entries(Template.fromStack(stack).findResources('AWS::SQS::Queue')).find(([id]) =>
      id.startsWith('DeadLetterQueue'),
    );
    expect(dlq?.[1]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
  });

  it('both queues deny requests without TLS', () => {
    for (const queue of ['Queue4', 'DeadLetterQueue']) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId('AWS::SQS::Queue', queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });
});

describe('the consumer and its mapping', () => {
  it('reports partial batch failures and starts its pollers capped at the floor', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'Queue4'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
      BatchSize: 1,
    });
  });

  it('leaves reserved concurrency to the scaler (a template value would be reset by every deploy)', () => {
    const consumer = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ WORK_MILLISECONDS: Match.anyValue() }) } },
    });
    expect(Object.values(consumer)).toHaveLength(1);
    expect(Object.values(consumer)[0]?.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('the controller', () => {
  it('runs the latest Node runtime, one at a time, with no async retries and a short event age', () => {
    const controller = logicalId('AWS::Lambda::Function', 'ScalerController');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: controller },
      MaximumRetryAttempts: 0,
      // 1.5 one-minute periods: an older tick is stale.
      MaximumEventAgeInSeconds: 90,
    });
  });

  it('is scheduled once a minute without EventBridge retries', () => {
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalId('AWS::Lambda::Function', 'ScalerController'), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        }),
      ],
    });
  });

  it('is started once at deploy, asynchronously, after its schedule exists', () => {
    // The schedule's first run comes up to a tick after the rule is created: a new queue's producers may not wait.
    const triggers = template.findResources('Custom::Trigger');
    expect(Object.keys(triggers)).toHaveLength(1);
    const [trigger] = Object.values(triggers);
    expect(trigger?.Properties).toMatchObject({
      InvocationType: 'Event',
      ExecuteOnHandlerChange: false,
      HandlerArn: { Ref: expect.stringMatching(/^ScalerControllerCurrentVersion/) },
    });
    expect(trigger?.DependsOn).toEqual(
      expect.arrayContaining([logicalId('AWS::Events::Rule', 'ScalerSchedule')]),
    );
    // AND the version it invokes is never retried, as the schedule's ticks are not (a retried start is stale)
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      Qualifier: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ScalerControllerCurrentVersion'), 'Version'] },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 90,
    });
    // AND aws-cdk-lib's provider runs on the controller's runtime, whatever the aws-cdk-lib release would pick
    const provider = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('AWSCDKTriggerCustomResourceProvider'),
    );
    expect(provider?.[1].Properties.Runtime).toBe('nodejs24.x');
  });

  it('gets every setting and every resource through its environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: 1,
      Environment: {
        Variables: Match.objectLike({
          TARGET_AGE_SECONDS: '45',
          MIN_CONCURRENCY: '2',
          // The cap: min(24 given, pool 20, 1000/s × 0.02 s ÷ 1 = 20).
          MAX_CONCURRENCY: '20',
          DB_POOL_SIZE: '20',
          API_RATE_PER_SECOND: '1000',
          ITEM_TIME_SECONDS: '0.02',
          CALLS_PER_ITEM: '1',
          TICK_SECONDS: '60',
          ACTUATOR: 'lockstep',
          QUEUE_URL: { Ref: logicalId('AWS::SQS::Queue', 'Queue4') },
          QUEUE_NAME: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'Queue4'), 'QueueName'] },
          DLQ_NAME: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'DeadLetterQueue'), 'QueueName'] },
          CONSUMER_FUNCTION_NAME: { Ref: logicalId('AWS::Lambda::Function', 'Consumer') },
          EVENT_SOURCE_MAPPING_UUID: { Ref: logicalId('AWS::Lambda::EventSourceMapping', 'ConsumerMapping') },
          SCALER_NAME: scalerName,
          METRIC_NAMESPACE,
        }),
      },
    });
  });
});

describe('the controller role: least privilege', () => {
  it('scopes the concurrency, mapping and queue actions to the one consumer, mapping and queue', () => {
    const role = logicalId('AWS::IAM::Role', 'ScalerControllerRole');
    const consumerArn = { 'Fn::GetAtt': [logicalId('AWS::Lambda::Function', 'Consumer'), 'Arn'] };
    const mappingArn = {
      'Fn::Join': [
        '',
        Match.arrayWith([
          ':event-source-mapping:',
          { Ref: logicalId('AWS::Lambda::EventSourceMapping', 'ConsumerMapping') },
        ]),
      ],
    };
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: role }],
      PolicyDocument: {
        Statement: [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [logicalId('AWS::Logs::LogGroup', 'ScalerControllerLogs'), 'Arn'] },
          },
          {
            // Its own ticker queue only: the samples between ticks go out and come back through it.
            Sid: 'OwnTickerQueue',
            Action: [
              'sqs:SendMessage',
              'sqs:ReceiveMessage',
              'sqs:DeleteMessage',
              'sqs:ChangeMessageVisibility',
              'sqs:GetQueueAttributes',
            ],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'ScalerTickerQueue'), 'Arn'] },
          },
          {
            Sid: 'ReadQueueDepth',
            Action: 'sqs:GetQueueAttributes',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'Queue4'), 'Arn'] },
          },
          {
            Sid: 'SetConsumerConcurrency',
            Action: ['lambda:GetFunctionConcurrency', 'lambda:PutFunctionConcurrency'],
            Effect: 'Allow',
            Resource: consumerArn,
          },
          {
            Sid: 'ReadMapping',
            Action: 'lambda:GetEventSourceMapping',
            Effect: 'Allow',
            Resource: mappingArn,
          },
          {
            Sid: 'SetMappingMaximumConcurrency',
            Action: 'lambda:UpdateEventSourceMapping',
            Effect: 'Allow',
            Resource: mappingArn,
            // Only while the mapping invokes the consumer (the function, or an alias or version of it).
            Condition: {
              ArnLike: {
                'lambda:FunctionArn': [consumerArn, { 'Fn::Join': ['', [consumerArn, ':*']] }],
              },
            },
          },
          {
            // Who drives the consumer: read before every write, so a handover at deploy has one owner at a time.
            Sid: 'ReadConsumerOwner',
            Action: 'ssm:GetParameter',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': [
                '',
                Match.arrayWith([
                  ':parameter',
                  { Ref: logicalId('AWS::SSM::Parameter', 'ScalerConsumerOwner') },
                ]),
              ],
            },
          },
        ],
      },
    });
  });

  it("names the consumer's one owner, this scaler's controller, in a parameter it reads before it writes", () => {
    // A handover (joining or leaving a budget) keeps the old controller until CloudFormation's cleanup: the one the
    // parameter names drives, the other stands down (lib/consumer-owner.ts).
    template.hasResourceProperties('AWS::SSM::Parameter', {
      Type: 'String',
      Name: {
        'Fn::Join': [
          '',
          ['/queue-age-scaler/owner/', { Ref: logicalId('AWS::Lambda::Function', 'Consumer') }],
        ],
      },
      Value: `scaler:${scalerName}`,
    });
  });

  it('grants only the resource-less actions on "*", and PutMetricData only in its namespace', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId('AWS::IAM::Role', 'ScalerControllerRole') }],
      PolicyDocument: {
        Statement: [
          {
            Sid: 'ReadMetricsAndAccountLimits',
            Action: ['cloudwatch:GetMetricData', 'lambda:GetAccountSettings'],
            Effect: 'Allow',
            Resource: '*',
          },
          {
            Sid: 'PublishOwnMetrics',
            Action: 'cloudwatch:PutMetricData',
            Effect: 'Allow',
            Resource: '*',
            Condition: { StringEquals: { 'cloudwatch:namespace': METRIC_NAMESPACE } },
          },
        ],
      },
    });
  });

  it('no role carries a managed policy, and no statement grants a wildcard action', () => {
    for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role'))) {
      // aws-cdk-lib's trigger provider (the start trigger's) is the one exception: its role is CDK's own, with
      // AWSLambdaBasicExecutionRole (its logs) and the right to invoke the controller, and nothing else.
      if (id.startsWith('AWSCDKTriggerCustomResourceProvider')) {
        expect(role.Properties.ManagedPolicyArns).toEqual([
          {
            'Fn::Sub': expect.stringMatching(/:iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole$/),
          },
        ]);
        continue;
      }
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        for (const action of [statement.Action].flat()) expect(action).not.toMatch(/\*/);
      }
    }
  });
});

/** Each metric an alarm references, as `namespace/name/stat/period`: CloudWatch bills an alarm per metric. */
function referencedMetrics(alarm: Record<string, unknown>): string[] {
  const stats: Record<string, unknown>[] = alarm.Metrics
    ? (alarm.Metrics as { MetricStat?: { Metric: Record<string, unknown>; Stat: string; Period: number } }[])
        .flatMap((m) => (m.MetricStat ? [m.MetricStat] : []))
        .map((m) => ({ ...m.Metric, Stat: m.Stat, Period: m.Period }))
    : [
        {
          Namespace: alarm.Namespace,
          MetricName: alarm.MetricName,
          Stat: alarm.Statistic,
          Period: alarm.Period,
        },
      ];
  return stats.map((m) => `${m.Namespace}/${m.MetricName}/${m.Stat}/${m.Period}`);
}

describe('the alarms', () => {
  it('7 metric references in 7 alarms, none read twice by one alarm (19 in 10 before issue 26)', () => {
    const byAlarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => ({
      name: (a.Properties.AlarmName as string).replace(`${scalerName}-`, ''),
      metrics: referencedMetrics(a.Properties).map((m) => m.split('/').slice(0, 3).join('/')),
    }));
    for (const { name, metrics } of byAlarm) expect(new Set(metrics).size, name).toBe(metrics.length);
    expect(Object.fromEntries(byAlarm.map((a) => [a.name, a.metrics.length]))).toEqual({
      saturated: 1,
      'account-headroom': 1,
      paused: 1,
      'no-data': 1,
      'controller-unhealthy': 1,
      'dead-letters': 1,
      'consumer-throttles': 1,
    });
  });

  it.each([
    { suffix: 'saturated', metric: 'Saturated' },
    { suffix: 'account-headroom', metric: 'ClampedAboveTarget' },
    { suffix: 'paused', metric: 'PausedAboveTarget' },
  ])(
    '$suffix: the controller’s $metric (its flag with the age above target folded in), 2 minutes in a row; missing data is not breaching',
    ({ suffix, metric }) => {
      const alarm = alarmProperties(suffix);
      expect(alarm).toMatchObject({
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
      });
      expect(referencedMetrics(alarm)).toEqual([`${METRIC_NAMESPACE}/${metric}/Maximum/60`]);
      expect(JSON.stringify(alarm.Metrics)).toContain(
        JSON.stringify([{ Name: 'ScalerName', Value: scalerName }]),
      );
      expect((alarm.AlarmDescription as string).length).toBeGreaterThan(200);
    },
  );

  it('the pause that overpulls has no alarm of its own: -consumer-throttles sees its throttles and says what to do', () => {
    const names = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties.AlarmName as string,
    );
    expect(names.some((n) => n.endsWith('-pause-overpull'))).toBe(false);
    const alarm = alarmProperties('consumer-throttles');
    expect(alarm.AlarmDescription).toMatch(/reserved concurrency is 0.*PauseOverpull.*--no-enabled/);
  });

  it('no-data: no age datapoint with messages waiting (the controller’s NoData), 10 minutes in a row', () => {
    const alarm = alarmProperties('no-data');
    expect(alarm).toMatchObject({
      EvaluationPeriods: 10,
      DatapointsToAlarm: 10,
      TreatMissingData: 'notBreaching',
    });
    expect(referencedMetrics(alarm)).toEqual([`${METRIC_NAMESPACE}/NoData/Sum/60`]);
  });

  it('oscillation: no alarm unless asked for; the dashboard graphs its expression', () => {
    const names = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties.AlarmName as string,
    );
    expect(names).not.toContain(`${scalerName}-oscillation`);
  });

  it('controller unhealthy: no clean tick in 5 minutes; missing data is breaching', () => {
    const alarm = alarmProperties('controller-unhealthy');
    expect(alarm).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      TreatMissingData: 'breaching',
    });
    // One metric: a clean tick publishes its applied value, a tick that reports an error does not (report.ts).
    expect(referencedMetrics(alarm)).toEqual([`${METRIC_NAMESPACE}/AppliedConcurrency/SampleCount/60`]);
  });

  it('dead letters: any message in the DLQ; missing data is not breaching', () => {
    const alarm = alarmProperties('dead-letters');
    expect(alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(alarm.Metrics)).toContain(logicalId('AWS::SQS::Queue', 'DeadLetterQueue'));
    expect(JSON.stringify(alarm.Metrics)).toContain('ApproximateNumberOfMessagesVisible');
  });

  it('consumer throttles: 1+ a minute in 2 of 3 minutes; missing data is not breaching', () => {
    const alarm = alarmProperties('consumer-throttles');
    expect(alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(alarm.Metrics)).toContain('"Throttles"');
    expect(JSON.stringify(alarm.Metrics)).toContain(logicalId('AWS::Lambda::Function', 'Consumer'));
  });

  it('every alarm notifies the topic on alarm and on OK', () => {
    const topic = logicalId('AWS::SNS::Topic', 'ScalerAlarmTopic');
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(7);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topic }]);
      expect(alarm.Properties.AlarmDescription.length).toBeGreaterThan(80);
    }
    // Not encrypted at rest by default (no $1 key: alarmTopicEncryption opts in), TLS only.
    template.resourceCountIs('AWS::KMS::Key', 0);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topic },
    });
  });

  it('CloudWatch may publish to the topic, through TLS only', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sns:Publish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sns:Publish',
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('the dashboard', () => {
  it('graphs what the alarms evaluate, beside every signal the scaler reads or publishes', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(
      (dashboards[0] as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody,
    );
    for (const title of [
      'Applied concurrency vs cap',
      'Head age vs target',
      'Queue depth: visible and in flight',
      'Arrivals vs deletions',
      'Consumer per-item duration',
      'Errors and throttles',
      'Scale events',
      'Saturated',
      'Behind and the controller cannot act',
      'Controller flags',
    ]) {
      expect(body).toContain(title);
    }
    // The alarms' own expressions, not look-alikes, and the oscillation expression with no alarm.
    expect(body).toContain('IF(events - (high - low) >= 2, events, 0)');
    expect(body).toContain('ControllerErrors');
    // The cap and the floor are settings: lines on the graph, not metrics.
    expect(body).toContain('cap 20');
    expect(body).not.toContain('MaxConcurrency');
    for (const metric of [
      'AppliedConcurrency',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'NumberOfMessagesSent',
      'NumberOfMessagesDeleted',
      'Throttles',
      'ScaleEvents',
      'Saturated',
      'Shed',
      'ClampedByAccountHeadroom',
      'ClampedAboveTarget',
      'Paused',
      'PausedAboveTarget',
      'PauseOverpull',
      'NoData',
      'LockstepRepairs',
      'FastPathGrowths',
    ]) {
      expect(body).toContain(metric);
    }
  });
});

describe('the outputs', () => {
  it("name what the load and status tools need (the scaler emits them; the DLQ ones are the example's)", () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs.sort()).toEqual(
      [
        'AlarmTopicArn',
        'ConsumerFunctionName',
        'ControllerFunctionName',
        'DashboardName',
        'DeadLetterQueueName',
        'DeadLetterQueueUrl',
        'EventSourceMappingUuid',
        'QueueName',
        'QueueUrl',
        'ScalerName',
      ].sort(),
    );
  });
});
