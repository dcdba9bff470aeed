import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
  type GetMetricDataCommandOutput,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { OperatorError } from '../../lib/operator/operator-error.ts';
import {
  callWindows,
  type FetchProgress,
  fetchTraceMetrics,
  MAX_DATAPOINTS_PER_CALL,
  traceQueries,
} from '../../lib/operator/trace-metrics.ts';

/**
 * GetMetricData paging, against aws-sdk-client-mock: moto 5.2.1 ignores MaxDatapoints and never returns a
 * NextToken (it answers everything at once), so the paging CloudWatch does can only be played here.
 */

const cloudwatch = new CloudWatchClient({
  region: 'us-east-1',
  // Never reached: the client is mocked. A closed local port, so a missed mock fails fast and locally.
  endpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const mock = mockClient(cloudwatch);
afterEach(() => mock.reset());

const NAMES = { queueName: 'orders', functionName: 'orders-consumer' };
const T0 = Date.UTC(2026, 10, 1) / 1000;
const DAY = 86_400;

/** A distinct value for every metric and period, so a datapoint put in the wrong place shows. */
const seededValue = (id: string, t: number) => (t - T0) / 60 + id.length / 100;
/** Periods without data: CloudWatch omits them. */
const hasData = (t: number) => Math.floor((t - T0) / 60) % 97 !== 5;

/**
 * CloudWatch's paging as the API describes it: the datapoints of every query, at most `MaxDatapoints` a page (and
 * never more than `pageCap`, so a window is paged too), `PartialData` while a `NextToken` follows.
 */
function fakeCloudWatch(pageCap: number) {
  return (input: GetMetricDataCommandInput): GetMetricDataCommandOutput => {
    const start = (input.StartTime as Date).getTime() / 1000;
    const end = (input.EndTime as Date).getTime() / 1000;
    const all: { id: string; t: number }[] = [];
    for (const q of input.MetricDataQueries ?? []) {
      const period = q.MetricStat?.Period ?? 60;
      for (let t = start; t < end; t += period) if (hasData(t)) all.push({ id: q.Id ?? '', t });
    }
    const offset = input.NextToken === undefined ? 0 : Number(input.NextToken.replace('offset:', ''));
    const size = Math.min(input.MaxDatapoints ?? MAX_DATAPOINTS_PER_CALL, pageCap);
    const page = all.slice(offset, offset + size);
    const more = offset + size < all.length;
    const results: MetricDataResult[] = (input.MetricDataQueries ?? []).map((q) => {
      const mine = page.filter((p) => p.id === q.Id);
      return {
        Id: q.Id,
        Timestamps: mine.map((p) => new Date(p.t * 1000)),
        Values: mine.map((p) => seededValue(p.id, p.t)),
        StatusCode: more ? 'PartialData' : 'Complete',
      };
    });
    return {
      MetricDataResults: results,
      NextToken: more ? `offset:${offset + size}` : undefined,
      $metadata: {},
    };
  };
}

describe('the GetMetricData requests', () => {
  it('puts the six metrics in every request, each with its dimension and statistic', () => {
    expect(
      traceQueries(NAMES, 300).map((q) => [
        q.Id,
        q.MetricStat?.Metric?.Namespace,
        q.MetricStat?.Metric?.MetricName,
        q.MetricStat?.Metric?.Dimensions,
        q.MetricStat?.Stat,
        q.MetricStat?.Period,
      ]),
    ).toEqual([
      ['sent', 'AWS/SQS', 'NumberOfMessagesSent', [{ Name: 'QueueName', Value: 'orders' }], 'Sum', 300],
      ['deleted', 'AWS/SQS', 'NumberOfMessagesDeleted', [{ Name: 'QueueName', Value: 'orders' }], 'Sum', 300],
      [
        'age',
        'AWS/SQS',
        'ApproximateAgeOfOldestMessage',
        [{ Name: 'QueueName', Value: 'orders' }],
        'Maximum',
        300,
      ],
      [
        'duration',
        'AWS/Lambda',
        'Duration',
        [{ Name: 'FunctionName', Value: 'orders-consumer' }],
        'Average',
        300,
      ],
      [
        'invocations',
        'AWS/Lambda',
        'Invocations',
        [{ Name: 'FunctionName', Value: 'orders-consumer' }],
        'Sum',
        300,
      ],
      [
        'concurrency',
        'AWS/Lambda',
        'ConcurrentExecutions',
        [{ Name: 'FunctionName', Value: 'orders-consumer' }],
        'Maximum',
        300,
      ],
    ]);
  });

  it.each([
    { comment: '11 days of minutes fit one call', days: 11, period: 60, calls: 1 },
    { comment: '15 days of minutes take two (129,600 datapoints)', days: 15, period: 60, calls: 2 },
    { comment: '63 days of 5 minutes take two', days: 63, period: 300, calls: 2 },
    { comment: '455 days of hours fit one', days: 455, period: 3600, calls: 1 },
  ])('as few calls as the 100,800-datapoint limit allows: $comment', ({ days, period, calls }) => {
    const windows = callWindows(
      { start: T0, end: T0 + days * DAY, periodSeconds: period },
      6,
      MAX_DATAPOINTS_PER_CALL,
    );
    expect(windows).toHaveLength(calls);
    expect(Math.ceil((6 * days * DAY) / period / MAX_DATAPOINTS_PER_CALL)).toBe(calls);
    // Consecutive, whole periods, covering the range.
    expect(windows[0]?.start).toBe(T0);
    expect(windows.at(-1)?.end).toBe(T0 + days * DAY);
    windows.forEach((w, i) => {
      expect((w.end - w.start) % period).toBe(0);
      expect((w.end - w.start) / period).toBeLessThanOrEqual(MAX_DATAPOINTS_PER_CALL / 6);
      if (i > 0) expect(w.start).toBe(windows[i - 1]?.end);
    });
  });

  it('refuses a limit below one period of every metric', () => {
    expect(() => callWindows({ start: T0, end: T0 + 600, periodSeconds: 60 }, 6, 5)).toThrow(
      /--max-datapoints 5: must be at least 6/,
    );
  });
});

describe('paging', () => {
  it('follows NextToken within each window and merges every page by period', async () => {
    // 15 days of minutes: two windows at the API's limit, each paged by CloudWatch in pages of 40,000.
    mock.on(GetMetricDataCommand).callsFake(fakeCloudWatch(40_000));
    const range = { start: T0, end: T0 + 15 * DAY, periodSeconds: 60 };
    const progress: FetchProgress[] = [];
    const fetched = await fetchTraceMetrics(cloudwatch, NAMES, range, { onPage: (p) => progress.push(p) });

    const calls = mock.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    // Window 1: 100,800 periods' worth, less the omitted ones, in 3 pages; window 2 the rest, in 1.
    expect(calls.map((c) => [c.StartTime?.toISOString(), c.NextToken])).toEqual([
      ['2026-11-01T00:00:00.000Z', undefined],
      ['2026-11-01T00:00:00.000Z', 'offset:40000'],
      ['2026-11-01T00:00:00.000Z', 'offset:80000'],
      ['2026-11-12T16:00:00.000Z', undefined],
    ]);
    for (const c of calls) {
      expect(c.MaxDatapoints).toBe(MAX_DATAPOINTS_PER_CALL);
      expect(c.MetricDataQueries).toHaveLength(6);
      expect(c.ScanBy).toBe('TimestampAscending');
    }
    expect(fetched.calls).toBe(4);
    expect(progress.map((p) => [p.window, p.windows, p.pages])).toEqual([
      [1, 2, 1],
      [1, 2, 2],
      [1, 2, 3],
      [2, 2, 4],
    ]);

    // Every period of every metric where it had data, each once, with its own value.
    const periods = (15 * DAY) / 60;
    const withData = Array.from({ length: periods }, (_, i) => T0 + i * 60).filter(hasData);
    expect(fetched.datapoints).toBe(6 * withData.length);
    for (const [id, series] of Object.entries(fetched.series)) {
      expect(series.size).toBe(withData.length);
      for (const t of withData) expect(series.get(t)).toBe(seededValue(id, t));
    }
  });

  it('pages a lower --max-datapoints in more windows', async () => {
    mock.on(GetMetricDataCommand).callsFake(fakeCloudWatch(1_000_000));
    const range = { start: T0, end: T0 + DAY, periodSeconds: 60 };
    const fetched = await fetchTraceMetrics(cloudwatch, NAMES, range, { maxDatapoints: 2000 });
    // 333 minutes a call: ⌈1440 ÷ 333⌉.
    expect(fetched.calls).toBe(5);
    expect(mock.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input.MaxDatapoints)).toEqual([
      2000, 2000, 2000, 2000, 2000,
    ]);
    expect(fetched.series.sent.size).toBe(
      Array.from({ length: 1440 }, (_, i) => T0 + i * 60).filter(hasData).length,
    );
  });

  it('stops with the metric and the status when a last page is not Complete', async () => {
    mock.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'sent', StatusCode: 'Complete', Timestamps: [], Values: [] },
        {
          Id: 'duration',
          StatusCode: 'Forbidden',
          Messages: [{ Code: 'Forbidden', Value: 'not authorized' }],
        },
      ],
    });
    const read = fetchTraceMetrics(cloudwatch, NAMES, { start: T0, end: T0 + 3600, periodSeconds: 60 });
    await expect(read).rejects.toThrow(OperatorError);
    await expect(
      fetchTraceMetrics(cloudwatch, NAMES, { start: T0, end: T0 + 3600, periodSeconds: 60 }),
    ).rejects.toThrow(
      /^GetMetricData AWS\/Lambda Duration from 2026-11-01T00:00:00.000Z: status Forbidden \(Forbidden not authorized\): check cloudwatch:GetMetricData is allowed$/,
    );
  });

  it('gives up on a server that repeats its NextToken', async () => {
    mock.on(GetMetricDataCommand).resolves({ MetricDataResults: [], NextToken: 'again' });
    await expect(
      fetchTraceMetrics(cloudwatch, NAMES, { start: T0, end: T0 + 3600, periodSeconds: 60 }),
    ).rejects.toThrow(/kept answering with a NextToken \(2 pages for one window/);
    expect(mock.commandCalls(GetMetricDataCommand)).toHaveLength(2);
  });
});
