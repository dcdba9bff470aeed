import type { FailureKind } from '../../lib/aws/aws-errors.ts';
import type { ScalerConfig, TickResult } from '../../lib/control/index.ts';
import type { Actuation, WriteLog } from './actuator.ts';

/** Why a tick did not run the control law. */
export type SkipReason = 'skip:stale-event' | 'skip:repeat';

/** What one invocation did: the handler's return value, and what the reporter publishes and logs. */
export type TickOutcome =
  | {
      readonly kind: 'decided';
      readonly result: TickResult;
      readonly actuation: Actuation;
      readonly writes: readonly WriteLog[];
      /** The applied concurrency after the tick (undefined: none set and nothing written). */
      readonly appliedAfter: number | undefined;
      readonly config: ScalerConfig;
    }
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly detail: Record<string, unknown> }
  | {
      readonly kind: 'failed';
      readonly failure: FailureKind | 'response';
      readonly error: string;
      readonly hint: string;
    };

/**
 * The applied value after the writes: the last successful write to the value the actuator reads (the mapping's
 * maximum in lockstep and event-source, reserved concurrency in reserved mode), else the value before.
 */
export function appliedAfter(
  config: ScalerConfig,
  before: number | undefined,
  writes: readonly WriteLog[],
): number | undefined {
  const source = config.actuator === 'reserved' ? 'reserved' : 'mapping';
  let value = before;
  for (const w of writes) if (w.ok && w.target === source) value = w.value;
  return value;
}
