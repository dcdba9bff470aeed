import { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * `construct` as a CloudFormation resource of `type`, or undefined for anything else. Compared by type name, not
 * by class, so a resource made by another copy of aws-cdk-lib still counts; and `undefined` is checked first,
 * because `CfnResource.isCfnResource(undefined)` throws in aws-cdk-lib 2.110 (an imported resource has no
 * default child).
 */
export function resourceOfType<T extends CfnResource>(
  construct: IConstruct | undefined,
  type: string,
): T | undefined {
  return construct !== undefined && CfnResource.isCfnResource(construct) && construct.cfnResourceType === type
    ? (construct as T)
    : undefined;
}

/** `construct` as any CloudFormation resource, or undefined. */
export function asResource(construct: IConstruct | undefined): CfnResource | undefined {
  return construct !== undefined && CfnResource.isCfnResource(construct) ? construct : undefined;
}
