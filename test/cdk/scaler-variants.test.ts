import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/cdk/app.ts';
import { ScalerActuator } from '../../lib/cdk/scaler-settings.ts';
import { attach, NO_BUNDLING } from './attached-scaler.ts';

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
    // The fast path samples until 10 s before the next tick, its last sample up to 20 s: a tick plus 10 s.
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: 1,
      Timeout: 130,
      Environment: { Variables: Match.objectLike({ TICK_SECONDS: '120' }) },
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
