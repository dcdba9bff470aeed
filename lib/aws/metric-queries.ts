import type { MetricDataQuery, MetricDataResult } from '@aws-sdk/client-cloudwatch';
import type { DownstreamHealthSpec } from '../control/downstream-health.ts';
import type { Datapoint, MetricSeries, SeriesName } from '../control/index.ts';
import { CONTROLLER_METRICS, METRIC_NAMESPACE, SCALER_DIMENSION } from '../telemetry.ts';
import type { ControllerResources } from './resources.ts';

/**
 * Everything a tick reads from CloudWatch, in one `GetMetricData` request: the queue's age at every tick, the three
 * rates (the queue's and the consumer's) at every tick while the law acts and every other tick while the queue is
 * on time (lib/control/rate-reads.ts), and the controller's own published history
 * (three metrics) only where this container does not remember the tick before (a cold start): the carried state is
 * rebuilt from it (see functions/controller/carried-state.ts and tick-memory.ts). At $0.01 per 1,000 metrics
 * requested, four a tick is about $1.73 a month at one tick a minute; two and a half on average, $1.08.
 */
export interface ControllerHistory {
  /** The control law's inputs. */
  readonly series: MetricSeries;
  /** The controller's own `AppliedConcurrency`, Minimum and Maximum per period (empty where not read). */
  readonly appliedMin: readonly Datapoint[];
  readonly appliedMax: readonly Datapoint[];
  /** The controller's own `ScaleEvents`, Sum per period (empty where not read). */
  readonly scaleEvents: readonly Datapoint[];
}

type HistoryName = Exclude<keyof ControllerHistory, 'series'>;

interface QuerySpec {
  readonly id: string;
  readonly namespace: string;
  readonly metric: string;
  readonly dimension: (r: ControllerResources) => { Name: string; Value: string };
  readonly stat: 'Maximum' | 'Minimum' | 'Sum' | 'Average';
  readonly into: { series: SeriesName } | { history: HistoryName };
}

const queue = (r: ControllerResources) => ({ Name: 'QueueName', Value: r.queueName });
const consumer = (r: ControllerResources) => ({ Name: 'FunctionName', Value: r.consumerFunctionName });
const scaler = (r: ControllerResources) => ({ Name: SCALER_DIMENSION, Value: r.scalerName });

// Ids must start with a lower-case letter (GetMetricData API). The law's inputs, read at every tick.
const LAW_QUERIES: readonly QuerySpec[] = [
  {
    id: 'age',
    namespace: 'AWS/SQS',
    metric: 'ApproximateAgeOfOldestMessage',
    dimension: queue,
    stat: 'Maximum',
    into: { series: 'ageOfOldestMessage' },
  },
  {
    id: 'sent',
    namespace: 'AWS/SQS',
    metric: 'NumberOfMessagesSent',
    dimension: queue,
    stat: 'Sum',
    into: { series: 'messagesSent' },
  },
  {
    id: 'deleted',
    namespace: 'AWS/SQS',
    metric: 'NumberOfMessagesDeleted',
    dimension: queue,
    stat: 'Sum',
    into: { series: 'messagesDeleted' },
  },
  {
    id: 'duration',
    namespace: 'AWS/Lambda',
    metric: 'Duration',
    dimension: consumer,
    stat: 'Sum',
    into: { series: 'consumerDurationMs' },
  },
];

/** The controller's own history: read only where the carried state is not remembered (a cold container). */
const OWN_HISTORY_QUERIES: readonly QuerySpec[] = [
  {
    id: 'appliedmin',
    namespace: METRIC_NAMESPACE,
    metric: CONTROLLER_METRICS.appliedConcurrency,
    dimension: scaler,
    stat: 'Minimum',
    into: { history: 'appliedMin' },
  },
  {
    id: 'appliedmax',
    namespace: METRIC_NAMESPACE,
    metric: CONTROLLER_METRICS.appliedConcurrency,
    dimension: scaler,
    stat: 'Maximum',
    into: { history: 'appliedMax' },
  },
  {
    id: 'scaleevents',
    namespace: METRIC_NAMESPACE,
    metric: CONTROLLER_METRICS.scaleEvents,
    dimension: scaler,
    stat: 'Sum',
    into: { history: 'scaleEvents' },
  },
];

const QUERIES: readonly QuerySpec[] = [...LAW_QUERIES, ...OWN_HISTORY_QUERIES];

/** What one scaler's tick reads beyond the queue's age. */
export interface QueryNeeds {
  /** The controller's own history: a cold start, where the carried state is not remembered. */
  readonly ownHistory: boolean;
  /**
   * The rates (sent, deleted, the consumer's Duration): false where the tick reuses the ones this container read at an
   * earlier tick of a quiet queue (lib/control/rate-reads.ts). @default true
   */
  readonly rates?: boolean;
}

/** The law's queries that are rates, not the age: the ones a tick may reuse. */
export const RATE_QUERY_IDS: ReadonlySet<string> = new Set(['sent', 'deleted', 'duration']);

/**
 * The downstream's health signal (`downstreamHealth`), read with the law's inputs at every tick, only where the
 * user named one: one metric more a tick ($0.43 a month at one tick a minute), nothing for the default.
 */
export const HEALTH_QUERY_ID = 'health';

function healthQuery(health: DownstreamHealthSpec, idPrefix: string): MetricDataQuery {
  return {
    Id: `${idPrefix}${HEALTH_QUERY_ID}`,
    ReturnData: true,
    MetricStat: {
      Metric: {
        Namespace: health.namespace,
        MetricName: health.metricName,
        Dimensions: Object.entries(health.dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: health.periodSeconds,
      Stat: health.statistic,
    },
  };
}

/** The specs a tick with these needs reads. */
function queriesFor(needs: QueryNeeds): QuerySpec[] {
  const law = needs.rates === false ? LAW_QUERIES.filter((q) => !RATE_QUERY_IDS.has(q.id)) : LAW_QUERIES;
  return [...law, ...(needs.ownHistory ? OWN_HISTORY_QUERIES : [])];
}

/**
 * One scaler's queries: the law's inputs, and what `needs` adds. `idPrefix` keeps several scalers' queries apart
 * in one request (a shared budget reads every member in one call): a lower-case letter then letters or digits, as
 * the API's ids must start.
 */
export function buildMetricQueries(
  resources: ControllerResources,
  periodSeconds: number,
  needs: QueryNeeds,
  idPrefix = '',
): MetricDataQuery[] {
  const queries = queriesFor(needs).map((q) => ({
    Id: `${idPrefix}${q.id}`,
    ReturnData: true,
    MetricStat: {
      Metric: { Namespace: q.namespace, MetricName: q.metric, Dimensions: [q.dimension(resources)] },
      Period: periodSeconds,
      Stat: q.stat,
    },
  }));
  const health = resources.downstreamHealth;
  return health === undefined ? queries : [...queries, healthQuery(health, idPrefix)];
}

/**
 * The request window, aligned to period boundaries so every datapoint's timestamp is the start of a whole period
 * (CloudWatch advises aligned times; moto buckets from StartTime). The end includes the current, unfinished
 * period: the controller's own metrics from a tick moments ago live there. `observe` drops unfinished periods
 * of the queue's series itself.
 */
export function metricWindow(now: number, periodSeconds: number, windowSeconds: number) {
  const end = (Math.floor(now / periodSeconds) + 1) * periodSeconds;
  const start = Math.floor((now - windowSeconds) / periodSeconds) * periodSeconds;
  return { startTime: new Date(start * 1000), endTime: new Date(end * 1000) };
}

function points(result: MetricDataResult): Datapoint[] {
  const timestamps = result.Timestamps ?? [];
  const values = result.Values ?? [];
  const out: Datapoint[] = [];
  // Pair by index within one result (the API's contract), then order by timestamp, never by position.
  for (let i = 0; i < Math.min(timestamps.length, values.length); i++) {
    const t = timestamps[i];
    const v = values[i];
    if (t === undefined || v === undefined || !Number.isFinite(v)) continue;
    out.push({ timestamp: t.getTime() / 1000, value: v });
  }
  return out.sort((a, b) => a.timestamp - b.timestamp);
}

/**
 * Parses a `GetMetricData` response. A result marked `PartialData` (or missing, or with another non-Complete
 * status) counts as missing: its series is emptied and listed in `partial`. The health signal, where `health` names
 * one, comes with its threshold; incomplete, it has no datapoints (no evidence either way).
 */
export function parseMetricData(
  results: readonly MetricDataResult[],
  idPrefix = '',
  health?: DownstreamHealthSpec,
): ControllerHistory {
  const byId = new Map(results.map((r) => [r.Id, r]));
  const complete = (r: MetricDataResult | undefined): r is MetricDataResult =>
    r !== undefined && (r.StatusCode ?? 'Complete') === 'Complete';
  const series: Record<SeriesName, Datapoint[]> = {
    ageOfOldestMessage: [],
    messagesSent: [],
    messagesDeleted: [],
    consumerDurationMs: [],
  };
  const history: Record<HistoryName, Datapoint[]> = {
    appliedMin: [],
    appliedMax: [],
    scaleEvents: [],
  };
  const partial: SeriesName[] = [];
  for (const q of QUERIES) {
    const result = byId.get(`${idPrefix}${q.id}`);
    const data = complete(result) ? points(result) : [];
    if ('series' in q.into) {
      series[q.into.series] = data;
      if (!complete(result)) partial.push(q.into.series);
    } else {
      history[q.into.history] = data;
    }
  }
  const healthResult = byId.get(`${idPrefix}${HEALTH_QUERY_ID}`);
  const downstreamHealth =
    health === undefined
      ? undefined
      : {
          threshold: health.threshold,
          unhealthyWhen: health.unhealthyWhen,
          periodSeconds: health.periodSeconds,
          points: complete(healthResult) ? points(healthResult) : [],
        };
  return { series: { ...series, partial, ...(downstreamHealth ? { downstreamHealth } : {}) }, ...history };
}
