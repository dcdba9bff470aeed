import type { ControllerResources } from '../../lib/aws/resources.ts';
import {
  BUDGET_ENVIRONMENT,
  type BudgetMemberEnvironment,
  MAX_BUDGET_MEMBERS,
  SCHEDULED_FLOORS_MEMBER_PROBLEM,
} from '../../lib/budget-environment.ts';
import { budgetOwner, scalerOwner } from '../../lib/consumer-owner.ts';
import {
  DOWNSTREAM_HEALTH_VARIABLE,
  downstreamHealthFromEnvironment,
} from '../../lib/control/downstream-health.ts';
import {
  type ActuatorMode,
  ConfigError,
  configFromEnvironment,
  environmentName,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  settingsToEnvironment,
} from '../../lib/control/index.ts';

export type { ControllerResources };

export const RESOURCE_VARIABLES = {
  scalerName: 'SCALER_NAME',
  queueUrl: 'QUEUE_URL',
  queueName: 'QUEUE_NAME',
  consumerFunctionName: 'CONSUMER_FUNCTION_NAME',
  eventSourceMappingUuid: 'EVENT_SOURCE_MAPPING_UUID',
} as const;

export interface ControllerSettings {
  readonly config: ScalerConfig;
  readonly resources: ControllerResources;
}

// Lambda function names: letters, digits, hyphens and underscores, 1–64 (AWS Lambda API, FunctionName).
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
// SQS queue names: 1–80 of letters, digits, hyphens and underscores, `.fifo` for FIFO queues.
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
// Only a FIFO queue's name ends in `.fifo` (SQS naming rules).
const FIFO_SUFFIX = '.fifo';
/**
 * While a message group has messages in flight SQS delivers none of its later ones, so a FIFO mapping's concurrent
 * invocations are capped by the number of message groups (AWS Lambda docs, SQS scaling). The control law sizes
 * concurrency from the age and the arrival rate alone: on a FIFO queue it would raise concurrency that no group can
 * use, and read an age that more workers cannot lower. Refused at init rather than run wrong (docs/controller.md).
 */
export const FIFO_REFUSAL =
  "FIFO queues are not supported yet: a FIFO queue's consumer runs at most one batch per message group at a time, and the control law does not size for groups; attach the scaler to a standard queue";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// CloudWatch dimension values: 1–1024 characters.
const DIMENSION_VALUE = /^.{1,1024}$/;

function checkResources(
  env: Record<string, string | undefined>,
  actuator: ActuatorMode | undefined,
  problems: string[],
): ControllerResources {
  const read = (field: keyof typeof RESOURCE_VARIABLES, pattern: RegExp, what: string, required = true) => {
    const name = RESOURCE_VARIABLES[field];
    const value = env[name];
    if (value === undefined || value === '') {
      if (required) problems.push(`${name} is missing: ${what}`);
      return undefined;
    }
    if (!pattern.test(value)) problems.push(`${name} = '${value}': must be ${what}`);
    return value;
  };
  const queueUrl = read(
    'queueUrl',
    /^https?:\/\/\S+\/\d{12}\/\S+$/,
    'the queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>)',
  );
  const queueName = read('queueName', QUEUE_NAME, 'the queue name (1–80 letters, digits, - or _)');
  const fifo = queueName?.endsWith(FIFO_SUFFIX)
    ? { name: RESOURCE_VARIABLES.queueName, value: queueName }
    : queueUrl?.endsWith(FIFO_SUFFIX)
      ? { name: RESOURCE_VARIABLES.queueUrl, value: queueUrl }
      : undefined;
  if (fifo) problems.push(`${fifo.name} = '${fifo.value}': ${FIFO_REFUSAL}`);
  else if (queueUrl && queueName && !queueUrl.endsWith(`/${queueName}`)) {
    problems.push(
      `${RESOURCE_VARIABLES.queueName} = '${queueName}': must be the last part of ${RESOURCE_VARIABLES.queueUrl} ('${queueUrl}')`,
    );
  }
  return {
    scalerName: read('scalerName', DIMENSION_VALUE, 'the scaler name (1–1024 characters)') ?? '',
    queueUrl: queueUrl ?? '',
    queueName: queueName ?? '',
    consumerFunctionName:
      read(
        'consumerFunctionName',
        FUNCTION_NAME,
        'the consumer function name (1–64 letters, digits, - or _)',
      ) ?? '',
    eventSourceMappingUuid: read(
      'eventSourceMappingUuid',
      UUID,
      `the consumer's event source mapping UUID (actuator '${actuator ?? 'lockstep'}' drives its ${actuator === 'provisioned' ? 'MaximumPollers' : 'MaximumConcurrency'})`,
      actuator !== 'reserved',
    ),
  };
}

/**
 * Reads and validates everything the controller needs at init, so a bad value fails the cold start with one
 * message naming each variable, rather than a tick failing later.
 */
export function settingsFromEnvironment(env: Record<string, string | undefined>): ControllerSettings {
  const problems: string[] = [];
  let config: ScalerConfig | undefined;
  try {
    config = configFromEnvironment(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const actuator = config?.actuator ?? (env.ACTUATOR as ActuatorMode | undefined);
  const resources = checkResources(env, actuator, problems);
  const downstreamHealth = downstreamHealthFromEnvironment(env, problems);
  if (problems.length > 0 || config === undefined) throw new ConfigError(problems);
  // A lone scaler's controller; a budget names its members' (budgetSettingsFromEnvironment).
  const owner = scalerOwner(resources.scalerName);
  return { config, resources: { ...resources, owner, ...(downstreamHealth ? { downstreamHealth } : {}) } };
}

/** A budget controller's settings: the budget, and each member's own settings and resources. */
export interface BudgetSettings {
  readonly budgetName: string;
  readonly budget: number;
  readonly members: readonly MemberSettings[];
}

/** One scaler the controller ticks: a budget's member, or a lone scaler (weight 1, no budget). */
export interface MemberSettings extends ControllerSettings {
  readonly weight: number;
}

/** The scalers a controller ticks: a lone scaler is a loop of one member. */
export function membersOf(settings: ControllerSettings | BudgetSettings): readonly MemberSettings[] {
  return 'members' in settings ? settings.members : [{ ...settings, weight: 1 }];
}

/**
 * The controller's settings at init: a shared budget's where the environment lists members (the construct writes
 * `BUDGET_MEMBERS` only then), else a lone scaler's.
 */
export function controllerSettingsFromEnvironment(
  env: Record<string, string | undefined>,
): ControllerSettings | BudgetSettings {
  return env[BUDGET_ENVIRONMENT.members] === undefined
    ? settingsFromEnvironment(env)
    : budgetSettingsFromEnvironment(env);
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
 * A member's unknown fields and settings, and its settings not an object. Its scheduled floors are refused by name
 * (lib/budget-environment.ts), not as an unknown setting.
 */
function memberKeyProblems(member: Record<string, unknown>, label: string): string[] {
  const problems = Object.keys(member)
    .filter((key) => !MEMBER_FIELDS.has(key))
    .map((key) => `${label}.${key}: unknown field`);
  const settings = member.settings ?? {};
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    return [...problems, `${label}.settings: must be an object of settings`];
  for (const key of Object.keys(settings)) {
    if (key === 'floors') problems.push(`${label}: ${SCHEDULED_FLOORS_MEMBER_PROBLEM}`);
    else if (!SETTING_FIELDS.has(key)) problems.push(`${label}.settings.${key}: unknown setting`);
  }
  return problems;
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
  const members: MemberSettings[] = [];
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const where = `${BUDGET_ENVIRONMENT.members}[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(`${where}: must be an object`);
      return;
    }
    const member = raw as Partial<BudgetMemberEnvironment> & Record<string, unknown>;
    const label = `${where} (${typeof member.scalerName === 'string' ? member.scalerName : 'unnamed'})`;
    const settings = member.settings ?? {};
    problems.push(...memberKeyProblems(member, label));
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return;
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
function sharedConsumerProblems(members: readonly MemberSettings[]): string[] {
  const problems: string[] = [];
  const seen = (key: (m: MemberSettings) => string | undefined, what: string) => {
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
function budgetFitProblems(budget: number, members: readonly MemberSettings[]): string[] {
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
