import type { ControllerResources } from '../../lib/aws/resources.ts';
import { scalerOwner } from '../../lib/consumer-owner.ts';
import { downstreamHealthFromEnvironment } from '../../lib/control/downstream-health.ts';
import {
  type ActuatorMode,
  ConfigError,
  configFromEnvironment,
  type ScalerConfig,
} from '../../lib/control/index.ts';

export type { ControllerResources };

export const RESOURCE_VARIABLES = {
  scalerName: 'SCALER_NAME',
  queueUrl: 'QUEUE_URL',
  queueName: 'QUEUE_NAME',
  consumerFunctionName: 'CONSUMER_FUNCTION_NAME',
  eventSourceMappingUuid: 'EVENT_SOURCE_MAPPING_UUID',
} as const;

export interface ControllerSettings {
  readonly config: ScalerConfig;
  readonly resources: ControllerResources;
}

// Lambda function names: letters, digits, hyphens and underscores, 1–64 (AWS Lambda API, FunctionName).
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
// SQS queue names: 1–80 of letters, digits, hyphens and underscores, `.fifo` for FIFO queues.
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
// Only a FIFO queue's name ends in `.fifo` (SQS naming rules).
const FIFO_SUFFIX = '.fifo';
/**
 * While a message group has messages in flight SQS delivers none of its later ones, so a FIFO mapping's concurrent
 * invocations are capped by the number of message groups (AWS Lambda docs, SQS scaling). The control law sizes
 * concurrency from the age and the arrival rate alone: on a FIFO queue it would raise concurrency that no group can
 * use, and read an age that more workers cannot lower. Refused at init rather than run wrong (docs/controller.md).
 */
export const FIFO_REFUSAL =
  "FIFO queues are not supported yet: a FIFO queue's consumer runs at most one batch per message group at a time, and the control law does not size for groups; attach the scaler to a standard queue";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// CloudWatch dimension values: 1–1024 characters.
const DIMENSION_VALUE = /^.{1,1024}$/;

function checkResources(
  env: Record<string, string | undefined>,
  actuator: ActuatorMode | undefined,
  problems: string[],
): ControllerResources {
  const read = (field: keyof typeof RESOURCE_VARIABLES, pattern: RegExp, what: string, required = true) => {
    const name = RESOURCE_VARIABLES[field];
    const value = env[name];
    if (value === undefined || value === '') {
      if (required) problems.push(`${name} is missing: ${what}`);
      return undefined;
    }
    if (!pattern.test(value)) problems.push(`${name} = '${value}': must be ${what}`);
    return value;
  };
  const queueUrl = read(
    'queueUrl',
    /^https?:\/\/\S+\/\d{12}\/\S+$/,
    'the queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>)',
  );
  const queueName = read('queueName', QUEUE_NAME, 'the queue name (1–80 letters, digits, - or _)');
  const fifo = queueName?.endsWith(FIFO_SUFFIX)
    ? { name: RESOURCE_VARIABLES.queueName, value: queueName }
    : queueUrl?.endsWith(FIFO_SUFFIX)
      ? { name: RESOURCE_VARIABLES.queueUrl, value: queueUrl }
      : undefined;
  if (fifo) problems.push(`${fifo.name} = '${fifo.value}': ${FIFO_REFUSAL}`);
  else if (queueUrl && queueName && !queueUrl.endsWith(`/${queueName}`)) {
    problems.push(
      `${RESOURCE_VARIABLES.queueName} = '${queueName}': must be the last part of ${RESOURCE_VARIABLES.queueUrl} ('${queueUrl}')`,
    );
  }
  return {
    scalerName: read('scalerName', DIMENSION_VALUE, 'the scaler name (1–1024 characters)') ?? '',
    queueUrl: queueUrl ?? '',
    queueName: queueName ?? '',
    consumerFunctionName:
      read(
        'consumerFunctionName',
        FUNCTION_NAME,
        'the consumer function name (1–64 letters, digits, - or _)',
      ) ?? '',
    eventSourceMappingUuid: read(
      'eventSourceMappingUuid',
      UUID,
      `the consumer's event source mapping UUID (actuator '${actuator ?? 'lockstep'}' drives its MaximumConcurrency)`,
      actuator !== 'reserved',
    ),
  };
}

/**
 * Reads and validates everything the controller needs at init, so a bad value fails the cold start with one
 * message naming each variable, rather than a tick failing later.
 */
export function settingsFromEnvironment(env: Record<string, string | undefined>): ControllerSettings {
  const problems: string[] = [];
  let config: ScalerConfig | undefined;
  try {
    config = configFromEnvironment(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const actuator = config?.actuator ?? (env.ACTUATOR as ActuatorMode | undefined);
  const resources = checkResources(env, actuator, problems);
  const downstreamHealth = downstreamHealthFromEnvironment(env, problems);
  if (problems.length > 0 || config === undefined) throw new ConfigError(problems);
  // A lone scaler's controller; a budget names its members' (budget-resources.ts).
  const owner = scalerOwner(resources.scalerName);
  return { config, resources: { ...resources, owner, ...(downstreamHealth ? { downstreamHealth } : {}) } };
}
