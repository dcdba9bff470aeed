import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { ActuatorMode } from '../control/index.ts';

/**
 * The pieces of the controller's IAM that a lone scaler and a shared budget both grant, per driven consumer: the
 * mapping's ARN, the actions on the consumer's reserved concurrency, and the condition that keeps a mapping update
 * on the consumer.
 */

/** What the controller drives for one scaler. */
export interface DrivenConsumer {
  /** The consumer function's ARN without a qualifier (reserved concurrency is the function's). */
  readonly functionArn: string;
  /** The id (UUID at deploy) of the event source mapping it drives. */
  readonly mappingId: string;
  readonly actuator: ActuatorMode;
}

/** `arn:…:lambda:<region>:<account>:event-source-mapping:<uuid>`. */
export function eventSourceMappingArn(scope: IConstruct, mappingId: string): string {
  return Stack.of(scope).formatArn({
    service: 'lambda',
    resource: 'event-source-mapping',
    resourceName: mappingId,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** Event-source mode reads reserved concurrency (it bounds the mapping) and never writes it: the template owns it. */
export function writesReservedConcurrency(actuator: ActuatorMode): boolean {
  return actuator !== 'event-source';
}

/** Every mode reads the mapping (a disabled mapping is a pause); the `reserved` actuator never writes it. */
export function writesMapping(actuator: ActuatorMode): boolean {
  return actuator !== 'reserved';
}

/**
 * AWS (Service Authorization Reference, Lambda): UpdateEventSourceMapping takes lambda:FunctionArn, the function the
 * mapping invokes. It may be an alias or version of the consumer, hence `:*` beside the bare ARN. The role then
 * cannot point the mapping at another function; it can still change the other fields of this one (BatchSize,
 * Enabled, …): IAM has no condition key for them (docs/deploy.md).
 */
export function mappingUpdateConditions(functionArn: string): Record<string, unknown> {
  return { ArnLike: { 'lambda:FunctionArn': [functionArn, `${functionArn}:*`] } };
}
