import { groupAcceptance } from '../lib/bench/group-acceptance.ts';
import { GROUP_CONTROLLER_LABELS } from '../lib/bench/group-controllers.ts';
import {
  type GroupScenario,
  loadGroupScenario,
  loadShippedGroup,
  shippedGroups,
} from '../lib/bench/group-file.ts';
import { groupComparison } from '../lib/bench/group-report.ts';
import { runGroupComparison } from '../lib/bench/group-run.ts';
import { loadSimConfig } from '../lib/sim/config-file.ts';
import { PRESETS } from '../lib/sim/presets.ts';
import { UsageError } from './cli-error.ts';

/**
 * `simulate --group FILE`: a group scenario (several queues sharing one downstream, lib/bench/group-file.ts) under
 * the four group controllers on one seed, and the comparison: per member, the group against the budget, the
 * acceptance checks. Apart from simulate.ts because it is a different run (four runs of N queues, no phase table,
 * chart or files), sharing only the command.
 */
export interface GroupCliOptions {
  readonly group: string;
  readonly seed: number;
  readonly json: boolean;
  readonly config?: string;
}

/** A shipped group's name (`pool-40-three-shapes`) or a file's path. */
function groupOf(given: string): GroupScenario {
  if (!given.includes('/') && !given.includes('\\') && !given.toLowerCase().endsWith('.json')) {
    if (!shippedGroups().includes(given))
      throw new UsageError(
        `--group '${given}': not a shipped group (${shippedGroups().join(', ')}) nor a path to a .json file`,
      );
    return loadShippedGroup(given);
  }
  return loadGroupScenario(given);
}

export async function simulateGroup(options: GroupCliOptions): Promise<void> {
  const group = groupOf(options.group);
  const file = options.config === undefined ? undefined : loadSimConfig(options.config);
  if (file !== undefined && (Object.keys(file.settings).length > 0 || file.downstream !== undefined))
    throw new UsageError(
      `--config ${options.config}: with --group only its "simulator" settings apply (the members' settings and the downstream are the group file's); take out ${[...Object.keys(file.settings), ...(file.downstream === undefined ? [] : ['simulator.downstream'])].join(', ')}`,
    );
  const world = file?.world ?? {};
  const showProgress = !options.json && process.stderr.isTTY;
  const runs = await runGroupComparison({ group, seed: options.seed, world }, (run) => {
    if (showProgress)
      process.stderr.write(
        `${group.name}: ${GROUP_CONTROLLER_LABELS[run.controller]} done (${run.wallSeconds.toFixed(1)} s)\n`,
      );
  });
  const checks = groupAcceptance(runs);
  const pollerScaleSeconds = world.pollerScaleSeconds ?? PRESETS.lambda.world.pollerScaleSeconds;
  if (options.json) {
    console.log(
      JSON.stringify(
        {
          group: group.name,
          source: group.source,
          downstream: group.downstream,
          budget: group.budget,
          seed: options.seed,
          pollerScaleSeconds,
          runs: [...runs.values()].map((run) => ({
            controller: run.controller,
            controllerName: run.controllerName,
            peakLimitSum: run.peakLimitSum,
            peakExecutionSum: run.peakExecutionSum,
            connectionWaits: run.connectionWaits,
            rejectedCalls: run.rejectedCalls,
            deadLettered: run.deadLettered,
            lost: run.lost,
            monthlyCost: run.monthlyCost,
            members: run.members.map((m) => ({
              name: m.name,
              p99OverTarget: m.p99OverTarget,
              summary: m.summary,
            })),
          })),
          acceptance: checks,
        },
        null,
        2,
      ),
    );
    return;
  }
  console.log(groupComparison(group, runs, checks, pollerScaleSeconds));
}
