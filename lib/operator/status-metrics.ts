import type { MetricDataQuery, MetricDataResult } from '@aws-sdk/client-cloudwatch';
import type { Datapoint } from '../control/index.ts';
import { CONTROLLER_METRICS as M, METRIC_NAMESPACE, SCALER_DIMENSION } from '../telemetry.ts';

/**
 * What `npm run status` reads from CloudWatch in one `GetMetricData` call: the queue's age (AWS/SQS) and the
 * controller's own per-tick metrics (it publishes them in EMF, see functions/controller/report.ts). 15 metrics:
 * $0.00015 a read; a `--watch` every 10 s for an hour costs about 5 cents. The cap and the floor are an older
 * controller's (today's logs them with each decision: lib/operator/status-summary.ts reads them there); the depth is
 * read in real time (GetQueueAttributes), not from metrics.
 */
export const STATUS_SERIES = {
  sqsAge: { namespace: 'AWS/SQS', metric: 'ApproximateAgeOfOldestMessage', stat: 'Maximum' },
  applied: { metric: M.appliedConcurrency, stat: 'Maximum' },
  desired: { metric: M.desiredConcurrency, stat: 'Maximum' },
  cap: { metric: M.cap, stat: 'Maximum' },
  floor: { metric: M.floor, stat: 'Minimum' },
  targetAge: { metric: M.targetAgeSeconds, stat: 'Maximum' },
  headAge: { metric: M.headAgeSeconds, stat: 'Maximum' },
  atCap: { metric: M.atCap, stat: 'Maximum' },
  saturated: { metric: M.saturated, stat: 'Maximum' },
  scaleEvents: { metric: M.scaleEvents, stat: 'Sum' },
  noData: { metric: M.noData, stat: 'Sum' },
  downstreamSlower: { metric: M.downstreamSlower, stat: 'Sum' },
  errors: { metric: M.errors, stat: 'Sum' },
  skipped: { metric: M.skippedTicks, stat: 'Sum' },
  clamped: { metric: M.clampedByAccountHeadroom, stat: 'Sum' },
} as const satisfies Record<string, { namespace?: string; metric: string; stat: string }>;

export type StatusSeriesName = keyof typeof STATUS_SERIES;
export type StatusSeries = Record<StatusSeriesName, Datapoint[]> & {
  /** Series whose result was missing or not `Complete`: shown as unknown, never as zero. */
  partial: StatusSeriesName[];
};

const NAMES = Object.keys(STATUS_SERIES) as StatusSeriesName[];

export function statusQueries(
  names: { queueName: string; scalerName?: string },
  periodSeconds: number,
): MetricDataQuery[] {
  return NAMES.flatMap((name) => {
    const spec: { namespace?: string; metric: string; stat: string } = STATUS_SERIES[name];
    const dimension =
      spec.namespace === undefined
        ? names.scalerName === undefined
          ? undefined
          : { Name: SCALER_DIMENSION, Value: names.scalerName }
        : { Name: 'QueueName', Value: names.queueName };
    if (dimension === undefined) return [];
    return [
      {
        // Ids must start with a lower-case letter (GetMetricData API).
        Id: name.toLowerCase(),
        ReturnData: true,
        MetricStat: {
          Metric: {
            Namespace: spec.namespace ?? METRIC_NAMESPACE,
            MetricName: spec.metric,
            Dimensions: [dimension],
          },
          Period: periodSeconds,
          Stat: spec.stat,
        },
      },
    ];
  });
}

export function points(result: MetricDataResult): Datapoint[] {
  const t = result.Timestamps ?? [];
  const v = result.Values ?? [];
  const out: Datapoint[] = [];
  for (let i = 0; i < Math.min(t.length, v.length); i++) {
    const time = t[i];
    const value = v[i];
    if (time === undefined || value === undefined || !Number.isFinite(value)) continue;
    out.push({ timestamp: time.getTime() / 1000, value });
  }
  // Order by timestamp, never by position (GetMetricData's order is by request option, not guaranteed).
  return out.sort((a, b) => a.timestamp - b.timestamp);
}

export function parseStatusMetrics(results: readonly MetricDataResult[]): StatusSeries {
  const byId = new Map(results.map((r) => [r.Id, r]));
  const out = { partial: [] } as unknown as StatusSeries;
  for (const name of NAMES) {
    const r = byId.get(name.toLowerCase());
    const complete = r !== undefined && (r.StatusCode ?? 'Complete') === 'Complete';
    out[name] = complete ? points(r) : [];
    if (!complete) out.partial.push(name);
  }
  return out;
}

export function latest(series: readonly Datapoint[]): Datapoint | undefined {
  return series[series.length - 1];
}

/**
 * The controller's newest desired value: its own datapoint where that minute has one, else the applied value's (a
 * controller publishes its desired value only where it differs from the applied one: lib/telemetry.ts
 * WHEN_DIFFERENT_CONTROLLER_METRICS, a lone scaler and a budget's member alike).
 */
export function desiredNow(
  desired: readonly Datapoint[],
  applied: readonly Datapoint[],
): Datapoint | undefined {
  const wanted = latest(desired);
  const set = latest(applied);
  return wanted !== undefined && (set === undefined || wanted.timestamp >= set.timestamp) ? wanted : set;
}
