import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  CreateEventSourceMappingCommand,
  CreateFunctionCommand,
  GetEventSourceMappingCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { createHandler } from '../../../functions/controller/handler.ts';
import type { TickOutcome } from '../../../functions/controller/outcome.ts';
import { createMetrics, powertoolsReporter } from '../../../functions/controller/report.ts';
import { type ControllerSettings, settingsFromEnvironment } from '../../../functions/controller/resources.ts';
import { attachCallLog, createAwsClients } from '../../../lib/aws/clients.ts';
import { sqsTickerPort } from '../../../lib/aws/ticker.ts';
import { CONTROLLER_METRICS, METRIC_NAMESPACE, SCALER_DIMENSION } from '../../../lib/telemetry.ts';
import { createLambdaRole, MOTO_ACCOUNT } from '../../support/moto-iam.ts';
import type { MotoServer } from '../../support/moto-server.ts';
import { consumerZip } from './consumer-zip.ts';
import { EmfRelay } from './emf-relay.ts';
import { TickerDriver, withTicker } from './ticker-driver.ts';

export const PERIOD = 60;

/** One minute of the queue's and the consumer's metrics, as AWS would publish them. */
export interface MinuteOfMetrics {
  readonly age?: number;
  readonly sent?: number;
  readonly deleted?: number;
  /** Sum of the consumer's Duration over the minute, milliseconds. */
  readonly durationMs?: number;
  readonly invocations?: number;
}

let counter = 0;

/**
 * A name no other test in this process uses: moto ignores Namespace when Dimensions are given
 * (docs/aws-facts.md, "The local emulator (moto)").
 */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export interface WorldOptions {
  /** Controller settings as environment variables (ACTUATOR, MAX_CONCURRENCY, …). */
  readonly env?: Record<string, string>;
  /** The consumer's reserved concurrency and the mapping's MaximumConcurrency before the first tick. */
  readonly reserved?: number;
  readonly mappingMax?: number;
  /** Read both values back after every controller write (`instants`). @default true; off for timing. */
  readonly observeWrites?: boolean;
  /**
   * Whether the mapping polls. A disabled mapping is an operator's pause to the controller. moto would run the
   * consumer (Docker) for every message sent to a queue with an enabled mapping, so `sendMessages` disables it
   * around each send. @default true
   */
  readonly mappingEnabled?: boolean;
  /** The mapping's BatchSize. @default SQS's 10 */
  readonly batchSize?: number;
  /** The mapping in provisioned mode (`ProvisionedPollerConfig`) instead of a MaximumConcurrency. */
  readonly pollers?: { readonly minimum: number; readonly maximum: number };
}

/**
 * A queue, its DLQ, a consumer and its (disabled) event source mapping in the emulator, and the real controller
 * handler wired to real SDK clients pointed at it. Time is virtual (`now`, epoch seconds, starting at the real
 * clock) so a test can step minutes without waiting; the seeded metrics use the same clock.
 */
export class World {
  /**
   * Virtual epoch seconds. It starts two minutes after the real clock at set-up and only moves forward, so
   * timestamps moto takes from the real clock (a mapping's LastModified) are never in the virtual future, and
   * creating the mapping reads as a change long enough ago for the shrink spacing.
   */
  now = 0;
  readonly cloudwatch: CloudWatchClient;
  readonly lambda: LambdaClient;
  readonly sqs: SQSClient;
  readonly relay: EmfRelay;
  readonly logs: { message: string; fields: Record<string, unknown> }[] = [];
  /** (reserved, mapping max) after every controller write, read back from the emulator. */
  readonly instants: {
    command: string;
    reserved?: number;
    mapping?: number;
    minimumPollers?: number;
    maximumPollers?: number;
  }[] = [];
  settings!: ControllerSettings;
  handler!: (event: unknown) => Promise<TickOutcome>;
  calls!: ReturnType<typeof attachCallLog>;

  private constructor(
    readonly server: MotoServer,
    readonly names: { queue: string; consumer: string; scaler: string },
  ) {
    this.cloudwatch = new CloudWatchClient(server.clientConfig);
    this.lambda = new LambdaClient(server.clientConfig);
    this.sqs = new SQSClient(server.clientConfig);
    this.relay = new EmfRelay(this.cloudwatch);
  }

  static async create(server: MotoServer, options: WorldOptions = {}): Promise<World> {
    const world = new World(server, {
      queue: uniqueName('orders'),
      consumer: uniqueName('consumer'),
      scaler: uniqueName('scaler'),
    });
    await world.setUp(options);
    return world;
  }

  queueUrl = '';
  tickerUrl = '';
  /** The ticker queue's mapping: what each tick sent, delivered back on the virtual clock (`ticker.plan`). */
  ticker!: TickerDriver;
  mappingUuid = '';
  mappingEnabled = true;
  /** Runs after each fast-path wait, at the virtual time it woke at. */
  duringSleep?: (now: number) => Promise<void>;

  /** Enables or disables the mapping (moto stores the state and reports it in GetEventSourceMapping). */
  async setMappingEnabled(enabled: boolean): Promise<void> {
    await this.lambda.send(new UpdateEventSourceMappingCommand({ UUID: this.mappingUuid, Enabled: enabled }));
  }

  private async setUp(options: WorldOptions): Promise<void> {
    const { queue, consumer, scaler } = this.names;
    const dlq = await this.sqs.send(new CreateQueueCommand({ QueueName: `${queue}-dlq` }));
    const dlqArn = (
      await this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
      )
    ).Attributes?.QueueArn;
    const created = await this.sqs.send(
      new CreateQueueCommand({
        QueueName: queue,
        Attributes: {
          VisibilityTimeout: '180',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }),
        },
      }),
    );
    this.queueUrl = created.QueueUrl ?? '';
    // The controller's own ticker queue: the samples between ticks are sent to it, and the driver delivers them.
    const ticker = await this.sqs.send(new CreateQueueCommand({ QueueName: `${scaler}-ticker` }));
    this.tickerUrl = ticker.QueueUrl ?? '';
    const queueArn = `arn:aws:sqs:us-east-1:${MOTO_ACCOUNT}:${queue}`;
    const role = await createLambdaRole(this.server, uniqueName('consumer-role'));
    await this.lambda.send(
      new CreateFunctionCommand({
        FunctionName: consumer,
        Runtime: 'nodejs20.x',
        Role: role,
        Handler: 'index.handler',
        Timeout: 30,
        Code: { ZipFile: consumerZip() },
      }),
    );
    // Disabled: moto would otherwise try to run the consumer for every message sent.
    const mapping = await this.lambda.send(
      new CreateEventSourceMappingCommand({
        FunctionName: consumer,
        EventSourceArn: queueArn,
        Enabled: false,
        ...(options.batchSize === undefined ? {} : { BatchSize: options.batchSize }),
        ...(options.mappingMax === undefined
          ? {}
          : { ScalingConfig: { MaximumConcurrency: options.mappingMax } }),
        ...(options.pollers === undefined
          ? {}
          : {
              ProvisionedPollerConfig: {
                MinimumPollers: options.pollers.minimum,
                MaximumPollers: options.pollers.maximum,
              },
            }),
      }),
    );
    this.mappingUuid = mapping.UUID ?? '';
    this.mappingEnabled = options.mappingEnabled ?? true;
    if (this.mappingEnabled) await this.setMappingEnabled(true);
    if (options.reserved !== undefined) {
      await this.lambda.send(
        new PutFunctionConcurrencyCommand({
          FunctionName: consumer,
          ReservedConcurrentExecutions: options.reserved,
        }),
      );
    }
    // Half a minute into a minute two ahead of the real clock: CloudWatch's periods are whole minutes, and a start
    // that fell on a minute's first second made "the first period after a growth" one minute early (a 1-in-60 flake
    // of the probe test in moto-scaling.test.ts).
    this.now = Math.floor(Date.now() / 1000 / PERIOD) * PERIOD + 2 * PERIOD + PERIOD / 2;
    this.settings = settingsFromEnvironment({
      SCALER_NAME: scaler,
      QUEUE_URL: this.queueUrl,
      QUEUE_NAME: queue,
      CONSUMER_FUNCTION_NAME: consumer,
      EVENT_SOURCE_MAPPING_UUID: this.mappingUuid,
      ...options.env,
    });
    this.rewire(options.observeWrites ?? true);
  }

  /** Builds the handler exactly as index.ts does, but with the emulator's endpoint, the relay and this clock. */
  rewire(observeWrites = true): void {
    const clients = createAwsClients(this.server.clientConfig);
    if (observeWrites) this.observeWrites(clients.lambda);
    this.observeMetricQueries(clients.cloudwatch);
    clients.ssm.middlewareStack.add(
      (next, context) => async (args) => {
        const error = this.ssmFault?.(context.commandName ?? '');
        if (error) throw error;
        return next(args);
      },
      { step: 'initialize', name: 'injectSsmFaults' },
    );
    this.calls = attachCallLog(clients);
    // Captures the decision lines the Powertools Logger would print (the reporter's only use of it).
    const capture = (message: string, fields: Record<string, unknown>) => this.logs.push({ message, fields });
    const logger = { info: capture, error: capture };
    this.ticker = new TickerDriver(() => this.now, sqsTickerPort(clients.sqs, this.tickerUrl));
    const handler = createHandler({
      settings: this.settings,
      clients,
      calls: this.calls,
      reporter: powertoolsReporter(createMetrics(this.names.scaler, this.relay.metricsClass()), logger),
      clock: () => this.now,
      ticker: this.ticker,
    });
    // The samples' waits step the virtual clock, and let a test act in between (send a surge).
    this.handler = withTicker(handler, this.ticker, async (seconds) => {
      this.now += seconds;
      await this.duringSleep?.(this.now);
    });
  }

  /** A fault to throw before an SSM command reaches moto (which cannot deny a read): return an Error to fail it. */
  ssmFault?: (command: string) => Error | undefined;

  /** The query ids of each GetMetricData request, in order (what a tick paid for). */
  readonly metricQueries: string[][] = [];

  private observeMetricQueries(cloudwatch: CloudWatchClient): void {
    cloudwatch.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetMetricDataCommand') {
          const input = args.input as { MetricDataQueries?: { Id?: string }[] };
          this.metricQueries.push((input.MetricDataQueries ?? []).map((q) => q.Id ?? ''));
        }
        return next(args);
      },
      { step: 'initialize', name: 'observeMetricQueries' },
    );
  }

  private observeWrites(lambda: LambdaClient): void {
    lambda.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const command = context.commandName ?? '';
        if (command === 'PutFunctionConcurrencyCommand' || command === 'UpdateEventSourceMappingCommand') {
          this.instants.push({ command, ...(await this.applied()) });
        }
        return result;
      },
      { step: 'initialize', name: 'observeInstants' },
    );
  }

  /** The ticker queue's counts, as SQS answers them. */
  async tickerAttributes(): Promise<Record<string, string>> {
    const answer = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: this.tickerUrl, AttributeNames: ['All'] }),
    );
    return answer.Attributes ?? {};
  }

  /**
   * The emulator's reserved concurrency and mapping maximum now; in provisioned mode its pollers as well (absent
   * otherwise, so a lockstep test's `toEqual` is unchanged).
   */
  async applied(): Promise<{
    reserved?: number;
    mapping?: number;
    minimumPollers?: number;
    maximumPollers?: number;
  }> {
    const [fn, mapping] = await Promise.all([
      this.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: this.names.consumer })),
      this.lambda.send(new GetEventSourceMappingCommand({ UUID: this.mappingUuid })),
    ]);
    const pollers = mapping.ProvisionedPollerConfig;
    return {
      reserved: fn.ReservedConcurrentExecutions,
      mapping: mapping.ScalingConfig?.MaximumConcurrency,
      ...(pollers === undefined
        ? {}
        : { minimumPollers: pollers.MinimumPollers, maximumPollers: pollers.MaximumPollers }),
    };
  }

  async setApplied(values: { reserved?: number; mapping?: number }): Promise<void> {
    if (values.reserved !== undefined) {
      await this.lambda.send(
        new PutFunctionConcurrencyCommand({
          FunctionName: this.names.consumer,
          ReservedConcurrentExecutions: values.reserved,
        }),
      );
    }
    if (values.mapping !== undefined) {
      await this.lambda.send(
        new UpdateEventSourceMappingCommand({
          UUID: this.mappingUuid,
          ScalingConfig: { MaximumConcurrency: values.mapping },
        }),
      );
    }
  }

  /**
   * Seeds the minutes before `now`: `minutes[0]` is the newest complete minute, `minutes[1]` the one before.
   * An undefined entry is a minute with no datapoint at all.
   */
  async seed(minutes: readonly (MinuteOfMetrics | undefined)[]): Promise<void> {
    const newest = Math.floor(this.now / PERIOD) * PERIOD - PERIOD;
    const sqs: MetricDatum[] = [];
    const lambda: MetricDatum[] = [];
    minutes.forEach((m, i) => {
      if (m === undefined) return;
      const Timestamp = new Date((newest - i * PERIOD + 1) * 1000);
      const q = [{ Name: 'QueueName', Value: this.names.queue }];
      const f = [{ Name: 'FunctionName', Value: this.names.consumer }];
      if (m.age !== undefined)
        sqs.push({
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: q,
          Timestamp,
          Value: m.age,
          Unit: 'Seconds',
        });
      if (m.sent !== undefined)
        sqs.push({
          MetricName: 'NumberOfMessagesSent',
          Dimensions: q,
          Timestamp,
          Value: m.sent,
          Unit: 'Count',
        });
      if (m.deleted !== undefined)
        sqs.push({
          MetricName: 'NumberOfMessagesDeleted',
          Dimensions: q,
          Timestamp,
          Value: m.deleted,
          Unit: 'Count',
        });
      if (m.durationMs !== undefined)
        lambda.push({
          MetricName: 'Duration',
          Dimensions: f,
          Timestamp,
          Value: m.durationMs,
          Unit: 'Milliseconds',
        });
      if (m.invocations !== undefined)
        lambda.push({
          MetricName: 'Invocations',
          Dimensions: f,
          Timestamp,
          Value: m.invocations,
          Unit: 'Count',
        });
    });
    await putAll(this.cloudwatch, 'AWS/SQS', sqs);
    await putAll(this.cloudwatch, 'AWS/Lambda', lambda);
  }

  /**
   * Seeds the controller's own history as its EMF would have: `AppliedConcurrency = applied` and no scale event
   * in each of the `minutes` before now (a controller that has been holding there).
   */
  async seedControllerHistory(applied: number, minutes: number): Promise<void> {
    const newest = Math.floor(this.now / PERIOD) * PERIOD - PERIOD;
    const d = [{ Name: SCALER_DIMENSION, Value: this.names.scaler }];
    const data: MetricDatum[] = [];
    for (let i = 0; i < minutes; i++) {
      const Timestamp = new Date((newest - i * PERIOD + 2) * 1000);
      data.push({
        MetricName: CONTROLLER_METRICS.appliedConcurrency,
        Dimensions: d,
        Timestamp,
        Value: applied,
      });
      data.push({ MetricName: CONTROLLER_METRICS.scaleEvents, Dimensions: d, Timestamp, Value: 0 });
    }
    await putAll(this.cloudwatch, METRIC_NAMESPACE, data);
  }

  async sendMessages(count: number): Promise<void> {
    // moto runs the consumer for each message sent while the mapping is enabled: disable it around the sends.
    if (this.mappingEnabled) await this.setMappingEnabled(false);
    for (let i = 0; i < count; i += 10) {
      const n = Math.min(10, count - i);
      await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: Array.from({ length: n }, (_, j) => ({ Id: String(j), MessageBody: `m${i + j}` })),
        }),
      );
    }
    if (this.mappingEnabled) await this.setMappingEnabled(true);
  }

  /**
   * Moves the virtual clock on, by one tick by default. Exactly one period, so exactly one minute boundary is
   * crossed whatever second the test starts at: a step of 65 s would cross two when `now` is in a minute's last
   * five seconds, leaving an unseeded minute that breaks the idle run. The virtual clock starts two
   * minutes after the real one, so moto's real-time LastModified still lies in the virtual past.
   */
  advance(seconds = PERIOD): void {
    this.now += seconds;
  }

  /** A scheduled event for the current virtual minute, as EventBridge sends it (whole seconds). */
  event(at = this.now): { id: string; time: string; 'detail-type': string; source: string } {
    return {
      id: `evt-${at}`,
      time: new Date(Math.floor(at) * 1000).toISOString().replace('.000Z', 'Z'),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
    };
  }

  /** Runs one tick and relays its EMF into the emulator, as CloudWatch Logs would. */
  async tick(event: unknown = this.event()): Promise<TickOutcome> {
    const outcome = await this.handler(event);
    await this.relay.flush();
    return outcome;
  }

  /** The last tick's line (`decision`, `tick skipped` or `tick failed: holding`), not the fast path's. */
  lastLog(): { message: string; fields: Record<string, unknown> } {
    const last = [...this.logs].reverse().find((l) => !l.message.startsWith('fast path'));
    if (!last) throw new Error('no log line');
    return last;
  }

  /** The fast path's lines since the last tick. */
  fastLogs(): { message: string; fields: Record<string, unknown> }[] {
    let tick = this.logs.length - 1;
    while (tick >= 0 && this.logs[tick]?.message.startsWith('fast path')) tick--;
    return this.logs.slice(tick + 1);
  }
}

async function putAll(cloudwatch: CloudWatchClient, namespace: string, data: MetricDatum[]): Promise<void> {
  // PutMetricData takes up to 1,000 datums per request.
  for (let i = 0; i < data.length; i += 500) {
    await cloudwatch.send(
      new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 500) }),
    );
  }
}
