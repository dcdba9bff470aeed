import type { LambdaClient } from '@aws-sdk/client-lambda';
import { type BudgetRun, createHandler } from '../../../functions/controller/handler.ts';
import {
  createBudgetMetrics,
  createMetrics,
  powertoolsBudgetReporter,
  powertoolsReporter,
} from '../../../functions/controller/report.ts';
import { budgetSettingsFromEnvironment } from '../../../functions/controller/resources.ts';
import { attachCallLog, createAwsClients } from '../../../lib/aws/clients.ts';
import { BUDGET_ENVIRONMENT, type BudgetMemberEnvironment } from '../../../lib/budget-environment.ts';
import { INVOKES_PER_POLLER } from '../../../lib/control/config.ts';
import type { DownstreamHealthSpec } from '../../../lib/control/downstream-health.ts';
import type { MotoServer } from '../../support/moto-server.ts';
import { EmfRelay } from './emf-relay.ts';
import { TickerDriver, withTicker } from './ticker-driver.ts';
import { uniqueName, World } from './world.ts';

export interface BudgetMemberSpec {
  /** Non-default settings, by field name (as the construct writes them). */
  readonly settings: Record<string, string | number>;
  readonly weight?: number;
  readonly reserved?: number;
  readonly mappingMax?: number;
  /** Its mapping in provisioned mode instead of a MaximumConcurrency (actuator 'provisioned'). */
  readonly pollers?: { readonly minimum: number; readonly maximum: number };
  /** Its own health signal for the downstream, as the construct writes it (`downstreamHealth`). */
  readonly downstreamHealth?: DownstreamHealthSpec;
}

/** A member of the moto budget tests: target 60 s, floor 2, cap 16, one tick per test (the fast path off). */
export const ONE_TICK_MEMBER_SETTINGS = {
  targetAgeSeconds: 60,
  minConcurrency: 2,
  maxConcurrency: 16,
  scaleDownSurplusFraction: 0,
  fastSampleSeconds: 0,
} as const;

/** Such a member at `reserved` (its mapping's maximum the same). */
export const oneTickMember = (reserved: number, weight?: number): BudgetMemberSpec => ({
  settings: ONE_TICK_MEMBER_SETTINGS,
  reserved,
  mappingMax: reserved,
  ...(weight === undefined ? {} : { weight }),
});

/**
 * Several members (each a World: its queue, consumer and mapping in the emulator) under one budget controller,
 * the real budget handler wired to real SDK clients pointed at moto. One virtual clock for all of them. After every
 * write the controller sends, every member's limits are read back and summed (`sums`): the invariant is checked
 * at every instant the emulator passes through, not only at the end.
 */
export class BudgetWorld {
  readonly logs: { message: string; fields: Record<string, unknown> }[] = [];
  /**
   * Σ over the members of their effective limits (lockstep: the lower of the two; provisioned: reserved or 10 a
   * poller), after every write.
   */
  readonly sums: { command: string; sum: number }[] = [];
  readonly relay: EmfRelay;
  handler!: (event: unknown) => Promise<BudgetRun>;
  /** The ticker queue's mapping: what each tick sent, delivered back on the virtual clock. */
  ticker!: TickerDriver;
  /** Runs after each fast-path wait, at the virtual time it woke at (a test sends a surge there). */
  duringSleep?: (now: number) => Promise<void>;
  /** Faults to inject before a command reaches moto: return an Error to fail it. */
  fault?: (command: string, input: Record<string, unknown>) => Error | undefined;

  private constructor(
    readonly server: MotoServer,
    readonly members: readonly World[],
    readonly budgetName: string,
    readonly budget: number,
  ) {
    this.relay = new EmfRelay((members[0] as World).cloudwatch);
  }

  static async create(
    server: MotoServer,
    budget: number,
    specs: readonly BudgetMemberSpec[],
  ): Promise<BudgetWorld> {
    const members: World[] = [];
    for (const spec of specs) {
      members.push(
        await World.create(server, {
          reserved: spec.reserved,
          mappingMax: spec.mappingMax,
          ...(spec.pollers === undefined ? {} : { pollers: spec.pollers }),
          env: { FAST_SAMPLE_SECONDS: '0' },
        }),
      );
    }
    const now = Math.max(...members.map((m) => m.now));
    for (const m of members) m.now = now;
    const world = new BudgetWorld(server, members, uniqueName('budget'), budget);
    world.wire(specs);
    return world;
  }

  get now(): number {
    return (this.members[0] as World).now;
  }

  advance(seconds = 60): void {
    for (const m of this.members) m.advance(seconds);
  }

  /** The environment the construct would write. */
  environment(specs: readonly BudgetMemberSpec[]): Record<string, string> {
    const members: BudgetMemberEnvironment[] = this.members.map((m, i) => ({
      scalerName: m.names.scaler,
      queueUrl: m.queueUrl,
      queueName: m.names.queue,
      consumerFunctionName: m.names.consumer,
      eventSourceMappingUuid: m.mappingUuid,
      ...(specs[i]?.weight === undefined ? {} : { weight: specs[i]?.weight }),
      settings: specs[i]?.settings ?? {},
      ...(specs[i]?.downstreamHealth === undefined ? {} : { downstreamHealth: specs[i]?.downstreamHealth }),
    }));
    return {
      [BUDGET_ENVIRONMENT.budgetName]: this.budgetName,
      [BUDGET_ENVIRONMENT.budget]: String(this.budget),
      [BUDGET_ENVIRONMENT.members]: JSON.stringify(members),
    };
  }

  private wire(specs: readonly BudgetMemberSpec[]): void {
    const settings = budgetSettingsFromEnvironment(this.environment(specs));
    const clients = createAwsClients(this.server.clientConfig);
    this.injectFaults(clients.lambda);
    this.observeWrites(clients.lambda);
    const calls = attachCallLog(clients);
    const capture = (message: string, fields: Record<string, unknown>) => this.logs.push({ message, fields });
    const logger = { info: capture, error: capture };
    this.ticker = new TickerDriver(() => this.now);
    const handler = createHandler({
      settings,
      clients,
      calls,
      reporters: new Map(
        this.members.map((m) => [
          m.names.scaler,
          powertoolsReporter(createMetrics(m.names.scaler, this.relay.metricsClass()), logger),
        ]),
      ),
      budgetReporter: powertoolsBudgetReporter(
        createBudgetMetrics(this.budgetName, this.relay.metricsClass()),
        logger,
      ),
      clock: () => this.now,
      ticker: this.ticker,
    });
    // The samples' waits step the virtual clock, and let a test act in between.
    this.handler = withTicker(handler, this.ticker, async (seconds) => {
      this.advance(seconds);
      await this.duringSleep?.(this.now);
    });
  }

  private injectFaults(lambda: LambdaClient): void {
    lambda.middlewareStack.add(
      (next, context) => async (args) => {
        const error = this.fault?.(context.commandName ?? '', args.input as Record<string, unknown>);
        if (error) throw error;
        return next(args);
      },
      { step: 'initialize', name: 'injectFaults' },
    );
  }

  private observeWrites(lambda: LambdaClient): void {
    lambda.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const command = context.commandName ?? '';
        if (command === 'PutFunctionConcurrencyCommand' || command === 'UpdateEventSourceMappingCommand') {
          this.sums.push({ command, sum: await this.sum() });
        }
        return result;
      },
      { step: 'initialize', name: 'observeSums' },
    );
  }

  /** Σ effective limits now, read from the emulator (a member that cannot be read counts at its cap, 16 here). */
  async sum(): Promise<number> {
    const limits = await Promise.all(this.members.map((m) => this.effective(m)));
    return limits.reduce((a, b) => a + b, 0);
  }

  async effective(member: World, cap = 16): Promise<number> {
    try {
      const { reserved, mapping, maximumPollers } = await member.applied();
      const bound = maximumPollers === undefined ? mapping : maximumPollers * INVOKES_PER_POLLER;
      const value = Math.min(reserved ?? Number.POSITIVE_INFINITY, bound ?? Number.POSITIVE_INFINITY);
      return Number.isFinite(value) ? value : cap;
    } catch {
      return cap;
    }
  }

  async tick(event: unknown = (this.members[0] as World).event()): Promise<BudgetRun> {
    const run = await this.handler(event);
    await this.relay.flush();
    return run;
  }

  /** The budget's last log line. */
  lastBudgetLog(): { message: string; fields: Record<string, unknown> } {
    const last = [...this.logs].reverse().find((l) => l.message.startsWith('budget'));
    if (!last) throw new Error('no budget log line');
    return last;
  }
}
