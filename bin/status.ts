import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { clientConfig } from '../lib/aws/clients.ts';
import { type BudgetClients, readBudgetStatus } from '../lib/operator/budget-status.ts';
import { budgetScreen, budgetTroubles, summarizeBudget } from '../lib/operator/budget-view.ts';
import { normalizeBareBudget, normalizeWatch, STACK_BUDGET, spelledAsOne } from '../lib/operator/cli-args.ts';
import { OPERATOR_TIMEOUTS, type OperatorClients, operatorClients } from '../lib/operator/clients.ts';
import { explained, OperatorError } from '../lib/operator/operator-error.ts';
import { readStack } from '../lib/operator/stack-outputs.ts';
import { readStatus, type StatusTarget } from '../lib/operator/status-reader.ts';
import { summarize } from '../lib/operator/status-summary.ts';
import { troubles } from '../lib/operator/status-trouble.ts';
import { statusScreen } from '../lib/operator/status-view.ts';
import {
  checkBudgetName,
  checkFunctionName,
  checkLogGroup,
  checkMappingUuid,
  checkQueueUrl,
  checkScalerName,
  checkStackName,
  clientOptions,
} from '../lib/operator/target-options.ts';
import { invokedAs, parseOptions, runCli, UsageError } from './cli-error.ts';

const command = invokedAs('status');
const HELP = `Shows what a queue-age scaler is doing now: the consumer's concurrency, cap and floor, the queue's head age
against the target, its depth, saturation, the alarms and the controller's last decisions. With --budget, a shared
budget (DownstreamBudget): the budget, each member's grant, age and target, and who is starved.

Usage: ${command} (--stack NAME | --queue-url URL [--function-name F] [--mapping-uuid U] [--scaler-name S]) [options]
       ${command} --budget NAME [options]
       ${command} --stack NAME --budget [options]

Target:
  --stack NAME          read everything below from the deployed stack's outputs (and its controller log group)
  --queue-url URL       the queue (required without --stack; also --queue, as trace spells it)
  --function-name NAME  the consumer: its reserved concurrency (also --function)
  --mapping-uuid UUID   the consumer's event source mapping: its MaximumConcurrency
  --scaler-name NAME    the controller's ScalerName: its metrics (cap, floor, target, ticks) and alarms (NAME-*)
  --log-group NAME      the controller's log group: its decisions with reason codes
  --budget NAME         a shared budget's members (its budgetName) instead of one scaler; with --stack and no
                        name, the stack's budget (its BudgetName output)
  --endpoint URL        an emulator's endpoint (e.g. http://127.0.0.1:5000); default: AWS
  --region REGION       default: the SDK's (AWS_REGION, your profile)
Showing:
  --window MINUTES      how far back metrics and decisions are read (default 30, 5–1440)
  --decisions N         decisions and ticks listed (default 8, 1–100)
  --watch [SECONDS]     refresh every SECONDS (default 10, at least 5) until Ctrl-C
  --json                one JSON object (one per refresh with --watch)
  --help                this text

Sources: concurrency and depth are read live (Lambda, SQS GetQueueAttributes); cap, floor, target, saturation
and the per-minute ticks are the controller's own CloudWatch metrics; the head age is AWS/SQS's metric (1–2 min
late); reason codes come only from the controller's log (CloudWatch Logs). --budget lists the members with
CloudWatch ListMetrics (the scalers publishing a BudgetGrant under the name) and reads their metrics.

What needs acting on is listed first, under "trouble": overpull (the mapping's MaximumConcurrency above the
consumer's reserved concurrency), saturation, alarms in ALARM, parts that could not be read; for a budget, the
starved members (granted less than their own law asks, the age above target: shed, or raise the downstream's
capacity). A part that could not be read shows the reason where its value would be. Exit status: 0 everything
asked for was read, 1 shown but some part could not be read, 2 a mistake in the command or the queue (a budget's
members) could not be read; with --watch, stopped with Ctrl-C, the last refresh's 0 or 1.

Examples:
  ${command} --stack QueueAgeScalerExample
  ${command} --stack QueueAgeScalerExample --watch 15
  ${command} --queue-url https://sqs.eu-west-1.amazonaws.com/123456789012/orders --scaler-name orders --json
  ${command} --budget orders-db --watch
  ${command} --stack SharedDbStack --budget`;

function wholeNumber(
  flag: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} '${raw}': must be a whole number in [${min}; ${max}]`);
  return n;
}

/** Shows one reading; returns whether every part asked for was read. */
type Show = () => Promise<boolean>;

interface ShowOptions {
  readonly endpoint: string | undefined;
  readonly windowSeconds: number;
  readonly watch: number | undefined;
  readonly json: boolean;
}

/** Clears the screen between refreshes, and says how to stop. */
function screen(text: string, watch: number | undefined): void {
  if (watch !== undefined && process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
  console.log(text);
  if (watch !== undefined) console.log(`\nrefreshing every ${watch} s · Ctrl-C to stop`);
}

/** One scaler: its queue (required), consumer, mapping, metrics, alarms and decisions. */
async function scalerShow(
  values: ReturnType<typeof parse>['values'],
  clients: OperatorClients,
  options: ShowOptions & { readonly decisions: number },
): Promise<Show> {
  const { endpoint, windowSeconds, watch, decisions } = options;
  let target: StatusTarget;
  if (values.stack !== undefined) {
    const stack = await explained(
      () => readStack(clients.cloudformation, values.stack ?? '', { resources: true }),
      `DescribeStacks ${values.stack}`,
      endpoint,
    );
    if (stack.queueUrl === undefined)
      throw new UsageError(`--stack ${values.stack}: the stack has no QueueUrl output`);
    target = {
      queueUrl: stack.queueUrl,
      functionName: stack.consumerFunctionName,
      mappingUuid: stack.eventSourceMappingUuid,
      scalerName: stack.scalerName,
      logGroup: stack.controllerLogGroup,
    };
  } else {
    target = {
      queueUrl: values['queue-url'] ?? '',
      functionName: values['function-name'],
      mappingUuid: values['mapping-uuid'],
      scalerName: values['scaler-name'],
      logGroup: values['log-group'],
    };
  }
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  return async () => {
    const reading = await explained(
      () => readStatus(clients, target, { now: Date.now() / 1000, windowSeconds, decisions }),
      `queue ${target.queueUrl}`,
      endpoint,
    );
    const summary = summarize(reading);
    if (options.json) {
      const trouble = troubles(reading, summary);
      console.log(JSON.stringify({ summary, trouble, reading }, null, watch ? 0 : 2));
    } else {
      screen(statusScreen(reading, { color, ticks: decisions }), watch);
    }
    return reading.problems.length === 0;
  };
}

/** The budget a stack deploys: its `BudgetName` output (a DownstreamBudget adds it). */
async function stackBudgetName(
  stackName: string,
  clients: OperatorClients,
  endpoint: string | undefined,
): Promise<string> {
  const stack = await explained(
    () => readStack(clients.cloudformation, stackName),
    `DescribeStacks ${stackName}`,
    endpoint,
  );
  if (stack.budgetName === undefined)
    throw new UsageError(
      `--stack ${stackName}: the stack has no BudgetName output (a DownstreamBudget in it adds one); give --budget NAME`,
    );
  return stack.budgetName;
}

/** A shared budget: its members (ListMetrics, required), then their grants, ages and targets. */
function budgetShow(budgetName: string, clients: BudgetClients, options: ShowOptions): Show {
  const { endpoint, windowSeconds, watch } = options;
  return async () => {
    const reading = await explained(
      () => readBudgetStatus(clients, budgetName, { now: Date.now() / 1000, windowSeconds }),
      `--budget ${budgetName}: ListMetrics`,
      endpoint,
    );
    if (options.json) {
      const summary = summarizeBudget(reading);
      const trouble = budgetTroubles(reading, summary);
      console.log(JSON.stringify({ summary, trouble, reading }, null, watch ? 0 : 2));
    } else {
      screen(budgetScreen(reading), watch);
    }
    return reading.problems.length === 0;
  };
}

async function main(): Promise<void> {
  const { values } = parseOptions(parse);
  if (values.help) {
    console.log(HELP);
    return;
  }
  const explicit = ['queue-url', 'function-name', 'mapping-uuid', 'scaler-name', 'log-group'] as const;
  if (values.budget !== undefined) {
    const stackBudget = values.budget === STACK_BUDGET;
    if (stackBudget && values.stack === undefined)
      throw new UsageError(
        "--budget without a name reads the stack's budget: give --stack NAME too, or --budget NAME",
      );
    if (!stackBudget && values.stack !== undefined)
      throw new UsageError(
        `give --budget ${values.budget} or --stack ${values.stack} --budget (the stack's), not both`,
      );
    const scaler = explicit.find((k) => values[k] !== undefined);
    if (scaler !== undefined)
      throw new UsageError(`give --budget or one scaler's target (--${scaler}), not both`);
    if (values.decisions !== undefined)
      throw new UsageError("--decisions lists one scaler's decisions: not with --budget");
  } else {
    if (values.stack !== undefined && explicit.some((k) => values[k] !== undefined))
      throw new UsageError(`give --stack or the explicit names (--${explicit.join(', --')}), not both`);
    if (values.stack === undefined && values['queue-url'] === undefined)
      throw new UsageError('give --stack NAME or --queue-url URL (or --budget NAME; see --help)');
  }
  const windowSeconds = wholeNumber('--window', values.window, 30, 5, 1440) * 60;
  const decisions = wholeNumber('--decisions', values.decisions, 8, 1, 100);
  const watch = values.watch === undefined ? undefined : wholeNumber('--watch', values.watch, 10, 5, 3600);

  // Every name is checked before the first call: a malformed one is a mistake in the command, not a part that
  // "could not be read".
  const clientSettings = clientOptions(values);
  const optional = <T>(value: T | undefined, check: (v: T) => T) =>
    value === undefined ? undefined : check(value);
  if (values.budget !== STACK_BUDGET) optional(values.budget, checkBudgetName);
  optional(values.stack, checkStackName);
  optional(values['queue-url'], checkQueueUrl);
  optional(values['function-name'], checkFunctionName);
  optional(values['mapping-uuid'], checkMappingUuid);
  optional(values['scaler-name'], checkScalerName);
  optional(values['log-group'], checkLogGroup);

  const clients = operatorClients(clientSettings);
  const options: ShowOptions = {
    endpoint: values.endpoint,
    windowSeconds,
    watch,
    json: values.json === true,
  };
  const show =
    values.budget === undefined
      ? await scalerShow(values, clients, { ...options, decisions })
      : budgetShow(
          values.budget === STACK_BUDGET
            ? await stackBudgetName(values.stack ?? '', clients, values.endpoint)
            : values.budget,
          {
            cloudwatch: clients.cloudwatch,
            listing: new CloudWatchClient(clientConfig(clientSettings, OPERATOR_TIMEOUTS)),
          },
          options,
        );
  // Ctrl-C is caught before the first reading: one pressed as it is shown stops the watch rather than killing it.
  const stop = new AbortController();
  if (watch !== undefined) process.once('SIGINT', () => stop.abort());
  // Exit 1 when a part asked for could not be read: the screen says which, in place of its value.
  let complete = await show();
  if (watch === undefined) {
    if (!complete) process.exitCode = 1;
    return;
  }
  while (!stop.signal.aborted) {
    await sleep(watch * 1000, undefined, { signal: stop.signal }).catch(() => {});
    if (stop.signal.aborted) break;
    try {
      complete = await show();
    } catch (error) {
      // A refresh that fails (a blip in the network) is reported and the next one tried.
      complete = false;
      console.error(`status: ${(error as Error).message}`);
    }
  }
  // Stopped with Ctrl-C: the exit status is the last refresh's, as a single reading's is.
  if (!complete) process.exitCode = 1;
}

function parse() {
  return parseArgs({
    args: spelledAsOne(normalizeBareBudget(normalizeWatch(process.argv.slice(2)))),
    options: {
      stack: { type: 'string' },
      budget: { type: 'string' },
      'queue-url': { type: 'string' },
      'function-name': { type: 'string' },
      'mapping-uuid': { type: 'string' },
      'scaler-name': { type: 'string' },
      'log-group': { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      window: { type: 'string' },
      decisions: { type: 'string' },
      watch: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** An operator's mistake (a wrong name, an unreachable endpoint) exits like a usage mistake: one line. */
function oneLine(error: unknown): never {
  throw error instanceof OperatorError ? new UsageError(error.message) : error;
}

await runCli('status', () => main().catch(oneLine));
