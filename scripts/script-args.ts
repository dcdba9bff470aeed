import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A measuring script's options (`options` must declare `help`), positionals allowed (`--trace a.csv b.csv`, as a
 * shell glob gives them): `--help` prints `usage` and exits 0; an unknown option is a user's mistake, so it says
 * which and how to call the script, exit 2, no stack trace.
 */
export function scriptArgs<T extends Options>(options: T, usage: string) {
  try {
    const parsed = parseArgs({ allowPositionals: true, options });
    if ((parsed.values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
}

/**
 * What `read` returns, or, where it throws (a `--seeds` that is no range, a load file that cannot be read or
 * parsed: the user's mistake), its message and exit 2, no stack trace.
 */
export function orExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}
