import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventSourceMapping, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.ts';
import { QueueAgeScaler } from '../../lib/cdk/queue-age-scaler.ts';
import { ScalerActuator } from '../../lib/cdk/scaler-settings.ts';
import { attach, errorsOf, NO_BUNDLING, parts } from './attached-scaler.ts';

function templateOf(scaler: ReturnType<typeof attach>): Template {
  return Template.fromStack(Stack.of(scaler));
}

describe('QueueAgeScaler variants', () => {
  it('a two-minute tick: the schedule, the event age and the controller alarm follow it', () => {
    // GIVEN / WHEN
    const template = templateOf(attach({ tick: Duration.minutes(2) }));
    // THEN
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 180,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: Match.stringLikeRegexp('controller-unhealthy$'),
      // 5 minutes of ticks rounded up, at least 3 periods.
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'breaching',
      Metrics: Match.arrayWith([Match.objectLike({ MetricStat: Match.objectLike({ Period: 120 }) })]),
    });
    // One invocation is a tick (half a tick, at most a minute) or one sample (up to 20 s): the longer.
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: 1,
      Timeout: 60,
      Environment: { Variables: Match.objectLike({ TICK_SECONDS: '120' }) },
    });
  });

  it('oscillationAlarm adds the oscillation alarm on the expression the dashboard graphs, at its threshold', () => {
    // GIVEN / WHEN
    const scaler = attach({ oscillationAlarm: true, oscillationThreshold: 5 });
    const template = templateOf(scaler);
    // THEN
    expect(scaler.alarms.oscillation).toBeDefined();
    expect(scaler.alarms.all).toContain(scaler.alarms.oscillation);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: Match.stringLikeRegexp('-oscillation$'),
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 5,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(events - (high - low) >= 2, events, 0)' }),
        Match.objectLike({ MetricStat: Match.objectLike({ Period: 600 }) }),
      ]),
    });
  });

  it('without the fast path a tick stays short: half a tick, at most a minute', () => {
    const template = templateOf(attach({ tick: Duration.minutes(2), fastSample: Duration.seconds(0) }));
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1, Timeout: 60 });
  });

  it('the reserved actuator may read the mapping (a disabled one is a pause) but never write it', () => {
    // GIVEN / WHEN: a floor of 1 is allowed, since the mapping's 2–1000 range does not apply
    const template = templateOf(attach({ actuator: ScalerActuator.RESERVED, minConcurrency: 1 }));
    // THEN
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[],
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toContain('lambda:PutFunctionConcurrency');
    expect(actions).not.toContain('lambda:UpdateEventSourceMapping');
    expect(actions).toContain('lambda:GetEventSourceMapping');
  });

  it('the event-source actuator reads reserved concurrency but never writes it (the template owns it)', () => {
    const template = templateOf(
      attach({ actuator: ScalerActuator.EVENT_SOURCE }, { reservedConcurrency: 32 }),
    );
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[],
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toContain('lambda:GetFunctionConcurrency');
    expect(actions).not.toContain('lambda:PutFunctionConcurrency');
    expect(actions).toContain('lambda:UpdateEventSourceMapping');
  });

  it('the provisioned actuator: the mapping in provisioned mode at the floor’s pollers, no MaximumConcurrency, both limits written', () => {
    // GIVEN / WHEN a cap beyond the standard mapping's 1,000
    const scaler = attach({
      actuator: ScalerActuator.PROVISIONED,
      minConcurrency: 20,
      maxConcurrency: 3_000,
    });
    const template = templateOf(scaler);
    // THEN
    expect(errorsOf(scaler)).toEqual([]);
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mapping?.Properties.ProvisionedPollerConfig).toEqual({ MinimumPollers: 2, MaximumPollers: 2 });
    expect(mapping?.Properties.ScalingConfig).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ ACTUATOR: 'provisioned', MAX_CONCURRENCY: '3000' }) },
    });
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[],
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toContain('lambda:PutFunctionConcurrency');
    expect(actions).toContain('lambda:UpdateEventSourceMapping');
  });

  it('scheduled floors reach the controller’s environment as JSON, the duration in seconds', () => {
    // GIVEN weekday mornings in Paris, a floor of 60 on the provisioned actuator
    const scaler = attach({
      actuator: ScalerActuator.PROVISIONED,
      minConcurrency: 20,
      maxConcurrency: 100,
      floors: [
        {
          schedule: 'cron(45 8 ? * MON-FRI *)',
          minConcurrency: 60,
          duration: Duration.hours(2),
          timeZone: 'Europe/Paris',
        },
      ],
    });
    // THEN
    expect(errorsOf(scaler)).toEqual([]);
    const [controller] = Object.values(
      templateOf(scaler).findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: Match.objectLike({ SCHEDULED_FLOORS: Match.anyValue() }) } },
      }),
    );
    expect(JSON.parse(controller?.Properties.Environment.Variables.SCHEDULED_FLOORS)).toEqual([
      {
        schedule: 'cron(45 8 ? * MON-FRI *)',
        minConcurrency: 60,
        durationSeconds: 7200,
        timeZone: 'Europe/Paris',
      },
    ]);
  });

  it('a scheduled floor synth cannot accept is one line naming the prop, the value and what is allowed', () => {
    const scaler = attach({
      floors: [{ schedule: 'cron(0 9 * * *)', minConcurrency: 64, duration: Duration.seconds(10) }],
    });
    expect(errorsOf(scaler)).toEqual([
      // In the props' own words: `duration`, a Duration.
      'floors[0].duration = 10 s: must be whole seconds from Duration.minutes(1) to Duration.days(7)',
      expect.stringMatching(/^floors\[0\]\.schedule = 'cron\(0 9 \* \* \*\)': has 5 fields/),
    ]);
  });

  it('the provisioned actuator refuses a mapping with MaximumConcurrency, and a floor under two pollers, one line each', () => {
    const scaler = attach(
      { actuator: ScalerActuator.PROVISIONED, minConcurrency: 20 },
      { mappingMaxConcurrency: 20 },
    );
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/sets MaximumConcurrency, which AWS does not allow with provisioned mode/),
    ]);
    expect(errorsOf(attach({ actuator: ScalerActuator.PROVISIONED, minConcurrency: 2 }))).toEqual([
      expect.stringMatching(/^minConcurrency = 2: must be a multiple of 10, at least 20/),
    ]);
  });

  it('the provisioned actuator refuses the app’s own provisionedPollerConfig above the cap, with the fix', () => {
    const { stack, queue, consumer } = parts();
    const mapping = new EventSourceMapping(stack, 'Mapping', {
      target: consumer,
      eventSourceArn: queue.queueArn,
      provisionedPollerConfig: { minimumPollers: 2, maximumPollers: 500 },
    });
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      eventSourceMapping: mapping,
      actuator: ScalerActuator.PROVISIONED,
      minConcurrency: 20,
      maxConcurrency: 100,
    });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(
        /^event source mapping provisionedPollerConfig.maximumPollers = 500: 5000 concurrent invocations, above the scaler's cap 100.*set it to at most 10/,
      ),
    ]);
  });

  it('a topic of your own: no topic or key is created and the alarms notify it', () => {
    // GIVEN an app whose alarms go to an existing topic
    const scaler = attach((stack) => ({ alarmTopic: new Topic(stack, 'OpsTopic', { enforceSSL: true }) }));
    // WHEN
    const template = templateOf(scaler);
    // THEN
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::KMS::Key', 0);
    const topics = Object.keys(template.findResources('AWS::SNS::Topic'));
    expect(topics[0]).toMatch(/^OpsTopic/);
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topics[0] }]);
    }
  });

  it('by default the topic is TLS only, not encrypted at rest, and its key-less encryption acknowledged with its reason', () => {
    // GIVEN / WHEN a scaler that creates its own topic
    const template = templateOf(attach({ alarmEmail: 'ops@example.com' }));
    // THEN no key ($1 a month less), the topic without a master key, TLS still enforced
    template.resourceCountIs('AWS::KMS::Key', 0);
    const [topic] = Object.values(template.findResources('AWS::SNS::Topic'));
    expect(topic?.Properties.KmsMasterKeyId).toBeUndefined();
    expect(JSON.stringify(topic?.Metadata)).toMatch(/AwsSolutions-SNS2.*no message data.*aws\/sns/);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('alarmTopicEncryption: the topic under a new rotated customer-managed key that CloudWatch may use', () => {
    // GIVEN / WHEN
    const scaler = attach({ alarmEmail: 'ops@example.com', alarmTopicEncryption: true });
    const template = templateOf(scaler);
    // THEN one key, the topic under it, and nothing to acknowledge
    expect(errorsOf(scaler)).toEqual([]);
    template.resourceCountIs('AWS::KMS::Key', 1);
    const [keyId] = Object.keys(template.findResources('AWS::KMS::Key'));
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Principal: { Service: 'cloudwatch.amazonaws.com' },
          }),
        ]),
      },
    });
    const [topic] = Object.values(template.findResources('AWS::SNS::Topic'));
    expect(JSON.stringify(topic?.Metadata ?? {})).not.toContain('AwsSolutions-SNS2');
  });

  it('alarmTopicEncryption with a topic of your own is refused: encrypt your topic as you made it', () => {
    const scaler = attach((stack) => ({
      alarmTopic: new Topic(stack, 'OpsTopic'),
      alarmTopicEncryption: true,
    }));
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/^alarmTopicEncryption is given with alarmTopic: encrypt your own topic/),
    ]);
    templateOf(scaler).resourceCountIs('AWS::KMS::Key', 0);
  });

  it('the example with the reserved actuator starts its pollers at the cap, not the floor', () => {
    // WHEN
    const { stack } = createApp({
      context: { ...NO_BUNDLING, actuator: 'reserved', minConcurrency: '1', maxConcurrency: '12' },
    });
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 12 },
    });
  });
});

/**
 * IAM's ArnLike: each of the six colon-separated fields is matched on its own, with `*` and `?` wildcards; the
 * sixth is the rest of the ARN (`function:orders-consumer:live`).
 */
function arnLike(pattern: string, arn: string): boolean {
  const fields = (value: string) => {
    const split = value.split(':');
    return [...split.slice(0, 5), split.slice(5).join(':')];
  };
  const [wanted, given] = [fields(pattern), fields(arn)];
  const glob = (p: string) => {
    const escaped = p
      .replace(/[.+^$(){}|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    return new RegExp(`^${escaped}$`);
  };
  return wanted.every((p, i) => glob(p).test(given[i] ?? ''));
}

describe('the controller role: writes to the mapping', () => {
  const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:orders-consumer';

  function updateStatement(): { Action: unknown; Condition?: Record<string, Record<string, string[]>> } {
    // GIVEN a consumer imported by ARN, so the condition's values are literals
    const { stack, queue } = parts();
    const consumer = LambdaFunction.fromFunctionArn(stack, 'C', FUNCTION);
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer });
    expect(errorsOf(scaler)).toEqual([]);
    const statements = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Sid?: string }[],
    );
    const found = statements.filter((statement) => statement.Sid === 'SetMappingMaximumConcurrency');
    expect(found).toHaveLength(1);
    return found[0] as ReturnType<typeof updateStatement>;
  }

  it.each([
    { comment: 'the consumer', invoked: FUNCTION, allowed: true },
    { comment: 'an alias of the consumer', invoked: `${FUNCTION}:live`, allowed: true },
    { comment: 'a version of the consumer', invoked: `${FUNCTION}:7`, allowed: true },
    { comment: 'another function whose name starts alike', invoked: `${FUNCTION}-audit`, allowed: false },
    { comment: 'an alias of another function', invoked: `${FUNCTION}-audit:live`, allowed: false },
    {
      comment: 'a function of the same name in another region',
      invoked: 'arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer',
      allowed: false,
    },
  ])(
    'UpdateEventSourceMapping on a mapping that invokes $comment: allowed $allowed',
    ({ invoked, allowed }) => {
      // WHEN
      const statement = updateStatement();
      // THEN: lambda:FunctionArn is the function the mapping invokes (AWS Service Authorization Reference)
      expect(statement.Action).toBe('lambda:UpdateEventSourceMapping');
      const patterns = statement.Condition?.ArnLike?.['lambda:FunctionArn'] ?? [];
      expect(patterns).toHaveLength(2);
      expect(patterns.some((pattern) => arnLike(pattern, invoked))).toBe(allowed);
    },
  );
});
