import type { ClientOptions } from '../aws/clients.ts';
import { OperatorError } from './operator-error.ts';

/**
 * The options that name what the tools talk to, checked before any call: a malformed one would otherwise surface
 * deep in the SDK as a stack trace (`TypeError: Invalid URL`, `Region not accepted`) or as a misleading
 * "not found" from AWS.
 */

// Each pattern is the AWS API's own (the linked API reference's "Pattern"), so what passes here AWS can accept.
// A region is a DNS label (the SDK refuses anything else: `Region not accepted`).
const REGION = /^(?!-)[a-zA-Z0-9-]{1,63}(?<!-)$/;
// Lambda FunctionName (GetFunctionConcurrency): a name, or a full or partial ARN, 1–140 characters.
const FUNCTION_NAME =
  /^(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?$/;
// GetEventSourceMapping UUID.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// CloudFormation StackName: a name (a letter, then letters, digits, hyphens; 128 at most) or a stack ARN.
const STACK = /^([a-zA-Z][-a-zA-Z0-9]{0,127}|arn:[-a-zA-Z0-9:/._+]{1,2000})$/;
// CloudWatch Logs log group name, 1–512.
const LOG_GROUP = /^[.\-_/#A-Za-z0-9]{1,512}$/;
// The construct's scalerName (lib/cdk/queue-age-scaler.ts): the ScalerName dimension and the alarms' prefix; a
// DownstreamBudget's budgetName takes the same.
const SCALER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The value as typed, quoted; a long one cut short so the line stays one line. */
function quoted(value: string): string {
  const text = JSON.stringify(value).slice(1, -1);
  return `'${text.length > 80 ? `${text.slice(0, 77)}...` : text}'`;
}

function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

export function checkEndpoint(value: string): string {
  if (httpUrl(value) === undefined)
    throw new OperatorError(
      `--endpoint ${quoted(value)}: must be an http(s) URL such as http://127.0.0.1:5000`,
    );
  return value;
}

export function checkRegion(value: string): string {
  if (!REGION.test(value))
    throw new OperatorError(
      `--region ${quoted(value)}: must be a region name such as us-east-1 (letters, digits and hyphens)`,
    );
  return value;
}

/** A queue URL: `https://sqs.<region>.amazonaws.com/<account>/<name>` (or an emulator's). */
export function checkQueueUrl(value: string, flag = '--queue-url'): string {
  const url = httpUrl(value);
  if (url === undefined || !/^\/[^/]+\/[^/]+\/?$/.test(url.pathname))
    throw new OperatorError(
      `${flag} ${quoted(value)}: must be a queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/orders`,
    );
  return value;
}

export function checkStackName(value: string): string {
  if (!STACK.test(value))
    throw new OperatorError(
      `--stack ${quoted(value)}: must be a stack name (a letter, then letters, digits and hyphens; 128 at most) or a stack ARN`,
    );
  return value;
}

export function checkFunctionName(value: string, flag = '--function-name'): string {
  if (value.length > 140 || !FUNCTION_NAME.test(value))
    throw new OperatorError(
      `${flag} ${quoted(value)}: must be a function name (letters, digits, - and _; 64 at most) or its ARN`,
    );
  return value;
}

export function checkMappingUuid(value: string): string {
  if (!UUID.test(value))
    throw new OperatorError(
      `--mapping-uuid ${quoted(value)}: must be an event source mapping UUID (8-4-4-4-12 hexadecimal digits, as in aws lambda list-event-source-mappings)`,
    );
  return value;
}

export function checkScalerName(value: string): string {
  if (!SCALER_NAME.test(value))
    throw new OperatorError(
      `--scaler-name ${quoted(value)}: must be a scaler name (1–64 of letters, digits, - and _)`,
    );
  return value;
}

/** A DownstreamBudget's budgetName (lib/cdk/downstream-budget.ts): the BudgetName dimension of its metrics. */
export function checkBudgetName(value: string): string {
  if (!SCALER_NAME.test(value))
    throw new OperatorError(
      `--budget ${quoted(value)}: must be a budget name (1–64 of letters, digits, - and _)`,
    );
  return value;
}

export function checkLogGroup(value: string): string {
  if (!LOG_GROUP.test(value))
    throw new OperatorError(
      `--log-group ${quoted(value)}: must be a log group name (1–512 of letters, digits and . - _ / #)`,
    );
  return value;
}

/** Region and endpoint from the flags, checked; the SDK's own chain (AWS_REGION, profile) otherwise. */
export function clientOptions(flags: { endpoint?: string; region?: string }): ClientOptions {
  return {
    ...(flags.endpoint === undefined ? {} : { endpoint: checkEndpoint(flags.endpoint) }),
    ...(flags.region === undefined ? {} : { region: checkRegion(flags.region) }),
  };
}
