import { ConfigError } from '../lib/control/config.ts';
import { LoadFileError } from '../lib/load-file/load-file.ts';

/** Set by the package's `queue-age-scaler` command before it loads a tool, so the tool's help shows that command. */
export const PACKAGED_CLI_VARIABLE = 'QUEUE_AGE_SCALER_CLI';

const CHECKOUT_COMMANDS = {
  simulate: 'npm start --',
  bench: 'npm run bench --',
  load: 'npm run load --',
  status: 'npm run status --',
  trace: 'npm run trace --',
  recommend: 'npm run recommend --',
} as const;

/**
 * How the user runs a tool, for its help text and examples: `queue-age-scaler load` from an installed package
 * (`npx queue-age-scaler load`), `npm run load --` in a checkout of this repository.
 */
export function invokedAs(tool: keyof typeof CHECKOUT_COMMANDS): string {
  return process.env[PACKAGED_CLI_VARIABLE] === '1'
    ? `npx queue-age-scaler ${tool}`
    : CHECKOUT_COMMANDS[tool];
}

/** A user's mistake: printed as one line, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Runs a parseArgs call, turning its complaint (an unknown option, a missing value) into one usage line. */
export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\s*\n\s*/g, ' ')} (see --help)`);
  }
}

const USER_ERRORS = [UsageError, ConfigError, LoadFileError];

/** Runs a CLI's main: a user's mistake exits 2 with one line; anything else is a bug and keeps its stack. */
export async function runCli(program: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (USER_ERRORS.some((kind) => error instanceof kind)) {
      console.error(`${program}: ${(error as Error).message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
