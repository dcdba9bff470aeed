import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.ts';
import { LoadRun } from '../../lib/operator/load-run.ts';
import { reportText } from '../../lib/operator/load-view.ts';
import { buildPlan } from '../../lib/operator/plan.ts';
import { batchSender, type LoadMessage, SendAbortError } from '../../lib/operator/sender.ts';
import { awsError } from '../controller/support/unit-deps.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';

const sqs = new SQSClient({
  region: 'us-east-1',
  // Never reached: the client is mocked. A closed local port, so a missed mock fails fast and locally.
  endpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const mock = mockClient(sqs);
afterEach(() => mock.reset());

const messages = (n: number): LoadMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    sequence: i,
    phase: 1,
    intendedAt: 1_800_000_000_000 + i,
    itemMs: 20,
  }));

/** What a promise rejected with (undefined if it resolved), so a test can look at the error's fields. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const delays: number[] = [];
const sender = (attempts = 4) =>
  batchSender({
    sqs,
    queueUrl: 'http://127.0.0.1:9/123456789012/q',
    run: 'test',
    retry: { attempts, baseDelayMs: 100, maxDelayMs: 1000 },
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 1,
  });

const entryIds = (call: number) =>
  (mock.commandCalls(SendMessageBatchCommand)[call]?.args[0].input.Entries ?? []).map((e) => e.Id);

describe('batchSender', () => {
  it('re-sends only the failed entries, with a doubling backoff, until they go through', async () => {
    delays.length = 0;
    mock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [],
        Failed: [
          { Id: '3', Code: 'InternalError', SenderFault: false },
          { Id: '7', Code: 'InternalError', SenderFault: false },
        ],
      })
      .resolvesOnce({ Successful: [], Failed: [{ Id: '7', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Successful: [], Failed: [] });
    const result = await sender().send(messages(10));
    expect(result).toEqual({ sent: 10, failed: [], retried: 3 });
    expect(entryIds(0)).toHaveLength(10);
    expect(entryIds(1)).toEqual(['3', '7']);
    expect(entryIds(2)).toEqual(['7']);
    expect(delays).toEqual([100, 200]);
  });

  it('stamps each body with the run, sequence, phase, intended time and item time', async () => {
    mock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await sender().send(messages(1));
    const body = mock.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[0]?.MessageBody ?? '';
    expect(JSON.parse(body)).toEqual({
      run: 'test',
      seq: 0,
      phase: 1,
      intendedAt: '2027-01-15T08:00:00.000Z',
      itemMs: 20,
    });
  });

  it('counts an entry that keeps failing as failed, with its code, after the last attempt', async () => {
    mock
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [], Failed: [{ Id: '2', Code: 'ServiceUnavailable', SenderFault: false }] });
    const result = await sender(3).send(messages(5));
    expect(result.sent).toBe(4);
    expect(result.failed).toEqual([{ sequence: 2, code: 'ServiceUnavailable' }]);
    expect(result.retried).toBe(2);
    expect(mock.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it('does not re-send an entry that failed through its own fault', async () => {
    mock
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InvalidMessageContents', SenderFault: true }] });
    const result = await sender().send(messages(2));
    expect(result).toEqual({
      sent: 1,
      failed: [{ sequence: 0, code: 'InvalidMessageContents' }],
      retried: 0,
    });
    expect(mock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it('retries a whole call that failed, then counts its entries', async () => {
    mock
      .on(SendMessageBatchCommand)
      .rejectsOnce(awsError('InternalError', 'boom', 500))
      .resolves({ Successful: [], Failed: [] });
    expect(await sender().send(messages(3))).toEqual({ sent: 3, failed: [], retried: 3 });
    mock.reset();
    mock.on(SendMessageBatchCommand).rejects(awsError('InternalError', 'boom', 500));
    const result = await sender(2).send(messages(2));
    expect(result.failed).toEqual([
      { sequence: 0, code: 'InternalError' },
      { sequence: 1, code: 'InternalError' },
    ]);
  });

  it.each([
    {
      comment: 'a queue that is gone',
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
    },
    {
      comment: 'a malformed request (a FIFO queue without group ids)',
      name: 'MissingParameter',
      message: 'The request must contain the parameter MessageGroupId.',
    },
    {
      comment: 'an invalid parameter',
      name: 'InvalidParameterValue',
      message: 'Value for parameter is invalid.',
    },
  ])('stops on an error no retry can fix: $comment', async ({ name, message }) => {
    mock.on(SendMessageBatchCommand).rejects(awsError(name, message));
    await expect(sender().send(messages(2))).rejects.toThrow(SendAbortError);
    // One call: every batch would fail the same way, so nothing is retried.
    expect(mock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it('an abort on a retry keeps what the batch already sent: 7 sent, 3 unsent, none lost from the count', async () => {
    mock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [0, 1, 2, 3, 4, 5, 6].map((i) => ({
          Id: String(i),
          MessageId: `m${i}`,
          MD5OfMessageBody: '',
        })),
        Failed: [7, 8, 9].map((i) => ({ Id: String(i), Code: 'InternalError', SenderFault: false })),
      })
      .rejectsOnce(awsError('AccessDenied', 'Access to the resource is denied.'));
    const error = await rejection(sender().send(messages(10)));
    expect(error).toBeInstanceOf(SendAbortError);
    expect((error as SendAbortError).result).toEqual({ sent: 7, failed: [], retried: 3 });
    expect((error as SendAbortError).unsent).toEqual([7, 8, 9]);
    // And a run counts it so: what the aborted batch sent as sent, its carried entries as unsent, the run stopped
    let firstBatch = 0;
    const plan = buildPlan({ name: 'ten', phases: [{ durationSeconds: 1, ratePerSecond: 10, itemMs: 20 }] });
    const report = await new LoadRun({
      plan,
      sender: {
        send: (batch) => {
          firstBatch ||= batch.length;
          const last = batch[batch.length - 1]?.sequence ?? 0;
          const partial = { sent: batch.length - 1, failed: [], retried: 1 };
          return Promise.reject(new SendAbortError('AccessDenied: denied', partial, [last]));
        },
      },
      senders: 1,
    }).run();
    expect(report.abortedBy).toMatch(/AccessDenied/);
    expect(report.sent).toBe(firstBatch - 1);
    expect(report.failed).toBe(0);
    expect(report.unsent).toBe(10 - report.sent);
  });

  it('gives a FIFO queue a group and a deduplication id per message, the same on every retry', async () => {
    mock
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Successful: [], Failed: [] });
    const fifo = batchSender({
      sqs,
      queueUrl: 'http://127.0.0.1:9/123456789012/orders.fifo',
      run: 'r',
      fifo: { groups: 2, runId: 'run-1' },
      sleep: async () => {},
    });
    await fifo.send(messages(3));
    const sent = mock.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries ?? []);
    expect(sent[0]?.map((e) => [e.Id, e.MessageGroupId, e.MessageDeduplicationId])).toEqual([
      ['0', 'g0', 'run-1-0'],
      ['1', 'g1', 'run-1-1'],
      ['2', 'g0', 'run-1-2'],
    ]);
    expect(sent[1]?.map((e) => [e.Id, e.MessageGroupId, e.MessageDeduplicationId])).toEqual([
      ['1', 'g1', 'run-1-1'],
    ]);
  });
});

describe('LoadRun with failing entries', () => {
  it('reports failed and retried entries per phase and accounts for every planned message', async () => {
    mock.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => ({
      Successful: [],
      // Every entry whose sequence ends in 7 always fails: retried to the last attempt, then counted.
      Failed: input.Entries.filter((e) => e.Id.endsWith('7')).map((e) => ({
        Id: e.Id,
        Code: 'InternalError',
        SenderFault: false,
      })),
    }));
    const plan = buildPlan(
      {
        name: 'short',
        phases: [
          { durationSeconds: 0.2, ratePerSecond: 100, itemMs: 20 },
          { durationSeconds: 0.2, ratePerSecond: 150, itemMs: 20 },
        ],
      },
      1,
      1,
    );
    const run = new LoadRun({ plan, sender: sender(3), senders: 4 });
    const report = await run.run();
    expect(report.planned).toBe(50);
    expect(report.failed).toBe(5); // 7, 17, 27, 37, 47
    expect(report.sent).toBe(45);
    expect(report.unsent).toBe(0);
    expect(report.retried).toBe(10); // each failing entry re-sent twice
    expect(report.failureCodes).toEqual({ InternalError: 5 });
    expect(report.phases.map((p) => p.failed)).toEqual([2, 3]);
    expect(reportText(report)).toMatch(
      /sent 45 of 50, failed 5 \(InternalError × 5\), unsent 0, 10 entries retried/,
    );
  });

  it('stops dispatching when aborted and counts the rest as unsent', async () => {
    mock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const plan = buildPlan({
      name: 'long',
      phases: [{ durationSeconds: 60, ratePerSecond: 10, itemMs: 20 }],
    });
    const stop = new AbortController();
    const run = new LoadRun({ plan, sender: sender(), senders: 2, signal: stop.signal });
    const done = run.run();
    setTimeout(() => stop.abort(), 50);
    const report = await done;
    expect(report.interrupted).toBe(true);
    expect(report.sent + report.unsent).toBe(600);
    expect(report.unsent).toBeGreaterThan(0);
    expect(reportText(report)).toMatch(/interrupted \(Ctrl-C\)/);
  });
});

describe('an endpoint that stops answering (a real silent server, the SDK with 0.3 s timeouts)', () => {
  let silent: SilentServer;
  beforeAll(async () => {
    silent = await startSilentServer();
  });
  afterAll(async () => {
    await silent?.stop();
  });

  const silentSender = () => {
    const { sqs: client } = createAwsClients({
      endpoint: silent.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      timeouts: { connectMs: 200, answerMs: 300 },
    });
    return batchSender({
      sqs: client,
      queueUrl: `${silent.endpoint}/123456789012/q`,
      run: 'test',
      retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 1 },
    });
  };

  it('stops after the first call whose every SDK attempt timed out, its entries failed, not retried 5 times', async () => {
    const error = await rejection(silentSender().send(messages(3)));
    expect(error).toBeInstanceOf(SendAbortError);
    expect((error as SendAbortError).message).toMatch(/^the endpoint stopped answering: TimeoutError/);
    expect((error as SendAbortError).result).toEqual({
      sent: 0,
      failed: [0, 1, 2].map((sequence) => ({ sequence, code: 'TimeoutError' })),
      retried: 0,
    });
  });

  it('a load run stops on it: the batch counts as failed, the rest as unsent, nothing unaccounted', async () => {
    const plan = buildPlan({
      name: 'long',
      phases: [{ durationSeconds: 600, ratePerSecond: 10, itemMs: 20 }],
    });
    const report = await new LoadRun({ plan, sender: silentSender(), senders: 1 }).run();
    expect(report.abortedBy).toMatch(/the endpoint stopped answering/);
    expect(report.sent).toBe(0);
    expect(report.failed).toBeGreaterThan(0);
    expect(report.sent + report.failed + report.unsent).toBe(6000);
    expect(reportText(report)).toMatch(/stopped: the endpoint stopped answering/);
  });
});
