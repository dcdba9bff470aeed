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
