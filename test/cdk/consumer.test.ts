import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  asksToFail,
  DEFAULT_WORK_MILLISECONDS,
  PoisonMessageError,
  work,
  workMillisecondsFrom,
} from '../../functions/consumer/work.ts';

describe('the example consumer: per-item work time', () => {
  it.each([
    { comment: 'unset: the seed’s 20 ms', value: undefined, expected: DEFAULT_WORK_MILLISECONDS },
    { comment: 'blank: the default', value: ' ', expected: DEFAULT_WORK_MILLISECONDS },
    { comment: 'zero: no work', value: '0', expected: 0 },
    { comment: 'fractional milliseconds', value: '2.5', expected: 2.5 },
  ])('$comment', ({ value, expected }) => {
    expect(workMillisecondsFrom({ WORK_MILLISECONDS: value })).toBe(expected);
  });

  it.each([
    { comment: 'not a number', value: 'fast' },
    { comment: 'negative', value: '-1' },
    { comment: 'longer than a Lambda can run', value: '900001' },
  ])('rejects $comment, naming the variable and the range', ({ value }) => {
    expect(() => workMillisecondsFrom({ WORK_MILLISECONDS: value })).toThrow(
      new RegExp(`WORK_MILLISECONDS = '${value}': must be a number in \\[0; 900000\\]`),
    );
  });

  it('waits the configured time per item, and fails only a message that asks to', async () => {
    const sleep = vi.fn(async (_ms: number) => {});
    await work('{"order": 1}', 20, sleep);
    expect(sleep).toHaveBeenCalledWith(20);
    await expect(work('{"fail": true}', 20, sleep)).rejects.toBeInstanceOf(PoisonMessageError);
    expect(sleep).toHaveBeenCalledTimes(1);
    expect(asksToFail('not json')).toBe(false);
    expect(asksToFail('{"fail": "yes"}')).toBe(false);
  });
});

describe('the example consumer handler: partial batch responses', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.WORK_MILLISECONDS = '0';
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  function record(messageId: string, body: string): SQSRecord {
    return {
      messageId,
      receiptHandle: `handle-${messageId}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'sender',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:queue',
      awsRegion: 'us-east-1',
    };
  }

  it('reports only the failed item, so the rest of the batch is deleted', async () => {
    // GIVEN a batch with one poison message in the middle
    const { handler } = await import('../../functions/consumer/handler.ts');
    const event: SQSEvent = { Records: [record('a', '{}'), record('b', '{"fail": true}'), record('c', 'x')] };
    // WHEN
    const response = await handler(event, {} as Context);
    // THEN
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
  });
});
