/** `--watch` takes an optional number: parseArgs cannot say so, so a bare `--watch` becomes `--watch=10`. */
export function normalizeWatch(argv: readonly string[], fallbackSeconds = 10): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--watch') return arg;
    const next = argv[i + 1];
    // Anything but another flag is its value, checked where the interval is read: `--watch abc` is then an error
    // about --watch, not "unexpected argument 'abc'" (a negative number is a value too).
    const value = next !== undefined && (!next.startsWith('-') || /^-[\d.]/.test(next));
    return value ? arg : `--watch=${fallbackSeconds}`;
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

/** The tools' one spelling for one thing: `trace`'s `--queue` and `--function` are `--queue-url` and `--function-name`. */
const FLAG_ALIASES: Readonly<Record<string, string>> = {
  '--queue': '--queue-url',
  '--function': '--function-name',
};

/**
 * `argv` with each alias written as the flag it stands for (`--queue URL`, `--queue=URL`). Both spellings of one
 * flag at once throw, naming them (a parse error: the command line's mistake).
 */
export function spelledAsOne(argv: readonly string[]): string[] {
  const seen = new Map<string, string>();
  return argv.map((arg) => {
    const [flag = '', ...rest] = arg.split('=');
    const canonical = FLAG_ALIASES[flag] ?? flag;
    if (canonical !== flag || Object.values(FLAG_ALIASES).includes(flag)) {
      const earlier = seen.get(canonical);
      if (earlier !== undefined && earlier !== flag) throw new Error(`give ${earlier} or ${flag}, not both`);
      seen.set(canonical, flag);
    }
    return rest.length > 0 ? `${canonical}=${rest.join('=')}` : canonical;
  });
}
