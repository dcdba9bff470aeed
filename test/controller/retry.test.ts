import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAwsClients, RETRY_SETTINGS } from '../../lib/aws/clients.ts';
import { readReserved } from '../../lib/aws/lambda-reads.ts';
import { listenOnLoopback } from '../support/loopback.ts';

/**
 * The SDK's adaptive retry, for real: a local HTTP server plays Lambda and answers 429 TooManyRequestsException
 * (the control plane's shared 15 requests/second) a given number of times before answering.
 */
let server: Server;
let endpoint = '';
let failuresLeft = 0;
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests += 1;
    request.resume();
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      response.writeHead(429, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'TooManyRequestsException',
      });
      response.end(
        JSON.stringify({ message: 'Rate exceeded', Type: 'User', Reason: 'CallerRateLimitExceeded' }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ReservedConcurrentExecutions: 5 }));
  });
  endpoint = await listenOnLoopback(server);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const clients = () =>
  createAwsClients({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

it('the clients use adaptive retry with 3 attempts', async () => {
  const { lambda, cloudwatch, sqs } = clients();
  for (const client of [lambda, cloudwatch, sqs]) {
    expect(((await client.config.retryStrategy()) as { mode?: string }).mode).toBe('adaptive');
    expect(await client.config.maxAttempts()).toBe(RETRY_SETTINGS.maxAttempts);
  }
});

it('two throttles then an answer: the read succeeds after three requests', async () => {
  failuresLeft = 2;
  requests = 0;
  await expect(readReserved(clients().lambda, 'orders-consumer')).resolves.toEqual({ applied: 5 });
  expect(requests).toBe(3);
});

it('throttled every time: the error reaches the tick after three requests (which then holds)', async () => {
  failuresLeft = 10;
  requests = 0;
  await expect(readReserved(clients().lambda, 'orders-consumer')).rejects.toMatchObject({
    name: 'TooManyRequestsException',
  });
  expect(requests).toBe(3);
});
