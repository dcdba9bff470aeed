import type { BudgetMemberOutcome } from '../control/budget-outcome.ts';
import { runBudgetTick } from '../control/budget-tick.ts';
import type { ScalerConfig } from '../control/config.ts';
import {
  continuedLoop,
  type LoopState,
  sampleDue,
  sampleLoop,
  startBudgetLoop,
} from '../control/control-loop.ts';
import type { TickReport } from './controller-clock.ts';
import { sampleOutcome, simTickOptions } from './controllers.ts';
import type { GroupController } from './group-simulation.ts';
import type { SimWorld } from './world.ts';

/** A member of the budget as its controller is configured: its own settings and its weight in the split. */
export interface BudgetedMember {
  readonly name: string;
  readonly config: ScalerConfig;
  readonly weight?: number;
}

/**
 * The shared budget in the simulator: ONE controller for every member, as the budget's Lambda is. Each tick runs
 * `runBudgetTick` (every member's own law, the split, the writes in their safe order) through each member's own
 * ports; between ticks the control loop (control-loop.ts) samples them on the Lambda's grid, growing each within
 * the budget's free headroom only. What carries from a tick to its samples is the loop's state, as in the
 * Lambda's invocation. Nothing else carries from one tick to the next but each member's own state (its ports'):
 * a member that cannot be read counts at its cap, as in the Lambda.
 */
export function sharedBudgetController(
  budget: number,
  members: readonly BudgetedMember[],
  world: SimWorld,
): GroupController {
  const byName = new Map(members.map((m) => [m.name, m]));
  const configOf = (name: string) => (byName.get(name) as BudgetedMember).config;
  let loop: LoopState | undefined;
  return {
    name: `shared budget of ${budget} (one controller)`,
    async tick(controlled, now) {
      const tickMembers = controlled.map((c) => ({
        name: c.name,
        ports: c.ports,
        config: configOf(c.name),
        weight: byName.get(c.name)?.weight,
      }));
      // One read window for every member: the longest any of them needs.
      const options = tickMembers.map((m) => simTickOptions(m.config, world));
      const windowSeconds = Math.max(...options.map((o) => o.windowSeconds));
      const result = await runBudgetTick(budget, tickMembers, now, {
        periodSeconds: world.metricPeriodSeconds,
        windowSeconds,
      });
      loop = continuedLoop(startBudgetLoop(result, configOf, { started: now, scheduledAt: now }), loop);
      const outcomes = new Map(result.members.map((o) => [o.name, o]));
      return controlled.map((c) => reportOf(outcomes.get(c.name)));
    },
    async fastSample(controlled, now) {
      if (loop === undefined || !sampleDue(loop, now)) return controlled.map(() => ({ changed: false }));
      const ports = new Map(controlled.map((c) => [c.name, { ...c.ports, config: configOf(c.name) }]));
      const step = await sampleLoop(loop, ports, now);
      loop = step.state;
      return controlled.map((c) => sampleOutcome(step.results.get(c.name)));
    },
  };
}

/** A member's timeline row: its own law's reason, and what the budget did to it when that was less. */
function reportOf(outcome: BudgetMemberOutcome | undefined): TickReport {
  if (outcome === undefined) return { reason: 'budget:not-ticked' };
  const decision = outcome.decision;
  if (decision === undefined) return { reason: `budget:${outcome.reason}` };
  const cut = outcome.granted < outcome.demand;
  return {
    reason: cut
      ? `${decision.reason} (budget ${outcome.reason}: ${outcome.granted} of ${outcome.demand})`
      : decision.reason,
    saturated: decision.saturated || outcome.starved,
    shed: decision.shed,
  };
}
