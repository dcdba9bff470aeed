/**
 * What an AWS error means for a tick. The SDK has already retried throttling, 5xx and timed-out attempts with its
 * adaptive mode (see `clients.ts`); what reaches here is final for this tick.
 */
export type FailureKind =
  | 'throttled'
  | 'conflict'
  | 'not-found'
  | 'invalid-parameter'
  | 'service'
  | 'timeout'
  | 'other';

/**
 * The SDK's HTTP handler (@smithy/node-http-handler 4.x) throws `TimeoutError` when one of the client's timeouts
 * fires (`clients.ts`): the connection timeout ("did not establish a connection … within … ms", no code), the
 * request timeout ("exceeded the configured … ms requestTimeout", code `ETIMEDOUT`) and the socket timeout
 * ("timed out after … ms of inactivity"). It also renames a socket error with code `ECONNRESET` or `EPIPE` to
 * `TimeoutError` ("socket hang up"): the endpoint closed the connection, it did not fail to answer in time.
 */
export const CONNECTION_DROPPED_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

interface AwsLikeError {
  readonly name?: string;
  readonly code?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly $fault?: 'client' | 'server';
}

export function failureKind(error: unknown): FailureKind {
  const e = (error ?? {}) as AwsLikeError;
  const status = e.$metadata?.httpStatusCode;
  switch (e.name) {
    case 'TooManyRequestsException':
    case 'ThrottlingException':
    case 'Throttling':
    case 'RequestLimitExceeded':
    case 'LimitExceededException':
      return 'throttled';
    // Lambda: ResourceConflictException while a function is being updated; ResourceInUseException while a mapping
    // is (AWS: "you tried to update an event source mapping in the CREATING state"). Both end with the update: the
    // tick is skipped, and the next one writes again.
    case 'ResourceConflictException':
    case 'ResourceInUseException':
      return 'conflict';
    case 'ResourceNotFoundException':
    case 'QueueDoesNotExist':
    case 'AWS.SimpleQueueService.NonExistentQueue':
      return 'not-found';
    case 'InvalidParameterValueException':
      return 'invalid-parameter';
  }
  if (e.name === 'TimeoutError' && !CONNECTION_DROPPED_CODES.has(String(e.code))) return 'timeout';
  if (status === 429) return 'throttled';
  if (e.$fault === 'server' || (status !== undefined && status >= 500)) return 'service';
  return 'other';
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
