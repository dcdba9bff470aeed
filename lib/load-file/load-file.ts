import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { shown } from '../control/shown.ts';
import { FileReadError, readBoundedText } from './bounded-read.ts';

/**
 * A load is a load file: CSV with the header `duration_s,rate_per_s,item_ms`, one row per phase. The simulator
 * replays it and `npm run load` sends it to a real queue, so the load predicted and the load sent are one file.
 * Lines starting with `#` are comments. A line starting with `@downstream` gives the downstream a capacity (the
 * simulator's model; `load` ignores it):
 *
 *   @downstream connection_pool=20
 *   @downstream api_rate_per_s=300 calls_per_item=1
 *   @downstream connection_pool=20 health_threshold=5   (the controller reads waits + 429s a period: unhealthy above 5)
 *
 * After the three required columns the header may name `observed_age_s` and `observed_concurrency`, each at most
 * once: what a queue's history showed in that phase (`npm run trace` writes them), kept so a replay can be set
 * beside what happened. Their cells may be empty (not observed); the simulator and `load` ignore them.
 */
/**
 * A `@downstream` line: what the items call, with a capacity (the simulator's model of it: lib/sim/downstream.ts).
 * A connection pool of `connectionPool` connections, and/or an API at `apiRatePerSecond` calls a second.
 */
export interface DownstreamModel {
  readonly connectionPool?: number;
  readonly apiRatePerSecond?: number;
  /** Calls one item makes. @default 1 */
  readonly callsPerItem?: number;
  /**
   * The downstream's health signal as the simulated controller reads it (the construct's `downstreamHealth`): the
   * items that waited for a connection plus the calls refused, per metric period; above this many, unhealthy.
   * @default no health signal
   */
  readonly healthThreshold?: number;
}

export interface Phase {
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly itemMs: number;
  /** What was observed in this phase, when the file has the optional columns and the row a value in them. */
  readonly observed?: PhaseObservation;
}

export interface PhaseObservation {
  /** `observed_age_s`: the oldest message's age, seconds. */
  readonly ageSeconds?: number;
  /** `observed_concurrency`: the consumer's concurrent executions. */
  readonly concurrency?: number;
}

export interface LoadFile {
  readonly name: string;
  readonly phases: readonly Phase[];
  /** What the items call, when the file gives it a capacity. */
  readonly downstream?: DownstreamModel;
  /** The multipliers applied by `scaleScenario` (absent: as written). */
  readonly scale?: { readonly rate: number; readonly time: number };
}

export class LoadFileError extends Error {
  override name = 'LoadFileError';
}

export const PHASE_HEADER = ['duration_s', 'rate_per_s', 'item_ms'] as const;
/** The optional columns after `PHASE_HEADER`, in any order, each at most once. */
export const OBSERVED_COLUMNS = ['observed_age_s', 'observed_concurrency'] as const;
type ObservedColumn = (typeof OBSERVED_COLUMNS)[number];
export const SCENARIO_DIR = resolve(import.meta.dirname, '../../scenarios');

interface Limit {
  readonly min: number;
  readonly max: number;
  readonly minExclusive: boolean;
  readonly integer?: boolean;
  readonly what: string;
}

// A millisecond is the shortest phase that is not noise; a microsecond the shortest item.
const LIMITS: Record<(typeof PHASE_HEADER)[number], Limit> = {
  duration_s: { min: 0.001, max: 30 * 86_400, minExclusive: false, what: 'seconds' },
  rate_per_s: { min: 0, max: 1_000_000, minExclusive: false, what: 'messages per second' },
  item_ms: {
    min: 0.001,
    max: 900_000,
    minExclusive: false,
    what: 'milliseconds (Lambda times out at 15 minutes)',
  },
};

// SQS keeps a message 14 days at most, so no message is older; a million concurrent executions is far above any
// account's quota. Both are what the history showed, so 0 is a value.
const OBSERVED: Record<ObservedColumn, { field: keyof PhaseObservation; limit: Limit }> = {
  observed_age_s: {
    field: 'ageSeconds',
    limit: { min: 0, max: 14 * 86_400, minExclusive: false, what: 'seconds (SQS keeps a message 14 days)' },
  },
  observed_concurrency: {
    field: 'concurrency',
    limit: { min: 0, max: 1_000_000, minExclusive: false, what: 'concurrent executions' },
  },
};

const DOWNSTREAM_KEYS: Record<string, { field: keyof DownstreamModel; limit: Limit }> = {
  connection_pool: {
    field: 'connectionPool',
    limit: { min: 1, max: 100_000, minExclusive: false, integer: true, what: 'connections' },
  },
  api_rate_per_s: {
    field: 'apiRatePerSecond',
    limit: { min: 0, max: 1_000_000_000, minExclusive: true, what: 'calls per second' },
  },
  calls_per_item: {
    field: 'callsPerItem',
    limit: { min: 0, max: 1000, minExclusive: true, what: 'calls' },
  },
  health_threshold: {
    field: 'healthThreshold',
    limit: { min: 0, max: 1_000_000_000, minExclusive: false, what: 'waits and refused calls a period' },
  },
};

// Plain decimal only: digits with an optional point and sign. Number() would also read 0x3c as 60, 0b1010 as 10
// and 1e-300 as a number, none of which belongs in a hand-written load file.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function range(limit: Limit): string {
  return `${limit.minExclusive ? '(' : '['}${limit.min}; ${limit.max}]`;
}

/** The cell's value, or a message naming it as given. */
function decimal(cell: string, name: string, limit: Limit, where: string): number {
  const value = DECIMAL.test(cell) ? Number(cell) : Number.NaN;
  const aboveMin = limit.minExclusive ? value > limit.min : value >= limit.min;
  if (
    !Number.isFinite(value) ||
    !aboveMin ||
    value > limit.max ||
    (limit.integer && !Number.isInteger(value))
  ) {
    throw new LoadFileError(
      `${where}: ${name} = ${shown(cell)}: must be ${limit.integer ? 'an integer' : 'a number'} in ${range(limit)} (${limit.what}), written as a plain decimal (no exponent, hex or binary)`,
    );
  }
  return value;
}

function parseDownstream(line: string, where: string, into: Record<string, number>): void {
  const [directive, ...pairs] = line.split(/\s+/);
  if (directive !== '@downstream')
    throw new LoadFileError(`${where}: unknown directive ${shown(directive ?? '')} (known: @downstream)`);
  if (pairs.length === 0)
    throw new LoadFileError(
      `${where}: @downstream needs key=value pairs (${Object.keys(DOWNSTREAM_KEYS).join(', ')})`,
    );
  for (const pair of pairs) {
    const [key = '', cell, ...extra] = pair.split('=');
    const known = Object.hasOwn(DOWNSTREAM_KEYS, key) ? DOWNSTREAM_KEYS[key] : undefined;
    if (known === undefined || cell === undefined || extra.length > 0)
      throw new LoadFileError(
        `${where}: ${shown(pair)} is not one of ${Object.keys(DOWNSTREAM_KEYS)
          .map((k) => `${k}=N`)
          .join(', ')}`,
      );
    into[known.field] = decimal(cell, key, known.limit, where);
  }
}

/**
 * The optional columns after the required three, checked: the first three must be `PHASE_HEADER`, then only
 * `OBSERVED_COLUMNS`, each at most once.
 */
function observedColumns(columns: readonly string[], line: string, where: string): ObservedColumn[] {
  const expected = `'${PHASE_HEADER.join(',')}' (then optionally ${OBSERVED_COLUMNS.join(', ')})`;
  if (columns.slice(0, PHASE_HEADER.length).join(',') !== PHASE_HEADER.join(','))
    throw new LoadFileError(`${where}: header is ${shown(line)}, expected ${expected}`);
  const extra = columns.slice(PHASE_HEADER.length);
  extra.forEach((column, i) => {
    if (!(OBSERVED_COLUMNS as readonly string[]).includes(column))
      throw new LoadFileError(
        `${where}: header column ${shown(column)} is not known: after ${PHASE_HEADER.join(',')} a load file may have only ${OBSERVED_COLUMNS.join(', ')}`,
      );
    if (extra.indexOf(column) !== i)
      throw new LoadFileError(`${where}: header column ${shown(column)} is given twice`);
  });
  return extra as ObservedColumn[];
}

/** Parses a load file's text; `source` names it in errors (`file.csv line 3: rate_per_s = '-5': …`). */
export function parseScenarioText(text: string, source: string): Omit<LoadFile, 'name'> {
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'));
  const downstream: Record<string, number> = {};
  const rows = lines.filter(({ line, number }) => {
    if (!line.startsWith('@')) return true;
    parseDownstream(line, `${source} line ${number}`, downstream);
    return false;
  });
  const header = rows.shift();
  if (header === undefined)
    throw new LoadFileError(`${source}: empty; expected the header ${PHASE_HEADER.join(',')}`);
  const columns = header.line.split(',').map((c) => c.trim());
  const extra = observedColumns(columns, header.line, `${source} line ${header.number}`);
  if (rows.length === 0) throw new LoadFileError(`${source}: no phases after the header`);
  const phases = rows.map(({ line, number }): Phase => {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== columns.length) {
      throw new LoadFileError(
        `${source} line ${number}: ${shown(line)} has ${cells.length} fields, expected ${columns.length} (${columns.join(',')})`,
      );
    }
    const where = `${source} line ${number}`;
    const [durationSeconds, ratePerSecond, itemMs] = PHASE_HEADER.map((column, i) =>
      decimal(cells[i] ?? '', column, LIMITS[column], where),
    ) as [number, number, number];
    const observed: Record<string, number> = {};
    extra.forEach((column, i) => {
      const cell = cells[PHASE_HEADER.length + i] ?? '';
      if (cell === '') return;
      const { field, limit } = OBSERVED[column];
      observed[field] = decimal(cell, column, limit, where);
    });
    return Object.keys(observed).length === 0
      ? { durationSeconds, ratePerSecond, itemMs }
      : { durationSeconds, ratePerSecond, itemMs, observed };
  });
  return Object.keys(downstream).length === 0 ? { phases } : { phases, downstream };
}

/** The phases of a load file's text (its `@downstream` line, if any, is checked and left out). */
export function parsePhases(text: string, source: string): Phase[] {
  return [...parseScenarioText(text, source).phases];
}

/**
 * The most a load file may weigh: within the simulator's 100,000 phases a row is a few dozen bytes, so even with
 * long comments a real one is a few MB; a larger file is refused before it is read whole.
 */
export const LOAD_FILE_MAX_BYTES = 64 << 20;

/** A load file's text, bounded (`readBoundedText`; its byte-order mark dropped). */
function readLoadFileText(path: string): string {
  try {
    return readBoundedText(
      path,
      'load file',
      LOAD_FILE_MAX_BYTES,
      'a load file within 100,000 phases is a few MB',
    );
  } catch (error) {
    throw error instanceof FileReadError ? new LoadFileError(error.message) : error;
  }
}

export function readLoadFile(path: string): LoadFile {
  return readLoadFileAndText(path).file;
}

/** The load file and its text as read (for what the phases leave out: `trace`'s start line). */
export function readLoadFileAndText(path: string): { readonly file: LoadFile; readonly text: string } {
  const text = readLoadFileText(path);
  return { file: { name: basename(path).replace(/\.csv$/i, ''), ...parseScenarioText(text, path) }, text };
}

/** The scenarios shipped in `scenarios/`. */
export function shippedScenarios(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => f.replace(/\.csv$/, ''))
    .sort();
}

export function loadScenario(name: string): LoadFile {
  const known = shippedScenarios();
  if (!known.includes(name))
    throw new LoadFileError(`unknown scenario '${name}' (known: ${known.join(', ')})`);
  return readLoadFile(join(SCENARIO_DIR, `${name}.csv`));
}

export function totalSeconds(phases: readonly Phase[]): number {
  return phases.reduce((sum, p) => sum + p.durationSeconds, 0);
}

/**
 * The same semantics as `npm run load`'s `--rate-scale`/`--time-scale` (lib/operator/plan.ts): every rate × `rate`,
 * every duration × `time`, item times unchanged. A real trace of 2 requests/s replays at 200/s with rate 100.
 */
export function scaleScenario(scenario: LoadFile, rate: number, time: number): LoadFile {
  for (const [flag, value] of [
    ['--rate-scale', rate],
    ['--time-scale', time],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0)
      throw new LoadFileError(
        `${flag} = ${value}: must be a number > 0 (a multiplier, e.g. 0.1 for a tenth)`,
      );
  }
  if (rate === 1 && time === 1) return scenario;
  return {
    ...scenario,
    phases: scenario.phases.map((p) => ({
      durationSeconds: p.durationSeconds * time,
      ratePerSecond: p.ratePerSecond * rate,
      itemMs: p.itemMs,
    })),
    scale: { rate, time },
  };
}
