import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { errorMessage, failureKind } from '../aws/aws-errors.ts';

/** One message of the load: stamped so the receiving side can measure how late it arrived and spot gaps. */
export interface LoadMessage {
  readonly sequence: number;
  readonly phase: number;
  /** Epoch milliseconds at which the plan meant it to be sent. */
  readonly intendedAt: number;
  readonly itemMs: number;
}

export function messageBody(run: string, m: LoadMessage): string {
  return JSON.stringify({
    run,
    seq: m.sequence,
    phase: m.phase,
    intendedAt: new Date(m.intendedAt).toISOString(),
    itemMs: m.itemMs,
  });
}

export interface BatchResult {
  readonly sent: number;
  /** Entries that still failed after every retry, with the last error code each got. */
  readonly failed: readonly { readonly sequence: number; readonly code: string }[];
  /** Entries re-sent after an entry or call failure (one count per re-send). */
  readonly retried: number;
}

export interface RetryPolicy {
  /** Attempts per entry, the first included. */
  readonly attempts: number;
  /** The first backoff; doubled per attempt, with full jitter. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000 };

/**
 * A call failure that no retry will fix (no such queue, access denied) or an endpoint that stopped answering: the
 * run stops. `result` is what this batch had come to when it stopped; `unsent` the sequence numbers of its entries
 * that were neither sent nor failed (the ones the aborting call carried).
 */
export class SendAbortError extends Error {
  override name = 'SendAbortError';
  constructor(
    message: string,
    readonly result?: BatchResult,
    readonly unsent: readonly number[] = [],
  ) {
    super(message);
  }
}

const ABORTING_CODES = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidAddress',
  'KMS.AccessDeniedException',
  'KMS.DisabledException',
  // The request itself is wrong (e.g. a FIFO queue's group id missing): every batch would fail the same way.
  'MissingParameter',
  'InvalidParameterValue',
]);

function aborts(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return failureKind(error) === 'not-found' || ABORTING_CODES.has(name);
}

export interface BatchSender {
  send(entries: readonly LoadMessage[]): Promise<BatchResult>;
}

/**
 * A FIFO queue refuses a message without a `MessageGroupId` (`MissingParameter`), and one without a
 * `MessageDeduplicationId` unless the queue has content-based deduplication. Message k goes to group
 * `g<k mod groups>`, so each group receives every groups-th message in order, and a Lambda consumer runs at most
 * `groups` invocations at once (SQS holds back a group's later messages while some are in flight; AWS Lambda docs,
 * SQS scaling). The deduplication id is the run's
 * id and the sequence number: a re-send of the same entry (a retry after a timeout that did go through) is
 * dropped by SQS within its 5-minute deduplication interval instead of arriving twice.
 */
export interface FifoOptions {
  readonly groups: number;
  /** Unique per run: letters, digits and hyphens (SQS allows 128 characters of alphanumerics and punctuation). */
  readonly runId: string;
}

export function fifoFields(
  sequence: number,
  fifo: FifoOptions,
): { MessageGroupId: string; MessageDeduplicationId: string } {
  return {
    MessageGroupId: `g${sequence % fifo.groups}`,
    MessageDeduplicationId: `${fifo.runId}-${sequence}`,
  };
}

export interface SenderOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly run: string;
  /** Set for a FIFO queue (its name ends in `.fifo`). */
  readonly fifo?: FifoOptions;
  readonly retry?: RetryPolicy;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `SendMessageBatch` reports per-entry failures in `Failed` while the call itself succeeds: those entries are
 * re-sent with exponential backoff until they go through or run out of attempts, and then counted as failed,
 * never dropped. An entry failure marked `SenderFault` (the message itself is wrong) would fail identically
 * again and is counted at once. A whole call that fails (after the SDK's own retries) retries all its entries
 * the same way, unless no retry can help (`SendAbortError`).
 */
export function batchSender(options: SenderOptions): BatchSender {
  const retry = options.retry ?? DEFAULT_RETRY;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const backoff = (attempt: number) =>
    random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));

  return {
    async send(messages) {
      const bySequence = new Map(messages.map((m) => [String(m.sequence), m]));
      let pending = [...messages];
      const failed: { sequence: number; code: string }[] = [];
      let sent = 0;
      let retried = 0;
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > 1) {
          retried += pending.length;
          await sleep(backoff(attempt - 1));
        }
        const entries: SendMessageBatchRequestEntry[] = pending.map((m) => ({
          Id: String(m.sequence),
          MessageBody: messageBody(options.run, m),
          ...(options.fifo === undefined ? {} : fifoFields(m.sequence, options.fifo)),
        }));
        const last = attempt >= retry.attempts;
        let again: LoadMessage[] = [];
        try {
          const out = await options.sqs.send(
            new SendMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: entries }),
          );
          const failedIds = new Set<string>();
          for (const f of out.Failed ?? []) {
            const m = f.Id === undefined ? undefined : bySequence.get(f.Id);
            if (m === undefined || failedIds.has(f.Id ?? '')) continue;
            failedIds.add(f.Id ?? '');
            const code = f.Code ?? 'unknown';
            if (f.SenderFault || last) failed.push({ sequence: m.sequence, code });
            else again.push(m);
          }
          sent += pending.length - failedIds.size;
        } catch (error) {
          // What an earlier attempt of this batch sent stays sent; the entries this call carried stay unsent.
          if (aborts(error)) {
            throw new SendAbortError(
              errorMessage(error),
              { sent, failed, retried },
              pending.map((m) => m.sequence),
            );
          }
          // The call timed out after the SDK's own retries (SEND_TIMEOUTS: 3 s to connect, 10 s to answer, per
          // attempt): the endpoint has stopped answering. Retrying each batch the same way would hold a long run for hours, batch after batch.
          // Its entries count as failed, not unsent: a call that timed out may still have gone through.
          if (failureKind(error) === 'timeout') {
            failed.push(...pending.map((m) => ({ sequence: m.sequence, code: 'TimeoutError' })));
            throw new SendAbortError(`the endpoint stopped answering: ${errorMessage(error)}`, {
              sent,
              failed,
              retried,
            });
          }
          const code = (error as { name?: string }).name ?? 'Error';
          if (last) failed.push(...pending.map((m) => ({ sequence: m.sequence, code })));
          else again = pending;
        }
        pending = again;
      }
      return { sent, failed, retried };
    },
  };
}
