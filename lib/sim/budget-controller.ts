import { type BudgetMemberOutcome, runBudgetFastSample, runBudgetTick } from '../control/budget-tick.ts';
import type { ScalerConfig } from '../control/config.ts';
import type { FastPathContext } from '../control/fast-path.ts';
import type { TickReport } from './controller-clock.ts';
import { tickOptions } from './controllers.ts';
import type { SimEnvironment } from './environment.ts';
import type { ControlledMember, GroupController } from './group-simulation.ts';

/** A member of the budget as its controller is configured: its own settings and its weight in the split. */
export interface BudgetedMember {
  readonly name: string;
  readonly config: ScalerConfig;
  readonly weight?: number;
}

/**
 * The shared budget in the simulator: ONE controller for every member, as the budget's Lambda will be. Each tick
 * runs `runBudgetTick` (every member's own law, the split, the writes in their safe order) through each member's
 * own ports; between ticks, at the fast path's interval, `runBudgetFastSample` lets members grow within the
 * budget's free headroom only. What carries from one call to the next is what the Lambda's invocation carries:
 * each member's fast-path context, the tick's grant order, and every member's count after the last writes.
 */
export function sharedBudgetController(
  budget: number,
  members: readonly BudgetedMember[],
  env: SimEnvironment,
): GroupController {
  const byName = new Map(members.map((m) => [m.name, m]));
  let contexts = new Map<string, FastPathContext>();
  let counts = new Map<string, number>();
  /** When each lowered member's trailing reserved concurrency may come down (the tick's `releaseAt`). */
  let releases = new Map<string, number>();
  /** The grants whose raise waits for units not free yet (the tick's `deferredTo`). */
  let deferrals = new Map<string, number>();
  /** Each member's share, held for it between ticks. */
  let shares = new Map<string, number>();
  // The tick's grant order, most behind first: the order its fast path samples in, so they take free headroom first.
  let order: string[] = members.map((m) => m.name);
  return {
    name: `shared budget of ${budget} (one controller)`,
    async tick(controlled, now) {
      const result = await runBudgetTick(
        budget,
        controlled.map((c) => {
          const m = byName.get(c.name) as BudgetedMember;
          return {
            name: c.name,
            ports: c.ports,
            config: m.config,
            weight: m.weight,
            lastKnown: counts.get(c.name),
          };
        }),
        now,
        tickOptions(env),
      );
      contexts = new Map();
      counts = new Map();
      releases = new Map();
      deferrals = new Map();
      shares = new Map();
      for (const outcome of result.members) {
        shares.set(outcome.name, outcome.share);
        if (outcome.deferredTo !== undefined) deferrals.set(outcome.name, outcome.deferredTo);
        counts.set(outcome.name, outcome.appliedAfter);
        if (outcome.fastContext !== undefined) contexts.set(outcome.name, outcome.fastContext);
        if (outcome.releaseAt !== undefined) releases.set(outcome.name, outcome.releaseAt);
      }
      order = result.members.map((o) => o.name);
      const outcomes = new Map(result.members.map((o) => [o.name, o]));
      return controlled.map((c) => reportOf(outcomes.get(c.name)));
    },
    async fastSample(controlled, now) {
      const ports = new Map(controlled.map((c) => [c.name, c.ports]));
      const sampled = order
        .filter((name) => contexts.has(name))
        .map((name) => ({
          name,
          ports: ports.get(name) as ControlledMember['ports'],
          config: (byName.get(name) as BudgetedMember).config,
          context: contexts.get(name) as FastPathContext,
          releaseAt: releases.get(name),
          deferredTo: deferrals.get(name),
          share: shares.get(name),
        }));
      if (sampled.length === 0) return controlled.map(() => false);
      const {
        results,
        counts: after,
        raised,
      } = await runBudgetFastSample(budget, sampled, counts, now, shares);
      counts = new Map(after);
      for (const name of raised.keys()) deferrals.delete(name);
      for (const [name, result] of results) contexts.set(name, result.context);
      return controlled.map((c) => (results.get(c.name)?.changed ?? false) || raised.has(c.name));
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
