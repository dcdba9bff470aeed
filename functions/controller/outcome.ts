import type { FailureKind } from '../../lib/aws/aws-errors.ts';
import type { FastSampleResult, ScalerConfig, TickResult } from '../../lib/control/index.ts';
import type { Actuation, WriteLog } from './actuator.ts';

/** Why a tick did not run the control law. */
export type SkipReason = 'skip:stale-event' | 'skip:repeat';

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
      readonly config: ScalerConfig;
    }
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly detail: Record<string, unknown> }
  | {
      readonly kind: 'failed';
      readonly failure: FailureKind | 'response';
      readonly error: string;
      readonly hint: string;
    };

/** What one fast-path sample did (reported only when it wrote, or failed). */
export type FastOutcome =
  | {
      readonly kind: 'grew';
      readonly sample: FastSampleResult;
      readonly actuation: Actuation;
      readonly writes: readonly WriteLog[];
      /** The value before the sample's writes, and after. */
      readonly applied: number;
      readonly appliedAfter: number | undefined;
      readonly config: ScalerConfig;
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
  /** Why it stopped: the tick's end drew near, Lambda's time ran short, or a sample failed. */
  readonly stoppedBy: 'deadline' | 'remaining-time' | 'error';
}
