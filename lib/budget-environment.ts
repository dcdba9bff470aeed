import type { DownstreamHealthSpec } from './control/downstream-health.ts';

/**
 * The contract between the `DownstreamBudget` construct, which writes a budget controller's environment, and the
 * controller Lambda, which reads it (functions/controller/resources.ts `budgetSettingsFromEnvironment` validates
 * it). One module, so the writer and the reader cannot drift.
 *
 * A budget's controller runs every member's tick in one invocation, so its environment lists the members as one
 * JSON variable: Lambda allows 4 KB of environment in all (docs/aws-facts.md, "Lambda limits"), so a member carries
 * only the settings that differ from the defaults, and the construct bounds the members (MAX_BUDGET_MEMBERS).
 */

export const BUDGET_ENVIRONMENT = {
  /** The budget's name: the `BudgetName` dimension of its metrics, its alarm and dashboard names. */
  budgetName: 'BUDGET_NAME',
  /** The budget: Σ of the members' applied limits never exceeds it. An integer ≥ 1. */
  budget: 'BUDGET_CONCURRENCY',
  /** The members, a JSON array of `BudgetMemberEnvironment`. */
  members: 'BUDGET_MEMBERS',
  metricNamespace: 'METRIC_NAMESPACE',
} as const;

/**
 * At most this many members share one budget: one controller reads and writes every member each tick, within
 * Lambda's control plane of 15 requests/s per account (docs/aws-facts.md, "Lambda control plane"): 20 members are
 * at most 40 reads and 40 writes, under 6 s at that rate; and their JSON must fit in the 4 KB environment.
 */
export const MAX_BUDGET_MEMBERS = 20;

/** One member as the budget controller's environment lists it. */
export interface BudgetMemberEnvironment {
  /** The member scaler's name: the `ScalerName` dimension its metrics are published under. */
  readonly scalerName: string;
  readonly queueUrl: string;
  readonly queueName: string;
  readonly deadLetterQueueName?: string;
  /** The consumer function, unqualified (reserved concurrency belongs to the function). */
  readonly consumerFunctionName: string;
  /** The consumer's event source mapping (absent with the `reserved` actuator). */
  readonly eventSourceMappingUuid?: string;
  /** How much its lateness counts in a shortfall. @default 1 */
  readonly weight?: number;
  /**
   * Its control-law settings that differ from the defaults, by field name (`targetAgeSeconds`, `minConcurrency`,
   * …, the settings table's names), as `resolveScalerConfig` accepts them.
   */
  readonly settings: Readonly<Record<string, string | number>>;
  /** The member's own health signal for the downstream (`downstreamHealth` on its scaler). @default none */
  readonly downstreamHealth?: DownstreamHealthSpec;
}

/**
 * A scheduled floor raises a member's floor for a while, and a budget grants the members' floors first, checked
 * against its limit once at synth: a floor that comes and goes would need that sum to hold at every instant of
 * every schedule. Refused, at synth (lib/cdk/downstream-budget.ts) and at the controller's start
 * (functions/controller/resources.ts).
 */
export const SCHEDULED_FLOORS_MEMBER_PROBLEM =
  "floors (scheduled floors) are not available to a shared budget's members yet: the budget grants the members' floors first and checks their sum against its limit at synth, and a floor that comes and goes on a schedule is not in that sum; raise the member's minConcurrency instead, or use a lone scaler";
