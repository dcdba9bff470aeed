import type { IConstruct } from 'constructs';
import { asResource } from './resource-type.ts';

/**
 * Acknowledges one cdk-nag finding on one resource, for both ways apps run cdk-nag, without depending on it:
 * - cdk-nag 3 (a policy-validation plugin) reads `aws:cdk:acknowledged-rules` construct metadata on the resource
 *   or its parents: what `Validations.of(x).acknowledge()` writes, written here directly because `Validations`
 *   exists only in recent aws-cdk-lib releases and would raise the peer minimum for one line.
 * - cdk-nag 2 (an Aspect) reads the resource's CloudFormation metadata `cdk_nag.rules_to_suppress`: what its
 *   `NagSuppressions.addResourceSuppressions()` writes.
 */
export const ACKNOWLEDGED_RULES_METADATA = 'aws:cdk:acknowledged-rules';

export interface NagAcknowledgement {
  /** The rule, e.g. `AwsSolutions-IAM5`. */
  readonly rule: string;
  /** The finding within the rule, e.g. `Resource::*`. */
  readonly finding: string;
  readonly reason: string;
}

export function acknowledgeNagFinding(construct: IConstruct, ack: NagAcknowledgement): void {
  construct.node.addMetadata(ACKNOWLEDGED_RULES_METADATA, { [`${ack.rule}[${ack.finding}]`]: ack.reason });
  const resource = asResource(construct.node.defaultChild);
  if (resource) {
    resource.addMetadata('cdk_nag', {
      rules_to_suppress: [{ id: ack.rule, reason: ack.reason, applies_to: [ack.finding] }],
    });
  }
}
