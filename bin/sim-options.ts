import { type LoadFile, scaleScenario } from '../lib/load-file/load-file.ts';
import { MAX_SEED } from '../lib/sim/random.ts';
import { UsageError } from './cli-error.ts';

/**
 * Options `npm start` and `npm run bench` share. `--rate-scale` and `--time-scale` read as `npm run load` reads them
 * (a number > 0), so one load file replays alike in the simulator and against a queue.
 */
export function scaleOption(flag: string, raw: string | undefined): number {
  if (raw === undefined) return 1;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} '${raw}': must be a number > 0`);
  }
  return value;
}

export function scaled(
  scenario: LoadFile,
  rateRaw: string | undefined,
  timeRaw: string | undefined,
): LoadFile {
  return scaleScenario(scenario, scaleOption('--rate-scale', rateRaw), scaleOption('--time-scale', timeRaw));
}

/** `--seed`: a plain whole number the generator uses in full (its state is 32 bits), so two seeds are two runs. */
export function seedOption(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > MAX_SEED)
    throw new UsageError(
      `--seed '${raw}': must be a whole number in [0; ${MAX_SEED}] (the generator's state is 32 bits)`,
    );
  return value;
}

/** Output piped into `head` closes early: stop quietly rather than die with a stack trace on EPIPE. */
export function quietOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
