import { CfnResource } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * A Lambda function given its own role renders `DependsOn: [<role's policies>, <role>]`. The role half is
 * redundant (the function's `Role` is a `Fn::GetAtt` of it, which orders them already) and cfn-lint reports
 * it as W3005. Keep only the dependencies on the role's policies: they are what must exist before the
 * function (and an event source mapping validating its permissions) is created.
 */
export function dependOnRolePoliciesOnly(
  fn: LambdaFunction,
  policies: readonly (IConstruct | undefined)[],
): void {
  const resource = fn.node.defaultChild;
  if (!(resource instanceof CfnResource)) return;
  const logicalIds = policies
    .map((policy) => policy?.node.defaultChild)
    .filter((child): child is CfnResource => child instanceof CfnResource)
    .map((child) => child.logicalId);
  if (logicalIds.length > 0) resource.addOverride('DependsOn', logicalIds);
  else resource.addDeletionOverride('DependsOn');
}
