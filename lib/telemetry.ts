/**
 * The controller's own metrics: one namespace, one dimension, one set of names, shared by the controller
 * Lambda (which publishes them in EMF), the CDK alarms and dashboard, and `npm run status`.
 */
export const METRIC_NAMESPACE = 'QueueAgeScaler';
/** Each scaler publishes under its own dimension value, so several scalers share the namespace. */
export const SCALER_DIMENSION = 'ScalerName';

export const CONTROLLER_METRICS = {
  appliedConcurrency: 'AppliedConcurrency',
  desiredConcurrency: 'DesiredConcurrency',
  // The cap and the floor: settings, no longer published (the dashboard draws them as lines; `status` takes them
  // from the decision's log line). The names stay for the readers of an older controller's history.
  cap: 'MaxConcurrency',
  floor: 'MinConcurrency',
  // The age the law acted on and its target: published only by a budget's members, while behind
  // (BUDGET_MEMBER_BEHIND_METRICS);
  // a lone scaler's readers take the age from AWS/SQS and the target from the settings. The names also stay for
  // the readers of an older lone controller's history (`status` falls back to them).
  headAgeSeconds: 'HeadAgeSeconds',
  targetAgeSeconds: 'TargetAgeSeconds',
  atCap: 'AtCap',
  saturated: 'Saturated',
  scaleEvents: 'ScaleEvents',
  downstreamSlower: 'DownstreamSlower',
  noData: 'NoData',
  errors: 'ControllerErrors',
  clampedByAccountHeadroom: 'ClampedByAccountHeadroom',
  // A tick's raise refused by the account's headroom with the head above target: the `-account-headroom` alarm's
  // one metric.
  clampedAboveTarget: 'ClampedAboveTarget',
  // The downstream got slower and the head is above target: shed or slow the producers (more workers hurt).
  shed: 'Shed',
  // An operator paused the consumer (reserved 0, or the mapping disabled); the controller holds.
  paused: 'Paused',
  // Paused with the head above target: the `-paused` alarm's one metric (the age condition is the tick's own).
  pausedAboveTarget: 'PausedAboveTarget',
  // The pause itself overpulls: reserved 0 while the mapping polls throttles every batch toward the DLQ.
  pauseOverpull: 'PauseOverpull',
  // A tick found the mapping's maximum and reserved concurrency out of step (a hand edit, a half-done tick) and
  // rewrote them.
  lockstepRepairs: 'LockstepRepairs',
  // Growth by the fast path between ticks (real-time depth), per sample that grew.
  fastPathGrowths: 'FastPathGrowths',
  // Ticks that did not run the control law: a stale or repeated schedule event.
  skippedTicks: 'SkippedTicks',
} as const;

/**
 * What every clean tick publishes: billed a full month each (docs/aws-facts.md, "Prices"), so only what a
 * dashboard or a reader needs every minute and AWS does not publish for free. `AppliedConcurrency` is the
 * dashboard's main line, the controller's memory (read back on a cold start) and its health (the clean ticks). The
 * queue's depth and age are AWS/SQS's, free (the dashboard and `status` read the age there); the cap, floor and
 * target are settings (the dashboard draws them as lines, the decision's log line carries them).
 */
export const DENSE_CONTROLLER_METRICS: ReadonlySet<string> = new Set([CONTROLLER_METRICS.appliedConcurrency]);

/**
 * Published only when its value differs from the applied one: `DesiredConcurrency`, the law's answer, equals what
 * the tick applied except where a write was refused, clamped, failed or paused (each with its own flag), or, for a
 * budget's member, where its grant is less than its law asks; so a minute without it means "as applied" (the
 * dashboard, `status` and `status --budget` read it so) and CloudWatch bills it only in the hours it differs
 * ($0.30 a month saved, a lone scaler's or each member's).
 */
export const WHEN_DIFFERENT_CONTROLLER_METRICS: ReadonlySet<string> = new Set([
  CONTROLLER_METRICS.desiredConcurrency,
]);

/**
 * What a budget's member publishes on top, only in the minutes it is behind (its age above its target): the age its
 * law acted on and its target, which `status --budget` reads per member to tell who is starved (a member can be
 * starved only while behind). It knows a member only by its ScalerName (the members' grants in ListMetrics), not its
 * queue or its settings, so it cannot read AWS/SQS's age or the decision log instead; a minute with the member's
 * applied value and without these reads as "at or under its target". Billed only in the hours a member is behind,
 * counted as none (they were $0.60 a member a month every minute). The member's desired value (its demand) is
 * published as a lone scaler's is, where it differs from the applied value (WHEN_DIFFERENT_CONTROLLER_METRICS).
 */
export const BUDGET_MEMBER_BEHIND_METRICS: ReadonlySet<string> = new Set([
  CONTROLLER_METRICS.headAgeSeconds,
  CONTROLLER_METRICS.targetAgeSeconds,
]);

/**
 * The flags and counts that are 0 almost always: published only when non-zero, so CloudWatch bills them only in
 * the hours they say something (docs/aws-facts.md, "Prices"). Their alarms treat missing data as not breaching;
 * readers treat a missing period as 0 (the carried state looks for ScaleEvents above 0).
 */
export const SPARSE_CONTROLLER_METRICS: ReadonlySet<string> = new Set([
  CONTROLLER_METRICS.atCap,
  CONTROLLER_METRICS.saturated,
  CONTROLLER_METRICS.scaleEvents,
  CONTROLLER_METRICS.downstreamSlower,
  CONTROLLER_METRICS.noData,
  CONTROLLER_METRICS.errors,
  CONTROLLER_METRICS.clampedByAccountHeadroom,
  CONTROLLER_METRICS.clampedAboveTarget,
  CONTROLLER_METRICS.shed,
  CONTROLLER_METRICS.paused,
  CONTROLLER_METRICS.pausedAboveTarget,
  CONTROLLER_METRICS.pauseOverpull,
  CONTROLLER_METRICS.lockstepRepairs,
  CONTROLLER_METRICS.fastPathGrowths,
  CONTROLLER_METRICS.skippedTicks,
]);

/**
 * The messages of the controller's structured log lines (functions/controller/report.ts), which `npm run status`
 * reads back for the reason codes: one list, so the reader cannot fall behind the writer.
 */
export const CONTROLLER_LOG_MESSAGES = {
  decision: 'decision',
  tickSkipped: 'tick skipped',
  tickFailed: 'tick failed: holding',
  // A fast-path sample that wrote (grew); the samples that only looked are not logged one by one.
  fastPath: 'fast path',
  fastPathFailed: 'fast path failed: holding until the next tick',
  // The fast loop's one summary line: samples, growths, the largest depth, why it stopped.
  fastPathDone: 'fast path done',
  // A shared budget's one line per tick: each member's demand and grant; the exhausted one names the starved.
  budget: 'budget',
  budgetExhausted: 'budget exhausted: shed, or raise the downstream capacity',
} as const;

/**
 * A shared budget's metrics (DownstreamBudget): one controller runs every member, publishes each member's own
 * metrics under its `ScalerName` as above, and these under the budget's own dimension.
 */
export const BUDGET_DIMENSION = 'BudgetName';

export const BUDGET_METRICS = {
  // The budget itself (dimension BudgetName): the line the dashboard stacks the grants against.
  limit: 'BudgetLimit',
  // Σ over the members of their grants after the tick's writes (dimension BudgetName).
  granted: 'BudgetGranted',
  // 1 when the budget is fully granted and a member whose age is above its target got less than its own law
  // asked (dimension BudgetName): shed, or raise the downstream's capacity. The `-budget-exhausted` alarm.
  exhausted: 'BudgetExhausted',
  // How many members are starved that way (dimension BudgetName).
  starvedMembers: 'BudgetStarvedMembers',
  // One member's grant (dimensions BudgetName and ScalerName): the dashboard's stacked shares.
  memberGrant: 'BudgetGrant',
} as const;

/** What every budget tick publishes under the budget's own dimension (the rest only when non-zero). */
export const BUDGET_DENSE_METRICS: ReadonlySet<string> = new Set([
  BUDGET_METRICS.limit,
  BUDGET_METRICS.granted,
]);
