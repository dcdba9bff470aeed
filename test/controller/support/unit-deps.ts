import type { MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { createHandler, type ScalerDependencies } from '../../../functions/controller/handler.ts';
import type { TickOutcome } from '../../../functions/controller/outcome.ts';
import { metricsFor } from '../../../functions/controller/report.ts';
import { settingsFromEnvironment } from '../../../functions/controller/resources.ts';
import { attachCallLog, createAwsClients } from '../../../lib/aws/clients.ts';

export const NOW = 1_800_000_025; // 25 s into a minute
export const MAPPING_UUID = '8c3d1f4e-2a6b-4c9d-9e7f-0a1b2c3d4e5f';

export const ENVIRONMENT = {
  SCALER_NAME: 'orders',
  QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders',
  QUEUE_NAME: 'orders',
  CONSUMER_FUNCTION_NAME: 'orders-consumer',
  EVENT_SOURCE_MAPPING_UUID: MAPPING_UUID,
  TARGET_AGE_SECONDS: '60',
  MIN_CONCURRENCY: '2',
  MAX_CONCURRENCY: '16',
  SCALE_DOWN_SURPLUS_FRACTION: '0',
  // The fault tests look at one tick; the fast path between ticks has tests of its own.
  FAST_SAMPLE_SECONDS: '0',
};

/**
 * A GetMetricData answer for the minutes before NOW: `[0]` is the newest complete minute. Values per series;
 * undefined leaves the minute out, as CloudWatch omits empty periods.
 */
export function metricResults(
  minutes: readonly {
    age?: number;
    sent?: number;
    deleted?: number;
    durationMs?: number;
    applied?: number;
    scaleEvents?: number;
  }[],
  status: Partial<Record<string, MetricDataResult['StatusCode']>> = {},
): MetricDataResult[] {
  const newest = Math.floor(NOW / 60) * 60 - 60;
  const ids = {
    age: 'age',
    sent: 'sent',
    deleted: 'deleted',
    durationMs: 'duration',
    applied: ['appliedmin', 'appliedmax'],
    scaleEvents: 'scaleevents',
  } as const;
  const out = new Map<string, { Timestamps: Date[]; Values: number[] }>();
  for (const id of [
    'age',
    'sent',
    'deleted',
    'duration',
    'invocations',
    'appliedmin',
    'appliedmax',
    'scaleevents',
  ]) {
    out.set(id, { Timestamps: [], Values: [] });
  }
  minutes.forEach((m, i) => {
    for (const [key, value] of Object.entries(m)) {
      if (value === undefined) continue;
      const target = ids[key as keyof typeof ids];
      for (const id of typeof target === 'string' ? [target] : target) {
        const r = out.get(id);
        r?.Timestamps.push(new Date((newest - i * 60) * 1000));
        r?.Values.push(value);
      }
    }
  });
  return [...out.entries()].map(([Id, r]) => ({ Id, ...r, StatusCode: status[Id] ?? 'Complete' }));
}

export interface UnitWorld {
  readonly deps: ScalerDependencies;
  readonly handler: (event: unknown) => Promise<TickOutcome>;
  readonly reported: { outcome: TickOutcome; metrics: Record<string, number> }[];
  /** The handler's clock (epoch seconds), `NOW` until a test moves it. */
  readonly time: { now: number };
}

/** The real handler and real SDK clients (to be mocked with aws-sdk-client-mock), with an in-memory reporter. */
export function unitWorld(env: Record<string, string> = {}): UnitWorld {
  const clients = createAwsClients({
    region: 'us-east-1',
    // Never reached: every client is mocked. A closed local port, so a missed mock fails fast and locally.
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const reported: UnitWorld['reported'] = [];
  const time = { now: NOW };
  const deps: ScalerDependencies = {
    settings: settingsFromEnvironment({ ...ENVIRONMENT, ...env }),
    clients,
    calls: attachCallLog(clients),
    reporter: {
      report(outcome) {
        reported.push({
          outcome,
          metrics: Object.fromEntries(metricsFor(outcome).map((m) => [m.name, m.value])),
        });
      },
      reportFast() {},
      reportFastLoop() {},
    },
    clock: () => time.now,
  };
  return { deps, handler: createHandler(deps) as (event: unknown) => Promise<TickOutcome>, reported, time };
}

/** An AWS SDK service error as the SDK throws it. */
export function awsError(name: string, message = name, status = 400): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
}
