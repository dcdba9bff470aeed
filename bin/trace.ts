import { parseArgs } from 'node:util';
import { operatorClients } from '../lib/operator/clients.ts';
import { explained, OperatorError } from '../lib/operator/operator-error.ts';
import { readStack } from '../lib/operator/stack-outputs.ts';
import { queueNameOf } from '../lib/operator/status-reader.ts';
import {
  checkFunctionName,
  checkQueueUrl,
  checkStackName,
  clientOptions,
} from '../lib/operator/target-options.ts';
import { traceFileText } from '../lib/operator/trace-file.ts';
import {
  callWindows,
  type FetchProgress,
  fetchTraceMetrics,
  MAX_DATAPOINTS_PER_CALL,
  TRACE_SERIES,
} from '../lib/operator/trace-metrics.ts';
import { checkWritable, writeTrace } from '../lib/operator/trace-out.ts';
import { checkHasData, traceRows } from '../lib/operator/trace-phases.ts';
import { isoSeconds, periodName, traceRange } from '../lib/operator/trace-range.ts';
import {
  checkSameRegion,
  readBatchSize,
  readQueueArn,
  type TraceTarget,
} from '../lib/operator/trace-target.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';

const command = invokedAs('trace');
const METRICS = Object.keys(TRACE_SERIES).length;
const HELP = `Exports an SQS queue's CloudWatch history, and its Lambda consumer's, to a load file (the load file that
simulate, bench and load take): one phase per period, so a replay can be set beside what happened.

Usage: ${command} (--stack NAME | --queue URL --function NAME)
         (--since AGE | --from TIME [--to TIME]) --out FILE.csv [options]

Target:
  --stack NAME          the queue and consumer from the stack's outputs (QueueUrl, ConsumerFunctionName, and
                        EventSourceMappingUuid for the batch size)
  --queue URL           the queue (also --queue-url)
  --function NAME       its consumer, a function name or ARN (also --function-name)
  --endpoint URL        an emulator's endpoint (e.g. http://127.0.0.1:5000); default: AWS
  --region REGION       default: the SDK's (AWS_REGION, your profile)
Range:
  --since AGE           up to now: a whole number and m, h or d (90m, 36h, 7d), at most 455d
  --from TIME           ISO 8601 with its zone: 2026-11-03 (UTC midnight) or 2026-11-03T04:00:00Z
  --to TIME             the end (default now)
Output:
  --out FILE.csv        the file to write (checked before any call; written only when the export succeeded)
  --max-datapoints N    datapoints per GetMetricData call (default and at most ${MAX_DATAPOINTS_PER_CALL}, the API's limit);
                        lower it for an emulator that is slow on large calls (moto: 2000)
  --help                this text

The period is the finest CloudWatch still holds for the range's start: 1 minute when it starts less than 15
days ago, 5 minutes up to 63 days, 1 hour up to 455 days (older data is gone). Per period:
  rate_per_s            AWS/SQS NumberOfMessagesSent (Sum) ÷ the period
  item_ms               AWS/Lambda Duration (Average, per invocation = per batch) ÷ messages per invocation:
                        AWS/SQS NumberOfMessagesDeleted ÷ AWS/Lambda Invocations, or the mapping's batch size
                        where those counts are missing (10 when no mapping is found; the header says which)
  observed_age_s        AWS/SQS ApproximateAgeOfOldestMessage (Maximum), not replayed
  observed_concurrency  AWS/Lambda ConcurrentExecutions (Maximum), not replayed
Periods without a NumberOfMessagesSent datapoint (a queue idle for 6 hours stops reporting) are gaps, not
zeros: one row per gap, rate 0, after a "# gap" comment line. The file's header records the queue, the
function, the range, the period and why, and how each column was derived.

Read-only: cloudformation:DescribeStacks (with --stack), sqs:GetQueueAttributes,
lambda:GetEventSourceMapping or lambda:ListEventSourceMappings, cloudwatch:GetMetricData; nothing is written but
--out. Exit status: 0 written; 2 for anything it can explain in one line (a mistake in the command, a queue or
stack not found, no data in the range, no credentials, an endpoint that does not answer).

Examples:
  ${command} --stack QueueAgeScalerExample --since 7d --out my-queue.csv
  ${command} --queue https://sqs.eu-west-1.amazonaws.com/123456789012/orders \\
    --function orders-consumer --from 2026-11-01 --to 2026-11-04 --out orders.csv --region eu-west-1
  ${invokedAs('simulate')} --trace my-queue.csv`;

function maxDatapoints(raw: string | undefined): number {
  if (raw === undefined) return MAX_DATAPOINTS_PER_CALL;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < METRICS || value > MAX_DATAPOINTS_PER_CALL)
    throw new UsageError(
      `--max-datapoints '${raw}': must be a whole number in [${METRICS}; ${MAX_DATAPOINTS_PER_CALL}] (at least one period of each of the ${METRICS} metrics)`,
    );
  return value;
}

/** `--queue` and `--queue-url` name one option (the spelling of `load` and `status`); so do the function's. */
function either(values: Record<string, unknown>, a: string, b: string): string | undefined {
  const first = values[a] as string | undefined;
  const second = values[b] as string | undefined;
  if (first !== undefined && second !== undefined) throw new UsageError(`give --${a} or --${b}, not both`);
  return first ?? second;
}

function progressLine(p: FetchProgress): string {
  return `trace: GetMetricData window ${p.window} of ${p.windows}, ${p.pages} page${p.pages === 1 ? '' : 's'}, ${p.datapoints.toLocaleString('en-US')} datapoints`;
}

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
    return;
  }
  const queueFlag = values.queue !== undefined ? '--queue' : '--queue-url';
  const functionFlag = values.function !== undefined ? '--function' : '--function-name';
  const queueUrl = either(values, 'queue', 'queue-url');
  const functionName = either(values, 'function', 'function-name');
  if (values.stack !== undefined && (queueUrl !== undefined || functionName !== undefined))
    throw new UsageError('give --stack or --queue and --function, not both');
  if (values.stack === undefined && (queueUrl === undefined || functionName === undefined))
    throw new UsageError(
      queueUrl === undefined && functionName === undefined
        ? 'give the queue: --stack NAME, or --queue URL and --function NAME (see --help)'
        : `give ${queueUrl === undefined ? '--queue URL' : '--function NAME'} too, or --stack NAME (see --help)`,
    );
  if (values.out === undefined) throw new UsageError('give --out FILE.csv: where to write the load file');

  // Everything the command says is checked before the first call: names, the range, the output file.
  const options = clientOptions(values);
  if (values.stack !== undefined) checkStackName(values.stack);
  if (queueUrl !== undefined) checkQueueUrl(queueUrl, queueFlag);
  if (functionName !== undefined) checkFunctionName(functionName, functionFlag);
  const limit = maxDatapoints(values['max-datapoints']);
  const range = traceRange(values, Date.now() / 1000);
  const windows = callWindows(range, METRICS, limit).length;
  checkWritable(values.out);

  const endpoint = values.endpoint;
  const clients = operatorClients(options);
  let target: TraceTarget;
  if (values.stack !== undefined) {
    const stack = await explained(
      () => readStack(clients.cloudformation, values.stack ?? ''),
      `DescribeStacks ${values.stack}`,
      endpoint,
    );
    if (stack.queueUrl === undefined)
      throw new UsageError(`--stack ${values.stack}: the stack has no QueueUrl output`);
    if (stack.consumerFunctionName === undefined)
      throw new UsageError(`--stack ${values.stack}: the stack has no ConsumerFunctionName output`);
    target = {
      queueUrl: stack.queueUrl,
      functionName: stack.consumerFunctionName,
      mappingUuid: stack.eventSourceMappingUuid,
    };
  } else {
    target = { queueUrl: queueUrl ?? '', functionName: functionName ?? '' };
  }
  const region = await explained(() => clients.cloudwatch.config.region(), 'the region', endpoint);
  checkSameRegion(target.queueUrl, region);
  const queueArn = await explained(
    () => readQueueArn(clients.sqs, target.queueUrl),
    `queue ${target.queueUrl}`,
    endpoint,
  );
  const batch = await readBatchSize(clients.lambda, target, queueArn);
  const names = { queueName: queueNameOf(target.queueUrl), functionName: target.functionName };

  console.log(`trace: queue ${names.queueName}, function ${names.functionName}`);
  console.log(`range: ${isoSeconds(range.start)} – ${isoSeconds(range.end)} (${range.given})`);
  console.log(`period: ${periodName(range.periodSeconds)}: ${range.why}`);
  console.log(`batch size: ${batch.size}, ${batch.source} (where CloudWatch lacks the counts)`);
  console.log(
    `reading ${range.periods} periods of ${METRICS} metrics in ${windows} GetMetricData call${windows === 1 ? '' : 's'} (more if CloudWatch pages them)`,
  );
  const showProgress = process.stderr.isTTY === true;
  const fetched = await explained(
    () =>
      fetchTraceMetrics(clients.cloudwatch, names, range, {
        maxDatapoints: limit,
        onPage: showProgress ? (p) => process.stderr.write(`\r${progressLine(p)}\x1b[K`) : undefined,
      }),
    `GetMetricData ${names.queueName}`,
    endpoint,
  );
  if (showProgress) process.stderr.write('\n');
  checkHasData(fetched.series, names, range);
  const rows = traceRows(fetched.series, range, batch);
  const { text, summary } = traceFileText({
    ...names,
    queueUrl: target.queueUrl,
    range,
    batch,
    rows,
    exportedAt: Date.now() / 1000,
  });
  writeTrace(values.out, text);
  console.log(
    `wrote ${values.out}: ${summary.phases} phases for ${summary.periods} periods, ${summary.withData} with data, ${summary.gaps} gap${summary.gaps === 1 ? '' : 's'} (${summary.gapPeriods} periods without datapoints); ${fetched.calls} GetMetricData call${fetched.calls === 1 ? '' : 's'}, ${fetched.datapoints} datapoints`,
  );
}

function parse() {
  return parseArgs({
    options: {
      stack: { type: 'string' },
      queue: { type: 'string' },
      'queue-url': { type: 'string' },
      function: { type: 'string' },
      'function-name': { type: 'string' },
      since: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      'max-datapoints': { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** An operator's mistake (a wrong name, no data, an unwritable --out): one line, exit 2. */
function oneLine(error: unknown): never {
  throw error instanceof OperatorError ? new UsageError(error.message) : error;
}

await runCli('trace', () => main().catch(oneLine));
