import {
  type LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { errorMessage, type FailureKind, failureKind } from '../../lib/aws/aws-errors.ts';
import {
  type ActuatorReading,
  readFunctionTimeout,
  readMapping,
  readReserved,
} from '../../lib/aws/lambda-reads.ts';
import {
  type ActuatorCondition,
  type ActuatorMode,
  assertWritable,
  type ConcurrencyPort,
  type ConsumerLimits,
  capInSteps,
  EVENT_SOURCE_MAX_CONCURRENCY,
  effectiveConcurrency,
  executionCeiling,
  INVOKES_PER_POLLER,
  outOfStep,
  overpulls,
  type PauseKind,
  PROVISIONED_MIN_CONCURRENCY,
  PROVISIONED_MIN_POLLERS,
  planWrites,
  type ScalerConfig,
  UnsafeWriteError,
  type Write,
} from '../../lib/control/index.ts';
import { parseUnreservedFloor, readMaxReservable } from './account-headroom.ts';

export interface ActuatorTarget {
  readonly mode: ActuatorMode;
  readonly functionName: string;
  readonly mappingUuid?: string;
}

/** What a tick's actuation did, for the decision log and the metrics. */
export type Actuation =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'applied'; readonly value: number }
  | {
      readonly kind: 'clamped';
      readonly requested: number;
      /** What was applied: the headroom, or the old value when the headroom is unknown. */
      readonly value: number;
      readonly unreservedFloor: number;
      readonly maxReservable?: number;
    }
  | {
      readonly kind: 'failed';
      /** `deadline`: the fast path's write would have landed in the next tick's slot, so it was not sent. */
      readonly failure: FailureKind | 'unsafe' | 'deadline';
      readonly error: string;
      readonly value: number;
    };

export interface WriteLog extends Write {
  readonly ok: boolean;
}

/** Both limits on the consumer, as one tick read them. */
export interface ConsumerReading extends ConsumerLimits {
  /** The mapping's `LastModified`, epoch seconds, where the mapping was read. */
  readonly mappingModifiedAt?: number;
  /** Whether the mapping polls; undefined where it was not read. */
  readonly mappingEnabled?: boolean;
  /** The mapping's batching window, seconds; undefined where it was not read. */
  readonly batchingWindowSeconds?: number;
  /** The mapping's BatchSize, where read. */
  readonly batchSize?: number;
  /** Another controller the deploy names as the consumer's owner (lib/consumer-owner.ts): nothing may be written. */
  readonly drivenBy?: string;
  /** The owner parameter could not be read (not absent: denied, throttled): the tick drives, and logs this. */
  readonly ownerReadFault?: string;
  /** Provisioned mode's `MinimumPollers`, where read: kept at or under the `MaximumPollers` a write sets. */
  readonly minimumPollers?: number;
}

/** The owner check's answer: another controller that drives the consumer, and a fault reading the parameter. */
export interface OwnerCheck {
  readonly drivenBy?: string;
  readonly fault?: string;
}

/** An actuator's knowledge of the limits, carried from a tick to its samples. */
export interface CarriedLimits {
  readonly reading: ConsumerReading;
  readonly limits: ConsumerLimits;
}

/** An operator's pause: reserved 0 (the console's "Throttle"), or the mapping disabled. */
export function pauseOf(reading: ConsumerReading): PauseKind | undefined {
  if (reading.drivenBy !== undefined) return 'driven-elsewhere';
  if (reading.reserved === 0) return 'reserved-zero';
  if (reading.mappingEnabled === false) return 'mapping-disabled';
  return undefined;
}

/**
 * The pause itself overpulls: reserved 0 throttles every invocation while the mapping keeps polling, so messages
 * return and their receive count climbs toward the DLQ. Where the mapping was not read, it is assumed enabled.
 */
export function pauseOverpulls(reading: ConsumerReading): boolean {
  return reading.reserved === 0 && reading.mappingEnabled !== false;
}

/** A write the fast path may no longer start: it would land in the next tick's slot (see `writeDeadline`). */
export class WriteDeadlineError extends Error {
  override name = 'WriteDeadlineError';
}

/**
 * The ConcurrencyPort over Lambda. Reads both limits once per tick (reserved concurrency, and the mapping, whose
 * `MaximumConcurrency` caps the pollers, whose `State` shows a pause and whose `LastModified` dates the last
 * change), so a hand edit or a half-done tick is seen and repaired. Writes never throw out of `apply`: the
 * outcome is kept in `actuation`, so a failed write still leaves the decision to be logged. After its writes it
 * knows the limits without reading them again; the fast path reads them afresh (`refresh`) only before it grows.
 */
export class LambdaActuator implements ConcurrencyPort {
  #actuation: Actuation = { kind: 'unchanged' };
  readonly #writes: WriteLog[] = [];
  /**
   * No write starts after this time (epoch seconds, by `clock`): the fast path sets it so that none of its writes
   * lands in the next tick's slot, where the next tick would take it for its own (`skip:repeat`).
   */
  writeDeadline?: { readonly at: number; readonly clock: () => number };
  #reading: Promise<ConsumerReading> | undefined;
  /** The limits as read, then as written. */
  #limits: ConsumerLimits | undefined;
  /** The last reading's pause and mapping facts (the limits themselves live in `#limits`). */
  #read: ConsumerReading | undefined;
  /** The MinimumPollers the tick's scheduled floors ask for (`apply`'s `warm`), where they ask. */
  #warmPollers: number | undefined;
  /** The consumer's timeout, read once, when a budget's tick first asks (a shrink's release needs it). */
  #timeout: Promise<number | undefined> | undefined;

  constructor(
    private readonly lambda: LambdaClient,
    private readonly target: ActuatorTarget,
    private readonly config: ScalerConfig,
    /**
     * The other controller the deploy names as the consumer's owner, read with the limits (at each tick, and afresh
     * before each growth between ticks); undefined: this one may write. @default no owner check
     */
    private readonly drivenBy: () => Promise<OwnerCheck> = async () => ({}),
  ) {}

  /**
   * Runs `work` (a tick, or one fast-path sample, each of which may call `apply`) and returns what it did to the
   * consumer: the actuation of its last `apply` (`unchanged` without one) and its writes, in order.
   */
  async recording<T>(
    work: () => Promise<T>,
  ): Promise<{ value: T; actuation: Actuation; writes: WriteLog[] }> {
    const from = this.#writes.length;
    this.#actuation = { kind: 'unchanged' };
    const value = await work();
    return { value, actuation: this.#actuation, writes: this.#writes.slice(from) };
  }

  /** The actuation of the last `apply` (for a caller outside `recording`). */
  get actuation(): Actuation {
    return this.#actuation;
  }

  /** What this actuator knows of the limits (the reading, then its own writes), as plain data to carry on. */
  get carried(): CarriedLimits | undefined {
    return this.#read === undefined || this.#limits === undefined
      ? undefined
      : { reading: this.#read, limits: this.#limits };
  }

  /**
   * Takes up what an earlier invocation's actuator knew (`carried`): a sample in an invocation of its own then
   * reads no Lambda value unless it grows, as one in the tick's own invocation would not.
   */
  carry(known: CarriedLimits): void {
    this.#read = known.reading;
    this.#limits = known.limits;
    this.#reading = Promise.resolve(known.reading);
  }

  /** One read of each limit per tick, shared by `applied()`, `condition()` and the carried state. */
  read(): Promise<ConsumerReading> {
    this.#reading ??= (async () => {
      const uuid = this.target.mode === 'reserved' ? this.target.mappingUuid : this.mappingUuid();
      const [reserved, mapping, { drivenBy, fault }] = await Promise.all([
        readReserved(this.lambda, this.target.functionName),
        uuid === undefined
          ? Promise.resolve<ActuatorReading | undefined>(undefined)
          : readMapping(this.lambda, uuid),
        this.drivenBy(),
      ]);
      const reading: ConsumerReading = {
        reserved: reserved.applied,
        // Provisioned mode: the invocations its pollers may drive, 10 a poller (write-plan.ts counts in those).
        mapping:
          this.target.mode === 'provisioned'
            ? mapping?.maximumPollers === undefined
              ? undefined
              : mapping.maximumPollers * INVOKES_PER_POLLER
            : mapping?.applied,
        ...(mapping?.minimumPollers === undefined ? {} : { minimumPollers: mapping.minimumPollers }),
        mappingModifiedAt: mapping?.mappingModifiedAt,
        mappingEnabled: mapping?.enabled,
        batchingWindowSeconds: mapping?.batchingWindowSeconds,
        batchSize: mapping?.batchSize,
        ...(drivenBy === undefined ? {} : { drivenBy }),
        ...(fault === undefined ? {} : { ownerReadFault: fault }),
      };
      this.#limits = reading;
      this.#read = reading;
      return reading;
    })();
    return this.#reading;
  }

  /**
   * Reads both limits again (two reads): what an operator did since the tick's reading, a pause or a hand edit,
   * is seen before the next write. The fast path calls it before every growth, and only then.
   */
  async refresh(): Promise<void> {
    this.#reading = undefined;
    await this.read();
  }

  /** The concurrency the consumer can run now (after this tick's writes), undefined: unbounded or unread. */
  get appliedNow(): number | undefined {
    return this.#limits === undefined ? undefined : effectiveConcurrency(this.target.mode, this.#limits);
  }

  async applied(): Promise<number | undefined> {
    await this.read();
    const limits = this.#limits as ConsumerLimits;
    // During a pause the level to resume at is the mapping's (reserved 0 is the pause, not a level).
    if (limits.reserved === 0) return this.target.mode === 'reserved' ? 0 : limits.mapping;
    return effectiveConcurrency(this.target.mode, limits);
  }

  /** The most executions the limits as known now let run (read, then written): what a shared budget counts. */
  async ceiling(): Promise<number | undefined> {
    await this.read();
    return executionCeiling(this.target.mode, this.#limits as ConsumerLimits);
  }

  /** The consumer's function timeout (one read, then kept: it changes only with a deploy). */
  functionTimeoutSeconds(): Promise<number | undefined> {
    this.#timeout ??= readFunctionTimeout(this.lambda, this.target.functionName);
    return this.#timeout;
  }

  /** The pause of the last reading, and whether the limits as known now (read, then written) are out of step. */
  async condition(): Promise<ActuatorCondition> {
    const reading = await this.read();
    const limits = this.#limits ?? reading;
    return {
      paused: pauseOf({ ...(this.#read ?? reading), ...limits }),
      outOfStep: outOfStep(this.target.mode, limits),
      overpull: overpulls(this.target.mode, limits),
      ...(reading.batchingWindowSeconds === undefined
        ? {}
        : { batchingWindowSeconds: reading.batchingWindowSeconds }),
      // What makes a worker busy for slow start (lib/control depth-trend.ts, `busyMessagesPerWorker`).
      ...(reading.batchSize === undefined ? {} : { batchSize: reading.batchSize }),
      // Provisioned mode's warm pollers, as the scheduled floors count them (10 invocations a poller).
      ...(this.target.mode === 'provisioned' && this.#read?.minimumPollers !== undefined
        ? { warm: this.#read.minimumPollers * INVOKES_PER_POLLER }
        : {}),
    };
  }

  async apply(desired: number, applied: number, warm?: number): Promise<void> {
    // The tick's reading (runTick asked `applied()` first); apply itself reads nothing. Without one, the
    // caller's value stands for both limits.
    const known = Number.isFinite(applied) ? applied : undefined;
    this.#limits ??= { reserved: known, mapping: known };
    if (warm !== undefined) this.#warmPollers = Math.ceil(warm / INVOKES_PER_POLLER);
    const plan = planWrites(this.target.mode, this.#limits, desired, this.config.maxConcurrency);
    try {
      for (const write of plan) await this.write(write);
      await this.warmAlone();
      this.#actuation = { kind: 'applied', value: desired };
    } catch (error) {
      const refused = this.#writes.at(-1);
      const floor = parseUnreservedFloor((error as Error | undefined)?.message);
      if (
        refused?.target === 'reserved' &&
        !refused.ok &&
        failureKind(error) === 'invalid-parameter' &&
        floor !== undefined
      ) {
        await this.clampToHeadroom(refused, desired, floor);
      } else {
        this.#actuation = {
          kind: 'failed',
          failure: failureOf(error),
          error: errorMessage(error),
          value: desired,
        };
      }
    }
  }

  /**
   * Reserved concurrency would take the account's unreserved pool below its floor. Reserve what the headroom
   * allows, or, with the headroom unknown, keep the reserved value held (it is known to fit), and plan again to
   * that value: the mapping comes down to the reserved concurrency actually held in the same tick, so a refused
   * raise never leaves the pollers above it (found at reserved 3 with the mapping at 12 by hand: mapping 3).
   */
  private async clampToHeadroom(refused: Write, desired: number, floor: number): Promise<void> {
    const maxReservable = await readMaxReservable(this.lambda, this.target.functionName, floor);
    const limits = this.#limits as ConsumerLimits;
    const held = limits.reserved;
    const reservable =
      maxReservable === undefined ? held : Math.max(held ?? 0, Math.min(refused.value, maxReservable));
    const base = { kind: 'clamped', requested: desired, unreservedFloor: floor, maxReservable } as const;
    if (reservable === undefined) {
      // Nothing reserved and the headroom unknown: the function runs on the unreserved pool, and nothing it holds
      // is below the mapping. Keep what runs.
      this.#actuation = { ...base, value: this.appliedNow ?? refused.value };
      return;
    }
    // The mapping cannot go below 2 (valid 2–1000): with less reserved than that, it comes down to 2 and the
    // reserved raise to 2 is tried again (a refusal is then a failure, the least overpull left). Provisioned mode
    // takes the whole pollers the headroom holds, 2 at least.
    const value = levelWithin(this.target.mode, Math.min(desired, reservable));
    try {
      for (const write of planWrites(this.target.mode, limits, value, this.config.maxConcurrency))
        await this.write(write);
      // The warm pollers the floor asks for, within the maximum the headroom left (never above it).
      await this.warmAlone();
      this.#actuation = { ...base, value: this.appliedNow ?? value };
    } catch (error) {
      this.#actuation = { kind: 'failed', failure: failureOf(error), error: errorMessage(error), value };
    }
  }

  /**
   * The scheduled floors' warm pollers where the plan wrote no mapping (the maximum unchanged): one write of
   * MinimumPollers at the maximum in force, which is at or above it (warmConcurrency never passes the value).
   */
  private async warmAlone(): Promise<void> {
    const wanted = this.#warmPollers;
    const maximum = this.#limits?.mapping;
    if (this.target.mode !== 'provisioned' || wanted === undefined || maximum === undefined) return;
    if (this.#read?.minimumPollers === Math.min(wanted, maximum / INVOKES_PER_POLLER)) return;
    await this.write({ target: 'mapping', value: maximum });
  }

  private async write(write: Write): Promise<void> {
    assertWritable(write, this.config.maxConcurrency, this.target.mode);
    const deadline = this.writeDeadline;
    if (deadline !== undefined && deadline.clock() > deadline.at) {
      throw new WriteDeadlineError(
        `not starting ${write.target === 'mapping' ? 'MaximumConcurrency' : 'reserved concurrency'} = ${write.value}: it could land in the next tick's slot`,
      );
    }
    try {
      if (write.target === 'reserved') {
        await this.lambda.send(
          new PutFunctionConcurrencyCommand({
            FunctionName: this.target.functionName,
            ReservedConcurrentExecutions: write.value,
          }),
        );
      } else if (this.target.mode === 'provisioned') {
        // MinimumPollers may not exceed MaximumPollers: a floor above the new maximum comes down with it. The
        // scheduled floors' warm pollers where the tick asked for them, else what the mapping had.
        const maximumPollers = write.value / INVOKES_PER_POLLER;
        const minimumPollers = Math.min(
          this.#warmPollers ?? this.#read?.minimumPollers ?? PROVISIONED_MIN_POLLERS,
          maximumPollers,
        );
        await this.lambda.send(
          new UpdateEventSourceMappingCommand({
            UUID: this.mappingUuid(),
            ProvisionedPollerConfig: { MinimumPollers: minimumPollers, MaximumPollers: maximumPollers },
          }),
        );
        if (this.#read !== undefined) this.#read = { ...this.#read, minimumPollers };
      } else {
        await this.lambda.send(
          new UpdateEventSourceMappingCommand({
            UUID: this.mappingUuid(),
            ScalingConfig: { MaximumConcurrency: write.value },
          }),
        );
      }
      this.#writes.push({ ...write, ok: true });
      const limits = this.#limits ?? { reserved: undefined, mapping: undefined };
      this.#limits =
        write.target === 'reserved'
          ? { ...limits, reserved: write.value }
          : { ...limits, mapping: write.value };
    } catch (error) {
      this.#writes.push({ ...write, ok: false });
      throw error;
    }
  }

  private mappingUuid(): string {
    if (this.target.mappingUuid === undefined) {
      throw new UnsafeWriteError(`actuator '${this.target.mode}' needs the event source mapping's UUID`);
    }
    return this.target.mappingUuid;
  }
}

/**
 * The highest level the actuator can hold at or under `value`: the mapping's least (2) where it drives
 * MaximumConcurrency, 1 for reserved alone, whole pollers (20 at least) in provisioned mode.
 */
function levelWithin(mode: ActuatorMode, value: number): number {
  if (mode === 'provisioned') return Math.max(PROVISIONED_MIN_CONCURRENCY, capInSteps(value, mode));
  return Math.max(value, mode === 'reserved' ? 1 : EVENT_SOURCE_MAX_CONCURRENCY.min);
}

function failureOf(error: unknown): FailureKind | 'unsafe' | 'deadline' {
  if (error instanceof UnsafeWriteError) return 'unsafe';
  if (error instanceof WriteDeadlineError) return 'deadline';
  return failureKind(error);
}
