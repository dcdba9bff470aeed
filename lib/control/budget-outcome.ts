import type { BudgetGrant } from './budget-allocation.ts';
import type { BudgetWrite } from './budget-writes.ts';
import type { Decision } from './decision.ts';
import type { FastPathContext } from './fast-path.ts';
import type { QueueSnapshot } from './snapshot.ts';

/** What a shared budget's tick (`runBudgetTick`) did: to each member, and to the budget as a whole. */

export interface BudgetMemberOutcome {
  readonly name: string;
  /** Undefined when its reads failed. */
  readonly snapshot?: QueueSnapshot;
  readonly decision?: Decision;
  /** Why its reads failed. */
  readonly readError?: unknown;
  /** Why a write to it failed (it then counts at what it holds after the failure). */
  readonly writeError?: unknown;
  /** What it counted for before the writes. */
  readonly counted: number;
  /** What its own law asked, within [floor, cap] (its count, for a held member). */
  readonly demand: number;
  readonly granted: number;
  /** Its floor plus its share of the pool by weight (`BudgetGrant.share`): held for it between ticks. */
  readonly share: number;
  /**
   * Why it got what it got: the split's reason, `unreadable`, or `lowered-only` when the held counts left no room
   * to split (rule 4).
   */
  readonly reason: BudgetGrant['reason'] | 'unreadable' | 'lowered-only';
  readonly lateness?: number;
  /** What it counts for after the writes (its execution ceiling: see `executionCeiling`). */
  readonly appliedAfter: number;
  /** Whether a write to it landed (a new value, or a repair of its limits). */
  readonly wrote: boolean;
  /** Its limits overpulled (the mapping above reserved) before the writes, and no longer do. */
  readonly repaired: boolean;
  /** Its grant is below its own law's demand while its age is above its target. */
  readonly starved: boolean;
  /** Where its fast path goes on from, when it has one this minute. */
  readonly fastContext?: FastPathContext;
  /**
   * When its units a shrink freed are known free (lockstep: the mapping came down, reserved trails it): the fast
   * path lowers reserved then, and the deferred raises can use the units before the next tick.
   */
  readonly releaseAt?: number;
  /** Its grant, when its raise waits for units not free yet (`deferred`): the fast path raises it once they are. */
  readonly deferredTo?: number;
}

export interface BudgetTickResult {
  readonly budget: number;
  /** The grant order: most behind first (the order the fast path samples them in). */
  readonly members: readonly BudgetMemberOutcome[];
  /** The writes as planned, and the raises a failed lowering dropped. */
  readonly plan: readonly BudgetWrite[];
  readonly dropped: readonly string[];
  /**
   * The raises that wait for units a lowering freed but that are not free yet: in lockstep, reserved trails the
   * mapping down by a tick while the invocations the old maximum started finish. The next tick raises them.
   */
  readonly deferred: readonly string[];
  /** Σ granted. */
  readonly grantedTotal: number;
  /** Fully granted, and someone is starved: shed, or raise the downstream's capacity. */
  readonly exhausted: boolean;
  readonly starved: readonly string[];
}
