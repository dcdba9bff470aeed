import { ConfigError, type ScalerConfig } from '../control/config.ts';
import { GroupSimulation, type GroupSimulationResult } from '../sim/group-simulation.ts';
import { checkGroupRunSize } from '../sim/limits.ts';
import { PRESETS } from '../sim/presets.ts';
import { MAX_SEED } from '../sim/random.ts';
import { type RunSummary, summarize } from '../sim/summary.ts';
import { checkWorld, type SimWorld } from '../sim/world.ts';
import { ageLawMonthlyCost, budgetMonthlyCost } from './cost.ts';
import {
  GROUP_CONTROLLER_KINDS,
  GROUP_CONTROLLER_LABELS,
  type GroupControllerKind,
  groupSetup,
} from './group-controllers.ts';
import type { GroupScenario } from './group-file.ts';

/**
 * One group scenario under one of the four group controllers, and the figures the comparison reads: per member
 * how late (p99 wait ÷ target, dead letters) and how much it ran (peak executions); for the group, what the
 * downstream felt against the budget (the per-instant maxima of Σ limits and Σ executions, pool waits, 429s)
 * and what the controllers cost a month.
 */
export interface GroupRunOptions {
  readonly group: GroupScenario;
  readonly controller: GroupControllerKind;
  readonly seed?: number;
  /** Overrides of the lambda preset's modelled world (`pollerScaleSeconds`, say). */
  readonly world?: Partial<SimWorld>;
}

export interface GroupMemberRow {
  readonly name: string;
  readonly summary: RunSummary;
  readonly p99OverTarget: number;
}

export interface GroupRun {
  readonly group: string;
  readonly controller: GroupControllerKind;
  /** The controllers' own name (the members', or the group's one). */
  readonly controllerName: string;
  readonly seed: number;
  readonly budget: number;
  readonly members: readonly GroupMemberRow[];
  readonly configs: readonly ScalerConfig[];
  readonly result: GroupSimulationResult;
  /** The most the members' limits summed to at any instant. */
  readonly peakLimitSum: number;
  /** The most concurrent executions the members ran together at any instant. */
  readonly peakExecutionSum: number;
  readonly connectionWaits: number;
  readonly rejectedCalls: number;
  readonly deadLettered: number;
  readonly lost: number;
  /** What the group's controllers add to the bill a month (native: nothing). */
  readonly monthlyCost: number;
  readonly wallSeconds: number;
}

/**
 * The group's controllers a month: none for native, a scaler per queue, or one controller for the budget; each
 * queue's reads at the share of its ticks that read the rates, as the run counted it (`rateReadShares`, by member;
 * default: never quiet).
 */
export function groupMonthlyCost(
  kind: GroupControllerKind,
  configs: readonly ScalerConfig[],
  rateReadShares: readonly number[] = [],
): number {
  const config = configs[0] as ScalerConfig;
  const share = (i: number) => rateReadShares[i] ?? 1;
  switch (kind) {
    case 'native-split':
    case 'native-full':
      return 0;
    case 'age-law-split':
      return configs.reduce((sum, c, i) => sum + ageLawMonthlyCost(c, share(i)), 0);
    case 'shared-budget': {
      const mean = configs.reduce((sum, _, i) => sum + share(i), 0) / configs.length;
      return budgetMonthlyCost(config, configs.length, mean);
    }
  }
}

export async function runGroup(options: GroupRunOptions): Promise<GroupRun> {
  const { group, controller: kind } = options;
  const world: SimWorld = { ...PRESETS.lambda.world, ...options.world };
  checkWorld(world);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new ConfigError([
      `seed = ${seed}: must be an integer in [0; ${MAX_SEED}] (the generator's state is 32 bits)`,
    ]);
  const setup = groupSetup(group, kind, world);
  const config = setup.configs[0] as ScalerConfig;
  checkGroupRunSize(
    setup.members.map((m) => m.phases),
    config.tickSeconds,
  );
  const started = performance.now();
  const result = await new GroupSimulation({
    members: setup.members,
    world,
    tickSeconds: config.tickSeconds,
    fastSampleSeconds: config.fastSampleSeconds,
    downstream: group.downstream,
    seed,
    controller: setup.controller,
  }).run();
  const wallSeconds = (performance.now() - started) / 1000;
  const controllerName = setup.controller?.name ?? setup.members[0]?.controller.name ?? kind;
  const members = result.members.map((memberResult, i): GroupMemberRow => {
    const member = setup.members[i] as (typeof setup.members)[number];
    const summary = summarize(memberResult, {
      scenario: `${group.name}/${member.name}`,
      preset: 'lambda',
      controller: setup.controller?.name ?? member.controller.name,
      controllerKind: kind,
      seed,
      floor: member.floor,
      cap: member.cap,
      targetAgeSeconds: member.targetAgeSeconds,
      wallSeconds,
    });
    return { name: member.name, summary, p99OverTarget: summary.p99WaitSeconds / summary.targetAgeSeconds };
  });
  return {
    group: group.name,
    controller: kind,
    controllerName: `${GROUP_CONTROLLER_LABELS[kind]}: ${controllerName}`,
    seed,
    budget: group.budget,
    members,
    configs: setup.configs,
    result,
    peakLimitSum: result.limitSum.peak,
    peakExecutionSum: result.executionSum.peak,
    connectionWaits: result.connectionWaits,
    rejectedCalls: result.rejectedCalls,
    deadLettered: members.reduce((sum, m) => sum + m.summary.deadLettered, 0),
    lost: members.reduce((sum, m) => sum + m.summary.lost, 0),
    monthlyCost: groupMonthlyCost(
      kind,
      setup.configs,
      result.members.map((m) => m.rateReadShare),
    ),
    wallSeconds,
  };
}

/** The group under all four controllers, one after another, on one seed: the comparison's runs. */
export async function runGroupComparison(
  options: Omit<GroupRunOptions, 'controller'>,
  onRun?: (run: GroupRun) => void,
): Promise<Map<GroupControllerKind, GroupRun>> {
  const runs = new Map<GroupControllerKind, GroupRun>();
  for (const controller of GROUP_CONTROLLER_KINDS) {
    const run = await runGroup({ ...options, controller });
    runs.set(controller, run);
    onRun?.(run);
  }
  return runs;
}
