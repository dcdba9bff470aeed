import { resolveScalerConfig, type ScalerConfig } from '../control/config.ts';
import type { ConsumerMode } from '../sim/actuator-model.ts';
import { type BudgetedMember, sharedBudgetController } from '../sim/budget-controller.ts';
import { ageLawController, noController } from '../sim/controllers.ts';
import type { GroupController, GroupMemberInput } from '../sim/group-simulation.ts';
import { PRESETS } from '../sim/presets.ts';
import type { SimWorld } from '../sim/world.ts';
import { type GroupMember, type GroupScenario, staticSplit } from './group-file.ts';

/**
 * The four ways a group's queues can share one downstream, the bench's comparison for issue 19:
 * - `native-split`: no controller; each mapping's MaximumConcurrency at the static split, ⌊budget ÷ n⌋ (at
 *   least 2): safe for the downstream, but a member's burst cannot use what the others leave idle;
 * - `native-full`: no controller; each mapping at the full budget: every member can burst, and together they
 *   can put n × the budget on the downstream (its pool waits, its 429s);
 * - `age-law-split`: the age law per queue (a scaler each, its own ticks), capped at the static split;
 * - `shared-budget`: one controller for the group, each member capped at the budget (or its own cap, if lower),
 *   the budget split by lateness every tick and the fast path growing within its free headroom.
 * A member's own `maxConcurrency`, where given, caps it under every one of them.
 */
export const GROUP_CONTROLLER_KINDS = [
  'native-split',
  'native-full',
  'age-law-split',
  'shared-budget',
] as const;
export type GroupControllerKind = (typeof GROUP_CONTROLLER_KINDS)[number];

export const GROUP_CONTROLLER_LABELS: Record<GroupControllerKind, string> = {
  'native-split': 'native, static split',
  'native-full': 'native, full budget each',
  'age-law-split': 'age law per queue, static split',
  'shared-budget': 'shared budget',
};

/** What a group runs under one of the four: each member's part, and the group's controller if it has one. */
export interface GroupSetup {
  readonly members: readonly GroupMemberInput[];
  /** Each member's resolved settings (its floor, cap and target as that controller runs it). */
  readonly configs: readonly ScalerConfig[];
  readonly controller?: GroupController;
}

/** The member's cap under a controller that would give it `given`: its own cap, where lower. */
function capOf(member: GroupMember, given: number): number {
  return Math.min(member.maxConcurrency ?? Number.POSITIVE_INFINITY, given);
}

function configOf(member: GroupMember, cap: number): ScalerConfig {
  const settings = {
    ...(member.targetAgeSeconds === undefined ? {} : { targetAgeSeconds: member.targetAgeSeconds }),
    ...(member.minConcurrency === undefined ? {} : { minConcurrency: member.minConcurrency }),
    ...(member.actuator === undefined ? {} : { actuator: member.actuator }),
    maxConcurrency: cap,
  };
  return resolveScalerConfig(settings, { defaults: PRESETS.lambda.settings });
}

export function groupSetup(group: GroupScenario, kind: GroupControllerKind, world: SimWorld): GroupSetup {
  const split = staticSplit(group.budget, group.members.length);
  const cap = (m: GroupMember) =>
    capOf(m, kind === 'native-split' || kind === 'age-law-split' ? split : group.budget);
  const configs = group.members.map((m) => configOf(m, cap(m)));
  const part = (
    m: GroupMember,
    i: number,
    controller: GroupMemberInput['controller'],
    consumer: ConsumerMode,
  ) => {
    const config = configs[i] as ScalerConfig;
    return {
      name: m.name,
      phases: m.phases,
      controller,
      consumer,
      floor: config.minConcurrency,
      cap: config.maxConcurrency,
      targetAgeSeconds: config.targetAgeSeconds,
    };
  };
  switch (kind) {
    case 'native-split':
    case 'native-full':
      return {
        configs,
        members: group.members.map((m, i) => {
          const max = (configs[i] as ScalerConfig).maxConcurrency;
          return part(m, i, noController(`native (no controller, MaximumConcurrency ${max})`), {
            kind: 'native',
            maximumConcurrency: max,
          });
        }),
      };
    case 'age-law-split':
      return {
        configs,
        members: group.members.map((m, i) => {
          const config = configs[i] as ScalerConfig;
          return part(m, i, ageLawController(config, world), {
            kind: 'controlled',
            actuator: config.actuator,
          });
        }),
      };
    case 'shared-budget': {
      const budgeted: BudgetedMember[] = group.members.map((m, i) => ({
        name: m.name,
        config: configs[i] as ScalerConfig,
        ...(m.weight === undefined ? {} : { weight: m.weight }),
      }));
      const controller = sharedBudgetController(group.budget, budgeted, world);
      return {
        configs,
        controller,
        members: group.members.map((m, i) => {
          const config = configs[i] as ScalerConfig;
          // The member's own controller is the group's: this one only names it.
          return part(m, i, noController(controller.name), { kind: 'controlled', actuator: config.actuator });
        }),
      };
    }
  }
}
