import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { loadScenario, readLoadFile, shippedScenarios } from '../lib/load-file/load-file.ts';
import { spelledAsOne } from '../lib/operator/cli-args.ts';
import { loadSqsClient, operatorClients } from '../lib/operator/clients.ts';
import { LoadRun } from '../lib/operator/load-run.ts';
import { planTable, progressLine, reportText } from '../lib/operator/load-view.ts';
import { explained, OperatorError } from '../lib/operator/operator-error.ts';
import { buildPlan, defaultSenders, PlanError } from '../lib/operator/plan.ts';
import { batchSender } from '../lib/operator/sender.ts';
import { readStack } from '../lib/operator/stack-outputs.ts';
import { checkQueueUrl, checkStackName, clientOptions } from '../lib/operator/target-options.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';

const command = invokedAs('load');
const HELP = `Sends the load of a load file (the simulator's format) to an SQS queue, paced to the file's rates, so the
load the simulator predicts and the load a deployed stack receives are the same file.

Usage: ${command} (--scenario NAME | --trace FILE.csv) (--queue-url URL | --stack NAME) [options]

Load:
  --scenario NAME     a shipped load file: ${shippedScenarios().join(', ')}
  --trace FILE.csv    your own load file (header duration_s,rate_per_s,item_ms; one row per phase)
  --rate-scale X      multiply every rate by X (default 1; 0.1 sends a tenth)
  --time-scale X      multiply every phase's duration by X (default 1; 0.1 plays 10 minutes in 1)
Target:
  --queue-url URL     the queue to send to (also --queue, as trace spells it)
  --stack NAME        read the queue URL from the deployed stack's QueueUrl output
  --endpoint URL      an emulator's endpoint (e.g. http://127.0.0.1:5000); default: AWS
  --region REGION     default: the SDK's (AWS_REGION, your profile)
Running:
  --senders N         SendMessageBatch calls in flight (default: 1 per 100 messages/s of the peak, 4–64)
  --groups N          a FIFO (.fifo) queue's message groups: message k goes to group g<k mod N> (default 100)
  --dry-run           print the plan and send nothing
  --json              print the plan or the report as one JSON object (no progress bar)
  --help              this text

Each message's body: {"run","seq","phase","intendedAt","itemMs"}; to a FIFO queue each also gets a message group
and a deduplication id. Ctrl-C (or SIGTERM) stops sending, waits for the calls in flight and prints what was
sent. Exit status: 0 all sent, 1 some failed or the run stopped on an error, 2 a mistake in the command,
130 interrupted (143 on SIGTERM).

Examples:
  ${command} --scenario seed-spike --rate-scale 0.1 --time-scale 0.1 --stack QueueAgeScalerExample --dry-run
  ${command} --trace my-load.csv --queue-url https://sqs.eu-west-1.amazonaws.com/123456789012/orders`;

function positiveNumber(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} '${raw}': must be a number > 0`);
  }
  return value;
}

function wholeNumber(flag: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max)
    throw new UsageError(`${flag} '${raw}': must be a whole number in [${min}; ${max}]`);
  return value;
}

// A FIFO queue's Lambda consumer runs at most one invocation per message group at a time: 100 groups let it reach
// 100 concurrent invocations, which covers most load tests; --groups raises it.
const DEFAULT_GROUPS = 100;
const MAX_GROUPS = 100_000;

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.scenario !== undefined && values.trace !== undefined)
    throw new UsageError('give --scenario or --trace, not both');
  if (values.scenario === undefined && values.trace === undefined)
    throw new UsageError('give the load: --scenario NAME or --trace FILE.csv (see --help)');
  if (values['queue-url'] !== undefined && values.stack !== undefined)
    throw new UsageError('give --queue-url or --stack, not both');
  if (values['queue-url'] === undefined && values.stack === undefined && !values['dry-run'])
    throw new UsageError('give the queue: --queue-url URL or --stack NAME (see --help)');
  // Every name and address is checked before the load file is read or anything is sent.
  const options = clientOptions(values);
  if (values['queue-url'] !== undefined) checkQueueUrl(values['queue-url']);
  if (values.stack !== undefined) checkStackName(values.stack);
  const groupsGiven =
    values.groups === undefined ? undefined : wholeNumber('--groups', values.groups, 1, MAX_GROUPS);
  const rateScale = positiveNumber('--rate-scale', values['rate-scale'], 1);
  const timeScale = positiveNumber('--time-scale', values['time-scale'], 1);

  const scenario =
    values.trace !== undefined ? readLoadFile(values.trace) : loadScenario(values.scenario ?? '');
  const plan = buildPlan(scenario, rateScale, timeScale);
  const senders =
    values.senders === undefined ? defaultSenders(plan) : wholeNumber('--senders', values.senders, 1, 512);

  const aws = operatorClients(options);
  let queueUrl = values['queue-url'];
  if (values.stack !== undefined) {
    const stack = await explained(
      () => readStack(aws.cloudformation, values.stack ?? ''),
      `DescribeStacks ${values.stack}`,
      values.endpoint,
    );
    queueUrl = stack.queueUrl;
    if (queueUrl === undefined)
      throw new UsageError(`--stack ${values.stack}: the stack has no QueueUrl output`);
  }
  // Only a FIFO queue's name ends in `.fifo` (SQS naming rules), so the URL says which kind the queue is.
  const fifo = queueUrl === undefined ? groupsGiven !== undefined : queueUrl.endsWith('.fifo');
  if (groupsGiven !== undefined && !fifo)
    throw new UsageError(
      `--groups ${groupsGiven}: ${queueUrl} is a standard queue (its name does not end in .fifo); message groups are for FIFO queues`,
    );
  const groups = fifo ? (groupsGiven ?? DEFAULT_GROUPS) : undefined;

  if (values['dry-run']) {
    if (values.json) console.log(JSON.stringify({ queueUrl, senders, groups, plan }, null, 2));
    else console.log(planTable(plan, senders, queueUrl, groups));
    return;
  }
  if (queueUrl === undefined) throw new UsageError('give the queue: --queue-url URL or --stack NAME');

  // One cheap call first, with the tools' short timeouts: a wrong URL or endpoint fails here with one line, not as
  // a run of failed batches.
  await explained(
    () => aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })),
    `queue ${queueUrl}`,
    values.endpoint,
  );

  const sqs = loadSqsClient(options, senders);
  // Ctrl-C (SIGINT) or a SIGTERM (`timeout`, a CI job's limit) stops dispatching, waits for the calls in flight and
  // still prints the report: what was sent is never lost. A second signal exits at once.
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(SIGNAL_EXIT[signal] ?? 1);
    stoppedBy = signal;
    stop.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const run = new LoadRun({
    plan,
    sender: batchSender({
      sqs,
      queueUrl,
      run: `${plan.scenario}-${new Date().toISOString()}`,
      fifo: groups === undefined ? undefined : { groups, runId: randomUUID() },
    }),
    senders,
    signal: stop.signal,
  });
  const showProgress = !values.json && process.stderr.isTTY;
  if (!values.json) console.error(planTable(plan, senders, queueUrl, groups));
  const timer = showProgress
    ? setInterval(() => process.stderr.write(`\r${progressLine(run.progress())}\x1b[K`), 250)
    : undefined;
  const report = await run.run();
  if (timer) clearInterval(timer);
  if (showProgress) process.stderr.write(`\r${progressLine(run.progress())}\x1b[K\n`);
  for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  sqs.destroy();

  if (values.json) console.log(JSON.stringify({ queueUrl, senders, groups, ...report }, null, 2));
  else console.log(reportText(report, stoppedBy === 'SIGTERM' ? 'SIGTERM' : 'Ctrl-C'));
  if (report.interrupted) process.exitCode = SIGNAL_EXIT[stoppedBy ?? 'SIGINT'];
  else if (report.failed > 0 || report.abortedBy !== undefined) process.exitCode = 1;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** 128 + the signal's number, as a shell reports a process the signal ended. */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

function parse() {
  return parseArgs({
    args: spelledAsOne(process.argv.slice(2)),
    options: {
      scenario: { type: 'string' },
      trace: { type: 'string' },
      'queue-url': { type: 'string' },
      stack: { type: 'string' },
      'rate-scale': { type: 'string' },
      'time-scale': { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      senders: { type: 'string' },
      groups: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** An operator's mistake (a wrong name, an unreachable endpoint, an impossible plan): one line, exit 2. */
function oneLine(error: unknown): never {
  throw error instanceof OperatorError || error instanceof PlanError ? new UsageError(error.message) : error;
}

await runCli('load', () => main().catch(oneLine));
