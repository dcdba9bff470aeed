import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/**
 * The alarm topic a scaler or a budget creates when the app gives none: encrypted with a new customer-managed KMS
 * key (CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key), TLS only, and open to this
 * account's CloudWatch alarms.
 */
export function createAlarmTopic(scope: Construct, alarmEmail: string | undefined): Topic {
  const key = new Key(scope, 'AlarmTopicKey', {
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
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  const topic = new Topic(scope, 'AlarmTopic', {
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
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
  return topic;
}
