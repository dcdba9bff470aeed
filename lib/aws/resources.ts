import type { DownstreamHealthSpec } from '../control/downstream-health.ts';

/** The AWS resources one controller drives, from its environment (the CDK construct writes these variables). */
export interface ControllerResources {
  /** The value of the `ScalerName` dimension the controller publishes under. */
  readonly scalerName: string;
  readonly queueUrl: string;
  /** The queue's name: the `QueueName` dimension of its `AWS/SQS` metrics. */
  readonly queueName: string;
  /** The consumer's name: the `FunctionName` dimension of its `AWS/Lambda` metrics. */
  readonly consumerFunctionName: string;
  /** The consumer's SQS event source mapping; required unless the actuator is `reserved`. */
  readonly eventSourceMappingUuid?: string;
  /**
   * How the consumer's owner parameter names this controller (lib/consumer-owner.ts): it writes only while the
   * parameter names it or nobody. Absent: no owner check (the operator tools, which write nothing).
   */
  readonly owner?: string;
  /** The downstream's health signal the user named (`DOWNSTREAM_HEALTH`): read at every tick. Absent: none. */
  readonly downstreamHealth?: DownstreamHealthSpec;
}
