import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { ownerParameterName } from '../consumer-owner.ts';

/** The owner parameter as read: the owner it names, and a fault other than its absence (its name and message). */
export interface OwnerRead {
  readonly owner?: string;
  readonly fault?: string;
}

/**
 * The controller the deploy names as the consumer's owner, read afresh at each tick and before each growth between
 * ticks (lib/consumer-owner.ts says why). No owner where the parameter is absent (a scaler deployed before owners
 * were named, an emulator) or unreadable. The parameter only guards a deploy's handover, so a fault reading it must
 * not freeze the law: the controller then drives, as it did before owners were named (docs/deploy.md, "One owner
 * per consumer"), and the fault (AccessDenied, throttling: anything but the parameter's absence) is returned for the
 * tick's log line, so a broken guard is seen.
 */
export async function readConsumerOwner(ssm: SSMClient, consumerFunctionName: string): Promise<OwnerRead> {
  try {
    const answer = await ssm.send(
      new GetParameterCommand({ Name: ownerParameterName(consumerFunctionName) }),
    );
    const value = answer.Parameter?.Value;
    return typeof value === 'string' && value !== '' ? { owner: value } : {};
  } catch (error) {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    return name === 'ParameterNotFound' ? {} : { fault: `${name}: ${message}` };
  }
}

/** The other controller that drives the consumer, or undefined when `me` may (named, or nobody is). */
export function drivenElsewhere(named: string | undefined, me: string): string | undefined {
  return named !== undefined && named !== me ? named : undefined;
}
