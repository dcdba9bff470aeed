import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { InitializeMiddleware, MetadataBearer } from '@aws-sdk/types';

/**
 * Lambda's control plane (GetFunctionConcurrency, PutFunctionConcurrency, Get/UpdateEventSourceMapping) shares 15
 * requests/s per account (docs/aws-facts.md, "Lambda control plane"). A budget's controller reads and writes every
 * member in one tick, 2 reads and up to 2 writes each: 20 members at once would be 80 calls in a burst, throttled,
 * and a throttled lowering blocks the raises that need it. The pacer spaces the client's calls to at most
 * `perSecond`, leaving the rest of the account's rate to everything else (deploys, the console, other scalers).
 */
export const BUDGET_CONTROL_PLANE_PER_SECOND = 10;

/**
 * Spaces every command the client sends `1 / perSecond` apart (in send order; a retry is the SDK's own and is not
 * re-spaced). `sleep` and `clock` are injectable for tests.
 */
export function paceControlPlane(
  client: LambdaClient,
  perSecond: number,
  clock: () => number = () => Date.now() / 1000,
  sleep: (seconds: number) => Promise<void> = (s) => new Promise((r) => setTimeout(r, s * 1000)),
): void {
  if (!(Number.isFinite(perSecond) && perSecond > 0))
    throw new Error(`perSecond = ${perSecond}: must be > 0`);
  const spacing = 1 / perSecond;
  let nextSlot = Number.NEGATIVE_INFINITY;
  const middleware: InitializeMiddleware<object, MetadataBearer> = (next) => async (args) => {
    const now = clock();
    const at = Math.max(now, nextSlot);
    nextSlot = at + spacing;
    if (at > now) await sleep(at - now);
    return next(args);
  };
  client.middlewareStack.add(middleware, { step: 'initialize', name: 'queueAgeScalerControlPlanePacer' });
}
