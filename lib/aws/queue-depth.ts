import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueDepth, QueuePort } from '../control/index.ts';

/** Near real-time depth: one `GetQueueAttributes` per tick (it has no age attribute: that is CloudWatch's). */
export const DEPTH_ATTRIBUTES: QueueAttributeName[] = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
];

export class QueueResponseError extends Error {
  override name = 'QueueResponseError';
}

function count(attributes: Record<string, string | undefined>, name: string): number {
  const raw = attributes[name];
  const n = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw new QueueResponseError(
      `GetQueueAttributes returned ${name} = ${JSON.stringify(raw)}: expected a count`,
    );
  }
  return n;
}

/** A depth the law can trust, or an error: a made-up zero would read as "idle" and invite a shrink. */
export function parseQueueDepth(attributes: Record<string, string | undefined> | undefined): QueueDepth {
  const a = attributes ?? {};
  return {
    visible: count(a, 'ApproximateNumberOfMessages'),
    inFlight: count(a, 'ApproximateNumberOfMessagesNotVisible'),
    delayed: count(a, 'ApproximateNumberOfMessagesDelayed'),
  };
}

export function sqsQueuePort(sqs: SQSClient, queueUrl: string): QueuePort {
  return {
    async depth() {
      const response = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: DEPTH_ATTRIBUTES }),
      );
      return parseQueueDepth(response.Attributes);
    },
  };
}
