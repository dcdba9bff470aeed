import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import {
  buildMetricQueries,
  type ControllerHistory,
  metricWindow,
  parseMetricData,
  type QueryNeeds,
} from './metric-queries.ts';
import type { ControllerResources } from './resources.ts';

/**
 * The CloudWatch read of one tick, for one scaler or a shared budget's many: ONE `GetMetricData` request for all
 * of them (ids `m0…`, `m1…` keep several members' queries apart, ≤ 500 per request), over the longest window any
 * of them asks for, each member's history then cut to its own window, as its own call would have read it.
 */

export interface HistoryRead {
  readonly resources: ControllerResources;
  /** How far back this member reads. */
  readonly windowSeconds: number;
  /** What it reads beyond the law's inputs (`buildMetricQueries`). */
  readonly needs: QueryNeeds;
}

// Paged by NextToken; the first page holds all of it at ≤ 20 members (≤ 12,200 datapoints of 100,800).
const MAX_PAGES = 10;

export async function readHistories(
  cloudwatch: CloudWatchClient,
  members: readonly HistoryRead[],
  now: number,
  periodSeconds: number,
): Promise<ControllerHistory[]> {
  // A lone scaler's ids have no prefix: its queries are named as they always were.
  const prefix = (i: number) => (members.length === 1 ? '' : `m${i}`);
  const window = Math.max(...members.map((m) => m.windowSeconds));
  const { startTime, endTime } = metricWindow(now, periodSeconds, window);
  const queries = members.flatMap((m, i) =>
    buildMetricQueries(m.resources, periodSeconds, m.needs, prefix(i)),
  );
  const results: MetricDataResult[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: startTime,
        EndTime: endTime,
        ScanBy: 'TimestampDescending',
        MetricDataQueries: queries,
        NextToken: token,
      }),
    );
    results.push(...(answer.MetricDataResults ?? []));
    token = answer.NextToken;
    if (token === undefined) break;
  }
  const merged = mergePages(results);
  const parsed = (i: number) => parseMetricData(merged, prefix(i), members[i]?.resources.downstreamHealth);
  if (members.length === 1) return [parsed(0)];
  return members.map((m, i) => {
    const own = metricWindow(now, periodSeconds, m.windowSeconds).startTime.getTime() / 1000;
    return withinWindow(parsed(i), own);
  });
}

/** Pages of one request: each query's datapoints may come in several pages; join them by id. */
function mergePages(results: readonly MetricDataResult[]): MetricDataResult[] {
  const byId = new Map<string, MetricDataResult>();
  for (const r of results) {
    const seen = byId.get(r.Id ?? '');
    if (seen === undefined) byId.set(r.Id ?? '', { ...r });
    else
      byId.set(r.Id ?? '', {
        ...seen,
        Timestamps: [...(seen.Timestamps ?? []), ...(r.Timestamps ?? [])],
        Values: [...(seen.Values ?? []), ...(r.Values ?? [])],
        // The last page says how the query ended (PartialData on an earlier page means more pages follow).
        StatusCode: r.StatusCode ?? seen.StatusCode,
      });
  }
  return [...byId.values()];
}

/** A member's history cut to its own window, as its own call would have read it. */
function withinWindow(history: ControllerHistory, start: number): ControllerHistory {
  const cut = <P extends { timestamp: number }>(points: readonly P[]) =>
    points.filter((p) => p.timestamp >= start);
  const { series } = history;
  return {
    series: {
      ageOfOldestMessage: cut(series.ageOfOldestMessage),
      messagesSent: cut(series.messagesSent),
      messagesDeleted: cut(series.messagesDeleted),
      consumerDurationMs: cut(series.consumerDurationMs),
      ...(series.downstreamHealth
        ? { downstreamHealth: { ...series.downstreamHealth, points: cut(series.downstreamHealth.points) } }
        : {}),
      ...(series.partial ? { partial: series.partial } : {}),
    },
    appliedMin: cut(history.appliedMin),
    appliedMax: cut(history.appliedMax),
    scaleEvents: cut(history.scaleEvents),
  };
}
