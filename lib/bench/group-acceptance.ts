import type { GroupControllerKind } from './group-controllers.ts';
import type { GroupRun } from './group-run.ts';

/**
 * Issue 19's acceptance line for the shared budget, on one group scenario and one seed, from the four runs:
 * 1. it never exceeds the budget: the per-instant maximum of Σ limits, and of Σ concurrent executions;
 * 2. every member's p99 wait is within its target wherever a static split meets it (checked against both static
 *    baselines: native at the split, and the age law capped at it);
 * 3. at least one member is strictly better (a lower p99 wait ÷ target) than under that static split;
 * 4. fewer pool waits or 429s than native with the full budget each.
 * Each check says pass or miss with the figures behind it: a miss is reported, never hidden.
 */
export interface AcceptanceCheck {
  readonly id: string;
  readonly label: string;
  readonly pass: boolean;
  readonly detail: string;
}

const STATIC_SPLITS = [
  ['native-split', 'native split'],
  ['age-law-split', 'age-law split'],
] as const satisfies readonly (readonly [GroupControllerKind, string])[];

const f2 = (x: number) => x.toFixed(2);

export function groupAcceptance(runs: ReadonlyMap<GroupControllerKind, GroupRun>): AcceptanceCheck[] {
  const shared = runs.get('shared-budget');
  const full = runs.get('native-full');
  if (shared === undefined || full === undefined)
    throw new Error('the acceptance needs the shared budget and native with the full budget each');
  const budget = shared.budget;
  const checks: AcceptanceCheck[] = [
    {
      id: 'limits',
      label: 'Σ limits ≤ budget',
      pass: shared.peakLimitSum <= budget,
      detail: `peak ${shared.peakLimitSum} of ${budget}`,
    },
    {
      id: 'executions',
      label: 'Σ executions ≤ budget',
      pass: shared.peakExecutionSum <= budget,
      detail: `peak ${shared.peakExecutionSum} of ${budget}`,
    },
  ];
  for (const [kind, name] of STATIC_SPLITS) {
    const split = runs.get(kind);
    if (split === undefined) continue;
    const pairs = shared.members.map((m, i) => ({
      name: m.name,
      shared: m.p99OverTarget,
      split: split.members[i]?.p99OverTarget ?? Number.NaN,
    }));
    const met = pairs.filter((p) => p.split <= 1);
    const missed = met.filter((p) => p.shared > 1);
    checks.push({
      id: `meets-${kind}`,
      label: `p99 ≤ target where the ${name} meets it`,
      pass: missed.length === 0,
      detail:
        met.length === 0
          ? `the ${name} meets no member's target`
          : missed.length === 0
            ? `${met.map((p) => `${p.name} ${f2(p.shared)} (${f2(p.split)})`).join(', ')}`
            : `missed: ${missed.map((p) => `${p.name} ${f2(p.shared)} (${name} ${f2(p.split)})`).join(', ')}`,
    });
    const better = pairs.filter((p) => p.shared < p.split);
    checks.push({
      id: `better-${kind}`,
      label: `a member better than the ${name}`,
      pass: better.length > 0,
      detail:
        better.length > 0
          ? better.map((p) => `${p.name} ${f2(p.shared)} < ${f2(p.split)}`).join(', ')
          : `none: ${pairs.map((p) => `${p.name} ${f2(p.shared)} ≥ ${f2(p.split)}`).join(', ')}`,
    });
  }
  const contention = (run: GroupRun) => run.connectionWaits + run.rejectedCalls;
  checks.push({
    id: 'contention',
    label: 'fewer pool waits or 429s than native, full budget each',
    pass: contention(shared) < contention(full),
    detail: `${contention(shared)} < ${contention(full)}`,
  });
  return checks;
}
