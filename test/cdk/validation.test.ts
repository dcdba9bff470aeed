import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { EventSourceMapping, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/cdk/app.ts';
import { QueueAgeScaler } from '../../lib/cdk/queue-age-scaler.ts';
import { attach, NO_BUNDLING } from './attached-scaler.ts';

const ROOT = join(import.meta.dirname, '..', '..');
describe('QueueAgeScaler props: each invalid value is rejected at synth with what to do', () => {
  it.each([
    {
      comment: 'a zero latency target',
      props: { targetAgeSeconds: 0 },
      error: /targetAgeSeconds = 0: must be a number in \(0; 86400\]/,
    },
    {
      comment: 'a zero cap',
      props: { maxConcurrency: 0 },
      error: /maxConcurrency = 0: must be an integer in \[1; 10000\]/,
    },
    {
      comment: 'a fractional pool size',
      props: { dbPoolSize: 2.5 },
      error: /dbPoolSize = 2.5: must be an integer/,
    },
    {
      comment: 'a floor of 1 while the mapping maximum (2–1000) is driven',
      props: { minConcurrency: 1, actuator: 'lockstep' as const },
      error: /minConcurrency = 1: must be at least 2 with actuator 'lockstep'/,
    },
    {
      comment: 'a floor above the cap',
      props: { minConcurrency: 10, maxConcurrency: 5 },
      error: /minConcurrency = 10: must not exceed the cap 5/,
    },
    {
      comment: 'a cap above the mapping maximum of 1000',
      props: { maxConcurrency: 2000, actuator: 'event-source' as const },
      error: /maxConcurrency = 2000: must be at most 1000 with actuator 'event-source'/,
    },
    {
      comment: 'an unknown actuator',
      props: { actuator: 'fast' as never },
      error: /actuator = 'fast': must be one of lockstep, reserved, event-source/,
    },
    {
      comment: 'an API rate without the item time it needs',
      props: { apiRatePerSecond: 100 },
      error: /itemTimeSeconds is missing: the API cap is apiRatePerSecond × itemTimeSeconds ÷ callsPerItem/,
    },
    {
      comment: 'a tick that is not whole minutes',
      props: { tickSeconds: 90 },
      error: /tickSeconds = 90: .* must be a multiple of 60/,
    },
    {
      comment: 'a scaler name with a space',
      props: { scalerName: 'my scaler' },
      error: /scalerName = 'my scaler': must be 1–64 characters/,
    },
    {
      comment: 'a malformed e-mail',
      props: { alarmEmail: 'ops.example.com' },
      error: /alarmEmail = 'ops.example.com': must be an e-mail address/,
    },
    {
      comment: 'an oscillation threshold that 10 minutes of ticks cannot exceed',
      props: { oscillationThreshold: 10 },
      error: /oscillationThreshold = 10: must be an integer in \[1; 9\]/,
    },
    {
      comment: 'a zero throttle threshold',
      props: { throttleThreshold: 0 },
      error: /throttleThreshold = 0: must be an integer in \[1; 1000000\]/,
    },
  ])('$comment', ({ props, error }) => {
    expect(() => attach(props)).toThrow(error);
  });
});

describe('QueueAgeScaler deployment checks on the attached resources', () => {
  it.each([
    {
      comment: 'a visibility timeout under 6 × the consumer timeout',
      resources: { visibilityTimeoutSeconds: 30, consumerTimeoutSeconds: 30 },
      error:
        /queue visibility timeout = 30 s: must be at least 6 × the consumer's timeout \(30 s\) \+ the batching window \(0 s\) = 180 s; set visibilityTimeout: Duration.seconds\(180\)/,
    },
    {
      comment: 'no dead-letter queue',
      resources: { maxReceiveCount: null },
      error:
        /queue has no dead-letter queue: .* give it deadLetterQueue: \{ queue: <a DLQ>, maxReceiveCount: 5 \}/,
    },
    {
      comment: 'a maxReceiveCount below 5',
      resources: { maxReceiveCount: 3 },
      error: /queue deadLetterQueue.maxReceiveCount = 3: must be at least 5.*set maxReceiveCount: 5/,
    },
    {
      comment: 'reserved concurrency in the template while the scaler drives it',
      resources: { reservedConcurrency: 10 },
      error:
        /consumer reservedConcurrentExecutions = 10: the scaler owns the reserved concurrency with actuator 'lockstep'.*remove reservedConcurrentExecutions/,
    },
    {
      comment: 'a mapping maximum above the cap',
      resources: { mappingMaxConcurrency: 50 },
      error: /event source mapping maxConcurrency = 50: above the scaler's cap 32.*set it between 2 and 32/,
    },
  ])('$comment', ({ resources, error }) => {
    expect(() => attach({}, resources)).toThrow(error);
  });

  it('collects every problem into one error', () => {
    expect(() =>
      attach(
        { targetAgeSeconds: -1, scalerName: 'a b' },
        { maxReceiveCount: 2, visibilityTimeoutSeconds: 10 },
      ),
    ).toThrow(
      /targetAgeSeconds = -1.*scalerName = 'a b'.*queue visibility timeout = 10 s.*maxReceiveCount = 2/,
    );
  });

  it('accepts valid resources, and reserved concurrency in the template when only the mapping is driven', () => {
    expect(attach({}).config.maxConcurrency).toBe(32);
    expect(attach({ actuator: 'event-source' }, { reservedConcurrency: 32 }).config.actuator).toBe(
      'event-source',
    );
  });

  it('skips what it cannot read: an imported queue has no checkable visibility or redrive', () => {
    // GIVEN a queue imported by ARN, with no dead-letter queue the app can see
    const app = new App({ context: NO_BUNDLING });
    const stack = new Stack(app, 'Imported', { env: { account: '123456789012', region: 'eu-west-1' } });
    const queue = Queue.fromQueueArn(stack, 'Queue', 'arn:aws:sqs:eu-west-1:123456789012:orders');
    const consumer = LambdaFunction.fromFunctionName(stack, 'Consumer', 'orders-consumer');
    const mapping = EventSourceMapping.fromEventSourceMappingId(
      stack,
      'Mapping',
      '11111111-2222-3333-4444-555555555555',
    );
    // WHEN / THEN: no check fires, and no DLQ alarm is made without a DLQ
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSourceMapping: mapping });
    expect(scaler.alarms.deadLetters).toBeUndefined();
    expect(scaler.alarms.all).toHaveLength(4);
  });
});

describe('cdk.json context: each invalid value is rejected at synth, naming its -c key', () => {
  it.each([
    {
      comment: 'a latency target that is not a number',
      context: { targetAgeSeconds: 'soon' },
      error: /-c targetAgeSeconds = 'soon': must be a number/,
    },
    {
      comment: 'a zero cap',
      context: { maxConcurrency: '0' },
      error: /-c maxConcurrency = '0': must be an integer in \[1; 10000\]/,
    },
    {
      comment: 'a floor of 1 with the default lockstep actuator',
      context: { minConcurrency: '1' },
      error: /-c minConcurrency = 1: must be at least 2/,
    },
    {
      comment: 'a zero pool size',
      context: { dbPoolSize: '0' },
      error: /-c dbPoolSize = '0': must be an integer/,
    },
    {
      comment: 'an API rate without an item time',
      context: { apiRatePerSecond: '100' },
      error: /-c itemTimeSeconds is missing/,
    },
    {
      comment: 'zero calls per item',
      context: { callsPerItem: '0' },
      error: /-c callsPerItem = '0': must be a number in \(0; 1000000\]/,
    },
    {
      comment: 'an unknown actuator',
      context: { actuator: 'fast' },
      error: /-c actuator = 'fast': must be one of/,
    },
    {
      comment: 'a misspelt key',
      context: { targetAge: '60' },
      error: /unknown context key -c targetAge \(known: .*targetAgeSeconds/,
    },
    {
      comment: 'a batch larger than SQS delivers',
      context: { batchSize: '11' },
      error: /-c batchSize = "11": must be an integer in \[1; 10\]/,
    },
    {
      comment: 'a negative item time',
      context: { workMilliseconds: '-5' },
      error: /-c workMilliseconds = "-5": must be a number in \[0; 900000\]/,
    },
    {
      comment: 'a timeout shorter than twice a batch',
      context: { workMilliseconds: '2000', batchSize: '10', consumerTimeoutSeconds: '30' },
      error:
        /-c consumerTimeoutSeconds = 30: a batch of 10 items of 2000 ms takes 20 s.*raise it to 40 or lower -c batchSize/,
    },
    {
      comment: 'a malformed e-mail',
      context: { alarmEmail: 'ops' },
      error: /-c alarmEmail = "ops": must be an e-mail address/,
    },
    {
      comment: 'a stack name CloudFormation refuses',
      context: { stackName: '1-stack' },
      error: /-c stackName = "1-stack": must be a CloudFormation stack name/,
    },
    {
      comment: 'an oscillation threshold out of range',
      context: { oscillationThreshold: '0' },
      error: /-c oscillationThreshold = "0": must be an integer in \[1; 9\]/,
    },
  ])('$comment', ({ context, error }) => {
    expect(() => createApp({ context: { ...NO_BUNDLING, ...context } })).toThrow(error);
  });

  it("leaves CDK's own context keys alone", () => {
    const { stack } = createApp({
      context: {
        ...NO_BUNDLING,
        '@aws-cdk/core:newStyleStackSynthesis': true,
        'acknowledged-issue-numbers': [1],
      },
    });
    expect(stack.scaler.config.targetAgeSeconds).toBe(60);
  });

  it('bin/app.ts prints the problem in one line and exits 1 instead of a stack trace', async () => {
    // GIVEN the context the CDK CLI would pass for `-c maxConcurrency=0`
    const outdir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-app-'));
    const run = promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
      cwd: ROOT,
      env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ maxConcurrency: '0' }) },
    });
    // WHEN / THEN
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^invalid configuration: -c maxConcurrency = '0': must be an integer in \[1; 10000\].*\n$/,
      ),
    });
  });
});
