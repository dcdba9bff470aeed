import {
  BUDGET_ENVIRONMENT,
  type BudgetMemberEnvironment,
  MAX_BUDGET_MEMBERS,
} from '../../lib/budget-environment.ts';
import { budgetOwner } from '../../lib/consumer-owner.ts';
import { DOWNSTREAM_HEALTH_VARIABLE } from '../../lib/control/downstream-health.ts';
import {
  ConfigError,
  environmentName,
  type ScalerSettings,
  SETTING_NAMES,
  settingsToEnvironment,
} from '../../lib/control/index.ts';
import { type ControllerSettings, RESOURCE_VARIABLES, settingsFromEnvironment } from './resources.ts';

/** A budget controller's settings: the budget, and each member's own settings and resources. */
export interface BudgetSettings {
  readonly budgetName: string;
  readonly budget: number;
  readonly members: readonly BudgetMemberSettings[];
}

export interface BudgetMemberSettings extends ControllerSettings {
  readonly weight: number;
}

/** Whether this controller runs a shared budget (the construct writes `BUDGET_MEMBERS` only then). */
export function isBudgetEnvironment(env: Record<string, string | undefined>): boolean {
  return env[BUDGET_ENVIRONMENT.members] !== undefined;
}

// The budget's name is a CloudWatch dimension value (1–1024) and an alarm's name part: the construct allows 1–64.
const BUDGET_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MEMBER_FIELDS = new Set([
  'scalerName',
  'queueUrl',
  'queueName',
  'deadLetterQueueName',
  'consumerFunctionName',
  'eventSourceMappingUuid',
  'weight',
  'settings',
  'downstreamHealth',
]);
const SETTING_FIELDS = new Set<string>(SETTING_NAMES);
/** A lone scaler's variable → the member's JSON field, so a problem names what the budget's JSON spells. */
const MEMBER_FIELD_OF_VARIABLE = new Map<string, string>([
  ...SETTING_NAMES.map((field) => [environmentName(field), `settings.${field}`] as const),
  ...Object.entries(RESOURCE_VARIABLES).map(([field, variable]) => [variable, field] as const),
  [DOWNSTREAM_HEALTH_VARIABLE, 'downstreamHealth'],
]);

/** `MIN_CONCURRENCY = '0': …` → `.settings.minConcurrency = '0': …`; anything else as it is, after a colon. */
function asMemberProblem(problem: string): string {
  const variable = /^[A-Z0-9_]+/.exec(problem)?.[0];
  const field = variable === undefined ? undefined : MEMBER_FIELD_OF_VARIABLE.get(variable);
  return field === undefined ? `: ${problem}` : `.${field}${problem.slice(variable?.length ?? 0)}`;
}

/**
 * Reads and validates a budget controller's environment at init: every problem at once, each naming the variable,
 * the member (its index and scaler name) and the field, so a bad deploy fails the cold start with one message.
 * Each member's resources and settings go through the lone scaler's own checks (`settingsFromEnvironment`).
 */
export function budgetSettingsFromEnvironment(env: Record<string, string | undefined>): BudgetSettings {
  const problems: string[] = [];
  const { budgetName, budget } = budgetOf(env, problems);
  const list = parseMembers(env[BUDGET_ENVIRONMENT.members] ?? '', problems);
  const members: BudgetMemberSettings[] = [];
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const where = `${BUDGET_ENVIRONMENT.members}[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(`${where}: must be an object`);
      return;
    }
    const member = raw as Partial<BudgetMemberEnvironment> & Record<string, unknown>;
    const label = `${where} (${typeof member.scalerName === 'string' ? member.scalerName : 'unnamed'})`;
    for (const key of Object.keys(member)) {
      if (!MEMBER_FIELDS.has(key)) problems.push(`${label}.${key}: unknown field`);
    }
    const settings = member.settings ?? {};
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      problems.push(`${label}.settings: must be an object of settings`);
      return;
    }
    for (const key of Object.keys(settings)) {
      if (!SETTING_FIELDS.has(key)) problems.push(`${label}.settings.${key}: unknown setting`);
    }
    const weight = member.weight ?? 1;
    if (!(typeof weight === 'number' && Number.isFinite(weight) && weight > 0 && weight <= 1000)) {
      problems.push(`${label}.weight = ${JSON.stringify(weight)}: must be a number in (0; 1000]`);
    }
    if (typeof member.scalerName === 'string') {
      if (names.has(member.scalerName)) problems.push(`${label}.scalerName: appears twice in the budget`);
      names.add(member.scalerName);
    }
    const memberEnv: Record<string, string | undefined> = {
      ...settingsToEnvironment(knownSettings(settings as Record<string, unknown>)),
      [RESOURCE_VARIABLES.scalerName]: text(member.scalerName),
      [RESOURCE_VARIABLES.queueUrl]: text(member.queueUrl),
      [RESOURCE_VARIABLES.queueName]: text(member.queueName),
      [RESOURCE_VARIABLES.consumerFunctionName]: text(member.consumerFunctionName),
      [RESOURCE_VARIABLES.eventSourceMappingUuid]: text(member.eventSourceMappingUuid),
      // The member's own health signal, checked as a lone scaler's (`DOWNSTREAM_HEALTH`).
      [DOWNSTREAM_HEALTH_VARIABLE]:
        member.downstreamHealth === undefined ? undefined : JSON.stringify(member.downstreamHealth),
    };
    try {
      const own = settingsFromEnvironment(memberEnv);
      // The budget's controller drives every member: the owner parameter names the budget (lib/consumer-owner.ts).
      const resources = { ...own.resources, owner: budgetOwner(budgetName) };
      members.push({ ...own, resources, weight: typeof weight === 'number' ? weight : 1 });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const p of error.problems) problems.push(`${label}${asMemberProblem(p)}`);
    }
  });
  if (problems.length === 0) problems.push(...sharedConsumerProblems(members));
  if (problems.length === 0) problems.push(...budgetFitProblems(budget, members));
  if (problems.length > 0) throw new ConfigError(problems);
  return { budgetName, budget, members };
}

/**
 * Two members on one consumer (or one mapping) would fight over its one reserved concurrency, each counting it as
 * its own: refused at start, as synth refuses it where it can see the names (lib/cdk/queue-age-scaler.ts).
 */
function sharedConsumerProblems(members: readonly BudgetMemberSettings[]): string[] {
  const problems: string[] = [];
  const seen = (key: (m: BudgetMemberSettings) => string | undefined, what: string) => {
    const first = new Map<string, string>();
    for (const m of members) {
      const value = key(m);
      if (value === undefined) continue; // a reserved-mode member names no mapping
      const earlier = first.get(value);
      if (earlier === undefined) first.set(value, m.resources.scalerName);
      else
        problems.push(
          `${m.resources.scalerName} and ${earlier}: both scale ${what} '${value}'; a consumer has one reserved concurrency, so give it one scaler`,
        );
    }
  };
  seen((m) => m.resources.consumerFunctionName, 'the consumer function');
  seen((m) => m.resources.eventSourceMappingUuid, 'the event source mapping');
  return problems;
}

/** The budget's name and its total, each checked. */
function budgetOf(env: Record<string, string | undefined>, problems: string[]) {
  const budgetName = env[BUDGET_ENVIRONMENT.budgetName] ?? '';
  if (!BUDGET_NAME.test(budgetName)) {
    problems.push(
      `${BUDGET_ENVIRONMENT.budgetName} = '${budgetName}': must be the budget's name (1–64 of A–Z a–z 0–9 - _)`,
    );
  }
  const rawBudget = env[BUDGET_ENVIRONMENT.budget] ?? '';
  const budget = /^\d{1,6}$/.test(rawBudget) ? Number(rawBudget) : Number.NaN;
  if (!(Number.isInteger(budget) && budget >= 1)) {
    problems.push(`${BUDGET_ENVIRONMENT.budget} = '${rawBudget}': must be an integer in [1; 999999]`);
  }
  return { budgetName, budget };
}

function parseMembers(raw: string, problems: string[]): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push(`${BUDGET_ENVIRONMENT.members}: must be a JSON array of members (it does not parse)`);
    return [];
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_BUDGET_MEMBERS) {
    problems.push(
      `${BUDGET_ENVIRONMENT.members}: must be a JSON array of 1–${MAX_BUDGET_MEMBERS} members (got ${Array.isArray(parsed) ? `${parsed.length}` : typeof parsed})`,
    );
    return [];
  }
  return parsed;
}

/** The settings as the lone scaler's environment spells them (unknown ones are reported apart). */
function knownSettings(settings: Record<string, unknown>): ScalerSettings {
  const known: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (SETTING_FIELDS.has(key)) known[key] = String(value);
  }
  return known as ScalerSettings;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : value === undefined ? undefined : String(value);

/** The synth checks again, at init: the floors fit and no cap exceeds the budget (one tick, one schedule). */
function budgetFitProblems(budget: number, members: readonly BudgetMemberSettings[]): string[] {
  const problems: string[] = [];
  const floors = members.reduce((sum, m) => sum + m.config.minConcurrency, 0);
  if (floors > budget) {
    problems.push(
      `${BUDGET_ENVIRONMENT.budget} = ${budget}: below the members' floors, ${floors} in all (${members.map((m) => `${m.resources.scalerName} ${m.config.minConcurrency}`).join(', ')})`,
    );
  }
  for (const m of members) {
    if (m.config.maxConcurrency > budget) {
      problems.push(
        `${m.resources.scalerName}: maxConcurrency = ${m.config.maxConcurrency} is above the budget ${budget}`,
      );
    }
  }
  const ticks = new Set(members.map((m) => m.config.tickSeconds));
  if (ticks.size > 1) {
    problems.push(
      `the members' tickSeconds differ (${[...ticks].join(', ')}): one controller runs them all on one schedule`,
    );
  }
  return problems;
}
