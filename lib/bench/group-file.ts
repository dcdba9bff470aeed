import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  type ActuatorMode,
  ConfigError,
  EVENT_SOURCE_MAX_CONCURRENCY,
  resolveScalerConfig,
  shown,
} from '../control/config.ts';
import { LoadFileError, type Phase, readLoadFile, SCENARIO_DIR } from '../load-file/load-file.ts';
import {
  checkedNumbers,
  DOWNSTREAM_LIMITS,
  isObject,
  type Limit,
  readInputFile,
} from '../sim/config-file.ts';
import type { DownstreamModel } from '../sim/downstream.ts';
import { checkGroupRunSize } from '../sim/limits.ts';
import { PRESETS } from '../sim/presets.ts';

/**
 * A group scenario: several queues, each with its own load file and consumer, sharing one downstream and a
 * concurrency budget on it (issue 19). JSON, next to its load files:
 *
 *   { "description": "three queues on a database pool of 40",
 *     "downstream": { "connectionPool": 40 },
 *     "budget": 40,
 *     "members": [
 *       { "name": "orders", "load": "orders-steady.csv", "targetAgeSeconds": 60 },
 *       { "name": "billing", "load": "../bursts.csv", "itemMs": 100, "weight": 2 } ] }
 *
 * - `downstream`: what every member's items call, shared: `connectionPool` (connections), and/or
 *   `apiRatePerSecond` with `callsPerItem` (default 1); the same model and ranges as a config file's
 *   `simulator.downstream`. A group needs a capacity to share: one of the first two is required.
 * - `budget`: Σ of the members' concurrency limits the shared controller keeps to, an integer in [2; 1000] (1000:
 *   the event source mapping's highest MaximumConcurrency, which "native with the full budget each" writes). A pool's
 *   budget is its size; an API's is its rate × item time ÷ calls per item.
 * - `members`: 1 to 20, each `name` (unique, letters, digits, `.`, `_`, `-`), `load` (a load file, relative to
 *   this file), and optional `targetAgeSeconds`, `minConcurrency` (the control law's ranges; lambda defaults 60 and
 *   2), `maxConcurrency` (its own cap, if lower than what a controller gives it; absent: none of its own),
 *   `actuator` (the control law's: `provisioned` drives the mapping's provisioned mode, whole pollers of 10 from a
 *   floor of 20, under the shared budget and the age law per queue; the native baselines keep their MaximumConcurrency, its cap rounded down to whole pollers), `weight` (how much its lateness counts in the split, (0; 1000], default 1) and `itemMs` (replaces the load's
 *   `item_ms` in every phase, so one shape can be reused at another item time). A load file's own `@downstream`
 *   line is refused: the downstream is the group's.
 *
 * Everything is bounded, so what validates runs in bounded time and memory: at most 20 members, each load within a
 * load file's bounds, and the group within a single run's (limits.ts, `checkGroupRunSize`). Every problem is
 * reported at once, each naming the file, the field, the value and the allowed range.
 */
export interface GroupMember {
  readonly name: string;
  /** The load file, resolved. */
  readonly load: string;
  /** Its phases, `itemMs` applied. */
  readonly phases: readonly Phase[];
  readonly targetAgeSeconds?: number;
  readonly minConcurrency?: number;
  readonly maxConcurrency?: number;
  /** Its actuator (the control law's `actuator`): under the shared budget and the age law per queue. */
  readonly actuator?: ActuatorMode;
  readonly weight?: number;
  readonly itemMs?: number;
}

export interface GroupScenario {
  /** The file's name without `.json`. */
  readonly name: string;
  readonly source: string;
  readonly description?: string;
  readonly downstream: DownstreamModel;
  readonly budget: number;
  readonly members: readonly GroupMember[];
}

export const GROUP_LIMITS = {
  members: 20,
  budget: { min: EVENT_SOURCE_MAX_CONCURRENCY.min, max: EVENT_SOURCE_MAX_CONCURRENCY.max, integer: true },
  weight: { min: 0, max: 1000, minExclusive: true },
  // The shortest and longest item a load file accepts (lib/load-file/load-file.ts).
  itemMs: { min: 0.001, max: 900_000 },
  descriptionLength: 500,
} as const satisfies Record<string, Limit | number>;

export const GROUP_DIR = join(SCENARIO_DIR, 'groups');
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TOP_FIELDS = ['description', 'downstream', 'budget', 'members'];
const MEMBER_FIELDS = [
  'name',
  'load',
  'targetAgeSeconds',
  'minConcurrency',
  'maxConcurrency',
  'actuator',
  'weight',
  'itemMs',
];
const SETTINGS_FIELDS = ['targetAgeSeconds', 'minConcurrency', 'maxConcurrency', 'actuator'] as const;

/** The static split every member gets without a shared budget: ⌊budget ÷ n⌋, at least the mapping's minimum 2. */
export function staticSplit(budget: number, members: number): number {
  return Math.max(EVENT_SOURCE_MAX_CONCURRENCY.min, Math.floor(budget / members));
}

function range(limit: Limit): string {
  return `${limit.minExclusive ? '(' : '['}${limit.min}; ${limit.max}]`;
}

/** Parses and checks a group file's text; `source` is its path (load files are found relative to it). */
export function parseGroupScenario(text: string, source: string): GroupScenario {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${source} is not valid JSON: ${(error as Error).message}`]);
  }
  if (!isObject(raw)) throw new ConfigError([`${source} must hold a JSON object`]);
  const problems: string[] = [];
  const at = (message: string) => problems.push(`${source}: ${message}`);
  for (const field of Object.keys(raw))
    if (!TOP_FIELDS.includes(field)) at(`unknown field ${shown(field)} (known: ${TOP_FIELDS.join(', ')})`);

  const description = raw.description;
  if (
    description !== undefined &&
    (typeof description !== 'string' || description.length > GROUP_LIMITS.descriptionLength)
  )
    at(
      `description = ${shown(description)}: must be a string of at most ${GROUP_LIMITS.descriptionLength} characters`,
    );

  let downstream: DownstreamModel = {};
  if (!isObject(raw.downstream)) {
    at(
      `downstream = ${shown(raw.downstream)}: must be an object of ${Object.keys(DOWNSTREAM_LIMITS).join(', ')} (the capacity the members share)`,
    );
  } else {
    const fieldProblems: string[] = [];
    downstream = checkedNumbers('downstream.', raw.downstream, DOWNSTREAM_LIMITS, fieldProblems);
    for (const p of fieldProblems) at(p);
    if (
      fieldProblems.length === 0 &&
      downstream.connectionPool === undefined &&
      downstream.apiRatePerSecond === undefined
    )
      at(
        'downstream has no capacity: give connectionPool, apiRatePerSecond or both (a group shares a downstream that has a limit)',
      );
    if (downstream.callsPerItem !== undefined && downstream.apiRatePerSecond === undefined)
      at(
        'downstream.callsPerItem is given without downstream.apiRatePerSecond: calls count only against a rate',
      );
  }

  const budget = raw.budget;
  const budgetLimit = GROUP_LIMITS.budget;
  const budgetOk =
    typeof budget === 'number' &&
    Number.isInteger(budget) &&
    budget >= budgetLimit.min &&
    budget <= budgetLimit.max;
  if (!budgetOk)
    at(
      `budget = ${shown(budget)}: must be an integer in ${range(budgetLimit)} (concurrent executions the members share; at most the mapping's highest MaximumConcurrency, ${budgetLimit.max})`,
    );

  const members: GroupMember[] = [];
  const list = raw.members;
  if (!Array.isArray(list) || list.length === 0 || list.length > GROUP_LIMITS.members) {
    at(
      Array.isArray(list)
        ? `members has ${list.length} entries: must be 1 to ${GROUP_LIMITS.members} members, each {name, load, ...}`
        : `members = ${shown(list)}: must be an array of 1 to ${GROUP_LIMITS.members} members, each {name, load, ...}`,
    );
  } else {
    const seen = new Set<string>();
    list.forEach((entry: unknown, i) => {
      const member = memberOf(entry, i, source, seen, problems);
      if (member !== undefined) members.push(member);
    });
    if (budgetOk && members.length === list.length) checkBudget(budget as number, members, at);
  }
  if (problems.length === 0) {
    try {
      checkGroupRunSize(
        members.map((m) => m.phases),
        PRESETS.lambda.settings.tickSeconds,
      );
    } catch (error) {
      if (!(error instanceof LoadFileError)) throw error;
      at(error.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    name: basename(source).replace(/\.json$/i, ''),
    source,
    ...(typeof description === 'string' ? { description } : {}),
    downstream,
    budget: budget as number,
    members,
  };
}

/** One member, checked; undefined (with its problems recorded) when it cannot run. */
function memberOf(
  entry: unknown,
  i: number,
  source: string,
  seen: Set<string>,
  problems: string[],
): GroupMember | undefined {
  const before = problems.length;
  const where = `members[${i}]`;
  const at = (message: string) => problems.push(`${source}: ${message}`);
  if (!isObject(entry)) {
    at(`${where} = ${shown(entry)}: must be an object {name, load, ...}`);
    return undefined;
  }
  for (const field of Object.keys(entry))
    if (!MEMBER_FIELDS.includes(field))
      at(`unknown field ${shown(`${where}.${field}`)} (known: ${MEMBER_FIELDS.join(', ')})`);
  const name = entry.name;
  if (typeof name !== 'string' || !NAME.test(name))
    at(
      `${where}.name = ${shown(name)}: must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  else if (seen.has(name)) at(`${where}.name = ${shown(name)}: appears twice; names must be unique`);
  else seen.add(name);
  const label = typeof name === 'string' && NAME.test(name) ? `${where} (${name})` : where;

  const numbers = checkedNumbers(
    `${label}.`,
    Object.fromEntries(Object.entries(entry).filter(([k]) => k === 'weight' || k === 'itemMs')),
    { weight: GROUP_LIMITS.weight, itemMs: GROUP_LIMITS.itemMs },
    problems,
  );
  // checkedNumbers names its problems without the file: add it.
  for (let p = before; p < problems.length; p++)
    if (!(problems[p] as string).startsWith(`${source}: `)) problems[p] = `${source}: ${problems[p]}`;

  // The control law's own validator checks its settings, with its messages (field, value, range).
  const settings = Object.fromEntries(
    Object.entries(entry).filter(([k]) => (SETTINGS_FIELDS as readonly string[]).includes(k)),
  );
  let given: Pick<GroupMember, (typeof SETTINGS_FIELDS)[number]> = {};
  try {
    const config = resolveScalerConfig(
      { maxConcurrency: EVENT_SOURCE_MAX_CONCURRENCY.max, ...settings },
      { defaults: PRESETS.lambda.settings, label: (field) => `${label}.${field}` },
    );
    // The validated values (the validator reads "60" as 60), for the fields the member gave.
    given = Object.fromEntries(
      Object.keys(settings).map((field) => [field, config[field as keyof typeof config]]),
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const p of error.problems) at(p);
  }

  let phases: Phase[] | undefined;
  const load = entry.load;
  let path = '';
  if (typeof load !== 'string' || !load.toLowerCase().endsWith('.csv')) {
    at(`${label}.load = ${shown(load)}: must be the path of a load file (.csv), relative to this file`);
  } else {
    path = resolve(dirname(source), load);
    try {
      const scenario = readLoadFile(path);
      if (scenario.downstream !== undefined)
        at(
          `${label}.load = ${shown(load)}: the file has its own @downstream line; in a group the downstream is the group's (give it under "downstream"), so take the line out or use another file`,
        );
      phases = [...scenario.phases];
    } catch (error) {
      if (!(error instanceof LoadFileError)) throw error;
      at(`${label}.load = ${shown(load)}: ${error.message}`);
    }
  }
  if (problems.length > before || phases === undefined) return undefined;
  const itemMs = numbers.itemMs;
  return {
    name: name as string,
    load: path,
    phases: itemMs === undefined ? phases : phases.map((p) => ({ ...p, itemMs })),
    ...given,
    ...numbers,
  };
}

/** The budget must hold every floor, and the static split must too (the baselines run on it). */
function checkBudget(budget: number, members: readonly GroupMember[], at: (message: string) => void): void {
  const floor = (m: GroupMember) => m.minConcurrency ?? PRESETS.lambda.settings.minConcurrency;
  const floors = members.reduce((sum, m) => sum + floor(m), 0);
  if (floors > budget)
    at(
      `budget = ${budget}: below the sum of the members' floors, ${floors} (${members.map((m) => `${m.name} ${floor(m)}`).join(', ')}): raise the budget or lower a minConcurrency`,
    );
  const split = Math.floor(budget / members.length);
  if (split < EVENT_SOURCE_MAX_CONCURRENCY.min)
    at(
      `budget = ${budget}: the static split ⌊budget ÷ ${members.length} members⌋ = ${split} is below the mapping's minimum MaximumConcurrency ${EVENT_SOURCE_MAX_CONCURRENCY.min}: the budget must be at least ${EVENT_SOURCE_MAX_CONCURRENCY.min * members.length}`,
    );
  for (const [i, m] of members.entries())
    if (floor(m) > split)
      at(
        `members[${i}] (${m.name}).minConcurrency = ${floor(m)}: above the static split ⌊${budget} ÷ ${members.length}⌋ = ${split}, which the baselines run each member at: at most ${split}`,
      );
}

export function loadGroupScenario(path: string): GroupScenario {
  return parseGroupScenario(readInputFile(path, 'group file'), path);
}

/** The group scenarios shipped in `scenarios/groups/`. */
export function shippedGroups(): string[] {
  return readdirSync(GROUP_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();
}

export function loadShippedGroup(name: string): GroupScenario {
  const known = shippedGroups();
  if (!known.includes(name))
    throw new ConfigError([`unknown group scenario '${name}' (known: ${known.join(', ')})`]);
  return loadGroupScenario(join(GROUP_DIR, `${name}.json`));
}
