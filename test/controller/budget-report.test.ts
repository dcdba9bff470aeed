import { describe, expect, it } from 'vitest';
import type { BudgetOutcome } from '../../functions/controller/outcome.ts';
import { budgetMetricsFor } from '../../functions/controller/report.ts';
import type { BudgetTickResult } from '../../lib/control/budget-outcome.ts';
import { BUDGET_METRICS as B } from '../../lib/telemetry.ts';

/** A decided budget tick: only the fields the budget's own metrics are made of. */
function decided(over: { exhausted: boolean; starved: string[] }): BudgetOutcome {
  const result = { budget: 20, grantedTotal: 20, ...over } as unknown as BudgetTickResult;
  return { kind: 'decided', result, budgetName: 'db' };
}

describe('budgetMetricsFor', () => {
  it('a tick with nobody starved publishes the budget and Σ granted only: exhausted and starved are sparse', () => {
    const names = budgetMetricsFor(decided({ exhausted: false, starved: [] })).map((m) => m.name);
    expect(names.sort()).toEqual([B.granted, B.limit].sort());
  });

  it('an exhausted tick publishes the flag and how many are starved', () => {
    const m = Object.fromEntries(
      budgetMetricsFor(decided({ exhausted: true, starved: ['orders'] })).map((x) => [x.name, x.value]),
    );
    expect(m).toEqual({ [B.limit]: 20, [B.granted]: 20, [B.exhausted]: 1, [B.starvedMembers]: 1 });
  });
});
