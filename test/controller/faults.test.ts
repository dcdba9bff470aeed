import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { LambdaActuator } from '../../functions/controller/actuator.ts';
import { createHandler } from '../../functions/controller/handler.ts';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { logEntryForFast, metricsForFast } from '../../functions/controller/report.ts';
import { TickerDriver, withTicker } from './support/ticker-driver.ts';
import { awsError, MAPPING_UUID, metricResults, NOW, unitWorld } from './support/unit-deps.ts';

/**
 * Faults the emulator cannot produce, with aws-sdk-client-mock in place of AWS. The handler, its ports and its
 * SDK clients are the real ones; only `send` is answered by the mock.
 */
const cloudwatch = mockClient(CloudWatchClient);
const lambda = mockClient(LambdaClient);
const sqs = mockClient(SQSClient);

// 0.1 message/s and 100 s per item (need 12), the oldest message 5 minutes old, 30 waiting.
const BEHIND = [
  { age: 300, sent: 6, deleted: 6, durationMs: 600_000, applied: 3, scaleEvents: 0 },
  ...Array.from({ length: 9 }, () => ({
    age: 30,
    sent: 6,
    deleted: 6,
    durationMs: 600_000,
    applied: 3,
    scaleEvents: 0,
  })),
];
const IDLE = Array.from({ length: 10 }, () => ({ age: 0, sent: 0, deleted: 0, applied: 7, scaleEvents: 0 }));
const OLD = new Date((1_800_000_025 - 3600) * 1000);

function answer(minutes: Parameters<typeof metricResults>[0], applied: number, waiting: number): void {
  cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: metricResults(minutes) });
  lambda
    .on(GetEventSourceMappingCommand)
    .resolves({ UUID: MAPPING_UUID, ScalingConfig: { MaximumConcurrency: applied }, LastModified: OLD });
  lambda.on(GetFunctionConcurrencyCommand).resolves({ ReservedConcurrentExecutions: applied });
  sqs.on(GetQueueAttributesCommand).resolves({
    Attributes: {
      ApproximateNumberOfMessages: String(waiting),
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    },
  });
}

const sent = (command: unknown) => lambda.commandCalls(command as never).map((c) => c.args[0].input);

beforeEach(() => {
  cloudwatch.reset();
  lambda.reset();
  sqs.reset();
});

describe("throttling and 5xx, after the SDK's own retries: hold this tick", () => {
  it.each([
    {
      comment: 'CloudWatch throttles GetMetricData',
      fault: () => cloudwatch.on(GetMetricDataCommand).rejects(awsError('Throttling', 'Rate exceeded')),
      failure: 'throttled',
    },
    {
      comment: 'Lambda throttles GetEventSourceMapping',
      fault: () =>
        lambda
          .on(GetEventSourceMappingCommand)
          .rejects(awsError('TooManyRequestsException', 'Rate exceeded', 429)),
      failure: 'throttled',
    },
    {
      comment: 'SQS answers 500',
      fault: () => sqs.on(GetQueueAttributesCommand).rejects(awsError('InternalError', 'boom', 500)),
      failure: 'service',
    },
  ])('a read fails: $comment', async ({ fault, failure }) => {
    answer(BEHIND, 3, 30);
    fault();
    const { handler, reported } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({ kind: 'failed', failure });
    expect(reported[0]?.metrics.ControllerErrors).toBe(1);
    expect(sent(PutFunctionConcurrencyCommand)).toEqual([]);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
  });

  it('the raise of reserved fails with 5xx: the mapping is not raised past it', async () => {
    answer(BEHIND, 3, 30);
    lambda.on(PutFunctionConcurrencyCommand).rejects(awsError('ServiceException', 'internal', 500));
    const { handler, reported } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({ kind: 'decided', actuation: { kind: 'failed', failure: 'service' } });
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
    expect(reported[0]?.metrics.ControllerErrors).toBe(1);
    // Only a clean tick publishes its applied value: -controller-unhealthy counts those (alarms.ts).
    expect(reported[0]?.metrics.AppliedConcurrency).toBeUndefined();
    // No change: ScaleEvents, sparse, is not published at 0.
    expect(reported[0]?.metrics.ScaleEvents).toBeUndefined();
  });
});

describe('ResourceConflictException (a deploy in progress): skip the tick', () => {
  it('on the first write of a shrink: reserved is not lowered under a mapping that stayed', async () => {
    answer(IDLE, 7, 0);
    lambda
      .on(UpdateEventSourceMappingCommand)
      .rejects(awsError('ResourceConflictException', 'update in progress', 409));
    const { handler } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({ kind: 'decided', actuation: { kind: 'failed', failure: 'conflict' } });
    expect(sent(PutFunctionConcurrencyCommand)).toEqual([]);
  });

  it('on a read', async () => {
    answer(IDLE, 7, 0);
    lambda
      .on(GetEventSourceMappingCommand)
      .rejects(awsError('ResourceConflictException', 'update in progress', 409));
    const { handler, reported } = unitWorld();
    expect(await handler({})).toMatchObject({
      kind: 'failed',
      failure: 'conflict',
      hint: expect.stringMatching(/skipped this tick/),
    });
    expect(reported).toHaveLength(1);
  });
});

describe("the account's unreserved floor", () => {
  const floorError = (floor: number) =>
    awsError(
      'InvalidParameterValueException',
      `Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [${floor}].`,
    );

  it('with GetAccountSettings answering: clamps to the headroom and brings the mapping along', async () => {
    answer(BEHIND, 3, 30);
    // 3 held + 55 unreserved − floor 50 = 8 reservable.
    lambda
      .on(PutFunctionConcurrencyCommand)
      .rejectsOnce(floorError(50))
      .resolves({ ReservedConcurrentExecutions: 8 });
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { UnreservedConcurrentExecutions: 55 } });
    const { handler, reported } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({
      kind: 'decided',
      actuation: { kind: 'clamped', value: 8, unreservedFloor: 50, maxReservable: 8 },
    });
    expect(sent(PutFunctionConcurrencyCommand).map((i) => i.ReservedConcurrentExecutions)).toEqual([
      expect.any(Number),
      8,
    ]);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([
      { UUID: MAPPING_UUID, ScalingConfig: { MaximumConcurrency: 8 } },
    ]);
    expect(reported[0]?.metrics).toMatchObject({
      ClampedByAccountHeadroom: 1,
      AppliedConcurrency: 8,
    });
    // No error: ControllerErrors, sparse, is not published at 0.
    expect(reported[0]?.metrics.ControllerErrors).toBeUndefined();
  });

  it('with GetAccountSettings failing: keeps the value known to fit, raises nothing', async () => {
    answer(BEHIND, 3, 30);
    lambda.on(PutFunctionConcurrencyCommand).rejects(floorError(100));
    lambda.on(GetAccountSettingsCommand).rejects(new SyntaxError('Unexpected token < in JSON'));
    const { handler, reported } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({
      kind: 'decided',
      actuation: { kind: 'clamped', value: 3, unreservedFloor: 100 },
    });
    expect(sent(PutFunctionConcurrencyCommand)).toHaveLength(1);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
    expect(reported[0]?.metrics.ClampedByAccountHeadroom).toBe(1);
  });

  it.each([
    {
      comment: 'unreserved at the floor (no headroom): the mapping found at 12 comes down to the 3 held',
      unreserved: 100,
      cap: '16',
      after: { reserved: 3, mapping: 3 },
    },
    {
      comment: 'headroom 2, cap 8: reserved 5 and the mapping lowered to it, not left at 8',
      unreserved: 102,
      cap: '8',
      after: { reserved: 5, mapping: 5 },
    },
  ])('a refused raise with the mapping above reserved: $comment', async ({ unreserved, cap, after }) => {
    // GIVEN reserved 3 and the mapping at 12 by hand, the queue behind
    answer(BEHIND, 3, 30);
    lambda
      .on(GetEventSourceMappingCommand)
      .resolves({ UUID: MAPPING_UUID, ScalingConfig: { MaximumConcurrency: 12 }, LastModified: OLD });
    let held = 3;
    lambda.on(PutFunctionConcurrencyCommand).callsFake(async (input) => {
      // 3 held + unreserved − floor 100 may be reserved
      if (input.ReservedConcurrentExecutions > 3 + unreserved - 100) throw floorError(100);
      held = input.ReservedConcurrentExecutions;
      return { ReservedConcurrentExecutions: held };
    });
    lambda
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { UnreservedConcurrentExecutions: unreserved } });
    const { handler, reported } = unitWorld({ MAX_CONCURRENCY: cap });
    const outcome = await handler({});
    // THEN the tick ends with the mapping at the reserved value actually held, and says it repaired it
    const mapping = sent(UpdateEventSourceMappingCommand).map((i) => i.ScalingConfig?.MaximumConcurrency);
    expect({ reserved: held, mapping: mapping.at(-1) }).toEqual(after);
    expect(outcome).toMatchObject({ kind: 'decided', result: { repaired: true } });
    expect(reported[0]?.metrics).toMatchObject({
      ClampedByAccountHeadroom: 1,
      LockstepRepairs: 1,
      AppliedConcurrency: after.mapping,
    });
  });

  it('another InvalidParameterValueException is an error, not a clamp', async () => {
    answer(BEHIND, 3, 30);
    lambda
      .on(PutFunctionConcurrencyCommand)
      .rejects(awsError('InvalidParameterValueException', 'something else'));
    const { handler } = unitWorld();
    expect(await handler({})).toMatchObject({ actuation: { kind: 'failed', failure: 'invalid-parameter' } });
    expect(lambda.commandCalls(GetAccountSettingsCommand)).toHaveLength(0);
  });
});

describe("CloudWatch's answer", () => {
  it('PartialData on the age series holds and never shrinks', async () => {
    answer(IDLE, 7, 0);
    cloudwatch
      .on(GetMetricDataCommand)
      .resolves({ MetricDataResults: metricResults(IDLE, { age: 'PartialData' }) });
    const { handler } = unitWorld();
    const outcome = await handler({});
    expect(outcome).toMatchObject({
      kind: 'decided',
      result: { decision: { reason: 'hold:no-data', desired: 7 } },
    });
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
  });

  it('the same idle history with Complete status does shrink (the control for the test above)', async () => {
    answer(IDLE, 7, 0);
    const { handler } = unitWorld();
    expect(await handler({})).toMatchObject({
      result: { decision: { reason: 'shrink:sustained-idle', desired: 6 } },
    });
  });

  it('warm, the tick after a shrink proves its time from memory and steps again; a value the memory did not leave holds', async () => {
    answer(IDLE, 7, 0);
    const { handler, time } = unitWorld();
    expect(await handler({})).toMatchObject({ result: { decision: { desired: 6 } } });
    // The history still says 7 (CloudWatch has not shown the shrink): only the memory knows when it was made.
    answer(IDLE, 6, 0);
    time.now += 60;
    expect(await handler({})).toMatchObject({
      result: { decision: { reason: 'shrink:sustained-idle', desired: 5 } },
    });
    answer(IDLE, 9, 0); // a hand edit since: a change now, so the shrink spacing restarts
    time.now += 60;
    expect(await handler({})).toMatchObject({ result: { decision: { desired: 9 } } });
  });

  it('asks for everything in one GetMetricData request, aligned to whole minutes: cold, the own history too', async () => {
    answer(IDLE, 7, 0);
    const { handler } = unitWorld();
    await handler({});
    const calls = cloudwatch.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input as GetMetricDataCommandInput;
    const ids = input.MetricDataQueries?.map((q) => q.Id);
    // (a lone scaler: no `invocations`, which only a budget's release delay reads)
    expect(ids).toEqual(['age', 'sent', 'deleted', 'duration', 'appliedmin', 'appliedmax', 'scaleevents']);
    expect((input.StartTime as Date).getTime() % 60_000).toBe(0);
    expect((input.EndTime as Date).getTime() % 60_000).toBe(0);
  });

  it('a warm container’s next tick asks only for the law’s four; one that missed a tick reads the own history again', async () => {
    answer(IDLE, 7, 0);
    const { handler, time } = unitWorld();
    await handler({});
    time.now += 60;
    await handler({});
    time.now += 150; // a tick this container did not run: another one may have changed something
    await handler({});
    const ids = cloudwatch
      .commandCalls(GetMetricDataCommand)
      .map((c) => (c.args[0].input as GetMetricDataCommandInput).MetricDataQueries?.length);
    expect(ids).toEqual([7, 4, 7]);
  });
});

describe('a mapping that answers nonsense', () => {
  it('a negative MaximumConcurrency is refused as a response error, nothing is written', async () => {
    answer(IDLE, 7, 0);
    lambda.on(GetEventSourceMappingCommand).resolves({ ScalingConfig: { MaximumConcurrency: -1 } });
    const { handler } = unitWorld();
    expect(await handler({})).toMatchObject({ kind: 'failed', failure: 'response' });
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
  });
});

describe('the actuator never sends a value outside [floor; cap]', () => {
  it.each([Number.NaN, 0, -1, 17, 3.5])('apply(%s) sends nothing and reports the refusal', async (value) => {
    const { deps } = unitWorld();
    const actuator = new LambdaActuator(
      deps.clients.lambda,
      { mode: 'lockstep', functionName: 'orders-consumer', mappingUuid: MAPPING_UUID },
      deps.settings.config,
    );
    await actuator.apply(value, 3);
    expect(actuator.actuation).toMatchObject({ kind: 'failed', failure: 'unsafe' });
    expect(lambda.calls()).toHaveLength(0);
  });
});

// A quiet queue held at 2 by the tick: 1/s at 1 s items.
const QUIET = Array.from({ length: 10 }, () => ({
  age: 1,
  sent: 60,
  deleted: 60,
  durationMs: 60_000,
  applied: 2,
  scaleEvents: 0,
}));

/**
 * The real handler with the fast path on and a virtual clock: `onSleep` runs after each wait (the test sets the
 * queue's answer there); the fast path's metrics and log lines, and the loop's summary, are kept.
 */
function fastPathWorld(onSleep: (now: () => number, advance: (seconds: number) => void) => void) {
  answer(QUIET, 2, 0);
  const { deps } = unitWorld({ FAST_SAMPLE_SECONDS: '10', MAX_CONCURRENCY: '32' });
  let now = NOW;
  const fast: Record<string, number>[] = [];
  const logs: Record<string, unknown>[] = [];
  const ticker = new TickerDriver(() => now);
  const tick = createHandler({
    ...deps,
    clock: () => now,
    ticker,
    reporter: {
      report() {},
      reportFast(outcome, calls) {
        fast.push(Object.fromEntries(metricsForFast(outcome).map((m) => [m.name, m.value])));
        logs.push(logEntryForFast(outcome, calls).fields);
      },
      reportFastLoop(summary) {
        logs.push({ ...summary });
      },
    },
  });
  const handler = withTicker<TickOutcome>(tick, ticker, async (seconds) => {
    now += seconds;
    onSleep(
      () => now,
      (s) => {
        now += s;
      },
    );
  });
  return { handler, fast, logs };
}

const depth = (visible: number, inFlight = 0) => ({
  Attributes: {
    ApproximateNumberOfMessages: String(visible),
    ApproximateNumberOfMessagesNotVisible: String(inFlight),
    ApproximateNumberOfMessagesDelayed: '0',
  },
});

describe('a throttled control plane between ticks', () => {
  it('a fast-path write throttled: no growth counted, and nothing written again until the next tick', async () => {
    // GIVEN a quiet queue held at 2, a surge of 200 more at every sample, and PutFunctionConcurrency throttled
    // (after the SDK's own retries)
    const { handler, fast, logs } = fastPathWorld((now) => {
      sqs.on(GetQueueAttributesCommand).resolves(depth(200 * Math.round((now() - NOW) / 10)));
    });
    lambda
      .on(PutFunctionConcurrencyCommand)
      .rejects(awsError('TooManyRequestsException', 'Rate exceeded', 429));
    await handler({});
    // THEN one write was tried, failed, and reported as a failure, not a growth; the loop stopped there
    expect(sent(PutFunctionConcurrencyCommand)).toHaveLength(1);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
    expect(fast).toEqual([{ ControllerErrors: 1 }]);
    expect(logs[0]).toMatchObject({ reason: 'error:throttled' });
    expect(logs.at(-1)).toMatchObject({ samples: 1, growths: 0, appliedAfter: 2, stoppedBy: 'error' });
  });

  it('a sample whose calls ran past the write deadline writes nothing, and it is no error: the next tick decides', async () => {
    // GIVEN a surge at the first sample, whose GetQueueAttributes answers 45 s late
    const { handler, fast, logs } = fastPathWorld((_now, advance) => {
      sqs.on(GetQueueAttributesCommand).callsFake(async () => {
        advance(45);
        return depth(2000, 20);
      });
    });
    await handler({ time: new Date(NOW * 1000).toISOString() });
    // THEN the growth the sample wanted was not sent (the next tick starts within 6 s of it), and nothing is
    // published as an error or a growth
    expect(sent(PutFunctionConcurrencyCommand)).toEqual([]);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
    expect(fast).toEqual([]);
    expect(logs.at(-1)).toMatchObject({ samples: 1, growths: 0, appliedAfter: 2, stoppedBy: 'deadline' });
  });
});

describe('a quiet queue’s reused rates (lib/control/rate-reads.ts)', () => {
  it('the fresh read a tick needs before it acts fails: hold this tick as failed, write nothing', async () => {
    // GIVEN a quiet queue at the floor: the first tick reads every metric and remembers the rates
    const quiet = Array.from({ length: 10 }, () => ({
      age: 0,
      sent: 0,
      deleted: 0,
      applied: 2,
      scaleEvents: 0,
    }));
    answer(quiet, 2, 0);
    const { handler, time } = unitWorld();
    expect(await handler({})).toMatchObject({ kind: 'decided' });
    // WHEN a minute later the age, read alone, shows the queue behind, and the rates' fresh read is throttled
    time.now += 60;
    // (a reset: the mock counts its answers from the stub's first call)
    cloudwatch.reset();
    answer(BEHIND, 2, 30);
    cloudwatch
      .on(GetMetricDataCommand)
      .resolvesOnce({ MetricDataResults: metricResults(BEHIND) })
      .rejects(awsError('Throttling', 'Rate exceeded'));
    const outcome = await handler({});
    // THEN the tick asked for the age alone, then for the rates before it would act; that failed: it holds
    const asked = cloudwatch
      .commandCalls(GetMetricDataCommand)
      .map((c) => (c.args[0].input as GetMetricDataCommandInput).MetricDataQueries?.map((q) => q.Id));
    expect(asked).toEqual([['age'], ['age', 'sent', 'deleted', 'duration']]);
    expect(outcome).toMatchObject({ kind: 'failed', failure: 'throttled' });
    expect(sent(PutFunctionConcurrencyCommand)).toEqual([]);
    expect(sent(UpdateEventSourceMappingCommand)).toEqual([]);
  });
});
