/**
 * The contract between the constructs, which write who drives each consumer, and the controller Lambda, which reads
 * it before it writes (lib/aws/owner-parameter.ts). No SDK import: the CDK library loads it at synth.
 *
 * Why: a lone scaler that joins a budget on a redeploy keeps its own controller and schedule until CloudFormation's
 * cleanup phase deletes them, after the budget's controller already drives the consumer (and the other way round when
 * a member leaves). The deploy names the consumer's one owner in a parameter, updated in place in the update phase:
 * at every instant one controller is named, and the other stands down (docs/deploy.md, "One owner per consumer").
 */

/** The SSM parameter that names the controller driving `consumerFunctionName` (a function name, unqualified). */
export function ownerParameterName(consumerFunctionName: string): string {
  return `/queue-age-scaler/owner/${consumerFunctionName}`;
}

/** How the parameter names a lone scaler's controller. */
export function scalerOwner(scalerName: string): string {
  return `scaler:${scalerName}`;
}

/** How the parameter names a budget's controller (it drives every member). */
export function budgetOwner(budgetName: string): string {
  return `budget:${budgetName}`;
}
