import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsTickerPort, TICKER_BATCH_ENTRIES } from '../../lib/aws/ticker.ts';
import { type MotoServer, startMotoServer, TEST_REGION } from '../support/moto-server.ts';

/** The ticker queue's adapter against the emulator: batches of 10, delays SQS keeps. */
let server: MotoServer;
let sqs: SQSClient;
beforeAll(async () => {
  server = await startMotoServer();
  sqs = new SQSClient({
    endpoint: server.endpoint,
    region: TEST_REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterAll(async () => {
  await server?.stop();
});

async function queue(name: string): Promise<string> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  return created.QueueUrl as string;
}

async function receiveAll(url: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let round = 0; round < 5; round++) {
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    if (!got.Messages?.length) break;
    bodies.push(...got.Messages.map((m) => m.Body ?? ''));
  }
  return bodies.sort();
}

describe('the ticker port', () => {
  it('sends more than one batch of 10 and answers how many SQS took', async () => {
    // GIVEN a ticker queue and 12 samples due now
    const url = await queue('ticker-batches');
    const messages = Array.from({ length: 12 }, (_, i) => ({ delaySeconds: 0, body: `s${i}` }));
    // WHEN they are scheduled
    const result = await sqsTickerPort(sqs, url).schedule(messages);
    // THEN SQS took all 12, in two batches (at most 10 entries each), and every one is there
    expect(TICKER_BATCH_ENTRIES).toBe(10);
    expect(result).toEqual({ sent: 12, refused: 0 });
    expect(await receiveAll(url)).toEqual(messages.map((m) => m.body).sort());
  });

  it('a delayed message is not delivered before its delay', async () => {
    // GIVEN one message due now and one due in 30 s (a delay beyond SQS's 900 s is clamped, not refused)
    const url = await queue('ticker-delays');
    const result = await sqsTickerPort(sqs, url).schedule([
      { delaySeconds: 0, body: 'now' },
      { delaySeconds: 30, body: 'later' },
      { delaySeconds: 5_000, body: 'clamped' },
    ]);
    // THEN only the first can be received at once
    expect(result).toEqual({ sent: 3, refused: 0 });
    expect(await receiveAll(url)).toEqual(['now']);
  });
});
