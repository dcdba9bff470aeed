import { createServer, type Server } from 'node:net';
import { ResourceConflictException, ResourceInUseException } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureKind } from '../../lib/aws/aws-errors.ts';
import { createAwsClients } from '../../lib/aws/clients.ts';
import { explainAwsError } from '../../lib/operator/operator-error.ts';
import { type FullBacklogServer, startFullBacklogServer } from '../support/full-backlog-server.ts';
import { listenOnLoopback } from '../support/loopback.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';

// Short limits so each case ends within about a second; the error is the one the controller's 1 s / 2 s throw.
const TIMEOUTS = { connectMs: 200, answerMs: 300 };

let silent: SilentServer;
let unreachable: FullBacklogServer;
let hangUp: Server;
let hangUpEndpoint: string;

beforeAll(async () => {
  silent = await startSilentServer();
  unreachable = await startFullBacklogServer();
  // Accepts each connection and closes it at once: the endpoint hangs up, it does not time out.
  hangUp = createServer((socket) => socket.destroy());
  hangUpEndpoint = await listenOnLoopback(hangUp);
});
afterAll(async () => {
  await silent?.stop();
  await unreachable?.stop();
  await new Promise((resolve) => hangUp?.close(resolve));
});

/** What the SDK throws for one SQS read against this endpoint, after all its attempts. */
async function errorFrom(endpoint: string): Promise<unknown> {
  const { sqs } = createAwsClients({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    timeouts: TIMEOUTS,
  });
  try {
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: `${endpoint}/123456789012/orders` }));
    throw new Error('the call was expected to fail');
  } catch (error) {
    return error;
  } finally {
    sqs.destroy();
  }
}

describe('failureKind of the errors the SDK throws when an endpoint does not answer', () => {
  it('an endpoint that accepts the connection and never answers: the request timeout, a timeout', async () => {
    const error = await errorFrom(silent.endpoint);
    expect(error).toMatchObject({
      name: 'TimeoutError',
      code: 'ETIMEDOUT',
      message: /300 ms requestTimeout/,
    });
    expect(failureKind(error)).toBe('timeout');
  });

  it('an endpoint that never completes the connection: the connection timeout, a timeout', async () => {
    const error = await errorFrom(unreachable.endpoint);
    expect(error).toMatchObject({
      name: 'TimeoutError',
      message: /did not establish a connection .* 200 ms/,
    });
    expect(failureKind(error)).toBe('timeout');
  });

  it('an endpoint that hangs up is no timeout, though the SDK names it TimeoutError too', async () => {
    const error = await errorFrom(hangUpEndpoint);
    expect(error).toMatchObject({ name: 'TimeoutError', code: 'ECONNRESET' });
    expect(failureKind(error)).toBe('other');
  });
});

describe('failureKind of the errors Lambda answers while a resource is being changed', () => {
  it.each([
    {
      comment: 'a function being updated (a deploy)',
      error: new ResourceConflictException({
        message: 'update in progress',
        $metadata: { httpStatusCode: 409 },
      }),
    },
    {
      comment: 'a mapping being created or updated',
      error: new ResourceInUseException({
        // The exception's documented meaning; the test reads only its name.
        message: "The operation conflicts with the resource's availability.",
        $metadata: { httpStatusCode: 400 },
      }),
    },
  ])('$comment: a conflict, so the tick is skipped rather than reported as unexpected', ({ error }) => {
    expect(failureKind(error)).toBe('conflict');
  });
});

describe("what the operator reads for each (explainAwsError, the tools' one line)", () => {
  const line = async (endpoint: string) =>
    String((explainAwsError(await errorFrom(endpoint), 'queue q', endpoint) as Error).message);

  it('a silent endpoint: accepted the connection but did not answer', async () => {
    expect(await line(silent.endpoint)).toMatch(
      /^queue q: http:\/\/127\.0\.0\.1:\d+ accepted the connection but did not answer within 0\.3 s/,
    );
  });

  it('an endpoint that hangs up: closed the connection, not "did not answer"', async () => {
    const message = await line(hangUpEndpoint);
    expect(message).toMatch(
      /^queue q: http:\/\/127\.0\.0\.1:\d+ closed the connection without answering \(ECONNRESET\): check --endpoint$/,
    );
    expect(message).not.toMatch(/did not answer/);
  });
});
