import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Duration, Lazy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  Alias,
  CfnEventSourceMapping,
  Code,
  EventSourceMapping,
  Function as LambdaFunction,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app.ts';
import { QueueAgeScaler } from '../../lib/cdk/queue-age-scaler.ts';
import { ScalerActuator } from '../../lib/cdk/scaler-settings.ts';
import { annotations, attach, errorsOf, NO_BUNDLING, parts } from './attached-scaler.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSUMER_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:orders-consumer';

/** The consumer's mappings: every mapping but the controller's own ticker queue's. */
function consumerMappings(stack: Stack): CfnEventSourceMapping[] {
  return stack.node
    .findAll()
    .filter((c): c is CfnEventSourceMapping => c instanceof CfnEventSourceMapping)
    .filter((m) => !m.node.path.includes('/TickerMapping/'));
}

function mappingOf(stack: Stack): CfnEventSourceMapping {
  const found = consumerMappings(stack);
  expect(found).toHaveLength(1);
  return found[0] as CfnEventSourceMapping;
}

describe('QueueAgeScaler props: each invalid value is an error at synth, saying what to do', () => {
  it.each([
    {
      comment: 'a zero latency target',
      props: { targetAge: Duration.seconds(0) },
      error: /targetAge = 0: must be a number in \(0; 86400\] \(seconds\)/,
    },
    {
      comment: 'a latency target longer than a day',
      props: { targetAge: Duration.hours(25) },
      error: /targetAge = 90000: must be a number in \(0; 86400\]/,
    },
    {
      comment: 'a number of seconds where a Duration is expected (a JavaScript app)',
      props: { targetAge: 60 as unknown as Duration },
      error: /targetAge = 60: must be a Duration, e.g. Duration.seconds\(60\)/,
    },
    {
      comment: 'a Duration whose value is a token',
      props: { backlogDrain: Duration.seconds(Lazy.number({ produce: () => 300 })) },
      error: /backlogDrain is a token: it must be known at synth/,
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
      props: { minConcurrency: 1, actuator: ScalerActuator.LOCKSTEP },
      error: /minConcurrency = 1: must be at least 2 with actuator 'lockstep'/,
    },
    {
      comment: 'a floor above the cap',
      props: { minConcurrency: 10, maxConcurrency: 5 },
      error: /minConcurrency = 10: must not exceed the cap 5/,
    },
    {
      comment: 'a cap above the mapping maximum of 1000',
      props: { maxConcurrency: 2000, actuator: ScalerActuator.EVENT_SOURCE },
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
      error: /itemTime is missing: the API cap is apiRatePerSecond × itemTimeSeconds ÷ callsPerItem/,
    },
    {
      comment: 'a tick that is not whole minutes',
      props: { tick: Duration.seconds(90) },
      error: /tick = 90 s: .* must be Duration.minutes\(1\)/,
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
      comment: 'alarm topic encryption that is not a boolean',
      props: { alarmTopicEncryption: 'yes' as unknown as boolean },
      error: /alarmTopicEncryption = yes: must be true or false/,
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
    // GIVEN / WHEN
    const scaler = attach(props);
    // THEN: one error on the scaler, and the construct still completes (synth lists every problem at once)
    expect(errorsOf(scaler)).toEqual([expect.stringMatching(error)]);
    expect(scaler.controller).toBeDefined();
  });

  it('converts each Duration to the seconds the controller reads, fractions included', () => {
    const scaler = attach({
      targetAge: Duration.seconds(45),
      itemTime: Duration.millis(20),
      apiRatePerSecond: 1000,
      tick: Duration.minutes(2),
      scaleDownDelay: Duration.minutes(10),
      scaleDownInterval: Duration.seconds(90),
      backlogDrain: Duration.minutes(3),
      maxDataAge: Duration.minutes(4),
    });
    expect(errorsOf(scaler)).toEqual([]);
    Template.fromStack(Stack.of(scaler)).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TARGET_AGE_SECONDS: '45',
          ITEM_TIME_SECONDS: '0.02',
          // The cap: 1000/s × 0.02 s = 20.
          MAX_CONCURRENCY: '20',
          TICK_SECONDS: '120',
          SCALE_DOWN_DELAY_SECONDS: '600',
          SCALE_DOWN_INTERVAL_SECONDS: '90',
          BACKLOG_DRAIN_SECONDS: '180',
          MAX_DATA_AGE_SECONDS: '240',
        }),
      },
    });
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
      comment: "a mapping's batching window counted in the visibility timeout",
      resources: { visibilityTimeoutSeconds: 180, consumerTimeoutSeconds: 30, batchingWindowSeconds: 20 },
      error: /queue visibility timeout = 180 s: .*\+ the batching window \(20 s\) = 200 s/,
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
    expect(errorsOf(attach({}, resources))).toEqual([expect.stringMatching(error)]);
  });

  it('a reserved concurrency the scaler would fight is reported with an invalid setting, all at once', () => {
    const scaler = attach({ maxConcurrency: -3 }, { reservedConcurrency: 10 });
    expect(errorsOf(scaler)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^maxConcurrency = -3: must be an integer/),
        expect.stringMatching(
          /^consumer reservedConcurrentExecutions = 10: the scaler owns the reserved concurrency with actuator 'lockstep'/,
        ),
      ]),
    );
  });

  it.each([
    {
      comment: 'event-source: reserved 5 under a mapping starting at 20 and a cap of 32 (overpull built in)',
      reserved: 5,
      mapping: 20,
      error:
        /consumer reservedConcurrentExecutions = 5: below the cap 32 up to which actuator 'event-source' raises the mapping's MaximumConcurrency, and the mapping starts at 20, so the pollers would overpull.*set reservedConcurrentExecutions to at least 32, lower maxConcurrency to 5, or use ScalerActuator.LOCKSTEP/,
    },
    {
      comment: 'event-source: reserved 10 under the cap 32 the mapping will be raised to',
      reserved: 10,
      mapping: 2,
      error:
        /consumer reservedConcurrentExecutions = 10: below the cap 32 up to which actuator 'event-source' raises/,
    },
  ])('$comment', ({ reserved, mapping, error }) => {
    const scaler = attach(
      { actuator: ScalerActuator.EVENT_SOURCE },
      { reservedConcurrency: reserved, mappingMaxConcurrency: mapping },
    );
    expect(errorsOf(scaler)).toEqual([expect.stringMatching(error)]);
  });

  it('accepts reserved concurrency in the template when only the mapping is driven and it covers the cap', () => {
    const scaler = attach({ actuator: ScalerActuator.EVENT_SOURCE }, { reservedConcurrency: 32 });
    expect(errorsOf(scaler)).toEqual([]);
  });

  it("warns that the reserved actuator leaves the mapping's pollers to overpull", () => {
    const scaler = attach(
      // An e-mail: without one, its alarms notifying nobody is a warning of its own (tested below).
      { actuator: ScalerActuator.RESERVED, minConcurrency: 1, alarmEmail: 'ops@example.com' },
      { mappingMaxConcurrency: 20 },
    );
    expect(errorsOf(scaler)).toEqual([]);
    expect(annotations(scaler, 'warning')).toEqual([
      expect.stringMatching(
        /actuator 'reserved' leaves the mapping at its MaximumConcurrency 20 while the reserved concurrency moves within \[1; 32\].*ScalerActuator.LOCKSTEP/,
      ),
    ]);
  });

  it('collects every problem into the annotations at once', () => {
    const scaler = attach(
      { targetAge: Duration.seconds(0), scalerName: 'a b' },
      { maxReceiveCount: 2, visibilityTimeoutSeconds: 10 },
    );
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/^targetAge = 0/),
      expect.stringMatching(/^scalerName = 'a b'/),
      expect.stringMatching(/^queue visibility timeout = 10 s/),
      expect.stringMatching(/maxReceiveCount = 2/),
    ]);
  });

  it('refuses a FIFO queue, with one message', () => {
    const { stack, consumer } = parts();
    const dlq = new Queue(stack, 'FifoDlq', { fifo: true });
    const queue = new Queue(stack, 'Orders', {
      fifo: true,
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },
    });
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(
        /^the queue is a FIFO queue: the scaler does not support FIFO yet .*attach it to a standard queue$/,
      ),
    ]);
  });

  it('refuses a mapping of another queue', () => {
    const { stack, queue, consumer } = parts();
    const other = new Queue(stack, 'Other', { visibilityTimeout: Duration.seconds(180) });
    const mapping = new EventSourceMapping(stack, 'Mapping', {
      target: consumer,
      eventSourceArn: other.queueArn,
    });
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSourceMapping: mapping });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(
        /^the event source mapping Validation\/Mapping\/Resource reads another queue, not Validation\/Queue: give the mapping \(or SqsEventSource\) that joins the scaler's queue to its consumer$/,
      ),
    ]);
  });

  it('refuses a mapping that invokes another function', () => {
    const { stack, queue, consumer } = parts();
    const other = LambdaFunction.fromFunctionName(stack, 'Other', 'someone-else');
    const mapping = new EventSourceMapping(stack, 'Mapping', {
      target: other,
      eventSourceArn: queue.queueArn,
    });
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSourceMapping: mapping });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/invokes another function, not the consumer Validation\/Consumer/),
    ]);
  });

  it('refuses a second scaler on the same consumer', () => {
    const { stack, queue, consumer } = parts();
    const second = new Queue(stack, 'Second', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(stack, 'SecondDlq'), maxReceiveCount: 5 },
    });
    const first = new QueueAgeScaler(stack, 'First', { queue, consumer });
    const rival = new QueueAgeScaler(stack, 'Rival', { queue: second, consumer, stackOutputs: false });
    expect(errorsOf(first)).toEqual([]);
    expect(errorsOf(rival)).toEqual([
      expect.stringMatching(
        /^the consumer Validation\/Consumer already has a queue-age scaler, Validation\/First: one scaler per consumer/,
      ),
    ]);
  });

  it.each([
    { comment: 'two imports by name in one stack', otherStack: false },
    { comment: 'two imports by name in two stacks of one app', otherStack: true },
  ])('refuses a second scaler on the same consumer imported twice ($comment)', ({ otherStack }) => {
    // GIVEN one consumer imported twice with Function.fromFunctionName (ARNs that hold tokens)
    const { stack, queue } = parts();
    const where = otherStack ? new Stack(stack.node.root as App, 'Other') : stack;
    const second = new Queue(where, 'Second', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(where, 'SecondDlq'), maxReceiveCount: 5 },
    });
    const one = LambdaFunction.fromFunctionName(stack, 'ImportOne', 'orders-consumer');
    const two = LambdaFunction.fromFunctionName(where, 'ImportTwo', 'orders-consumer');
    // WHEN a scaler attaches to each
    const first = new QueueAgeScaler(stack, 'First', { queue, consumer: one });
    const rival = new QueueAgeScaler(where, 'Rival', { queue: second, consumer: two, stackOutputs: false });
    // THEN the second is refused, as for one consumer object
    expect(errorsOf(first)).toEqual([]);
    expect(errorsOf(rival)).toEqual([
      expect.stringMatching(/already has a queue-age scaler, Validation\/First: one scaler per consumer/),
    ]);
  });

  it('accepts two imported consumers of different names', () => {
    const { stack, queue } = parts();
    const second = new Queue(stack, 'Second', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(stack, 'SecondDlq'), maxReceiveCount: 5 },
    });
    new QueueAgeScaler(stack, 'First', {
      queue,
      consumer: LambdaFunction.fromFunctionName(stack, 'ImportOne', 'orders-consumer'),
    });
    const other = new QueueAgeScaler(stack, 'Other', {
      queue: second,
      consumer: LambdaFunction.fromFunctionName(stack, 'ImportTwo', 'billing-consumer'),
      stackOutputs: false,
    });
    expect(errorsOf(other)).toEqual([]);
  });

  it('a second scaler in one stack reports the stack outputs it cannot have', () => {
    const { stack, queue, consumer } = parts();
    new QueueAgeScaler(stack, 'First', { queue, consumer });
    const other = parts();
    const stray = new QueueAgeScaler(stack, 'Second', {
      queue: new Queue(stack, 'Q2', {
        visibilityTimeout: Duration.seconds(180),
        deadLetterQueue: { queue: new Queue(stack, 'Q2Dlq'), maxReceiveCount: 5 },
      }),
      consumer: LambdaFunction.fromFunctionArn(
        stack,
        'C2',
        'arn:aws:lambda:us-east-1:123456789012:function:c2',
      ),
    });
    void other;
    expect(errorsOf(stray)).toEqual([
      expect.stringMatching(
        /^the stack already has outputs named QueueUrl, .*set stackOutputs: false on this scaler/,
      ),
    ]);
  });

  it("sets a missing MaximumConcurrency on the app's mapping to the floor, and says so", () => {
    const scaler = attach({ minConcurrency: 3 });
    expect(errorsOf(scaler)).toEqual([]);
    expect(mappingOf(Stack.of(scaler)).scalingConfig).toEqual({ maximumConcurrency: 3 });
    expect(annotations(scaler, 'info')).toEqual([
      expect.stringMatching(/had no MaximumConcurrency: set to 3, so its pollers start capped/),
    ]);
  });

  it('refuses a mapping in provisioned mode (AWS does not combine it with MaximumConcurrency)', () => {
    const { stack, queue, consumer } = parts();
    const source = new SqsEventSource(queue, {
      provisionedPollerConfig: { minimumPollers: 2, maximumPollers: 10 },
    });
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSource: source });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/is in provisioned mode \(provisionedPollerConfig\)/),
    ]);
  });

  it('refuses both an eventSource and an eventSourceMapping', () => {
    const { stack, queue, consumer } = parts();
    const source = new SqsEventSource(queue);
    consumer.addEventSource(source);
    const mapping = EventSourceMapping.fromEventSourceMappingId(
      stack,
      'M',
      '11111111-2222-3333-4444-555555555555',
    );
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      eventSource: source,
      eventSourceMapping: mapping,
    });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/^eventSource and eventSourceMapping are both given/),
    ]);
  });

  it('warns, in one line with its id, that a target under a minute cannot be held; a minute or more says nothing', () => {
    const short = attach({ alarmEmail: 'ops@example.com', targetAge: Duration.seconds(10) });
    expect(annotations(short, 'warning')).toEqual([
      expect.stringMatching(
        /^targetAge 10 s is under a minute: SQS publishes the age once a minute[^\n]*\[ack: queue-age-scaler:target-under-a-minute\]$/,
      ),
    ]);
    expect(
      annotations(attach({ alarmEmail: 'ops@example.com', targetAge: Duration.seconds(60) }), 'warning'),
    ).toEqual([]);
  });

  it('a clean scaler synthesizes with no warning at all (cdk synth --strict passes): none from aws-cdk-lib either', () => {
    const scaler = attach({ alarmEmail: 'ops@example.com' });
    const app = scaler.node.root as App;
    const messages = app.synth().getStackArtifact('Validation').messages;
    expect(messages.filter((m) => m.level === 'warning').map((m) => m.entry.data)).toEqual([]);
  });

  it('warns, in one line with its id, that the alarms of a scaler with neither alarmEmail nor alarmTopic notify nobody', () => {
    const alone = attach({});
    expect(annotations(alone, 'warning')).toEqual([
      expect.stringMatching(
        /^its alarms notify nobody: give it an alarmEmail, or an alarmTopic of your own[^\n]*\[ack: queue-age-scaler:alarms-notify-nobody\]$/,
      ),
    ]);
    expect(annotations(attach({ alarmEmail: 'ops@example.com' }), 'warning')).toEqual([]);
    const topic = (stack: Stack) => new Topic(stack, 'Pager');
    expect(
      annotations(
        attach((stack) => ({ alarmTopic: topic(stack) })),
        'warning',
      ),
    ).toEqual([]);
  });

  it.each([
    {
      actuator: ScalerActuator.LOCKSTEP,
      props: {},
      says: /nor read its limits or batching window: make sure it does, that its MaximumConcurrency is set/,
    },
    {
      actuator: ScalerActuator.PROVISIONED,
      props: { actuator: ScalerActuator.PROVISIONED, minConcurrency: 20, maxConcurrency: 100 },
      says: /make sure it does, that it is in provisioned mode \(ProvisionedPollerConfig, MinimumPollers at least 2\) with no MaximumConcurrency \(AWS refuses the two together\)/,
    },
  ])(
    'warns that an imported mapping cannot be checked, and what to check by hand ($actuator)',
    ({ props, says }) => {
      // GIVEN a queue, consumer and mapping all imported
      const app = new App({ context: NO_BUNDLING });
      const stack = new Stack(app, 'Imported', { env: { account: '123456789012', region: 'eu-west-1' } });
      const queue = Queue.fromQueueArn(stack, 'Queue', 'arn:aws:sqs:eu-west-1:123456789012:orders');
      const consumer = LambdaFunction.fromFunctionName(stack, 'Consumer', 'orders-consumer');
      const mapping = EventSourceMapping.fromEventSourceMappingId(
        stack,
        'Mapping',
        '11111111-2222-3333-4444-555555555555',
      );
      // WHEN
      const scaler = new QueueAgeScaler(stack, 'Scaler', {
        queue,
        consumer,
        eventSourceMapping: mapping,
        alarmEmail: 'ops@example.com',
        ...props,
      });
      // THEN: no error, one warning saying what to check by hand for this actuator, and no DLQ alarm without a DLQ
      expect(errorsOf(scaler)).toEqual([]);
      const warnings = annotations(scaler, 'warning');
      expect(warnings).toEqual([
        expect.stringMatching(
          /the event source mapping 11111111-2222-3333-4444-555555555555 is imported, so synth cannot check that it joins Imported\/Queue to Imported\/Consumer/,
        ),
      ]);
      expect(warnings[0]).toMatch(says);
      expect(scaler.alarms.deadLetters).toBeUndefined();
      expect(scaler.alarms.all).toHaveLength(6);
    },
  );
});

describe('QueueAgeScaler: the ways an app attaches its queue', () => {
  it('an SqsEventSource not yet added: the scaler adds it, capped at the floor, window counted', () => {
    // GIVEN an event source with a batching window the queue's visibility timeout does not cover
    const { stack, queue, consumer } = parts({ visibilityTimeoutSeconds: 180 });
    const eventSource = new SqsEventSource(queue, { batchSize: 5, maxBatchingWindow: Duration.seconds(30) });
    // WHEN
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSource });
    // THEN: the window is counted, and the mapping the source made is the one driven, capped from the start
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(/visibility timeout = 180 s: .*\+ the batching window \(30 s\) = 210 s/),
    ]);
    const mapping = mappingOf(stack);
    expect(mapping.scalingConfig).toEqual({ maximumConcurrency: 2 });
    expect(stack.resolve(scaler.eventSourceMappingId)).toEqual(stack.resolve(mapping.ref));
  });

  it('an SqsEventSource the app already added: the scaler drives its mapping, adding none', () => {
    const { stack, queue, consumer } = parts();
    const eventSource = new SqsEventSource(queue, { maxConcurrency: 4 });
    consumer.addEventSource(eventSource);
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer, eventSource });
    expect(errorsOf(scaler)).toEqual([]);
    expect(mappingOf(stack).scalingConfig).toEqual({ maximumConcurrency: 4 });
  });

  it('a second SqsEventSource of a queue the app already added one for: one error naming both fixes, no stack trace', () => {
    // GIVEN the likeliest paste: the app's own addEventSource, then the README's fragment with a new SqsEventSource
    const { stack, queue, consumer } = parts();
    consumer.addEventSource(new SqsEventSource(queue, { batchSize: 10 }));
    // WHEN (aws-cdk-lib alone throws "There is already a Construct with name 'SqsEventSource:…'")
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      eventSource: new SqsEventSource(queue, { batchSize: 10 }),
      alarmEmail: 'ops@example.com',
    });
    // THEN one error, and the scaler drives the mapping the app made
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(
        /^eventSource is a new SqsEventSource, but the consumer already has one on this queue \(.*SqsEventSource:.*\): pass that same SqsEventSource, or leave eventSource out/,
      ),
    ]);
    const onConsumer = Object.values(
      Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping'),
    ).filter((m) => JSON.stringify(m.Properties.FunctionName).includes('Consumer'));
    expect(onConsumer).toHaveLength(1);
  });

  it('an SqsEventSource of another queue is refused', () => {
    const { stack, queue, consumer } = parts();
    const other = new Queue(stack, 'Other', { visibilityTimeout: Duration.seconds(180) });
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      eventSource: new SqsEventSource(other),
    });
    expect(errorsOf(scaler)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^eventSource reads the queue Validation\/Other, not the scaler's queue/),
      ]),
    );
  });

  it('no event source: the scaler creates the mapping with MaximumConcurrency set from the start', () => {
    const { stack, queue, consumer } = parts();
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      minConcurrency: 4,
      eventSourceProps: { batchSize: 10, reportBatchItemFailures: true },
    });
    expect(errorsOf(scaler)).toEqual([]);
    expect(annotations(scaler, 'info')).toEqual([]);
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 4 },
    });
  });

  it('no event source given, but the app has one on the queue: the scaler drives it rather than adding a second', () => {
    const { stack, queue, consumer } = parts();
    consumer.addEventSource(new SqsEventSource(queue));
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer });
    expect(errorsOf(scaler)).toEqual([]);
    expect(consumerMappings(stack)).toHaveLength(1);
    expect(mappingOf(stack).scalingConfig).toEqual({ maximumConcurrency: 2 });
  });

  it("two stacks alike (same construct ids): each scaler finds its own mapping, never the other stack's", () => {
    // GIVEN two stacks built the same way, so their resources have the same logical ids
    const app = new App({ context: NO_BUNDLING });
    const build = (id: string, maxConcurrency?: number) => {
      const stack = new Stack(app, id);
      const queue = new Queue(stack, 'Queue', {
        visibilityTimeout: Duration.seconds(180),
        deadLetterQueue: { queue: new Queue(stack, 'Dlq'), maxReceiveCount: 5 },
      });
      const consumer = new LambdaFunction(stack, 'Consumer', {
        runtime: Runtime.NODEJS_24_X,
        handler: 'index.handler',
        code: Code.fromInline('exports.handler = async () => ({});'),
        timeout: Duration.seconds(30),
      });
      return { stack, queue, consumer, maxConcurrency };
    };
    const first = build('First');
    first.consumer.addEventSource(new SqsEventSource(first.queue, { maxConcurrency: 50 }));
    const second = build('Second');
    // WHEN the second stack's scaler is given no event source
    const scaler = new QueueAgeScaler(second.stack, 'Scaler', {
      queue: second.queue,
      consumer: second.consumer,
    });
    // THEN it creates its own mapping (the first stack's, capped at 50, is not its queue's)
    expect(errorsOf(scaler)).toEqual([]);
    expect(mappingOf(second.stack).scalingConfig).toEqual({ maximumConcurrency: 2 });
  });

  it('eventSourceProps for a mapping the scaler will not create is refused, not ignored', () => {
    const { stack, queue, consumer } = parts();
    consumer.addEventSource(new SqsEventSource(queue));
    const scaler = new QueueAgeScaler(stack, 'Scaler', {
      queue,
      consumer,
      eventSourceProps: { batchSize: 5 },
    });
    expect(errorsOf(scaler)).toEqual([
      expect.stringMatching(
        /^eventSourceProps is given, but the consumer already has a mapping on this queue/,
      ),
    ]);
  });

  it('an alias as the consumer: the mapping invokes the alias, reserved concurrency is set on its function', () => {
    // GIVEN
    const { stack, queue, consumer } = parts();
    const live = new Alias(stack, 'Live', { aliasName: 'live', version: consumer.currentVersion });
    // WHEN
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer: live });
    // THEN
    expect(errorsOf(scaler)).toEqual([]);
    const template = Template.fromStack(stack);
    const fn = stack.getLogicalId(consumer.node.defaultChild as never);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      // The alias: its function's name (taken from the version's ARN) and the alias name.
      FunctionName: { 'Fn::Join': ['', [Match.anyValue(), ':live']] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CONSUMER_FUNCTION_NAME: { Ref: fn } }) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'SetConsumerConcurrency',
            Resource: { 'Fn::GetAtt': [fn, 'Arn'] },
          }),
        ]),
      },
    });
  });

  it('an alias counts as its function for one scaler per consumer', () => {
    const { stack, queue, consumer } = parts();
    const live = new Alias(stack, 'Live', { aliasName: 'live', version: consumer.currentVersion });
    new QueueAgeScaler(stack, 'OnFunction', { queue, consumer });
    const second = new Queue(stack, 'Second', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(stack, 'SecondDlq'), maxReceiveCount: 5 },
    });
    const onAlias = new QueueAgeScaler(stack, 'OnAlias', {
      queue: second,
      consumer: live,
      stackOutputs: false,
    });
    expect(errorsOf(onAlias)).toEqual([
      expect.stringMatching(/already has a queue-age scaler, Validation\/OnFunction/),
    ]);
  });

  it('a consumer imported by an alias ARN: IAM, the controller and the outputs name its function, unqualified', () => {
    // GIVEN a consumer named by the ARN of one of its aliases
    const { stack, queue } = parts();
    const consumer = LambdaFunction.fromFunctionArn(stack, 'C', `${CONSUMER_ARN}:live`);
    // WHEN
    const scaler = new QueueAgeScaler(stack, 'Scaler', { queue, consumer });
    // THEN: reserved concurrency is the function's, so every statement and name is unqualified
    expect(errorsOf(scaler)).toEqual([]);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'SetConsumerConcurrency',
            Action: ['lambda:GetFunctionConcurrency', 'lambda:PutFunctionConcurrency'],
            Resource: CONSUMER_ARN,
          }),
          Match.objectLike({
            Sid: 'SetMappingMaximumConcurrency',
            Condition: { ArnLike: { 'lambda:FunctionArn': [CONSUMER_ARN, `${CONSUMER_ARN}:*`] } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CONSUMER_FUNCTION_NAME: 'orders-consumer' }) },
    });
    template.hasOutput('ConsumerFunctionName', { Value: 'orders-consumer' });
  });

  it('a consumer imported by a qualified ARN counts as its function for one scaler per consumer', () => {
    // GIVEN a scaler on the function, imported unqualified
    const { stack, queue } = parts();
    new QueueAgeScaler(stack, 'OnFunction', {
      queue,
      consumer: LambdaFunction.fromFunctionArn(stack, 'Unqualified', CONSUMER_ARN),
    });
    const second = new Queue(stack, 'Second', {
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: new Queue(stack, 'SecondDlq'), maxReceiveCount: 5 },
    });
    // WHEN a second scaler names the same function by an alias ARN
    const onAlias = new QueueAgeScaler(stack, 'OnAlias', {
      queue: second,
      consumer: LambdaFunction.fromFunctionArn(stack, 'Qualified', `${CONSUMER_ARN}:live`),
      stackOutputs: false,
    });
    // THEN
    expect(errorsOf(onAlias)).toEqual([
      expect.stringMatching(
        /^the consumer Validation\/Qualified already has a queue-age scaler, Validation\/OnFunction: one scaler per consumer/,
      ),
    ]);
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
      comment: 'a batch size in hexadecimal (Number() would read 0xa as 10)',
      context: { batchSize: '0xa' },
      error: /-c batchSize = "0xa": must be an integer in \[1; 10\]/,
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
    {
      comment: 'a DLQ retention that is not true or false',
      context: { retainDeadLetters: 'maybe' },
      error: /-c retainDeadLetters = "maybe": must be true or false/,
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
