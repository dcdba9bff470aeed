import type { FailureKind } from '../../lib/aws/aws-errors.ts';
import type { BudgetTickResult } from '../../lib/control/budget-outcome.ts';
import type { FastSampleResult, PauseKind, ScalerConfig, TickResult } from '../../lib/control/index.ts';
import type { Actuation, WriteLog } from './actuator.ts';

/** Why a tick did not run the control law. */
export type SkipReason = 'skip:stale-event' | 'skip:repeat' | 'skip:driven-elsewhere';

/**
 * The deploy names another controller as the consumer's owner (a handover: lib/consumer-owner.ts). Reported as a
 * skip, not as an operator's pause: the owner publishes this scaler's metrics, and the paused alarm is not for this.
 */
export function drivenElsewhereSkip(reading: { readonly drivenBy?: string }): TickOutcome | undefined {
  if (reading.drivenBy === undefined) return undefined;
  return { kind: 'skipped', reason: 'skip:driven-elsewhere', detail: { owner: reading.drivenBy } };
}

/** What one invocation's tick did: the handler's return value, and what the reporter publishes and logs. */
export type TickOutcome =
  | {
      readonly kind: 'decided';
      readonly result: TickResult;
      readonly actuation: Actuation;
      readonly writes: readonly WriteLog[];
      /** The concurrency the consumer can run after the tick (undefined: nothing bounds it). */
      readonly appliedAfter: number | undefined;
      /** Reserved concurrency 0 while the mapping polls: the operator's pause throttles every batch. */
      readonly pauseOverpull: boolean;
      /** The owner parameter could not be read (the tick drove anyway): its fault, for the log line. */
      readonly ownerReadFault?: string;
      readonly config: ScalerConfig;
    }
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly detail: Record<string, unknown> }
  | {
      readonly kind: 'failed';
      readonly failure: FailureKind | 'response';
      readonly error: string;
      readonly hint: string;
    };

/** What a budget tick did, for the budget's own metrics and log line. */
export type BudgetOutcome =
  | { readonly kind: 'decided'; readonly result: BudgetTickResult; readonly budgetName: string }
  | {
      readonly kind: 'skipped';
      readonly reason: 'skip:stale-event' | 'skip:repeat';
      readonly budgetName: string;
    };

/** What one fast-path sample did (reported only when it wrote, tried to, found a pause, or failed). */
export type FastOutcome =
  | {
      /** `grew`: a limit rose. `clamped`: the account's headroom refused the growth (nothing rose). */
      readonly kind: 'grew' | 'clamped';
      readonly sample: FastSampleResult;
      readonly actuation: Actuation;
      readonly writes: readonly WriteLog[];
      /** The value before the sample's writes, and after. */
      readonly applied: number;
      readonly appliedAfter: number | undefined;
      readonly config: ScalerConfig;
    }
  | {
      /** The consumer was found paused before a growth: nothing written, the loop stops. */
      readonly kind: 'paused';
      readonly paused: PauseKind;
      readonly sample: FastSampleResult;
    }
  | {
      readonly kind: 'failed';
      readonly failure: FailureKind | 'response';
      readonly error: string;
      readonly hint: string;
    };

/** The loop's summary, logged once at its end. */
export interface FastLoopSummary {
  readonly samples: number;
  readonly growths: number;
  readonly maxVisible: number;
  readonly appliedAfter: number | undefined;
  /**
   * Why it stopped: the next tick's slot drew near, a sample failed (a read or a write:
   * nothing is written again against a throttled or failing control plane), the consumer was found paused, or
   * the account's headroom refused the growth.
   */
  readonly stoppedBy: 'deadline' | 'error' | 'paused' | 'headroom';
}
