import { describeDownstream } from '../sim/downstream.ts';
import { markdownHeader } from '../views/markdown.ts';
import type { AcceptanceCheck } from './group-acceptance.ts';
import {
  GROUP_CONTROLLER_KINDS,
  GROUP_CONTROLLER_LABELS,
  type GroupControllerKind,
} from './group-controllers.ts';
import type { GroupScenario } from './group-file.ts';
import type { GroupRun } from './group-run.ts';

/**
 * The group comparison as markdown, for one seed (`npm start -- --group FILE`): per member, how late and how
 * much it ran under each of the four controllers; for the group, what the downstream felt against the budget
 * and the bill; then the acceptance checks, pass or miss.
 */

const f2 = (x: number) => x.toFixed(2);

/** A figure over the budget is bold: the downstream got more than it was to take. */
function againstBudget(value: number, budget: number): string {
  return value > budget ? `**${value}**` : String(value);
}

export function groupMembersTable(runs: ReadonlyMap<GroupControllerKind, GroupRun>): string {
  const kinds = GROUP_CONTROLLER_KINDS.filter((k) => runs.has(k));
  const first = runs.get(kinds[0] as GroupControllerKind) as GroupRun;
  const header = ['member', 'target', ...kinds.map((k) => GROUP_CONTROLLER_LABELS[k])];
  const lines = [
    ...markdownHeader(header),
    ...first.members.map((m, i) => {
      const cells = kinds.map((k) => {
        const row = (runs.get(k) as GroupRun).members[i];
        if (row === undefined) return '–';
        const p99 = row.p99OverTarget > 1 ? `**${f2(row.p99OverTarget)}**` : f2(row.p99OverTarget);
        return `${p99} · peak ${row.summary.executions.peak} · DLQ ${row.summary.deadLettered}`;
      });
      return `| ${m.name} | ${m.summary.targetAgeSeconds} s | ${cells.join(' | ')} |`;
    }),
  ];
  return lines.join('\n');
}

export function groupFiguresTable(runs: ReadonlyMap<GroupControllerKind, GroupRun>): string {
  const header = [
    'controller',
    'peak Σ limits',
    'peak Σ executions',
    'pool waits',
    '429s',
    'dead letters',
    'lost',
    '$ / month',
  ];
  const lines = [...markdownHeader(header)];
  for (const kind of GROUP_CONTROLLER_KINDS) {
    const run = runs.get(kind);
    if (run === undefined) continue;
    lines.push(
      `| ${[
        GROUP_CONTROLLER_LABELS[kind],
        againstBudget(run.peakLimitSum, run.budget),
        againstBudget(run.peakExecutionSum, run.budget),
        String(run.connectionWaits),
        String(run.rejectedCalls),
        String(run.deadLettered),
        String(run.lost),
        run.monthlyCost.toFixed(2),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

export function acceptanceList(checks: readonly AcceptanceCheck[]): string {
  return checks.map((c) => `- ${c.pass ? 'pass' : '**miss**'}: ${c.label} (${c.detail})`).join('\n');
}

/** The whole comparison for one seed. */
export function groupComparison(
  group: GroupScenario,
  runs: ReadonlyMap<GroupControllerKind, GroupRun>,
  checks: readonly AcceptanceCheck[],
  pollerScaleSeconds: number,
): string {
  const any = runs.values().next().value as GroupRun;
  return [
    `## ${group.name}: ${group.members.length} queues, ${describeDownstream(group.downstream)}, budget ${group.budget} (seed ${any.seed}, pollers' ramp in ${pollerScaleSeconds} s steps)`,
    ...(group.description === undefined ? [] : ['', group.description]),
    '',
    'Per member: p99 wait ÷ target (bold: over it) · peak concurrent executions · dead letters.',
    '',
    groupMembersTable(runs),
    '',
    `The group: the most the members' limits and their concurrent executions summed to at any instant (bold: over the budget of ${group.budget}), items that waited for a pool connection, refused calls, and what the controllers add to the bill a month (native: nothing; the age law: a scaler per queue; the shared budget: one controller, and each member's reads, metrics and alarms).`,
    '',
    groupFiguresTable(runs),
    '',
    'The shared budget against the checks it must pass:',
    '',
    acceptanceList(checks),
  ].join('\n');
}
