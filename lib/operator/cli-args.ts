/** `--watch` takes an optional number: parseArgs cannot say so, so a bare `--watch` becomes `--watch=10`. */
export function normalizeWatch(argv: readonly string[], fallbackSeconds = 10): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--watch') return arg;
    const next = argv[i + 1];
    return next !== undefined && /^\d+(\.\d+)?$/.test(next) ? arg : `--watch=${fallbackSeconds}`;
  });
}
