import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/**
 * A load is a phase file: CSV with the header `duration_s,rate_per_s,item_ms`, one row per phase. The simulator
 * replays it and `npm run load` sends it to a real queue, so the load predicted and the load sent are one file.
 */
export interface Phase {
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly itemMs: number;
}

export interface Scenario {
  readonly name: string;
  readonly phases: readonly Phase[];
}

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

export const PHASE_HEADER = ['duration_s', 'rate_per_s', 'item_ms'] as const;
export const SCENARIO_DIR = resolve(import.meta.dirname, '../../scenarios');

const LIMITS = {
  duration_s: { min: 0, max: 30 * 86_400, exclusive: true, what: 'seconds' },
  rate_per_s: { min: 0, max: 1_000_000, exclusive: false, what: 'messages per second' },
  item_ms: { min: 0, max: 900_000, exclusive: true, what: 'milliseconds (Lambda times out at 15 minutes)' },
} as const;

/** Parses a phase file's text; `source` names it in errors (`file.csv line 3: rate_per_s = -5: …`). */
export function parsePhases(text: string, source: string): Phase[] {
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'));
  const header = lines.shift();
  if (header === undefined)
    throw new ScenarioError(`${source}: empty; expected the header ${PHASE_HEADER.join(',')}`);
  const columns = header.line.split(',').map((c) => c.trim());
  if (columns.join(',') !== PHASE_HEADER.join(',')) {
    throw new ScenarioError(
      `${source} line ${header.number}: header is '${header.line}', expected '${PHASE_HEADER.join(',')}'`,
    );
  }
  if (lines.length === 0) throw new ScenarioError(`${source}: no phases after the header`);
  return lines.map(({ line, number }) => {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== PHASE_HEADER.length) {
      throw new ScenarioError(
        `${source} line ${number}: '${line}' has ${cells.length} fields, expected ${PHASE_HEADER.length} (${PHASE_HEADER.join(',')})`,
      );
    }
    const values = PHASE_HEADER.map((column, i) => {
      const cell = cells[i] ?? '';
      const value = cell === '' ? Number.NaN : Number(cell);
      const limit = LIMITS[column];
      const aboveMin = limit.exclusive ? value > limit.min : value >= limit.min;
      if (!Number.isFinite(value) || !aboveMin || value > limit.max) {
        throw new ScenarioError(
          `${source} line ${number}: ${column} = '${cell}': must be a number in ${limit.exclusive ? '(' : '['}${limit.min}; ${limit.max}] (${limit.what})`,
        );
      }
      return value;
    });
    const [durationSeconds, ratePerSecond, itemMs] = values as [number, number, number];
    return { durationSeconds, ratePerSecond, itemMs };
  });
}

export function loadPhaseFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(
      `cannot read phase file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return { name: basename(path).replace(/\.csv$/i, ''), phases: parsePhases(text, path) };
}

/** The scenarios shipped in `scenarios/`. */
export function shippedScenarios(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => f.replace(/\.csv$/, ''))
    .sort();
}

export function loadScenario(name: string): Scenario {
  const known = shippedScenarios();
  if (!known.includes(name))
    throw new ScenarioError(`unknown scenario '${name}' (known: ${known.join(', ')})`);
  return loadPhaseFile(join(SCENARIO_DIR, `${name}.csv`));
}

export function totalSeconds(phases: readonly Phase[]): number {
  return phases.reduce((sum, p) => sum + p.durationSeconds, 0);
}
