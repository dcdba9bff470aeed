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
  /** The finding within the rule, e.g. `Resource::*`; none for a rule with no findings (the whole resource). */
  readonly finding?: string;
  readonly reason: string;
}

export function acknowledgeNagFinding(construct: IConstruct, ack: NagAcknowledgement): void {
  const id = ack.finding === undefined ? ack.rule : `${ack.rule}[${ack.finding}]`;
  construct.node.addMetadata(ACKNOWLEDGED_RULES_METADATA, { [id]: ack.reason });
  const resource = asResource(construct.node.defaultChild) ?? asResource(construct);
  if (resource) {
    resource.addMetadata('cdk_nag', {
      rules_to_suppress: [
        {
          id: ack.rule,
          reason: ack.reason,
          ...(ack.finding === undefined ? {} : { applies_to: [ack.finding] }),
        },
      ],
    });
  }
}
