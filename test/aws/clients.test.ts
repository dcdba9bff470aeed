import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { GetFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONTROLLER_TIMEOUTS,
  clientConfig,
  createAwsClients,
  RETRY_SETTINGS,
  sqsEndpointConfigured,
} from '../../lib/aws/clients.ts';
import { DeadlineHttpHandler } from '../../lib/aws/deadline-handler.ts';
import { OPERATOR_TIMEOUTS, QUERY_TIMEOUTS, SEND_TIMEOUTS } from '../../lib/operator/clients.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';
import { startTrickleServer } from '../support/trickle-server.ts';

let silent: SilentServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => {
  await silent?.stop();
});

describe("the controller's SDK clients", () => {
  it('give up on an endpoint that accepts the connection and never answers, after the SDK’s attempts', async () => {
    // GIVEN the controller's clients pointed at a server that never answers
    const clients = createAwsClients({
      endpoint: silent.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const before = silent.connections();
    // WHEN each sends one of a tick's reads
    const calls = [
      clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: `${silent.endpoint}/123456789012/orders` })),
      clients.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: 'orders-consumer' })),
      clients.cloudwatch.send(
        new GetMetricDataCommand({
          StartTime: new Date(0),
          EndTime: new Date(60_000),
          MetricDataQueries: [],
        }),
      ),
    ];
    // THEN each fails with the SDK's TimeoutError once its attempts are spent (without timeouts: never)
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        name: 'TimeoutError',
        $metadata: { attempts: RETRY_SETTINGS.maxAttempts },
      });
    }
    expect(silent.connections() - before).toBeGreaterThanOrEqual(3);
    for (const client of Object.values(clients)) client.destroy();
  });

  it('give up on an endpoint that sends its headers and then trickles the body, after the SDK’s attempts', async () => {
    // GIVEN a client pointed at a server that answers 200 at once and then sends a byte every 100 ms, for ever
    const trickle = await startTrickleServer(100);
    const sqs = new SQSClient(
      clientConfig(
        {
          endpoint: trickle.endpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 't', secretAccessKey: 't' },
        },
        { connectMs: 200, answerMs: 300 },
      ),
    );
    try {
      // WHEN it reads the queue: THEN the read fails once each attempt passes its deadline (without it: never,
      // since the first byte came in time and the socket is never silent)
      await expect(
        sqs.send(new GetQueueAttributesCommand({ QueueUrl: `${trickle.endpoint}/123456789012/orders` })),
      ).rejects.toThrow(/no complete answer within 800 ms/);
      expect(trickle.requests()).toBe(RETRY_SETTINGS.maxAttempts);
    } finally {
      sqs.destroy();
      await trickle.stop();
    }
  });

  it('fit the longest tick inside the shortest function timeout (30 s: tick 60 s ÷ 2)', () => {
    // The worst tick (lib/aws/call-timing.ts): 6 rounds of calls (a refused raise planned again to what reserved
    // holds); 2 timed-out attempts in each of the first 5 and all 3 in the last, plus up to 0.15 s of backoff
    // per call for a timeout: 26.9 s, leaving 3 s for the answers themselves and the log line.
    const attempts = 5 * (RETRY_SETTINGS.maxAttempts - 1) + RETRY_SETTINGS.maxAttempts;
    const worstSeconds = (attempts * CONTROLLER_TIMEOUTS.answerMs) / 1000 + 6 * 0.15;
    expect(worstSeconds).toBeLessThanOrEqual(27);
    expect(CONTROLLER_TIMEOUTS.connectMs).toBeLessThanOrEqual(CONTROLLER_TIMEOUTS.answerMs);
  });
});

describe('client settings', () => {
  it.each([
    { comment: 'the controller (default)', given: undefined, expected: CONTROLLER_TIMEOUTS },
    { comment: "the tools' reads", given: OPERATOR_TIMEOUTS, expected: OPERATOR_TIMEOUTS },
    { comment: "the tools' metric and log queries", given: QUERY_TIMEOUTS, expected: QUERY_TIMEOUTS },
    { comment: 'the load’s sends', given: SEND_TIMEOUTS, expected: SEND_TIMEOUTS },
  ])('$comment: every attempt has a connection and an answer timeout that throws', ({ given, expected }) => {
    const config = clientConfig({ region: 'us-east-1' }, given);
    expect(config.requestHandler).toBeInstanceOf(DeadlineHttpHandler);
    expect(config.requestHandler.settings).toEqual({
      connectionTimeout: expected.connectMs,
      requestTimeout: expected.answerMs,
      throwOnRequestTimeout: true,
      socketTimeout: expected.answerMs,
    });
    // and the whole attempt, headers and body, within connecting plus twice the answer's start
    expect(config.requestHandler.deadlineMs).toBe(expected.connectMs + 2 * expected.answerMs);
    expect(config).toMatchObject(RETRY_SETTINGS);
    expect(config).not.toHaveProperty('timeouts');
  });
});

const KEYS = ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_SQS'] as const;
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  for (const k of KEYS) delete process.env[k];
});

afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('the SQS client honours a configured endpoint over the host in a queue URL', () => {
  it.each([
    {
      comment: 'nothing configured: the queue URL names the host (AWS)',
      options: {},
      env: {},
      expected: true,
    },
    {
      comment: 'an explicit endpoint',
      options: { endpoint: 'http://127.0.0.1:5000' },
      env: {},
      expected: false,
    },
    {
      comment: 'AWS_ENDPOINT_URL only (how the controller Lambda is pointed at an emulator)',
      options: {},
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' },
      expected: false,
    },
    {
      comment: 'AWS_ENDPOINT_URL_SQS only',
      options: {},
      env: { AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:5000' },
      expected: false,
    },
  ])('$comment', async ({ options, env, expected }) => {
    // GIVEN
    Object.assign(process.env, env);
    // WHEN
    const clients = createAwsClients(options);
    // THEN: moto's queue URLs name the real SQS host; only useQueueUrlAsEndpoint false keeps calls on the endpoint
    expect(sqsEndpointConfigured(options)).toBe(!expected);
    expect(clients.sqs.config.useQueueUrlAsEndpoint).toBe(expected);
  });
});
