import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { type MotoServer, TEST_REGION } from '../../support/moto-server.ts';

const run = promisify(execFile);

/**
 * Runs the controller the way Lambda would: the bundle that was zipped and deployed, in a fresh Node process whose
 * environment is the deployed function's own (read back with GetFunctionConfiguration), plus what the Lambda
 * runtime adds (region, credentials). The only addition is `AWS_ENDPOINT_URL`, the SDK's standard variable, so
 * that every client of the bundle talks to moto: nothing here can reach AWS.
 */
export interface ControllerRun {
  /** What the handler returned. */
  readonly outcome: {
    kind: string;
    failure?: string;
    error?: string;
    reason?: string;
    writes?: unknown[];
    result?: { decision?: { reason?: string; desired?: number } };
  };
  /** Its log lines and EMF documents, as CloudWatch Logs would receive them. */
  readonly stdout: string;
  /** `process.version` of the Node that ran it. */
  readonly node: string;
  /**
   * The process's peak resident set in MiB, sampled every 20 ms over the import and the invocation: what Lambda's
   * "Max Memory Used" reports, less its runtime client.
   */
  readonly maxRssMb: number;
}

const RUNNER = [
  // The peak resident set, sampled: getrusage's maxRSS would start at the forking parent's (Linux keeps it
  // across fork and exec).
  'let maxRss = process.memoryUsage.rss();',
  'const sampler = setInterval(() => { maxRss = Math.max(maxRss, process.memoryUsage.rss()); }, 20);',
  'const { handler } = await import(process.env.CONTROLLER_BUNDLE_URL);',
  'const timeout = Number(process.env.CONTROLLER_TIMEOUT_MS);',
  'const deadline = Date.now() + timeout;',
  'const context = timeout > 0 ? { getRemainingTimeInMillis: () => deadline - Date.now() } : undefined;',
  'const outcome = await handler(JSON.parse(process.env.CONTROLLER_EVENT), context);',
  'clearInterval(sampler);',
  'const maxRssMb = Math.max(maxRss, process.memoryUsage.rss()) / 2 ** 20;',
  "process.stdout.write('\\nOUTCOME ' + JSON.stringify({ node: process.version, maxRssMb, outcome }) + '\\n');",
].join('\n');

export async function deployedEnvironment(
  server: MotoServer,
  functionName: string,
): Promise<Record<string, string>> {
  const lambda = new LambdaClient(server.clientConfig);
  const configuration = await lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: functionName }),
  );
  return configuration.Environment?.Variables ?? {};
}

export interface RunnerOptions {
  /** The Node executable: the suite's own by default. */
  readonly node?: string;
  /**
   * The function's timeout, as the invocation context's `getRemainingTimeInMillis` counts it down from the
   * handler's start. Unset: no context (the handler then never stops its fast path early for time).
   */
  readonly timeoutSeconds?: number;
}

/** Runs the handler once on `event`, in a fresh process. */
export async function runDeployedController(
  server: MotoServer,
  bundle: string,
  environment: Record<string, string>,
  event: unknown,
  options: RunnerOptions = {},
): Promise<ControllerRun> {
  const { stdout } = await run(options.node ?? process.execPath, ['--input-type=module', '-e', RUNNER], {
    env: {
      PATH: process.env.PATH ?? '',
      ...environment,
      AWS_REGION: TEST_REGION,
      AWS_ACCESS_KEY_ID: server.clientConfig.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server.clientConfig.credentials.secretAccessKey,
      AWS_ENDPOINT_URL: server.endpoint,
      AWS_LAMBDA_FUNCTION_NAME: 'controller',
      CONTROLLER_BUNDLE_URL: pathToFileURL(bundle).href,
      CONTROLLER_EVENT: JSON.stringify(event),
      CONTROLLER_TIMEOUT_MS: String((options.timeoutSeconds ?? 0) * 1000),
    },
    timeout: 60_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('OUTCOME '));
  if (!line) throw new Error(`the handler printed no outcome:\n${stdout}`);
  const printed = JSON.parse(line.slice('OUTCOME '.length)) as Pick<
    ControllerRun,
    'node' | 'maxRssMb' | 'outcome'
  >;
  return { ...printed, stdout };
}

/** A scheduled event for `at` (epoch seconds), as EventBridge sends it (whole seconds). */
export function scheduleEvent(at: number): {
  id: string;
  time: string;
  'detail-type': string;
  source: string;
} {
  return {
    id: `evt-${at}`,
    time: new Date(Math.floor(at) * 1000).toISOString().replace('.000Z', 'Z'),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
  };
}

export interface SeededMinute {
  readonly age: number;
  readonly sent: number;
  readonly deleted: number;
  /** Sum of the consumer's Duration over the minute, milliseconds. */
  readonly durationMs: number;
  readonly invocations: number;
}

/**
 * What AWS would have published for the queue and the consumer in the minutes before `now` (moto generates no SQS
 * or Lambda metrics): `minutes[0]` is the newest complete minute.
 */
export async function seedMinutes(
  server: MotoServer,
  names: { queue: string; consumer: string },
  now: number,
  minutes: readonly SeededMinute[],
): Promise<void> {
  const cloudwatch = new CloudWatchClient(server.clientConfig);
  const newest = Math.floor(now / 60) * 60 - 60;
  const sqs: MetricDatum[] = [];
  const lambda: MetricDatum[] = [];
  minutes.forEach((m, i) => {
    const Timestamp = new Date((newest - i * 60 + 1) * 1000);
    const queue = [{ Name: 'QueueName', Value: names.queue }];
    const fn = [{ Name: 'FunctionName', Value: names.consumer }];
    sqs.push(
      {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: queue,
        Timestamp,
        Value: m.age,
        Unit: 'Seconds',
      },
      { MetricName: 'NumberOfMessagesSent', Dimensions: queue, Timestamp, Value: m.sent, Unit: 'Count' },
      {
        MetricName: 'NumberOfMessagesDeleted',
        Dimensions: queue,
        Timestamp,
        Value: m.deleted,
        Unit: 'Count',
      },
    );
    lambda.push(
      { MetricName: 'Duration', Dimensions: fn, Timestamp, Value: m.durationMs, Unit: 'Milliseconds' },
      { MetricName: 'Invocations', Dimensions: fn, Timestamp, Value: m.invocations, Unit: 'Count' },
    );
  });
  await cloudwatch.send(new PutMetricDataCommand({ Namespace: 'AWS/SQS', MetricData: sqs }));
  await cloudwatch.send(new PutMetricDataCommand({ Namespace: 'AWS/Lambda', MetricData: lambda }));
}
