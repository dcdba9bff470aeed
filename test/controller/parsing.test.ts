import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxReservableFor, parseUnreservedFloor } from '../../functions/controller/account-headroom.ts';
import { eventTime, isRepeat, isStale } from '../../functions/controller/schedule-event.ts';
import { failureKind } from '../../lib/aws/aws-errors.ts';
import {
  LambdaResponseError,
  parseMapping,
  parseReserved,
  readFunctionTimeout,
} from '../../lib/aws/lambda-reads.ts';
import { metricWindow, parseMetricData } from '../../lib/aws/metric-queries.ts';
import { parseQueueDepth, QueueResponseError } from '../../lib/aws/queue-depth.ts';

/** The SDK responses, parsed by pure functions fed plain objects (KEDA's habit). */
describe('GetMetricData', () => {
  it('pairs timestamps and values per result and orders by timestamp, never by position', () => {
    const h = parseMetricData([
      {
        Id: 'age',
        Timestamps: [new Date(120_000), new Date(0), new Date(60_000)],
        Values: [3, 1, 2],
        StatusCode: 'Complete',
      },
    ]);
    expect(h.series.ageOfOldestMessage).toEqual([
      { timestamp: 0, value: 1 },
      { timestamp: 60, value: 2 },
      { timestamp: 120, value: 3 },
    ]);
  });
  it.each([
    { comment: 'PartialData', status: 'PartialData' as const },
    { comment: 'InternalError', status: 'InternalError' as const },
  ])('a $comment series is missing, and listed as partial', ({ status }) => {
    const h = parseMetricData([{ Id: 'age', Timestamps: [new Date(0)], Values: [5], StatusCode: status }]);
    expect(h.series.ageOfOldestMessage).toEqual([]);
    expect(h.series.partial).toContain('ageOfOldestMessage');
  });
  it('a result left out of the response is missing too', () => {
    expect(parseMetricData([]).series.partial).toContain('messagesSent');
  });
  it('the window is aligned to whole periods and includes the unfinished one', () => {
    const { startTime, endTime } = metricWindow(10_000, 60, 3600);
    expect(startTime.getTime() / 1000).toBe(6360);
    expect(endTime.getTime() / 1000).toBe(10_020);
  });
});

describe('GetQueueAttributes', () => {
  it('reads the three counts', () => {
    expect(
      parseQueueDepth({
        ApproximateNumberOfMessages: '12',
        ApproximateNumberOfMessagesNotVisible: '3',
        ApproximateNumberOfMessagesDelayed: '0',
      }),
    ).toEqual({ visible: 12, inFlight: 3, delayed: 0 });
  });
  it.each([
    {
      comment: 'a missing count',
      attributes: { ApproximateNumberOfMessagesNotVisible: '0', ApproximateNumberOfMessagesDelayed: '0' },
    },
    {
      comment: 'a non-number',
      attributes: {
        ApproximateNumberOfMessages: 'lots',
        ApproximateNumberOfMessagesNotVisible: '0',
        ApproximateNumberOfMessagesDelayed: '0',
      },
    },
    { comment: 'no attributes at all', attributes: undefined },
  ])('refuses $comment rather than read it as an empty queue', ({ attributes }) => {
    expect(() => parseQueueDepth(attributes)).toThrow(QueueResponseError);
  });
});

describe('Lambda reads', () => {
  it('the mapping: MaximumConcurrency and LastModified', () => {
    expect(parseMapping({ ScalingConfig: { MaximumConcurrency: 7 }, LastModified: new Date(5_000) })).toEqual(
      {
        applied: 7,
        mappingModifiedAt: 5,
      },
    );
    expect(parseMapping({})).toEqual({ applied: undefined, mappingModifiedAt: undefined });
  });
  it('the mapping: its BatchSize, what makes a worker busy; a nonsense one is a response error', () => {
    expect(parseMapping({ BatchSize: 4 })).toMatchObject({ batchSize: 4 });
    expect(() => parseMapping({ BatchSize: -1 })).toThrow(LambdaResponseError);
  });
  it('reserved: unset is undefined, 0 is 0 (it throttles everything: the law raises it to the floor)', () => {
    expect(parseReserved(undefined)).toEqual({ applied: undefined });
    expect(parseReserved(0)).toEqual({ applied: 0 });
  });
  it.each([-1, 1.5, Number.NaN, '7'])('refuses %s', (value) => {
    expect(() => parseReserved(value)).toThrow(LambdaResponseError);
  });
  it('the consumer’s timeout: its Timeout, or unknown when it cannot be read (the release then waits a tick)', async () => {
    const answering = (answer: () => Promise<unknown>) =>
      ({ send: answer }) as unknown as Parameters<typeof readFunctionTimeout>[0];
    expect(
      await readFunctionTimeout(
        answering(async () => ({ Timeout: 30 })),
        'consumer',
      ),
    ).toBe(30);
    expect(
      await readFunctionTimeout(
        answering(async () => ({})),
        'consumer',
      ),
    ).toBeUndefined();
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    expect(
      await readFunctionTimeout(
        answering(async () => {
          throw denied;
        }),
        'consumer',
      ),
    ).toBeUndefined();
  });
});

describe('the unreserved floor', () => {
  it.each([
    { comment: 'the documented 100', floor: 100 },
    { comment: 'an account reported at 50', floor: 50 },
    { comment: 'an account reported at 10', floor: 10 },
  ])('parses $comment from the error', ({ floor }) => {
    const message = `Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [${floor}].`;
    expect(parseUnreservedFloor(message)).toBe(floor);
  });
  it('another message is not a floor', () => {
    expect(parseUnreservedFloor('ReservedConcurrentExecutions must be at least 0')).toBeUndefined();
  });
  it('worked example: 20 held + 130 unreserved − floor 100 = 50', () => {
    expect(maxReservableFor(130, 20, 100)).toBe(50);
    expect(maxReservableFor(undefined, 20, 100)).toBeUndefined();
  });
});

describe('errors', () => {
  it.each([
    { name: 'TooManyRequestsException', status: 429, kind: 'throttled' },
    { name: 'Throttling', status: 400, kind: 'throttled' },
    { name: 'ResourceConflictException', status: 409, kind: 'conflict' },
    { name: 'ResourceNotFoundException', status: 404, kind: 'not-found' },
    { name: 'QueueDoesNotExist', status: 400, kind: 'not-found' },
    { name: 'ServiceException', status: 500, kind: 'service' },
    { name: 'SyntaxError', status: undefined, kind: 'other' },
  ])('$name → $kind', ({ name, status, kind }) => {
    expect(failureKind({ name, $metadata: { httpStatusCode: status } })).toBe(kind);
  });
});

describe('schedule events', () => {
  it('reads EventBridge time', () => {
    expect(eventTime({ time: '2026-11-30T13:05:00Z' })).toBe(Date.parse('2026-11-30T13:05:00Z') / 1000);
    expect(eventTime({})).toBeUndefined();
    expect(eventTime(null)).toBeUndefined();
  });
  it.each([
    { age: 89, stale: false },
    { age: 90, stale: false },
    { age: 91, stale: true },
  ])('an event $age s old with 60 s ticks: stale $stale', ({ age, stale }) => {
    expect(isStale(1000, 1000 + age, 60)).toBe(stale);
  });
  it.each([
    { comment: 'mapping modified after the event', evidence: { mappingModifiedAt: 1201 }, repeat: true },
    { comment: 'mapping modified in the same second', evidence: { mappingModifiedAt: 1200 }, repeat: true },
    { comment: 'mapping modified before the event', evidence: { mappingModifiedAt: 1199 }, repeat: false },
    { comment: "a scale event in the event's minute", evidence: { scaleEventPeriod: 1200 }, repeat: true },
    { comment: 'a scale event the minute before', evidence: { scaleEventPeriod: 1140 }, repeat: false },
    { comment: 'no evidence', evidence: {}, repeat: false },
  ])('repeat: $comment → $repeat', ({ evidence, repeat }) => {
    expect(isRepeat(1200.4, evidence, 60)).toBe(repeat);
  });
  it('an event is never both fresh and a repeat of a change made before it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 1, max: 1e4 }), (at, before) => {
        expect(isRepeat(at, { mappingModifiedAt: at - before }, 60)).toBe(false);
      }),
    );
  });
});
