/**
 * What an AWS error means for a tick. The SDK has already retried throttling and 5xx with its adaptive mode
 * (see `clients.ts`); what reaches here is final for this tick.
 */
export type FailureKind = 'throttled' | 'conflict' | 'not-found' | 'invalid-parameter' | 'service' | 'other';

interface AwsLikeError {
  readonly name?: string;
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
    case 'ResourceConflictException':
      return 'conflict';
    case 'ResourceNotFoundException':
    case 'QueueDoesNotExist':
    case 'AWS.SimpleQueueService.NonExistentQueue':
      return 'not-found';
    case 'InvalidParameterValueException':
      return 'invalid-parameter';
  }
  if (status === 429) return 'throttled';
  if (e.$fault === 'server' || (status !== undefined && status >= 500)) return 'service';
  return 'other';
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
