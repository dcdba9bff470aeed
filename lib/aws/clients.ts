import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { InitializeMiddleware, MetadataBearer } from '@aws-sdk/types';

export interface AwsClients {
  readonly cloudwatch: CloudWatchClient;
  readonly sqs: SQSClient;
  readonly lambda: LambdaClient;
}

export interface ClientOptions {
  /** An explicit endpoint (tests: the local emulator). Production leaves it to the SDK's defaults. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Per-attempt limits of every HTTP call. @default CONTROLLER_TIMEOUTS */
  readonly timeouts?: HttpTimeouts;
}

/**
 * Throttling (`TooManyRequestsException`: Lambda's control plane shares 15 requests/second per account) and 5xx
 * are retried by the SDK's adaptive mode, which also slows this client down when the account is throttled.
 * Three attempts keep a tick well inside one schedule period; whatever still fails holds this tick.
 */
export const RETRY_SETTINGS = { retryMode: 'adaptive', maxAttempts: 3 } as const;

/** How long one attempt of one call may take; the SDK retries a timed-out attempt like any transient error. */
export interface HttpTimeouts {
  /** Until the TCP connection is up (DNS included). */
  readonly connectMs: number;
  /** From sending the request until the response starts; also the longest a socket may sit silent after that. */
  readonly answerMs: number;
}

/**
 * Sized for a tick. The controller's function timeout is min(60, tick ÷ 2) s and the tick is a whole number of
 * minutes (EventBridge rates), so a tick has 30 s at the least. Its calls come in at most 6 rounds, one after
 * another: the reads (in parallel), a write, a raise the unreserved floor refuses, the account-headroom reads (in
 * parallel), and the 2 writes that bring both limits to what the headroom allows (docs/controller.md, "One
 * tick"). A round whose 3 attempts all time out ends the tick (it holds), so the longest tick times out twice in
 * each of 5 rounds and three times in the last: (5 × 2 + 3) × 2 s = 26 s, plus the SDK's backoff (under 0.2 s a
 * call for a timeout) and the answers themselves, inside 30 s with room for init and the log line. A silent
 * endpoint holds the tick after about 6 s (3 × 2 s). In the same region an AWS API call answers in tens to
 * hundreds of milliseconds and connects in a few, so 2 s and 1 s leave 10× slack.
 */
export const CONTROLLER_TIMEOUTS: HttpTimeouts = { connectMs: 1_000, answerMs: 2_000 };

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

/** The SDK client config for these options: endpoint, region, credentials, retry and timeouts. */
export function clientConfig(options: ClientOptions, timeouts?: HttpTimeouts) {
  const { timeouts: given, ...rest } = options;
  return {
    ...RETRY_SETTINGS,
    ...rest,
    requestHandler: timeoutSettings(timeouts ?? given ?? CONTROLLER_TIMEOUTS),
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
  return log;
}
