import { errorMessage, failureKind } from '../../lib/aws/aws-errors.ts';
import { LambdaResponseError } from '../../lib/aws/lambda-reads.ts';
import { QueueResponseError } from '../../lib/aws/queue-depth.ts';
import type { Actuation } from './actuator.ts';
import type { FastOutcome, TickOutcome } from './outcome.ts';
import { RESOURCE_VARIABLES } from './resources.ts';

/** What to check for each kind of failure, in the decision log. */
const HINTS: Record<string, string> = {
  'not-found': `a resource is gone: check ${Object.values(RESOURCE_VARIABLES).join(', ')} against the stack; the controller holds and retries at the next tick`,
  throttled: 'Lambda or CloudWatch throttled after the SDK retries: held this tick',
  service: 'AWS answered 5xx after the SDK retries: held this tick',
  // The limits are CONTROLLER_TIMEOUTS (clients.ts; the error names the one that fired). The function runs outside
  // any VPC and Lambda sets AWS_REGION itself: what remains is an endpoint variable pointing nowhere, or AWS itself.
  timeout:
    "AWS did not answer in time after the SDK retries: check any AWS_ENDPOINT_URL* variable on the function, else the region's AWS Health Dashboard; held this tick",
  conflict: 'the resource is being updated (a deploy?): skipped this tick',
  response: 'an AWS response could not be trusted: held this tick',
};

function failureOf(error: unknown) {
  return error instanceof QueueResponseError || error instanceof LambdaResponseError
    ? 'response'
    : failureKind(error);
}

/** A failed tick, or a failed fast-path sample (the same fields: what failed, the error, what to check). */
export function failed(error: unknown): Extract<TickOutcome, { kind: 'failed' }> {
  const failure = failureOf(error);
  return {
    kind: 'failed',
    failure,
    error: errorMessage(error),
    hint: HINTS[failure] ?? 'unexpected error: held this tick',
  };
}

/** A fast-path write that failed, reported like a failed sample (what failed, the error, what to check). */
export function failedWrite(actuation: Extract<Actuation, { kind: 'failed' }>): FastOutcome {
  const failure =
    actuation.failure === 'unsafe' || actuation.failure === 'deadline' ? 'other' : actuation.failure;
  return {
    kind: 'failed',
    failure,
    error: actuation.error,
    hint: `${HINTS[failure] ?? 'unexpected error: held this tick'}; the fast path stops until the next tick`,
  };
}
