/**
 * Measures the shared budget against issue 19's acceptance line: every group scenario × the four group
 * controllers × seeds × both readings of the pollers' ramp (pollerScaleSeconds 10 and 60), and prints markdown:
 *
 *   npx tsx scripts/measure-budget.ts [--seeds 1-5] [--group FILE.json ...]
 *
 * 1. Per member: p99 wait ÷ target under each controller, worst over the seeds (and the best), peak concurrent
 *    executions (range) and dead letters (summed).
 * 2. Per group and controller: the per-instant maxima of Σ limits and Σ concurrent executions against the budget
 *    (worst over the seeds), pool waits and 429s (range), dead letters and lost messages (summed), $ a month.
 * 3. The acceptance checks per seed, pass or miss with the figures behind a miss, and how many runs pass each.
 * `--group` replaces the shipped groups (scenarios/groups/*.json) with your own files. Nothing is tuned here:
 * a miss is printed as a miss.
 */
import { parseArgs } from 'node:util';
import { type AcceptanceCheck, groupAcceptance } from '../lib/bench/group-acceptance.ts';
import {
  GROUP_CONTROLLER_KINDS,
  GROUP_CONTROLLER_LABELS,
  type GroupControllerKind,
} from '../lib/bench/group-controllers.ts';
import {
  type GroupScenario,
  loadGroupScenario,
  loadShippedGroup,
  shippedGroups,
} from '../lib/bench/group-file.ts';
import { type GroupRun, runGroupComparison } from '../lib/bench/group-run.ts';
import { markdownHeader } from '../lib/views/markdown.ts';
import { seedsOf } from './seed-range.ts';

const READINGS = [10, 60] as const;

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1-5' },
    group: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(
    'npx tsx scripts/measure-budget.ts [--seeds 1-5] [--group FILE.json ...]\n\nEvery group scenario (default: the shipped ones in scenarios/groups/) under native with the static split, native with the full budget each, the age law per queue at the static split and the shared budget, on each seed and both pollers readings (10 s, 60 s); markdown tables of the members, the groups and the acceptance checks (pass or miss).',
  );
  process.exit(0);
}
const seeds = seedsOf(values.seeds);
const groups: GroupScenario[] = values.group?.length
  ? values.group.map((path) => loadGroupScenario(path))
  : shippedGroups().map((name) => loadShippedGroup(name));

interface Cell {
  readonly group: GroupScenario;
  readonly reading: number;
  readonly seed: number;
  readonly runs: ReadonlyMap<GroupControllerKind, GroupRun>;
  readonly checks: readonly AcceptanceCheck[];
}

const cells: Cell[] = [];
const started = performance.now();
for (const group of groups) {
  for (const reading of READINGS) {
    for (const seed of seeds) {
      const runs = await runGroupComparison({ group, seed, world: { pollerScaleSeconds: reading } });
      cells.push({ group, reading, seed, runs, checks: groupAcceptance(runs) });
      process.stderr.write(`${group.name} ramp ${reading} s seed ${seed} done\n`);
    }
  }
}

const f2 = (x: number) => x.toFixed(2);
const span = (xs: readonly number[]) => {
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
  return lo === hi ? String(lo) : `${lo}–${hi}`;
};
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const byGroupReading = (group: GroupScenario, reading: number) =>
  cells.filter((c) => c.group === group && c.reading === reading);
const run = (c: Cell, kind: GroupControllerKind) => c.runs.get(kind) as GroupRun;

console.log(`# The shared budget, measured (seeds ${values.seeds}, pollers' ramp in 10 s and 60 s steps)\n`);
console.log(
  `${groups.map((g) => `- **${g.name}**: ${g.members.length} queues (${g.members.map((m) => m.name).join(', ')}), budget ${g.budget}${g.description === undefined ? '' : `. ${g.description}`}`).join('\n')}\n`,
);

console.log(
  '## Per member\n\np99 wait ÷ target, worst over the seeds (best in brackets; bold: worst over the target) · peak concurrent executions (range) · dead letters (summed).\n',
);
const memberHeader = [
  'group',
  'ramp',
  'member',
  ...GROUP_CONTROLLER_KINDS.map((k) => GROUP_CONTROLLER_LABELS[k]),
];
console.log(markdownHeader(memberHeader).join('\n'));
for (const group of groups) {
  for (const reading of READINGS) {
    const own = byGroupReading(group, reading);
    group.members.forEach((m, i) => {
      const cellsOf = GROUP_CONTROLLER_KINDS.map((kind) => {
        const rows = own.map((c) => run(c, kind).members[i]).filter((r) => r !== undefined);
        const p99 = rows.map((r) => r.p99OverTarget);
        const worst = Math.max(...p99);
        const shownWorst = worst > 1 ? `**${f2(worst)}**` : f2(worst);
        return `${shownWorst} (${f2(Math.min(...p99))}) · ${span(rows.map((r) => r.summary.executions.peak))} · ${sum(rows.map((r) => r.summary.deadLettered))}`;
      });
      console.log(`| ${group.name} | ${reading} s | ${m.name} | ${cellsOf.join(' | ')} |`);
    });
  }
}

console.log(
  '\n## Per group\n\nThe per-instant maxima of Σ limits and Σ concurrent executions, worst over the seeds (bold: over the budget); items that waited for a pool connection and calls refused (429), range over the seeds; dead letters and lost messages, summed; what the controllers add to the bill a month.\n',
);
const groupHeader = [
  'group',
  'ramp',
  'controller',
  'budget',
  'peak Σ limits',
  'peak Σ executions',
  'pool waits',
  '429s',
  'dead letters',
  'lost',
  '$ / month',
];
console.log(markdownHeader(groupHeader).join('\n'));
for (const group of groups) {
  for (const reading of READINGS) {
    const own = byGroupReading(group, reading);
    for (const kind of GROUP_CONTROLLER_KINDS) {
      const runs = own.map((c) => run(c, kind));
      const over = (x: number) => (x > group.budget ? `**${x}**` : String(x));
      console.log(
        `| ${[
          group.name,
          `${reading} s`,
          GROUP_CONTROLLER_LABELS[kind],
          group.budget,
          over(Math.max(...runs.map((r) => r.peakLimitSum))),
          over(Math.max(...runs.map((r) => r.peakExecutionSum))),
          span(runs.map((r) => r.connectionWaits)),
          span(runs.map((r) => r.rejectedCalls)),
          sum(runs.map((r) => r.deadLettered)),
          sum(runs.map((r) => r.lost)),
          f2(Math.max(...runs.map((r) => r.monthlyCost))),
        ].join(' | ')} |`,
      );
    }
  }
}

console.log(
  "\n## The acceptance line, per run\n\nThe shared budget on each group, ramp and seed: pass, or **miss** with the figures (a member's p99 ÷ target under the shared budget, and in brackets under the static split).\n",
);
const ids = cells[0]?.checks.map((c) => c.id) ?? [];
const labels = cells[0]?.checks.map((c) => c.label) ?? [];
console.log(
  `| group | ramp | seed | ${labels.join(' | ')} |\n|---|---|---|${labels.map(() => '---').join('|')}|`,
);
for (const c of cells) {
  const shown = ids.map((id) => {
    const check = c.checks.find((k) => k.id === id);
    if (check === undefined) return '–';
    return check.pass ? `pass (${check.detail})` : `**miss** (${check.detail})`;
  });
  console.log(`| ${c.group.name} | ${c.reading} s | ${c.seed} | ${shown.join(' | ')} |`);
}

console.log('\n## How often each check passes\n');
console.log(
  `| check | ${groups.flatMap((g) => READINGS.map((r) => `${g.name}, ${r} s`)).join(' | ')} | all |`,
);
console.log(`|---|${groups.flatMap(() => READINGS.map(() => '---')).join('|')}|---|`);
ids.forEach((id, i) => {
  const counts = groups.flatMap((g) =>
    READINGS.map((r) => {
      const own = byGroupReading(g, r);
      const passed = own.filter((c) => c.checks.find((k) => k.id === id)?.pass).length;
      return `${passed} of ${own.length}`;
    }),
  );
  const passed = cells.filter((c) => c.checks.find((k) => k.id === id)?.pass).length;
  console.log(`| ${labels[i]} | ${counts.join(' | ')} | ${passed} of ${cells.length} |`);
});
console.log(
  `\n${cells.length * GROUP_CONTROLLER_KINDS.length} group runs in ${((performance.now() - started) / 1000).toFixed(0)} s.`,
);
