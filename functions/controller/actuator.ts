import {
  type LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { errorMessage, type FailureKind, failureKind } from '../../lib/aws/aws-errors.ts';
import { type ActuatorReading, readMapping, readReserved } from '../../lib/aws/lambda-reads.ts';
import type {
  ActuatorCondition,
  ActuatorMode,
  ConcurrencyPort,
  PauseKind,
  ScalerConfig,
} from '../../lib/control/index.ts';
import { parseUnreservedFloor, readMaxReservable } from './account-headroom.ts';
import {
  assertWritable,
  type ConsumerLimits,
  outOfStep,
  planWrites,
  UnsafeWriteError,
  type Write,
} from './write-plan.ts';

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
      readonly failure: FailureKind | 'unsafe';
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
}

const unbounded = (v: number | undefined) => v ?? Number.POSITIVE_INFINITY;

/** The concurrency the consumer can run under these limits (undefined: nothing bounds it). */
export function effectiveConcurrency(mode: ActuatorMode, limits: ConsumerLimits): number | undefined {
  const value =
    mode === 'reserved'
      ? unbounded(limits.reserved)
      : Math.min(unbounded(limits.mapping), unbounded(limits.reserved));
  return Number.isFinite(value) ? value : undefined;
}

/** An operator's pause: reserved 0 (the console's "Throttle"), or the mapping disabled. */
export function pauseOf(reading: ConsumerReading): PauseKind | undefined {
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

/**
 * The ConcurrencyPort over Lambda. Reads both limits once per tick (reserved concurrency, and the mapping, whose
 * `MaximumConcurrency` caps the pollers, whose `State` shows a pause and whose `LastModified` dates the last
 * change), so a hand edit or a half-done tick is seen and repaired. Writes never throw out of `apply`: the
 * outcome is kept in `actuation`, so a failed write still leaves the decision to be logged. After its writes it
 * knows the limits without reading them again: the fast path between ticks reads no Lambda value.
 */
export class LambdaActuator implements ConcurrencyPort {
  actuation: Actuation = { kind: 'unchanged' };
  readonly writes: WriteLog[] = [];
  #reading: Promise<ConsumerReading> | undefined;
  /** The limits as read, then as written. */
  #limits: ConsumerLimits | undefined;

  constructor(
    private readonly lambda: LambdaClient,
    private readonly target: ActuatorTarget,
    private readonly config: ScalerConfig,
  ) {}

  /** One read of each limit per tick, shared by `applied()`, `condition()` and the carried state. */
  read(): Promise<ConsumerReading> {
    this.#reading ??= (async () => {
      const uuid = this.target.mode === 'reserved' ? this.target.mappingUuid : this.mappingUuid();
      const [reserved, mapping] = await Promise.all([
        readReserved(this.lambda, this.target.functionName),
        uuid === undefined
          ? Promise.resolve<ActuatorReading | undefined>(undefined)
          : readMapping(this.lambda, uuid),
      ]);
      const reading: ConsumerReading = {
        reserved: reserved.applied,
        mapping: mapping?.applied,
        mappingModifiedAt: mapping?.mappingModifiedAt,
        mappingEnabled: mapping?.enabled,
      };
      this.#limits = reading;
      return reading;
    })();
    return this.#reading;
  }

  /** The limits now: as read, updated by every successful write since. */
  get limits(): ConsumerLimits | undefined {
    return this.#limits;
  }

  /** The concurrency the consumer can run now (after this tick's writes), undefined: unbounded or unread. */
  get appliedNow(): number | undefined {
    return this.#limits === undefined ? undefined : effectiveConcurrency(this.target.mode, this.#limits);
  }

  async applied(): Promise<number | undefined> {
    const reading = await this.read();
    // During a pause the level to resume at is the mapping's (reserved 0 is the pause, not a level).
    if (reading.reserved === 0) return this.target.mode === 'reserved' ? 0 : reading.mapping;
    return effectiveConcurrency(this.target.mode, reading);
  }

  async condition(): Promise<ActuatorCondition> {
    const reading = await this.read();
    return { paused: pauseOf(reading), outOfStep: outOfStep(this.target.mode, reading) };
  }

  async apply(desired: number, applied: number): Promise<void> {
    // The tick's reading (runTick asked `applied()` first); apply itself reads nothing. Without one, the
    // caller's value stands for both limits.
    const known = Number.isFinite(applied) ? applied : undefined;
    const limits = this.#limits ?? { reserved: known, mapping: known };
    const plan = planWrites(this.target.mode, limits, desired, this.config);
    for (const [i, write] of plan.entries()) {
      try {
        await this.write(write);
      } catch (error) {
        const floor = parseUnreservedFloor((error as Error | undefined)?.message);
        if (
          write.target === 'reserved' &&
          failureKind(error) === 'invalid-parameter' &&
          floor !== undefined
        ) {
          await this.clampToHeadroom(write, desired, applied, plan.slice(i + 1), floor);
        } else {
          this.actuation = {
            kind: 'failed',
            failure: error instanceof UnsafeWriteError ? 'unsafe' : failureKind(error),
            error: errorMessage(error),
            value: desired,
          };
        }
        return;
      }
    }
    this.actuation = { kind: 'applied', value: desired };
  }

  /**
   * Reserved concurrency would take the account's unreserved pool below its floor: reserve what the headroom
   * allows and bring the mapping along, or, with the headroom unknown, keep the old value (it is known to fit).
   */
  private async clampToHeadroom(
    refused: Write,
    desired: number,
    applied: number,
    rest: Write[],
    floor: number,
  ): Promise<void> {
    const maxReservable = await readMaxReservable(this.lambda, this.target.functionName, floor);
    const reserved = maxReservable === undefined ? undefined : Math.min(refused.value, maxReservable);
    const value = Math.min(desired, reserved ?? applied);
    const base = { kind: 'clamped', requested: desired, unreservedFloor: floor, maxReservable } as const;
    if (reserved === undefined || value <= applied || value < this.config.minConcurrency) {
      this.actuation = { ...base, value: Number.isFinite(applied) ? applied : (this.appliedNow ?? value) };
      return;
    }
    try {
      await this.write({ target: 'reserved', value: reserved });
      for (const write of rest) await this.write({ ...write, value: Math.min(write.value, value) });
      this.actuation = { ...base, value };
    } catch (error) {
      this.actuation = { kind: 'failed', failure: failureKind(error), error: errorMessage(error), value };
    }
  }

  private async write(write: Write): Promise<void> {
    assertWritable(write, this.config);
    try {
      if (write.target === 'reserved') {
        await this.lambda.send(
          new PutFunctionConcurrencyCommand({
            FunctionName: this.target.functionName,
            ReservedConcurrentExecutions: write.value,
          }),
        );
      } else {
        await this.lambda.send(
          new UpdateEventSourceMappingCommand({
            UUID: this.mappingUuid(),
            ScalingConfig: { MaximumConcurrency: write.value },
          }),
        );
      }
      this.writes.push({ ...write, ok: true });
      const limits = this.#limits ?? { reserved: undefined, mapping: undefined };
      this.#limits =
        write.target === 'reserved'
          ? { ...limits, reserved: write.value }
          : { ...limits, mapping: write.value };
    } catch (error) {
      this.writes.push({ ...write, ok: false });
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
