import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RESOURCE_VARIABLES, settingsFromEnvironment } from '../../functions/controller/resources.ts';
import { ConfigError } from '../../lib/control/index.ts';
import { ENVIRONMENT } from './support/unit-deps.ts';

/** Init-time validation: every bad value fails the cold start, named by its variable. */
describe('settingsFromEnvironment', () => {
  it('reads a complete environment', () => {
    const s = settingsFromEnvironment(ENVIRONMENT);
    expect(s.resources).toEqual({
      scalerName: 'orders',
      queueUrl: ENVIRONMENT.QUEUE_URL,
      queueName: 'orders',
      consumerFunctionName: 'orders-consumer',
      eventSourceMappingUuid: ENVIRONMENT.EVENT_SOURCE_MAPPING_UUID,
      // How the consumer's owner parameter names this controller (lib/consumer-owner.ts)
      owner: 'scaler:orders',
    });
    expect(s.config).toMatchObject({
      targetAgeSeconds: 60,
      minConcurrency: 2,
      maxConcurrency: 16,
      actuator: 'lockstep',
    });
  });

  it.each([
    { comment: 'a missing queue URL', env: { QUEUE_URL: undefined }, message: /QUEUE_URL is missing/ },
    {
      comment: "a queue name that is not the URL's",
      env: { QUEUE_NAME: 'other' },
      message: /QUEUE_NAME = 'other': must be the last part of QUEUE_URL/,
    },
    {
      comment: 'a FIFO queue (concurrency is bounded by its message groups, which the law does not size for)',
      env: {
        QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo',
        QUEUE_NAME: 'orders.fifo',
      },
      message:
        /^invalid configuration: QUEUE_NAME = 'orders.fifo': FIFO queues are not supported yet: .*one batch per message group.*attach the scaler to a standard queue$/,
    },
    {
      comment: 'a FIFO queue URL under a standard-looking name',
      env: { QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo' },
      message: /QUEUE_URL = '.*orders.fifo': FIFO queues are not supported yet/,
    },
    {
      comment: 'a bad function name',
      env: { CONSUMER_FUNCTION_NAME: 'no spaces' },
      message: /CONSUMER_FUNCTION_NAME = 'no spaces'/,
    },
    {
      comment: 'no mapping in lockstep',
      env: { EVENT_SOURCE_MAPPING_UUID: undefined },
      message: /EVENT_SOURCE_MAPPING_UUID is missing: .*actuator 'lockstep'/,
    },
    {
      comment: 'a malformed mapping UUID',
      env: { EVENT_SOURCE_MAPPING_UUID: 'abc' },
      message: /EVENT_SOURCE_MAPPING_UUID = 'abc'/,
    },
    {
      comment: 'a bad setting, from the shared validator',
      env: { TARGET_AGE_SECONDS: '-5' },
      message: /TARGET_AGE_SECONDS = '-5': must be a number in \(0; 86400\]/,
    },
    {
      comment: 'a floor below 2 where the mapping is driven',
      env: { MIN_CONCURRENCY: '1' },
      message: /MIN_CONCURRENCY = 1: must be at least 2/,
    },
  ])('fails on $comment', ({ env, message }) => {
    expect(() => settingsFromEnvironment({ ...ENVIRONMENT, ...env })).toThrow(message);
  });

  it('reads the downstream health signal (DOWNSTREAM_HEALTH), and names each bad field of it', () => {
    const health = {
      namespace: 'Custom/Api',
      metricName: 'Throttled',
      dimensions: { Api: 'payments' },
      statistic: 'Sum',
      periodSeconds: 60,
      threshold: 10,
    };
    const s = settingsFromEnvironment({ ...ENVIRONMENT, DOWNSTREAM_HEALTH: JSON.stringify(health) });
    expect(s.resources.downstreamHealth).toEqual({ ...health, unhealthyWhen: 'above' });
    expect(settingsFromEnvironment(ENVIRONMENT).resources.downstreamHealth).toBeUndefined();
    const bad = JSON.stringify({ ...health, periodSeconds: 45, unhealthyWhen: 'sideways' });
    try {
      settingsFromEnvironment({ ...ENVIRONMENT, MAX_CONCURRENCY: 'many', DOWNSTREAM_HEALTH: bad });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        expect.stringMatching(/^MAX_CONCURRENCY = 'many'/),
        expect.stringMatching(/^DOWNSTREAM_HEALTH\.periodSeconds = 45: must be whole minutes/),
        expect.stringMatching(
          /^DOWNSTREAM_HEALTH\.unhealthyWhen = "sideways": must be one of 'above', 'below'/,
        ),
      ]);
    }
  });

  it('the reserved actuator needs no mapping', () => {
    const s = settingsFromEnvironment({
      ...ENVIRONMENT,
      ACTUATOR: 'reserved',
      EVENT_SOURCE_MAPPING_UUID: undefined,
      MIN_CONCURRENCY: '1',
    });
    expect(s.resources.eventSourceMappingUuid).toBeUndefined();
  });

  it('collects every problem, config and resources, into one ConfigError', () => {
    try {
      settingsFromEnvironment({ TARGET_AGE_SECONDS: 'soon', MAX_CONCURRENCY: '8' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['TARGET_AGE_SECONDS', ...Object.values(RESOURCE_VARIABLES)])
        expect(problems).toContain(name);
    }
  });
});

describe('the Lambda module', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    vi.resetModules();
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it('fails its cold start on a bad variable, naming it', async () => {
    process.env = { ...saved, ...ENVIRONMENT, MAX_CONCURRENCY: 'many' };
    await expect(import('../../functions/controller/index.ts')).rejects.toThrow(/MAX_CONCURRENCY = 'many'/);
  });

  it('loads with a good environment and exports the handler', async () => {
    process.env = { ...saved, ...ENVIRONMENT, AWS_REGION: 'us-east-1' };
    const module = await import('../../functions/controller/index.ts');
    expect(typeof module.handler).toBe('function');
  });
});
