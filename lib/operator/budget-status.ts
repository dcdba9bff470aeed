import {
  type CloudWatchClient,
  GetMetricDataCommand,
  ListMetricsCommand,
  type Metric,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { metricWindow } from '../aws/metric-queries.ts';
import { MAX_BUDGET_MEMBERS } from '../budget-environment.ts';
import type { Datapoint } from '../control/index.ts';
import { BUDGET_METRICS as B, BUDGET_DIMENSION, METRIC_NAMESPACE, SCALER_DIMENSION } from '../telemetry.ts';
import { OperatorError } from './operator-error.ts';
import { points, STATUS_SERIES } from './status-metrics.ts';
import { oneLineError } from './status-reader.ts';

/**
 * What `status --budget NAME` reads: the members of a shared budget (DownstreamBudget), found with `ListMetrics`
 * as the scalers that publish a `BudgetGrant` under the budget's name, then in ONE `GetMetricData` request (paged
 * by NextToken when a long window asks for more datapoints than one page holds) the budget's own series and each
 * member's grant, its own law's ask, what it runs, its head age, target, cap and floor. 4 + 7 a member: at
 * 20 members 144 metrics, $0.00144 a read.
 */
export const BUDGET_SERIES = {
  limit: { metric: B.limit, stat: 'Maximum' },
  granted: { metric: B.granted, stat: 'Maximum' },
  exhausted: { metric: B.exhausted, stat: 'Maximum' },
  starvedMembers: { metric: B.starvedMembers, stat: 'Maximum' },
} as const satisfies Record<string, { metric: string; stat: string }>;

/** Each member's series: its grant under {BudgetName, ScalerName}, the rest its own under {ScalerName}. */
export const MEMBER_SERIES = {
  grant: { metric: B.memberGrant, stat: 'Maximum', budgetDimension: true },
  desired: { ...STATUS_SERIES.desired, budgetDimension: false },
  applied: { ...STATUS_SERIES.applied, budgetDimension: false },
  headAge: { ...STATUS_SERIES.headAge, budgetDimension: false },
  targetAge: { ...STATUS_SERIES.targetAge, budgetDimension: false },
  cap: { ...STATUS_SERIES.cap, budgetDimension: false },
  floor: { ...STATUS_SERIES.floor, budgetDimension: false },
} as const satisfies Record<string, { metric: string; stat: string; budgetDimension: boolean }>;

export type BudgetSeriesName = keyof typeof BUDGET_SERIES;
export type MemberSeriesName = keyof typeof MEMBER_SERIES;
const BUDGET_NAMES = Object.keys(BUDGET_SERIES) as BudgetSeriesName[];
const MEMBER_NAMES = Object.keys(MEMBER_SERIES) as MemberSeriesName[];

/** A series whose result was missing or not `Complete`: shown as unknown with this status, never as zero. */
export interface PartialSeries<N extends string> {
  readonly series: N;
  /** The result's `StatusCode` (`PartialData`, `InternalError`, `Forbidden`), or `missing` from the answer. */
  readonly status: string;
}

export interface MemberReading {
  readonly name: string;
  readonly series: Record<MemberSeriesName, Datapoint[]>;
  readonly partial: readonly PartialSeries<MemberSeriesName>[];
}

/** A part that could not be read: shown as such where its values would be. */
export interface BudgetReadProblem {
  /** `metrics`: the GetMetricData call failed; `members`: members beyond the first 20 were not read. */
  readonly part: 'metrics' | 'members';
  readonly error: string;
}

export interface BudgetReading {
  /** Epoch seconds when read. */
  readonly readAt: number;
  readonly budgetName: string;
  readonly windowSeconds: number;
  readonly budget: Record<BudgetSeriesName, Datapoint[]>;
  readonly budgetPartial: readonly PartialSeries<BudgetSeriesName>[];
  /** By name. */
  readonly members: readonly MemberReading[];
  /** Scalers beyond the first 20 by name that published a grant under this budget: listed, not read. */
  readonly notShown: readonly string[];
  readonly problems: readonly BudgetReadProblem[];
}

export interface BudgetStatusOptions {
  /** Epoch seconds. */
  readonly now: number;
  readonly windowSeconds: number;
}

/** ListMetrics pages of 500: a budget's members fit in one; more than this many pages is not a budget. */
const LIST_PAGES = 10;
/** GetMetricData pages (100,800 datapoints each): a day of 144 series at one a minute is 2. */
const DATA_PAGES = 10;
/** ListMetrics' only look-back besides its default of two weeks. */
const RECENTLY_ACTIVE_SECONDS = 3 * 3600;

/**
 * `cloudwatch` for GetMetricData (a long window's read can take seconds); `listing` for ListMetrics, the first
 * call, with the quick calls' timeouts (lib/operator/clients.ts) so a silent endpoint is reported as soon as a
 * queue read would be. Without it, `cloudwatch` lists too.
 */
export interface BudgetClients {
  readonly cloudwatch: CloudWatchClient;
  readonly listing?: CloudWatchClient;
}

export interface BudgetMembers {
  /** At most 20, by name. */
  readonly members: readonly string[];
  readonly notShown: readonly string[];
  /** Whether the listing stopped at its page bound (there may be more than `notShown` says). */
  readonly truncated: boolean;
}

/** The scaler names in `ListMetrics` results, each once, by name. */
export function memberNames(metrics: readonly Metric[]): string[] {
  const names = new Set<string>();
  for (const m of metrics) {
    const value = m.Dimensions?.find((d) => d.Name === SCALER_DIMENSION)?.Value;
    if (value !== undefined && value !== '') names.add(value);
  }
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The members: the scalers that publish a `BudgetGrant` under the budget's name. ListMetrics lists a metric that
 * had data in the last two weeks, or (`RecentlyActive`) the last three hours: within a window of three hours or
 * less only the last three hours' members are listed, so a member removed since then is not.
 */
export async function listBudgetMembers(
  clients: BudgetClients,
  budgetName: string,
  windowSeconds: number,
): Promise<BudgetMembers> {
  const found: Metric[] = [];
  let token: string | undefined;
  let truncated = false;
  for (let page = 0; ; page++) {
    if (page === LIST_PAGES) {
      truncated = true;
      break;
    }
    const out = await (clients.listing ?? clients.cloudwatch).send(
      new ListMetricsCommand({
        Namespace: METRIC_NAMESPACE,
        MetricName: B.memberGrant,
        Dimensions: [{ Name: BUDGET_DIMENSION, Value: budgetName }],
        ...(windowSeconds <= RECENTLY_ACTIVE_SECONDS ? { RecentlyActive: 'PT3H' as const } : {}),
        NextToken: token,
      }),
    );
    found.push(...(out.Metrics ?? []));
    token = out.NextToken;
    if (!token) break;
  }
  const names = memberNames(found);
  return {
    members: names.slice(0, MAX_BUDGET_MEMBERS),
    notShown: names.slice(MAX_BUDGET_MEMBERS),
    truncated,
  };
}

const memberId = (index: number, series: MemberSeriesName) => `m${index}_${series.toLowerCase()}`;
const budgetId = (series: BudgetSeriesName) => `b_${series.toLowerCase()}`;

export function budgetQueries(
  budgetName: string,
  members: readonly string[],
  periodSeconds: number,
): MetricDataQuery[] {
  const query = (
    Id: string,
    metric: string,
    stat: string,
    Dimensions: { Name: string; Value: string }[],
  ): MetricDataQuery => ({
    Id,
    ReturnData: true,
    MetricStat: {
      Metric: { Namespace: METRIC_NAMESPACE, MetricName: metric, Dimensions },
      Period: periodSeconds,
      Stat: stat,
    },
  });
  const budget = { Name: BUDGET_DIMENSION, Value: budgetName };
  return [
    ...BUDGET_NAMES.map((name) =>
      query(budgetId(name), BUDGET_SERIES[name].metric, BUDGET_SERIES[name].stat, [budget]),
    ),
    ...members.flatMap((member, i) =>
      MEMBER_NAMES.map((name) => {
        const spec = MEMBER_SERIES[name];
        const scaler = { Name: SCALER_DIMENSION, Value: member };
        return query(
          memberId(i, name),
          spec.metric,
          spec.stat,
          spec.budgetDimension ? [budget, scaler] : [scaler],
        );
      }),
    ),
  ];
}

/** Pages of one request: a query's datapoints may come in several pages; joined by id. */
export function mergePages(results: readonly MetricDataResult[]): MetricDataResult[] {
  const byId = new Map<string, MetricDataResult>();
  for (const r of results) {
    const seen = byId.get(r.Id ?? '');
    byId.set(
      r.Id ?? '',
      seen === undefined
        ? { ...r }
        : {
            ...seen,
            Timestamps: [...(seen.Timestamps ?? []), ...(r.Timestamps ?? [])],
            Values: [...(seen.Values ?? []), ...(r.Values ?? [])],
            StatusCode: (r.StatusCode ?? 'Complete') === 'Complete' ? seen.StatusCode : r.StatusCode,
          },
    );
  }
  return [...byId.values()];
}

function pick<N extends string>(
  byId: ReadonlyMap<string | undefined, MetricDataResult>,
  names: readonly N[],
  id: (name: N) => string,
): { series: Record<N, Datapoint[]>; partial: PartialSeries<N>[] } {
  const series = {} as Record<N, Datapoint[]>;
  const partial: PartialSeries<N>[] = [];
  for (const name of names) {
    const r = byId.get(id(name));
    const status = r === undefined ? 'missing' : (r.StatusCode ?? 'Complete');
    series[name] = r !== undefined && status === 'Complete' ? points(r) : [];
    if (status !== 'Complete') partial.push({ series: name, status });
  }
  return { series, partial };
}

export function parseBudgetMetrics(
  results: readonly MetricDataResult[],
  members: readonly string[],
): Pick<BudgetReading, 'budget' | 'budgetPartial' | 'members'> {
  const byId = new Map(mergePages(results).map((r) => [r.Id, r]));
  const own = pick(byId, BUDGET_NAMES, budgetId);
  return {
    budget: own.series,
    budgetPartial: own.partial,
    members: members.map((name, i) => ({ name, ...pick(byId, MEMBER_NAMES, (s) => memberId(i, s)) })),
  };
}

/**
 * Lists the members first: without them there is no budget to show, so that call's error (access denied, an
 * unreachable endpoint) propagates, and so does a budget no scaler publishes a grant under (a wrong name, or a
 * controller that never ran). The metrics are then read in one request; when it fails, that is recorded as a
 * problem and the members are still shown, by name.
 */
export async function readBudgetStatus(
  clients: BudgetClients,
  budgetName: string,
  options: BudgetStatusOptions,
): Promise<BudgetReading> {
  const listed = await listBudgetMembers(clients, budgetName, options.windowSeconds);
  if (listed.members.length === 0) {
    const since =
      options.windowSeconds <= RECENTLY_ACTIVE_SECONDS ? 'the last 3 hours' : 'the last two weeks';
    throw new OperatorError(
      `--budget ${budgetName}: no scaler published a ${B.memberGrant} under ${BUDGET_DIMENSION}=${budgetName} (namespace ${METRIC_NAMESPACE}) in ${since}: check the name (the DownstreamBudget's budgetName), the region, and that its controller runs`,
    );
  }
  const problems: BudgetReadProblem[] = [];
  if (listed.notShown.length > 0 || listed.truncated) {
    problems.push({
      part: 'members',
      error: `${listed.notShown.length}${listed.truncated ? ' or more' : ''} more scalers published a grant under this budget than the ${MAX_BUDGET_MEMBERS} a budget holds (removed or renamed members?): the first ${MAX_BUDGET_MEMBERS} by name are shown`,
    });
  }
  const { startTime, endTime } = metricWindow(options.now, 60, options.windowSeconds);
  let results: MetricDataResult[] = [];
  try {
    let token: string | undefined;
    for (let page = 0; page < DATA_PAGES; page++) {
      const out = await clients.cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: budgetQueries(budgetName, listed.members, 60),
          StartTime: startTime,
          EndTime: endTime,
          ScanBy: 'TimestampAscending',
          NextToken: token,
        }),
      );
      results.push(...(out.MetricDataResults ?? []));
      token = out.NextToken;
      if (!token) break;
    }
  } catch (error) {
    results = [];
    problems.push({ part: 'metrics', error: oneLineError(error) });
  }
  return {
    readAt: options.now,
    budgetName,
    windowSeconds: options.windowSeconds,
    ...parseBudgetMetrics(results, listed.members),
    notShown: listed.notShown,
    problems,
  };
}
