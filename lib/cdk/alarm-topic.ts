import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct, IConstruct } from 'constructs';
import { acknowledgeNagFinding } from './nag-acknowledgement.ts';

/** What the alarm topic a scaler or a budget creates is made with. */
export interface AlarmTopicOptions {
  /** Subscribed to the topic (confirm the subscription from the e-mail). */
  readonly alarmEmail?: string;
  /**
   * Encrypt the topic at rest with a new customer-managed KMS key ($1 a month). CloudWatch alarms cannot publish
   * to a topic encrypted with the AWS-managed `aws/sns` key, so a customer key is the only way.
   */
  readonly encrypted: boolean;
}

/** Why the default topic is not encrypted at rest: cdk-nag's AwsSolutions-SNS2 acknowledged with this. */
export const UNENCRYPTED_ALARM_TOPIC_REASON =
  "the topic carries only CloudWatch alarm notifications (the alarm's name, state and reason), no message data; CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed aws/sns key, so encryption at rest would need a customer-managed key at $1 a month: opt in with alarmTopicEncryption: true, or pass an encrypted alarmTopic";

/**
 * The alarm topic a scaler or a budget creates when the app gives none: TLS only, open to this account's
 * CloudWatch alarms, and by default not encrypted at rest (UNENCRYPTED_ALARM_TOPIC_REASON); with `encrypted`, under
 * a new customer-managed KMS key that CloudWatch may use.
 */
export function createAlarmTopic(scope: Construct, options: AlarmTopicOptions): Topic {
  const key = options.encrypted ? alarmTopicKey(scope) : undefined;
  const topic = new Topic(scope, 'AlarmTopic', {
    displayName: 'Queue-age scaler alarms',
    ...(key ? { masterKey: key } : {}),
  });
  if (!key) {
    acknowledgeNagFinding(topic.node.defaultChild as IConstruct, {
      rule: 'AwsSolutions-SNS2',
      reason: UNENCRYPTED_ALARM_TOPIC_REASON,
    });
  }
  // TLS only (the statement `enforceSSL: true` writes, spelt out: that prop needs aws-cdk-lib 2.129, the peer
  // minimum is older). cdk-nag's AwsSolutions-SNS3 reads this statement.
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
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  if (options.alarmEmail) topic.addSubscription(new EmailSubscription(options.alarmEmail));
  return topic;
}

/** The opt-in key: rotated, and usable by this account's CloudWatch alarms (they encrypt what they publish). */
function alarmTopicKey(scope: Construct): Key {
  const key = new Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the queue-age scaler alarm topic',
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.DESTROY,
    pendingWindow: Duration.days(7),
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  return key;
}
