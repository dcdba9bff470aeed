import { DescribeAlarmsCommand, GetMetricDataCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { type FilteredLogEvent, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { GetEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { parseMapping, readReserved } from '../aws/lambda-reads.ts';
import { metricWindow } from '../aws/metric-queries.ts';
import { sqsQueuePort } from '../aws/queue-depth.ts';
import type { QueueDepth } from '../control/index.ts';
import type { OperatorClients } from './clients.ts';
import { type LoggedDecision, lastDecisions } from './decision-log.ts';
import { parseStatusMetrics, type StatusSeries, statusQueries } from './status-metrics.ts';

/** What `npm run status` looks at. Only the queue is required; each other part is read when it is given. */
export interface StatusTarget {
  readonly queueUrl: string;
  readonly functionName?: string;
  readonly mappingUuid?: string;
  readonly scalerName?: string;
  /** The controller's log group, for the decisions' reason codes. */
  readonly logGroup?: string;
}

export interface AlarmState {
  readonly name: string;
  readonly state: string;
  /** Epoch seconds of the last state change. */
  readonly since?: number;
  readonly reason?: string;
}

/** A part that could not be read: shown as such, never as a made-up value. */
export interface ReadProblem {
  readonly part: 'reserved' | 'mapping' | 'metrics' | 'alarms' | 'decisions';
  readonly error: string;
}

export interface StatusReading {
  /** Epoch seconds when read. */
  readonly readAt: number;
  readonly target: StatusTarget;
  readonly queueName: string;
  readonly depth: QueueDepth;
  /** The consumer's reserved concurrency: null when none is set, undefined when not read. */
  readonly reservedConcurrency?: number | null;
  /** The mapping's `ScalingConfig.MaximumConcurrency`: null when unset, undefined when not read. */
  readonly mappingMaximum?: number | null;
  /** The mapping's `State` (`Enabled`, `Disabled`, `Updating`, …): disabled pollers pull nothing. */
  readonly mappingState?: string;
  readonly series: StatusSeries;
  readonly windowSeconds: number;
  readonly alarms?: readonly AlarmState[];
  readonly decisions?: readonly LoggedDecision[];
  readonly problems: readonly ReadProblem[];
}

export interface StatusOptions {
  /** Epoch seconds. */
  readonly now: number;
  /** How far back the metrics and the decision log are read. */
  readonly windowSeconds: number;
  readonly decisions: number;
}

export function queueNameOf(queueUrl: string): string {
  return queueUrl.replace(/\/+$/, '').split('/').pop() ?? '';
}

export function parseAlarms(alarms: readonly MetricAlarm[]): AlarmState[] {
  return alarms
    .map((a) => ({
      name: a.AlarmName ?? '',
      state: a.StateValue ?? 'UNKNOWN',
      since: a.StateUpdatedTimestamp === undefined ? undefined : a.StateUpdatedTimestamp.getTime() / 1000,
      reason: a.StateReason,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The error as one line of bounded length, to stand where the value would have been shown. */
export function oneLineError(error: unknown): string {
  const text = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).replace(
    /\s+/g,
    ' ',
  );
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/**
 * Reads the queue first: without it there is no status, so its error (no such queue, unreachable endpoint)
 * propagates. Every other part is read in parallel and, when it fails, recorded as a problem beside the rest.
 */
export async function readStatus(
  clients: OperatorClients,
  target: StatusTarget,
  options: StatusOptions,
): Promise<StatusReading> {
  const queueName = queueNameOf(target.queueUrl);
  const depth = await sqsQueuePort(clients.sqs, target.queueUrl).depth();
  const problems: ReadProblem[] = [];
  const attempt = async <T>(part: ReadProblem['part'], read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (error) {
      problems.push({ part, error: oneLineError(error) });
      return undefined;
    }
  };
  const { startTime, endTime } = metricWindow(options.now, 60, options.windowSeconds);
  const [reserved, mapping, metricResults, alarms, events] = await Promise.all([
    target.functionName === undefined
      ? undefined
      : attempt(
          'reserved',
          async () => (await readReserved(clients.lambda, target.functionName ?? '')).applied ?? null,
        ),
    target.mappingUuid === undefined
      ? undefined
      : attempt('mapping', async () => {
          const out = await clients.lambda.send(
            new GetEventSourceMappingCommand({ UUID: target.mappingUuid ?? '' }),
          );
          return { maximum: parseMapping(out).applied ?? null, state: out.State };
        }),
    attempt('metrics', async () => {
      const out = await clients.cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: statusQueries({ queueName, scalerName: target.scalerName }, 60),
          StartTime: startTime,
          EndTime: endTime,
          ScanBy: 'TimestampAscending',
        }),
      );
      return out.MetricDataResults ?? [];
    }),
    target.scalerName === undefined
      ? undefined
      : attempt('alarms', async () => {
          const found: MetricAlarm[] = [];
          let token: string | undefined;
          do {
            const out = await clients.cloudwatch.send(
              // The stack names every alarm `<scalerName>-<what>` (lib/cdk/alarms.ts).
              new DescribeAlarmsCommand({ AlarmNamePrefix: `${target.scalerName}-`, NextToken: token }),
            );
            found.push(...(out.MetricAlarms ?? []));
            token = out.NextToken;
          } while (token);
          return parseAlarms(found);
        }),
    target.logGroup === undefined
      ? undefined
      : attempt('decisions', async () => {
          const found: FilteredLogEvent[] = [];
          let token: string | undefined;
          // A page or a few hold a window's ticks (one a minute); bounded so a chatty group cannot stall a refresh.
          for (let page = 0; page < 10; page++) {
            const out = await clients.logs.send(
              new FilterLogEventsCommand({
                logGroupName: target.logGroup,
                startTime: Math.floor((options.now - options.windowSeconds) * 1000),
                endTime: Math.ceil(options.now * 1000),
                filterPattern: '"reason"',
                nextToken: token,
              }),
            );
            found.push(...(out.events ?? []));
            token = out.nextToken;
            if (!token) break;
          }
          return lastDecisions(found, options.decisions);
        }),
  ]);
  return {
    readAt: options.now,
    target,
    queueName,
    depth,
    reservedConcurrency: reserved,
    mappingMaximum: mapping?.maximum,
    mappingState: mapping?.state,
    series: parseStatusMetrics(metricResults ?? []),
    windowSeconds: options.windowSeconds,
    alarms,
    decisions: events,
    problems,
  };
}
