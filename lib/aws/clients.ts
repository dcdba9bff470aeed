import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { InitializeMiddleware, MetadataBearer } from '@aws-sdk/types';
import { CONTROLLER_TIMEOUTS, type HttpTimeouts, RETRY_SETTINGS } from './call-timing.ts';
import { DeadlineHttpHandler } from './deadline-handler.ts';

export interface AwsClients {
  readonly cloudwatch: CloudWatchClient;
  readonly sqs: SQSClient;
  readonly lambda: LambdaClient;
  /** Reads the consumer's owner parameter (lib/aws/owner-parameter.ts). */
  readonly ssm: SSMClient;
}

export interface ClientOptions {
  /** An explicit endpoint (tests: the local emulator). Production leaves it to the SDK's defaults. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Per-attempt limits of every HTTP call. @default CONTROLLER_TIMEOUTS */
  readonly timeouts?: HttpTimeouts;
}

export { CONTROLLER_TIMEOUTS, type HttpTimeouts, RETRY_SETTINGS } from './call-timing.ts';

/**
 * The SDK's request-handler options for these timeouts. Without them a call to an endpoint that accepts the
 * connection and never answers waits forever (the SDK sets no timeout by default). `requestTimeout` only throws
 * with `throwOnRequestTimeout` in @smithy/node-http-handler 4.x (older releases, such as the one a Lambda runtime
 * may provide, treat it as a socket idle timeout, which throws too); `socketTimeout` covers a response that stalls
 * midway.
 */
export function timeoutSettings(timeouts: HttpTimeouts) {
  return {
    connectionTimeout: timeouts.connectMs,
    requestTimeout: timeouts.answerMs,
    throwOnRequestTimeout: true,
    socketTimeout: timeouts.answerMs,
  };
}

/**
 * The longest one whole attempt may take, headers and body (`DeadlineHttpHandler`): connecting, the answer's
 * start, and as long again for the rest of it. An AWS answer is a few KB that follows its headers within
 * milliseconds; only a broken or hostile endpoint reaches this.
 */
export function attemptDeadlineMs(timeouts: HttpTimeouts): number {
  return timeouts.connectMs + 2 * timeouts.answerMs;
}

/** The SDK client config for these options: endpoint, region, credentials, retry and timeouts. */
export function clientConfig(options: ClientOptions, timeouts?: HttpTimeouts) {
  const { timeouts: given, ...rest } = options;
  const chosen = timeouts ?? given ?? CONTROLLER_TIMEOUTS;
  return {
    ...RETRY_SETTINGS,
    ...rest,
    requestHandler: new DeadlineHttpHandler(timeoutSettings(chosen), attemptDeadlineMs(chosen)),
  };
}

/**
 * An endpoint set for SQS, explicitly or through the SDK's environment variables. The SQS client otherwise sends
 * each call to the host in its `QueueUrl`: an emulator's queue URLs name the real SQS host (moto's do), and
 * `AWS_ENDPOINT_URL` alone does not override that (docs/aws-facts.md, "The local emulator (moto)").
 */
export function sqsEndpointConfigured(
  options: ClientOptions,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return Boolean(options.endpoint ?? env.AWS_ENDPOINT_URL_SQS ?? env.AWS_ENDPOINT_URL);
}

export function createAwsClients(options: ClientOptions = {}): AwsClients {
  const config = clientConfig(options);
  return {
    cloudwatch: new CloudWatchClient(config),
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: !sqsEndpointConfigured(options) }),
    lambda: new LambdaClient(config),
    ssm: new SSMClient(config),
  };
}

/** Commands that change something; every other command a tick sends is a read. */
export const WRITE_COMMANDS = new Set(['PutFunctionConcurrencyCommand', 'UpdateEventSourceMappingCommand']);

/** The AWS commands sent, in order, so each tick can report its cost (reads, writes). */
export class CallLog {
  readonly commands: string[] = [];
  reset(): void {
    this.commands.length = 0;
  }
  get reads(): number {
    return this.commands.filter((c) => !WRITE_COMMANDS.has(c)).length;
  }
  get writes(): number {
    return this.commands.filter((c) => WRITE_COMMANDS.has(c)).length;
  }
}

/** Records each command once, however many times the SDK retries it (the middleware runs before retries). */
export function attachCallLog(clients: AwsClients): CallLog {
  const log = new CallLog();
  const middleware: InitializeMiddleware<object, MetadataBearer> = (next, context) => (args) => {
    log.commands.push(context.commandName ?? 'unknown');
    return next(args);
  };
  const options = { step: 'initialize', name: 'queueAgeScalerCallLog' } as const;
  clients.cloudwatch.middlewareStack.add(middleware, options);
  clients.sqs.middlewareStack.add(middleware, options);
  clients.lambda.middlewareStack.add(middleware, options);
  clients.ssm.middlewareStack.add(middleware, options);
  return log;
}
