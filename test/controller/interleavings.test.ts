import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/controller/handler.ts';
import { settingsFromEnvironment } from '../../functions/controller/resources.ts';
import { attachCallLog, createAwsClients } from '../../lib/aws/clients.ts';
import { TickerDriver, withTicker } from './support/ticker-driver.ts';
import { awsError, ENVIRONMENT, MAPPING_UUID, metricResults } from './support/unit-deps.ts';

/**
 * The actuator's promise under anything an operator and the control plane can do between and during ticks: the
 * real handler (tick, fast path, write plan, actuator) runs against a model of one consumer's two limits, while
 * fast-check interleaves pauses, resumes, hand edits of either limit, raises the account's headroom refuses and
 * throttled writes. The operator acts between ticks and between fast-path samples (the instants the controller
 * sleeps), the control plane at every write. After every completed tick and every fast-path sample that wrote:
 * MaximumConcurrency ≤ reserved unless a throttled write left a repair undone; no write lands while paused; no
 * write ever takes the mapping further above reserved than it was.
 */
const cloudwatch = mockClient(CloudWatchClient);
const lambda = mockClient(LambdaClient);
const sqs = mockClient(SQSClient);
afterEach(() => {
  cloudwatch.reset();
  lambda.reset();
  sqs.reset();
});

const CAP = 16;
const FLOOR_MESSAGE =
  "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100].";
const OLD = new Date((1_800_000_000 - 3600) * 1000);

// Histories that make the law grow (behind), hold, or shrink (idle), with the controller's own history at 4.
const HISTORIES = {
  behind: Array.from({ length: 10 }, (_, i) => ({
    age: i === 0 ? 300 : 30,
    sent: 6,
    deleted: 6,
    durationMs: 600_000,
    applied: 4,
    scaleEvents: 0,
  })),
  steady: Array.from({ length: 10 }, () => ({
    age: 5,
    sent: 60,
    deleted: 60,
    durationMs: 60_000,
    applied: 4,
    scaleEvents: 0,
  })),
  idle: Array.from({ length: 10 }, () => ({ age: 0, sent: 0, deleted: 0, applied: 4, scaleEvents: 0 })),
};

type Edit =
  | { readonly kind: 'throttle-console' }
  | { readonly kind: 'disable-mapping' }
  | { readonly kind: 'enable-mapping' }
  | { readonly kind: 'set-reserved'; readonly value: number }
  | { readonly kind: 'set-mapping'; readonly value: number }
  | { readonly kind: 'headroom'; readonly maxReservable: number | undefined }
  | { readonly kind: 'throttle-writes'; readonly count: number }
  | { readonly kind: 'depth'; readonly visible: number }
  | { readonly kind: 'none' };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant<Edit>({ kind: 'throttle-console' }),
  fc.constant<Edit>({ kind: 'disable-mapping' }),
  fc.constant<Edit>({ kind: 'enable-mapping' }),
  fc.integer({ min: 1, max: 40 }).map<Edit>((value) => ({ kind: 'set-reserved', value })),
  fc.integer({ min: 2, max: 40 }).map<Edit>((value) => ({ kind: 'set-mapping', value })),
  fc
    .option(fc.integer({ min: 0, max: 20 }), { nil: undefined })
    .map<Edit>((maxReservable) => ({ kind: 'headroom', maxReservable })),
  fc.integer({ min: 1, max: 3 }).map<Edit>((count) => ({ kind: 'throttle-writes', count })),
  fc.integer({ min: 0, max: 5_000 }).map<Edit>((visible) => ({ kind: 'depth', visible })),
  fc.constant<Edit>({ kind: 'none' }),
);

/** One consumer's limits as Lambda holds them, answering the SDK calls the controller makes. */
class ConsumerModel {
  reserved: number | undefined;
  mapping: number | undefined;
  enabled = true;
  visible = 0;
  /** The most reserved concurrency the account's unreserved floor allows this function (undefined: no limit). */
  maxReservable: number | undefined;
  throttledWrites = 0;
  /** Writes throttled since the last check: a repair they left undone is not the plan's fault. */
  throttledSinceCheck = 0;
  writesSinceCheck = 0;
  readonly violations: string[] = [];

  constructor(reserved: number | undefined, mapping: number | undefined) {
    this.reserved = reserved;
    this.mapping = mapping;
  }

  get paused(): boolean {
    return this.reserved === 0 || !this.enabled;
  }

  overpull(): number {
    if (this.reserved === undefined) return 0;
    return Math.max(0, (this.mapping ?? Number.POSITIVE_INFINITY) - this.reserved);
  }

  apply(e: Edit): void {
    switch (e.kind) {
      case 'throttle-console':
        this.reserved = 0;
        break;
      case 'disable-mapping':
        this.enabled = false;
        break;
      case 'enable-mapping':
        this.enabled = true;
        break;
      case 'set-reserved':
        this.reserved = e.value;
        break;
      case 'set-mapping':
        this.mapping = e.value;
        break;
      case 'headroom':
        this.maxReservable = e.maxReservable;
        break;
      case 'throttle-writes':
        this.throttledWrites = e.count;
        break;
      case 'depth':
        this.visible = e.visible;
        break;
      case 'none':
        break;
    }
  }

  /** A controller write: checked against the pause and the overpull before it lands. */
  write(target: 'reserved' | 'mapping', value: number | undefined): void {
    if (this.throttledWrites > 0) {
      this.throttledWrites--;
      this.throttledSinceCheck++;
      throw awsError('TooManyRequestsException', 'Rate exceeded', 429);
    }
    if (target === 'reserved' && this.maxReservable !== undefined && (value ?? 0) > this.maxReservable) {
      throw awsError('InvalidParameterValueException', FLOOR_MESSAGE);
    }
    if (this.paused) this.violations.push(`${target} = ${value} written while paused`);
    const before = this.overpull();
    if (target === 'reserved') this.reserved = value;
    else this.mapping = value;
    this.writesSinceCheck++;
    if (this.overpull() > before) {
      this.violations.push(`${target} = ${value} widened the overpull from ${before} to ${this.overpull()}`);
    }
  }

  /**
   * After a completed tick (`strict`: it read both limits, so it must have repaired whatever it found), or a
   * fast-path sample (only if it wrote: a sample that only looked reads no Lambda value): the mapping within reserved.
   */
  check(where: string, strict: boolean): void {
    const wrote = this.writesSinceCheck > 0;
    const throttled = this.throttledSinceCheck > 0;
    this.writesSinceCheck = 0;
    this.throttledSinceCheck = 0;
    if ((!wrote && !strict) || throttled || this.paused) return;
    // Reserved set by hand to 1 cannot be matched: the mapping's least valid maximum is 2.
    if (this.overpull() > Math.max(0, 2 - (this.reserved ?? 2))) {
      this.violations.push(`${where}: mapping ${this.mapping} above reserved ${this.reserved}`);
    }
  }
}

function wire(model: ConsumerModel, history: keyof typeof HISTORIES): void {
  cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: metricResults(HISTORIES[history]) });
  sqs.on(GetQueueAttributesCommand).callsFake(async () => ({
    Attributes: {
      ApproximateNumberOfMessages: String(model.visible),
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    },
  }));
  lambda.on(GetFunctionConcurrencyCommand).callsFake(async () => ({
    ReservedConcurrentExecutions: model.reserved,
  }));
  lambda.on(GetEventSourceMappingCommand).callsFake(async () => ({
    UUID: MAPPING_UUID,
    ScalingConfig: model.mapping === undefined ? {} : { MaximumConcurrency: model.mapping },
    State: model.enabled ? 'Enabled' : 'Disabled',
    LastModified: OLD,
  }));
  lambda.on(GetAccountSettingsCommand).callsFake(async () => {
    if (model.maxReservable === undefined) throw new SyntaxError('Unexpected token < in JSON');
    return {
      AccountLimit: { UnreservedConcurrentExecutions: model.maxReservable - (model.reserved ?? 0) + 100 },
    };
  });
  lambda.on(PutFunctionConcurrencyCommand).callsFake(async (input) => {
    model.write('reserved', input.ReservedConcurrentExecutions);
    return { ReservedConcurrentExecutions: input.ReservedConcurrentExecutions };
  });
  lambda.on(UpdateEventSourceMappingCommand).callsFake(async (input) => {
    model.write('mapping', input.ScalingConfig?.MaximumConcurrency);
    return {};
  });
}

const limit = fc.option(fc.integer({ min: 2, max: 40 }), { nil: undefined });

describe('random interleavings of operator edits, refused raises and throttled writes', () => {
  it('the mapping never ends a tick or a growth above reserved, and nothing is written while paused', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('lockstep', 'event-source'),
        fc.constantFrom(...(Object.keys(HISTORIES) as (keyof typeof HISTORIES)[])),
        limit,
        limit,
        fc.integer({ min: 0, max: 5_000 }),
        // Per tick: the edits before it, then one batch of edits before each of its fast-path samples.
        fc.array(
          fc.record({ before: fc.array(edit, { maxLength: 3 }), between: fc.array(edit, { maxLength: 6 }) }),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        async (mode, history, reserved, mapping, visible, ticks) => {
          const model = new ConsumerModel(reserved, mapping);
          model.visible = visible;
          wire(model, history);
          let now = 1_800_000_000;
          let between: readonly Edit[] = [];
          let sample = 0;
          let tickIndex = 0;
          const clients = createAwsClients({
            region: 'us-east-1',
            endpoint: 'http://127.0.0.1:9',
            credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
          });
          const ticker = new TickerDriver(() => now);
          const tick = createHandler({
            settings: settingsFromEnvironment({
              ...ENVIRONMENT,
              ACTUATOR: mode,
              MAX_CONCURRENCY: String(CAP),
              FAST_SAMPLE_SECONDS: '10',
            }),
            clients,
            calls: attachCallLog(clients),
            reporter: { report() {}, reportFast() {}, reportFastLoop() {} },
            clock: () => now,
            ticker,
          });
          const handler = withTicker(tick, ticker, async (seconds) => {
            // The tick, or the previous sample, is over: check it, then let the operator act before the next one.
            model.check(sample === 0 ? `tick ${tickIndex}` : `fast-path sample ${sample}`, sample === 0);
            now += seconds;
            const e = between[sample++];
            if (e !== undefined) model.apply(e);
          });
          for (const [i, tick] of ticks.entries()) {
            for (const e of tick.before) model.apply(e);
            between = tick.between;
            sample = 0;
            tickIndex = i;
            const slot = 1_800_000_000 + i * 60;
            now = slot;
            await handler({ time: new Date(slot * 1000).toISOString() });
            model.check(sample === 0 ? `tick ${i}` : `fast-path sample ${sample}`, sample === 0);
          }
          expect(model.violations).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
    // 150 runs of up to three ticks and their fast loops: about 20 s alone, twice that beside the other files.
  }, 180_000);
});
