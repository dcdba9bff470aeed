import {
  GetEventSourceMappingCommand,
  type GetEventSourceMappingCommandOutput,
  GetFunctionConcurrencyCommand,
  GetFunctionConfigurationCommand,
  type LambdaClient,
} from '@aws-sdk/client-lambda';

/** What the actuator reads from Lambda at the start of a tick. */
export interface ActuatorReading {
  /** The concurrency applied now; undefined when none is set. */
  readonly applied: number | undefined;
  /** The mapping's `LastModified`, epoch seconds, where the mapping was read. */
  readonly mappingModifiedAt?: number;
  /** Whether the mapping polls (`State` is not `Disabled` or `Disabling`), where the mapping was read. */
  readonly enabled?: boolean;
  /** The mapping's `MaximumBatchingWindowInSeconds` (0–300), where the mapping was read. */
  readonly batchingWindowSeconds?: number;
  /** The mapping's `BatchSize` (1–10,000), where the mapping was read: what one invocation holds in flight. */
  readonly batchSize?: number;
  /** The mapping's provisioned mode (`ProvisionedPollerConfig`), where it is set. */
  readonly minimumPollers?: number;
  readonly maximumPollers?: number;
}

// A mapping being disabled has stopped, or is stopping, its pollers: an operator's pause.
const PAUSED_STATES = new Set(['Disabled', 'Disabling']);

export class LambdaResponseError extends Error {
  override name = 'LambdaResponseError';
}

function positiveIntegerOrUndefined(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new LambdaResponseError(`${what} = ${JSON.stringify(value)}: expected a non-negative integer`);
  }
  return value;
}

/** `LastModified` comes back as a Date from the SDK's JSON (epoch seconds on the wire). */
function epochSeconds(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime() / 1000;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}

export function parseMapping(
  output: Pick<
    GetEventSourceMappingCommandOutput,
    | 'ScalingConfig'
    | 'LastModified'
    | 'State'
    | 'MaximumBatchingWindowInSeconds'
    | 'BatchSize'
    | 'ProvisionedPollerConfig'
  >,
): ActuatorReading {
  const pollers = output.ProvisionedPollerConfig;
  return {
    applied: positiveIntegerOrUndefined(
      output.ScalingConfig?.MaximumConcurrency,
      'ScalingConfig.MaximumConcurrency',
    ),
    mappingModifiedAt: epochSeconds(output.LastModified),
    enabled: output.State === undefined ? undefined : !PAUSED_STATES.has(output.State),
    batchingWindowSeconds: positiveIntegerOrUndefined(
      output.MaximumBatchingWindowInSeconds,
      'MaximumBatchingWindowInSeconds',
    ),
    batchSize: positiveIntegerOrUndefined(output.BatchSize, 'BatchSize'),
    minimumPollers: positiveIntegerOrUndefined(
      pollers?.MinimumPollers,
      'ProvisionedPollerConfig.MinimumPollers',
    ),
    maximumPollers: positiveIntegerOrUndefined(
      pollers?.MaximumPollers,
      'ProvisionedPollerConfig.MaximumPollers',
    ),
  };
}

export function parseReserved(reserved: unknown): ActuatorReading {
  return { applied: positiveIntegerOrUndefined(reserved, 'ReservedConcurrentExecutions') };
}

export async function readMapping(lambda: LambdaClient, uuid: string): Promise<ActuatorReading> {
  return parseMapping(await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid })));
}

export async function readReserved(lambda: LambdaClient, functionName: string): Promise<ActuatorReading> {
  const out = await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName }));
  return parseReserved(out.ReservedConcurrentExecutions);
}

/**
 * The consumer's function timeout, seconds (`Timeout`, 1–900): the longest an invocation runs, so how long after a
 * shrink the invocations the old maximum started are known to have ended. Undefined when it cannot be read (the
 * role may lack `lambda:GetFunctionConfiguration`): the freed units then wait for the next tick, the safe side.
 */
export async function readFunctionTimeout(
  lambda: LambdaClient,
  functionName: string,
): Promise<number | undefined> {
  try {
    const out = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
    const timeout = out.Timeout;
    return typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 ? timeout : undefined;
  } catch {
    return undefined;
  }
}
