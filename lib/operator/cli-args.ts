/** `--watch` takes an optional number: parseArgs cannot say so, so a bare `--watch` becomes `--watch=10`. */
export function normalizeWatch(argv: readonly string[], fallbackSeconds = 10): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--watch') return arg;
    const next = argv[i + 1];
    return next !== undefined && /^\d+(\.\d+)?$/.test(next) ? arg : `--watch=${fallbackSeconds}`;
  });
}

/** What a bare `--budget` becomes: no name anyone types (an empty `--budget=` is still refused as a name). */
export const STACK_BUDGET = '\u0000the stack’s';

/**
 * `--budget` takes an optional name (alone, with `--stack`: the stack's budget): parseArgs cannot say so, so a bare
 * `--budget` becomes `--budget=` + `STACK_BUDGET`.
 */
export function normalizeBareBudget(argv: readonly string[]): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--budget') return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('--') ? `--budget=${STACK_BUDGET}` : arg;
  });
}
