import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

export { TICKER_QUEUE_VARIABLE } from '../ticker-environment.ts';

/**
 * The controller's clock between ticks. EventBridge schedules fire at most once a minute, so at each tick the
 * controller sends one `SendMessageBatch` to its own small ticker queue, one message per sample time with
 * `DelaySeconds` up to it; the ticker queue's mapping (batch size 1) invokes the controller again for each. One hop
 * deep (schedule → controller → ticker → controller, and no sample sends anything), so Lambda's recursive-loop
 * detection, which stops a Lambda → SQS → Lambda chain after 16 hops, never applies (docs/aws-facts.md, "Sub-minute
 * clocks").
 */

/** SQS takes at most 10 entries a batch and a delay of 0–900 s (SQS API reference, SendMessageBatch). */
export const TICKER_BATCH_ENTRIES = 10;
export const MAX_DELAY_SECONDS = 900;

export interface TickerMessage {
  /** Whole seconds from now; clamped to SQS's 0–900. */
  readonly delaySeconds: number;
  readonly body: string;
}

export interface TickerPort {
  /** Sends every message; answers how many SQS accepted (a refused entry is a missed sample, never an error). */
  schedule(messages: readonly TickerMessage[]): Promise<{ readonly sent: number; readonly refused: number }>;
}

export function sqsTickerPort(sqs: SQSClient, queueUrl: string): TickerPort {
  return {
    async schedule(messages) {
      let sent = 0;
      let refused = 0;
      for (let first = 0; first < messages.length; first += TICKER_BATCH_ENTRIES) {
        const batch = messages.slice(first, first + TICKER_BATCH_ENTRIES);
        const answer = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, i) => ({
              Id: String(first + i),
              MessageBody: m.body,
              DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(m.delaySeconds))),
            })),
          }),
        );
        sent += answer.Successful?.length ?? 0;
        refused += answer.Failed?.length ?? 0;
      }
      return { sent, refused };
    },
  };
}
