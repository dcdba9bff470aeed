import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { OperatorError } from './operator-error.ts';

/**
 * What `trace` reads from CloudWatch: the queue's and its consumer's history, six metrics in every
 * `GetMetricData` request (the API takes up to 500), paged so that no call asks for more than the 100,800
 * datapoints one call may return (docs/aws-facts.md, "CloudWatch GetMetricData").
 */
export const TRACE_SERIES = {
  sent: { namespace: 'AWS/SQS', metric: 'NumberOfMessagesSent', stat: 'Sum', of: 'queue' },
  deleted: { namespace: 'AWS/SQS', metric: 'NumberOfMessagesDeleted', stat: 'Sum', of: 'queue' },
  age: { namespace: 'AWS/SQS', metric: 'ApproximateAgeOfOldestMessage', stat: 'Maximum', of: 'queue' },
  duration: { namespace: 'AWS/Lambda', metric: 'Duration', stat: 'Average', of: 'function' },
  invocations: { namespace: 'AWS/Lambda', metric: 'Invocations', stat: 'Sum', of: 'function' },
  concurrency: { namespace: 'AWS/Lambda', metric: 'ConcurrentExecutions', stat: 'Maximum', of: 'function' },
} as const satisfies Record<
  string,
  { namespace: string; metric: string; stat: string; of: 'queue' | 'function' }
>;

export type TraceSeriesName = keyof typeof TRACE_SERIES;
/** Per series: the start of each period that has a datapoint (epoch seconds) → its value. */
export type TraceSeries = Record<TraceSeriesName, ReadonlyMap<number, number>>;

const NAMES = Object.keys(TRACE_SERIES) as TraceSeriesName[];

/** The API's own limit: "a total of as many as 100,800 data points" per call, the default of `MaxDatapoints`. */
export const MAX_DATAPOINTS_PER_CALL = 100_800;

export interface TraceNames {
  /** The `QueueName` dimension of the queue's `AWS/SQS` metrics. */
  readonly queueName: string;
  /** The `FunctionName` dimension of the consumer's `AWS/Lambda` metrics. */
  readonly functionName: string;
}

export interface TraceWindow {
  /** Epoch seconds, aligned to the period. */
  readonly start: number;
  readonly end: number;
  readonly periodSeconds: number;
}

export function traceQueries(names: TraceNames, periodSeconds: number): MetricDataQuery[] {
  return NAMES.map((name) => {
    const spec = TRACE_SERIES[name];
    const dimension =
      spec.of === 'queue'
        ? { Name: 'QueueName', Value: names.queueName }
        : { Name: 'FunctionName', Value: names.functionName };
    return {
      // Ids must start with a lower-case letter (GetMetricData API): the series' names do.
      Id: name,
      ReturnData: true,
      MetricStat: {
        Metric: { Namespace: spec.namespace, MetricName: spec.metric, Dimensions: [dimension] },
        Period: periodSeconds,
        Stat: spec.stat,
      },
    };
  });
}

/**
 * The range cut into consecutive windows of whole periods, each asking for at most `maxDatapoints` (every query
 * may return a datapoint for every period). With the API's limit that is as many calls as `NextToken` paging of
 * one request would make (⌈6 × periods ÷ 100,800⌉: one call for 11 days of minutes, two for 15), and it bounds each
 * answer, so each call fits its 10 s timeout; an emulator whose time grows with the square of a call's size
 * (moto: docs/aws-facts.md, "The local emulator (moto)") stays usable with a lower `--max-datapoints`.
 */
export function callWindows(range: TraceWindow, queries: number, maxDatapoints: number): TraceWindow[] {
  const periodsPerCall = Math.floor(maxDatapoints / queries);
  if (periodsPerCall < 1)
    throw new OperatorError(
      `--max-datapoints ${maxDatapoints}: must be at least ${queries}, one period of each of the ${queries} metrics`,
    );
  const step = periodsPerCall * range.periodSeconds;
  const windows: TraceWindow[] = [];
  for (let start = range.start; start < range.end; start += step)
    windows.push({ start, end: Math.min(range.end, start + step), periodSeconds: range.periodSeconds });
  return windows;
}

export interface FetchProgress {
  /** 1-based: the window being read, of `calls`. */
  readonly window: number;
  readonly windows: number;
  /** Pages received so far, over all windows (a window is one page unless CloudWatch pages it). */
  readonly pages: number;
  readonly datapoints: number;
}

export interface FetchOptions {
  /** Per call; the API's 100,800 by default. */
  readonly maxDatapoints?: number;
  readonly onPage?: (progress: FetchProgress) => void;
}

export interface FetchedTrace {
  readonly series: TraceSeries;
  /** GetMetricData calls made (pages included). */
  readonly calls: number;
  readonly datapoints: number;
}

// A window fits in one page; a server that keeps answering with a NextToken is not one to follow for ever.
const MAX_PAGES_PER_WINDOW = 100;

function metricName(id: string | undefined): string {
  const spec = NAMES.includes(id as TraceSeriesName) ? TRACE_SERIES[id as TraceSeriesName] : undefined;
  return spec === undefined ? `query ${id}` : `${spec.namespace} ${spec.metric}`;
}

/**
 * Adds one page's results to the series. Values pair with timestamps by index within a result (the API's
 * contract); CloudWatch omits periods without data, so a period is present only where it had a datapoint.
 */
function addPage(results: readonly MetricDataResult[], into: Record<TraceSeriesName, Map<number, number>>) {
  let added = 0;
  for (const result of results) {
    const series = NAMES.includes(result.Id as TraceSeriesName)
      ? into[result.Id as TraceSeriesName]
      : undefined;
    if (series === undefined) continue;
    const timestamps = result.Timestamps ?? [];
    const values = result.Values ?? [];
    for (let i = 0; i < Math.min(timestamps.length, values.length); i++) {
      const t = timestamps[i];
      const v = values[i];
      if (t === undefined || v === undefined || !Number.isFinite(v)) continue;
      series.set(Math.round(t.getTime() / 1000), v);
      added++;
    }
  }
  return added;
}

/**
 * `PartialData` with a `NextToken` means "more on the next page"; on a window's last page anything but
 * `Complete` (`Forbidden`: no permission for that metric; `InternalError`) leaves a hole the file would show as
 * made-up gaps, so it stops the export with the metric and CloudWatch's message.
 */
function checkFinal(results: readonly MetricDataResult[], window: TraceWindow): void {
  for (const result of results) {
    const status = result.StatusCode ?? 'Complete';
    if (status === 'Complete') continue;
    const messages = (result.Messages ?? []).map((m) => `${m.Code ?? ''} ${m.Value ?? ''}`.trim());
    const detail = messages.length === 0 ? '' : ` (${messages.join('; ')})`;
    const hint = status === 'Forbidden' ? ': check cloudwatch:GetMetricData is allowed' : '';
    throw new OperatorError(
      `GetMetricData ${metricName(result.Id)} from ${new Date(window.start * 1000).toISOString()}: status ${status}${detail}${hint}`,
    );
  }
}

/** Every window's every page, in time order; the series merged by period. */
export async function fetchTraceMetrics(
  cloudwatch: Pick<CloudWatchClient, 'send'>,
  names: TraceNames,
  range: TraceWindow,
  options: FetchOptions = {},
): Promise<FetchedTrace> {
  const maxDatapoints = options.maxDatapoints ?? MAX_DATAPOINTS_PER_CALL;
  const queries = traceQueries(names, range.periodSeconds);
  const windows = callWindows(range, queries.length, maxDatapoints);
  const series = Object.fromEntries(NAMES.map((n) => [n, new Map<number, number>()])) as Record<
    TraceSeriesName,
    Map<number, number>
  >;
  let calls = 0;
  let datapoints = 0;
  for (const [index, window] of windows.entries()) {
    let token: string | undefined;
    const seen = new Set<string>();
    for (let page = 1; ; page++) {
      const out = await cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: queries,
          StartTime: new Date(window.start * 1000),
          EndTime: new Date(window.end * 1000),
          ScanBy: 'TimestampAscending',
          MaxDatapoints: maxDatapoints,
          NextToken: token,
        }),
      );
      calls++;
      const results = out.MetricDataResults ?? [];
      datapoints += addPage(results, series);
      options.onPage?.({ window: index + 1, windows: windows.length, pages: calls, datapoints });
      token = out.NextToken || undefined;
      if (token === undefined) {
        checkFinal(results, window);
        break;
      }
      if (seen.has(token) || page >= MAX_PAGES_PER_WINDOW)
        throw new OperatorError(
          `GetMetricData kept answering with a NextToken (${page} pages for one window of at most ${maxDatapoints} datapoints): check --endpoint`,
        );
      seen.add(token);
    }
  }
  return { series, calls, datapoints };
}
