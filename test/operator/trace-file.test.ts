import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../lib/load-file/load-file.ts';
import { OperatorError } from '../../lib/operator/operator-error.ts';
import { decimalText, span, traceFileText } from '../../lib/operator/trace-file.ts';
import type { TraceSeries, TraceSeriesName } from '../../lib/operator/trace-metrics.ts';
import { type BatchSize, checkHasData, traceRows } from '../../lib/operator/trace-phases.ts';
import type { TraceRange } from '../../lib/operator/trace-range.ts';

const T0 = Date.UTC(2026, 10, 3, 0, 0, 0) / 1000;
const BATCH: BatchSize = {
  size: 10,
  source: 'the BatchSize of the event source mapping m-1, GetEventSourceMapping',
};

function range(periods: number, periodSeconds = 60): TraceRange {
  return {
    start: T0,
    end: T0 + periods * periodSeconds,
    periodSeconds,
    periods,
    why: 'the range starts 3 days ago, within the 15 days CloudWatch keeps 1-minute data',
    given: '--since 3d',
  };
}

/** Series from per-period values: `undefined` is a period without a datapoint. */
function series(
  columns: Partial<Record<TraceSeriesName, readonly (number | undefined)[]>>,
  periodSeconds = 60,
): TraceSeries {
  const names: TraceSeriesName[] = ['sent', 'deleted', 'age', 'duration', 'invocations', 'concurrency'];
  const out = {} as Record<TraceSeriesName, Map<number, number>>;
  for (const name of names) {
    out[name] = new Map();
    (columns[name] ?? []).forEach((v, i) => {
      if (v !== undefined) out[name].set(T0 + i * periodSeconds, v);
    });
  }
  return out;
}

const _ = undefined;

describe('one phase per period', () => {
  it.each([
    {
      comment: 'counts: Duration per batch ÷ deleted per invocation',
      values: { duration: [300], deleted: [30], invocations: [10] },
      itemMs: 100,
      source: 'counts',
    },
    {
      comment: 'failed batches delete less than one a batch: at least one message per invocation',
      values: { duration: [300], deleted: [2], invocations: [10] },
      itemMs: 300,
      source: 'counts',
    },
    {
      comment: 'no Invocations: the batch size',
      values: { duration: [300], deleted: [30] },
      itemMs: 30,
      source: 'batch-size',
    },
    {
      comment: 'no NumberOfMessagesDeleted: the batch size',
      values: { duration: [300], invocations: [10] },
      itemMs: 30,
      source: 'batch-size',
    },
    {
      comment: 'Invocations 0: the batch size',
      values: { duration: [300], deleted: [0], invocations: [0] },
      itemMs: 30,
      source: 'batch-size',
    },
  ])('item time from $comment', ({ values, itemMs, source }) => {
    const rows = traceRows(series({ sent: [60], ...values }), range(1), BATCH);
    expect(rows).toEqual([expect.objectContaining({ itemMs, itemSource: source, ratePerSecond: 1 })]);
  });

  it('carries the previous item time into a period without Duration, and the first known one before it', () => {
    const rows = traceRows(
      series({
        sent: [6, 6, 6, 6],
        duration: [_, 50, _, 70],
        deleted: [_, 6, _, 6],
        invocations: [_, 6, _, 6],
      }),
      range(4),
      BATCH,
    );
    expect(rows.map((r) => [r.itemMs, r.itemSource])).toEqual([
      [50, 'carried'],
      [50, 'counts'],
      [50, 'carried'],
      [70, 'counts'],
    ]);
  });

  it('merges a run of periods without NumberOfMessagesSent into one gap row with rate 0 and no observations', () => {
    const rows = traceRows(
      series({
        sent: [120, _, _, _, 60],
        duration: [20, _, _, _, 40],
        age: [5, 9, 9, 9, 7],
        concurrency: [2, _, _, _, 1],
      }),
      range(5),
      BATCH,
    );
    expect(rows).toEqual([
      expect.objectContaining({ start: T0, durationSeconds: 60, ratePerSecond: 2, gap: false }),
      { start: T0 + 60, durationSeconds: 180, ratePerSecond: 0, itemMs: 2, gap: true, itemSource: 'carried' },
      expect.objectContaining({ start: T0 + 240, ratePerSecond: 1, observedAgeSeconds: 7, gap: false }),
    ]);
  });

  it('cuts a gap longer than 30 days into rows a load file takes', () => {
    const hours = 24 * 70;
    const sent: (number | undefined)[] = Array.from({ length: hours }, () => undefined);
    sent[0] = 3600;
    const rows = traceRows(series({ sent, duration: [10] }, 3600), range(hours, 3600), BATCH);
    expect(rows.map((r) => [r.durationSeconds / 3600, r.gap])).toEqual([
      [1, false],
      [720, true],
      [720, true],
      [239, true],
    ]);
  });

  it('refuses a range with no arrivals, or no consumer timing, with one line naming what is missing', () => {
    const names = { queueName: 'orders', functionName: 'orders-consumer' };
    expect(() => checkHasData(series({ duration: [10] }), names, range(1))).toThrow(OperatorError);
    expect(() => checkHasData(series({ duration: [10] }), names, range(1))).toThrow(
      /^no data in range: queue orders has no AWS\/SQS NumberOfMessagesSent datapoints between 2026-11-03T00:00:00Z and 2026-11-03T00:01:00Z/,
    );
    expect(() => checkHasData(series({ sent: [1] }), names, range(1))).toThrow(
      /^no data in range: function orders-consumer has no AWS\/Lambda Duration datapoints/,
    );
  });
});

describe('the file', () => {
  const inputs = (rows: ReturnType<typeof traceRows>, r = range(rows.length)) => ({
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders',
    queueName: 'orders',
    functionName: 'orders-consumer',
    range: r,
    batch: BATCH,
    rows,
    exportedAt: T0 + 86_400,
  });

  it('writes a load file the parser reads back, with the observed columns', () => {
    const values = series({
      sent: [120, 37, _, _, _, _, 1],
      duration: [20, 30, _, _, _, _, 40],
      deleted: [120, 37, _, _, _, _, 1],
      invocations: [12, 37, _, _, _, _, 1],
      age: [5, _, _, _, _, _, 3.5],
      concurrency: [2, 1, _, _, _, _, _],
    });
    const r = range(7);
    const { text, summary } = traceFileText(inputs(traceRows(values, r, BATCH), r));
    const body = text.split('\n').filter((l) => !l.startsWith('#') || l.startsWith('# gap '));
    expect(body).toEqual([
      'duration_s,rate_per_s,item_ms,observed_age_s,observed_concurrency',
      '60,2,2,5,2',
      '60,0.616667,30,,1',
      '# gap 2026-11-03T00:02:00Z – 00:06:00Z: no datapoints for 4 min; replayed as no arrivals',
      '240,0,30,,',
      '60,0.016667,40,3.5,',
      '',
    ]);
    expect(summary).toEqual({
      periods: 7,
      phases: 4,
      withData: 3,
      gaps: 1,
      gapPeriods: 4,
      items: { counts: 3, 'batch-size': 0, carried: 0 },
    });
    const { phases } = parseScenarioText(text, 'orders.csv');
    expect(phases).toEqual([
      { durationSeconds: 60, ratePerSecond: 2, itemMs: 2, observed: { ageSeconds: 5, concurrency: 2 } },
      { durationSeconds: 60, ratePerSecond: 0.616667, itemMs: 30, observed: { concurrency: 1 } },
      { durationSeconds: 240, ratePerSecond: 0, itemMs: 30 },
      { durationSeconds: 60, ratePerSecond: 0.016667, itemMs: 40, observed: { ageSeconds: 3.5 } },
    ]);
  });

  it('records in its header the queue, the function, the range, the period and why, and each column', () => {
    const r = range(2);
    const { text } = traceFileText(
      inputs(traceRows(series({ sent: [60, 60], duration: [9, 9] }), r, BATCH), r),
    );
    const header = text.split('\n').filter((l) => l.startsWith('#'));
    expect(header.join('\n')).toMatch(
      new RegExp(
        [
          '# queue: orders \\(https://sqs.us-east-1.amazonaws.com/123456789012/orders\\)',
          '# function: orders-consumer',
          '# range: 2026-11-03T00:00:00Z – 2026-11-03T00:02:00Z \\(--since 3d\\), exported 2026-11-04T00:00:00Z',
          '# period: 1-minute \\(60 s\\): the range starts 3 days ago, within the 15 days CloudWatch keeps 1-minute data',
        ].join('\n'),
      ),
    );
    expect(text).toContain('#   rate_per_s: AWS/SQS NumberOfMessagesSent (Sum) ÷ 60 s');
    expect(text).toContain('#   item_ms: AWS/Lambda Duration (Average), per invocation (one batch)');
    expect(text).toContain(
      'AWS/SQS NumberOfMessagesDeleted (Sum) ÷ AWS/Lambda Invocations (Sum), at least 1',
    );
    expect(text).toContain(
      '#   observed_age_s: AWS/SQS ApproximateAgeOfOldestMessage (Maximum); not replayed',
    );
    expect(text).toContain(
      '#   observed_concurrency: AWS/Lambda ConcurrentExecutions (Maximum); not replayed',
    );
    expect(text).toContain(`# batch size: 10, ${BATCH.source}`);
    expect(text).toMatch(/# gaps: .*\n#.*\n# {3}the replay sends nothing for that long/);
    // Every header line fits a terminal: a reader should not have to scroll sideways.
    for (const line of header) expect(line.length, line).toBeLessThanOrEqual(120);
  });

  it('says on the gap line when a gap takes several rows', () => {
    const hours = 24 * 40;
    const sent: (number | undefined)[] = Array.from({ length: hours }, () => undefined);
    sent[0] = 3600;
    const r = range(hours, 3600);
    const { text } = traceFileText(inputs(traceRows(series({ sent, duration: [10] }, 3600), r, BATCH), r));
    expect(text).toContain(
      '# gap 2026-11-03T01:00:00Z – 2026-12-13T00:00:00Z: no datapoints for 39 d 23 h; replayed as no arrivals (2 rows: a phase lasts 30 days at most)',
    );
    expect(parseScenarioText(text, 'x.csv').phases).toHaveLength(3);
  });

  it.each([
    { value: 0.000278, places: 6, text: '0.000278' },
    { value: 1 / 3600, places: 6, text: '0.000278' },
    { value: 100, places: 3, text: '100' },
    { value: 2.5, places: 3, text: '2.5' },
    { value: 1e-9, places: 6, text: '0' },
    { value: 123456.7891, places: 3, text: '123456.789' },
  ])('writes $value as $text: plain decimals only', ({ value, places, text }) => {
    expect(decimalText(value, places)).toBe(text);
  });

  it.each([
    { seconds: 14_400, text: '4 h' },
    { seconds: 5_880, text: '1 h 38 min' },
    { seconds: 86_400 * 2 + 3_600 * 3, text: '2 d 3 h' },
    { seconds: 300, text: '5 min' },
  ])('spans $seconds s as $text', ({ seconds, text }) => {
    expect(span(seconds)).toBe(text);
  });
});
