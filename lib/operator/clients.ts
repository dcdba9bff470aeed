import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type AwsClients, type ClientOptions, createAwsClients, RETRY_SETTINGS } from '../aws/clients.ts';

/** The controller's clients (same retry settings) plus what only the operator tools read. */
export interface OperatorClients extends AwsClients {
  readonly cloudformation: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
}

export function operatorClients(options: ClientOptions): OperatorClients {
  const config = { ...RETRY_SETTINGS, ...options };
  return {
    ...createAwsClients(options),
    cloudformation: new CloudFormationClient(config),
    logs: new CloudWatchLogsClient(config),
  };
}

/**
 * The load's SQS client: standard retry rather than adaptive (adaptive retry rate-limits the whole client after a
 * throttle, which would show up as the pacer falling behind for reasons of its own), and one socket per sender
 * (the SDK's agent defaults to 50 per host).
 */
export function loadSqsClient(options: ClientOptions, senders: number): SQSClient {
  const sockets = Math.max(50, senders);
  return new SQSClient({
    ...options,
    retryMode: 'standard',
    maxAttempts: 3,
    requestHandler: {
      httpAgent: { keepAlive: true, maxSockets: sockets },
      httpsAgent: { keepAlive: true, maxSockets: sockets },
    },
  });
}

/** Region and endpoint from the flags; the SDK's own chain (AWS_REGION, profile) otherwise. */
export function clientOptions(flags: { endpoint?: string; region?: string }): ClientOptions {
  return {
    ...(flags.endpoint === undefined ? {} : { endpoint: flags.endpoint }),
    ...(flags.region === undefined ? {} : { region: flags.region }),
  };
}
