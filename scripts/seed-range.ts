import { WORLD_LIMITS } from '../lib/sim/config-file.ts';

/**
 * The measuring scripts' `--seeds FROM-TO`: the seeds from FROM to TO, at most `most` of them (each seed is a run per
 * scenario, controller and reading, so the range bounds the script's time).
 */
export function seedsOf(given: string, most = 100): number[] {
  const match = /^(\d+)-(\d+)$/.exec(given);
  if (!match) throw new Error(`--seeds = '${given}': must be FROM-TO, e.g. 1-5`);
  const [from, to] = [Number(match[1]), Number(match[2])];
  if (to < from || to - from >= most)
    throw new Error(`--seeds = '${given}': FROM ≤ TO, at most ${most} seeds`);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/**
 * The measuring scripts' `--start S[,S…]`: the controller's offsets from the load's first second
 * (controllerStartSeconds), each a whole number of seconds within the simulator's range, at most `most` of them.
 */
export function startsOf(given: string, most = 6): number[] {
  const latest = WORLD_LIMITS.controllerStartSeconds?.max ?? 0;
  const parts = given.split(',');
  const starts = parts.map((part) => (/^\d+$/.test(part.trim()) ? Number(part.trim()) : Number.NaN));
  if (parts.length > most || starts.some((s) => !Number.isInteger(s) || s > latest))
    throw new Error(
      `--start = '${given}': whole seconds 0–${latest}, comma-separated, at most ${most}, e.g. 0,10,30`,
    );
  return [...new Set(starts)];
}
