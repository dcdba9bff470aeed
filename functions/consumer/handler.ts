import { setTimeout as sleep } from 'node:timers/promises';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { work, workMillisecondsFrom } from './work.ts';

/**
 * The example stack's consumer: a Powertools batch processor that reports only the failed items
 * (`ReportBatchItemFailures`), so one bad message is retried alone and reaches the DLQ without its batch.
 */
const logger = new Logger({ serviceName: 'queue-age-scaler-consumer' });
const processor = new BatchProcessor(EventType.SQS);
// Read once at init: a bad value fails the cold start with the variable's name, not every item.
const workMilliseconds = workMillisecondsFrom(process.env);

const recordHandler = async (record: SQSRecord): Promise<void> => {
  try {
    await work(record.body, workMilliseconds, (ms) => sleep(ms));
  } catch (error) {
    logger.warn('item failed', { messageId: record.messageId, error: (error as Error).message });
    throw error;
  }
};

// Items run one after another, so an invocation lasts batch size × item time and the consumer's Duration ÷
// messages deleted is the per-item time the controller sizes concurrency by (Little's law).
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context, processInParallel: false });
