import { ConfigError } from '../lib/control/config.ts';
import { ScenarioError } from '../lib/sim/scenario.ts';

/** A user's mistake: printed as one line, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const USER_ERRORS = [UsageError, ConfigError, ScenarioError];

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
