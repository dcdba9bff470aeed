import {
  type CloudFormationClient,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  type Output,
  type StackResource,
} from '@aws-sdk/client-cloudformation';
import { OperatorError } from './operator-error.ts';

/**
 * The example stack's outputs the tools read (examples/example-stack.ts names them). A stack of your own that
 * attaches the construct can declare outputs with the same names to be usable with `--stack`.
 */
export const STACK_OUTPUTS = {
  queueUrl: 'QueueUrl',
  consumerFunctionName: 'ConsumerFunctionName',
  eventSourceMappingUuid: 'EventSourceMappingUuid',
  scalerName: 'ScalerName',
  controllerFunctionName: 'ControllerFunctionName',
  /** A DownstreamBudget's name (`status --stack S --budget`). */
  budgetName: 'BudgetName',
} as const;

export type StackTarget = { -readonly [K in keyof typeof STACK_OUTPUTS]?: string } & {
  /** The controller's log group: the stack's `AWS::Logs::LogGroup` whose logical id says `ControllerLogs`. */
  controllerLogGroup?: string;
};

export function parseOutputs(outputs: readonly Output[] | undefined): StackTarget {
  const byKey = new Map((outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const target: StackTarget = {};
  for (const [field, key] of Object.entries(STACK_OUTPUTS)) {
    const value = byKey.get(key);
    if (value !== undefined && value !== '') target[field as keyof typeof STACK_OUTPUTS] = value;
  }
  return target;
}

export function controllerLogGroup(resources: readonly StackResource[] | undefined): string | undefined {
  return (resources ?? []).find(
    (r) => r.ResourceType === 'AWS::Logs::LogGroup' && /ControllerLogs/.test(r.LogicalResourceId ?? ''),
  )?.PhysicalResourceId;
}

/** `DescribeStacks` answers a missing stack with a ValidationError "Stack with id X does not exist". */
function missingStack(error: unknown): boolean {
  const e = error as { name?: string; message?: string };
  return e.name === 'ValidationError' && /does not exist/.test(e.message ?? '');
}

export async function readStack(
  cloudformation: CloudFormationClient,
  stackName: string,
  options: { resources?: boolean } = {},
): Promise<StackTarget> {
  let outputs: Output[] | undefined;
  try {
    const out = await cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = out.Stacks?.[0]?.Outputs;
  } catch (error) {
    if (missingStack(error)) throw new OperatorError(`--stack ${stackName}: no such stack in this region`);
    throw error;
  }
  const target = parseOutputs(outputs);
  if (options.resources) {
    // Only for the log group: a stack without one (or a role without the permission) still shows the rest.
    try {
      const out = await cloudformation.send(new DescribeStackResourcesCommand({ StackName: stackName }));
      target.controllerLogGroup = controllerLogGroup(out.StackResources);
    } catch {
      target.controllerLogGroup = undefined;
    }
  }
  return target;
}
