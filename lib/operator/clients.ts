import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { type AwsClients, type ClientOptions, clientConfig, type HttpTimeouts } from '../aws/clients.ts';

/** The controller's clients (same retry settings) plus what only the operator tools read. */
export interface OperatorClients extends AwsClients {
  readonly cloudformation: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
}

/**
 * The tools run on an operator's machine, often far from the region: 3 s to connect allows for a slow link's DNS
 * and handshake. A describe or get call (SQS, Lambda, CloudFormation) answers in well under a second, so 4 s
 * per attempt is ample, and an endpoint that accepts the connection and never answers is reported after about
 * 12 s (the SDK's 3 attempts).
 */
export const OPERATOR_TIMEOUTS: HttpTimeouts = { connectMs: 3_000, answerMs: 4_000 };

/**
 * `GetMetricData` over a window of up to a day and `FilterLogEvents` (which scans the log group) can take
 * seconds; they run only after the queue answered, so a longer wait does not delay the verdict on a dead endpoint.
 */
export const QUERY_TIMEOUTS: HttpTimeouts = { connectMs: 3_000, answerMs: 10_000 };

/**
 * The load's sends. A timed-out `SendMessageBatch` that SQS did carry out is sent again by the retry, and a
 * standard queue then holds its messages twice: so a send may take 10 s (a busy emulator answers in hundreds of
 * milliseconds, SQS in tens) before it is given up.
 */
export const SEND_TIMEOUTS: HttpTimeouts = { connectMs: 3_000, answerMs: 10_000 };

export function operatorClients(options: ClientOptions): OperatorClients {
  const quick = clientConfig(options, OPERATOR_TIMEOUTS);
  const query = clientConfig(options, QUERY_TIMEOUTS);
  return {
    sqs: new SQSClient(quick),
    lambda: new LambdaClient(quick),
    ssm: new SSMClient(quick),
    cloudformation: new CloudFormationClient(quick),
    cloudwatch: new CloudWatchClient(query),
    logs: new CloudWatchLogsClient(query),
  };
}

/**
 * The load's SQS client: standard retry rather than adaptive (adaptive retry rate-limits the whole client after a
 * throttle, which would show up as the pacer falling behind for reasons of its own), and one socket per sender
 * (the SDK's agent defaults to 50 per host).
 */
export function loadSqsClient(options: ClientOptions, senders: number): SQSClient {
  const sockets = Math.max(50, senders);
  const config = clientConfig(options, SEND_TIMEOUTS);
  return new SQSClient({
    ...config,
    retryMode: 'standard',
    maxAttempts: 3,
    requestHandler: {
      ...config.requestHandler,
      httpAgent: { keepAlive: true, maxSockets: sockets },
      httpsAgent: { keepAlive: true, maxSockets: sockets },
    },
  });
}
