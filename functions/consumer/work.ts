/**
 * The example consumer's unit of work: wait a configurable time per item, standing in for a downstream call
 * (the seed's items each awaited 20 ms). Pure apart from the injected `sleep`, so tests feed it plain values.
 */

/** Environment variable: milliseconds one item takes. */
export const WORK_MILLISECONDS_VARIABLE = 'WORK_MILLISECONDS';
/** The seed's item time. */
export const DEFAULT_WORK_MILLISECONDS = 20;
// A Lambda invocation may last 15 minutes; one item may not take longer than the function can run.
export const MAX_WORK_MILLISECONDS = 900_000;

export class ConsumerConfigError extends Error {
  override name = 'ConsumerConfigError';
}

/** Reads the per-item time; throws one message naming the variable, the value and the allowed range. */
export function workMillisecondsFrom(env: Record<string, string | undefined>): number {
  const raw = env[WORK_MILLISECONDS_VARIABLE];
  if (raw === undefined || raw.trim() === '') return DEFAULT_WORK_MILLISECONDS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > MAX_WORK_MILLISECONDS) {
    throw new ConsumerConfigError(
      `${WORK_MILLISECONDS_VARIABLE} = '${raw}': must be a number in [0; ${MAX_WORK_MILLISECONDS}] (milliseconds per item)`,
    );
  }
  return value;
}

/** Thrown for a message that asks to fail, so the redrive path and the DLQ alarm can be exercised on purpose. */
export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}

/** A body `{"fail": true}` fails on purpose; any other body (JSON or not) is worked on. */
export function asksToFail(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && (parsed as { fail?: unknown }).fail === true;
  } catch {
    return false;
  }
}

export async function work(
  body: string,
  workMilliseconds: number,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  if (asksToFail(body)) throw new PoisonMessageError('the message asked to fail ({"fail": true})');
  await sleep(workMilliseconds);
}
