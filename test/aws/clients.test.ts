import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAwsClients, sqsEndpointConfigured } from '../../lib/aws/clients.ts';

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
