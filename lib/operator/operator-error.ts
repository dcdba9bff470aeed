import { CONNECTION_DROPPED_CODES, errorMessage, failureKind } from '../aws/aws-errors.ts';

/** Something the operator can fix (a wrong name, an unreachable endpoint): shown as one line, no stack. */
export class OperatorError extends Error {
  override name = 'OperatorError';
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
]);

function whatToCheck(endpoint: string | undefined): string {
  return endpoint === undefined ? 'check the network (a proxy?) and the region' : 'check --endpoint';
}

function networkCode(error: unknown): string | undefined {
  let e: unknown = error;
  // Node puts the socket's code on the error or on its cause (fetch, AggregateError).
  for (let depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const errors = (e as { errors?: unknown[] }).errors;
    const inner = Array.isArray(errors) ? errors[0] : undefined;
    e = (e as { cause?: unknown }).cause ?? inner;
  }
  return undefined;
}

/**
 * The SDK's own timeouts (lib/operator/clients.ts sets them) end an attempt with a `TimeoutError`; after its last
 * attempt that error is what the call throws. Says which of the two limits was hit, and after how many attempts.
 */
function explainTimeout(error: unknown, endpoint: string | undefined): string | undefined {
  // A hang-up is a TimeoutError too, but no timeout: failureKind tells them apart.
  if (failureKind(error) !== 'timeout') return undefined;
  const e = error as { message?: unknown; $metadata?: { attempts?: number } };
  const message = String(e.message ?? '');
  const limit = /(\d+) ms/.exec(message)?.[1];
  const within = limit === undefined ? '' : ` within ${Number(limit) / 1000} s`;
  const tries = e.$metadata?.attempts === undefined ? '' : `, ${e.$metadata.attempts} attempts`;
  const where = endpoint ?? 'AWS';
  const check = whatToCheck(endpoint);
  return /establish a connection/.test(message)
    ? `cannot connect to ${where} (no connection${within}${tries}): ${check}`
    : `${where} accepted the connection but did not answer${within}${tries}: ${check}`;
}

/**
 * Turns an AWS or network failure into one line that says which call on what failed and what to check. Anything
 * that is not recognisably the operator's to fix is returned as is (a bug keeps its stack).
 */
export function explainAwsError(error: unknown, what: string, endpoint: string | undefined): unknown {
  if (error instanceof OperatorError) return error;
  const where = endpoint ?? 'AWS';
  const timedOut = explainTimeout(error, endpoint);
  if (timedOut !== undefined) return new OperatorError(`${what}: ${timedOut}`);
  const code = networkCode(error);
  // The endpoint closed the connection: no timeout, though the SDK names it `TimeoutError` (aws-errors.ts).
  if (code !== undefined && CONNECTION_DROPPED_CODES.has(code)) {
    return new OperatorError(
      `${what}: ${where} closed the connection without answering (${code}): ${whatToCheck(endpoint)}`,
    );
  }
  if (code !== undefined) return new OperatorError(`${what}: cannot reach ${where} (${code})`);
  const name = (error as { name?: string } | undefined)?.name ?? '';
  if (name === 'CredentialsProviderError') {
    return new OperatorError(`${what}: no AWS credentials (set AWS_PROFILE or AWS_ACCESS_KEY_ID)`);
  }
  if (failureKind(error) === 'not-found')
    return new OperatorError(`${what}: not found (${errorMessage(error)})`);
  if ((error as { $metadata?: unknown } | undefined)?.$metadata !== undefined) {
    return new OperatorError(`${what}: ${errorMessage(error)}`);
  }
  // The SDK's parser choking on an HTML page: not an AWS endpoint (or an API the emulator lacks).
  if (error instanceof SyntaxError) {
    return new OperatorError(`${what}: ${where} answered something that is not an AWS response`);
  }
  return error;
}

/** Runs an AWS call whose failure is the operator's to fix, turning it into one `OperatorError` line. */
export async function explained<T>(
  call: () => Promise<T>,
  what: string,
  endpoint: string | undefined,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && /Region is missing/.test(error.message))
      throw new OperatorError('no AWS region: give --region or set AWS_REGION');
    // A region from AWS_REGION or the profile (--region is checked before any call).
    const badRegion =
      error instanceof Error ? /Region not accepted: region="(.*)"/.exec(error.message) : null;
    if (badRegion)
      throw new OperatorError(
        `region '${badRegion[1]}' (from AWS_REGION or your profile) is not a region name such as us-east-1`,
      );
    throw explainAwsError(error, what, endpoint);
  }
}
