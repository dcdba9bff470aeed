import {
  type LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { errorMessage, type FailureKind, failureKind } from '../../lib/aws/aws-errors.ts';
import { type ActuatorReading, readMapping, readReserved } from '../../lib/aws/lambda-reads.ts';
import type { ActuatorMode, ConcurrencyPort, ScalerConfig } from '../../lib/control/index.ts';
import { parseUnreservedFloor, readMaxReservable } from './account-headroom.ts';
import { assertWritable, planWrites, UnsafeWriteError, type Write } from './write-plan.ts';

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

/**
 * The ConcurrencyPort over Lambda. Reads one value per tick (lockstep and event-source: the mapping, whose
 * `MaximumConcurrency` caps the pollers and whose `LastModified` dates the last change; reserved: the function's
 * reserved concurrency). Writes never throw out of `apply`: the outcome is kept in `actuation`, so a failed
 * write still leaves the decision to be logged.
 */
export class LambdaActuator implements ConcurrencyPort {
  actuation: Actuation = { kind: 'unchanged' };
  readonly writes: WriteLog[] = [];
  #reading: Promise<ActuatorReading> | undefined;

  constructor(
    private readonly lambda: LambdaClient,
    private readonly target: ActuatorTarget,
    private readonly config: ScalerConfig,
  ) {}

  /** One read per tick, shared by `applied()` and the carried state. */
  read(): Promise<ActuatorReading> {
    this.#reading ??=
      this.target.mode === 'reserved'
        ? readReserved(this.lambda, this.target.functionName)
        : readMapping(this.lambda, this.mappingUuid());
    return this.#reading;
  }

  async applied(): Promise<number | undefined> {
    return (await this.read()).applied;
  }

  async apply(desired: number, applied: number): Promise<void> {
    // Nothing set yet (runTick then passes the floor as `applied`): order the writes as a shrink, capping the
    // mapping's pollers first. Reserved-first would leave pollers unbounded above reserved if the second write
    // failed (a deploy's ResourceConflictException).
    // The reading is the one runTick already made (`applied()`); apply itself reads nothing.
    const unset = this.#reading !== undefined && (await this.#reading).applied === undefined;
    const plan = planWrites(
      this.target.mode,
      unset ? Number.POSITIVE_INFINITY : applied,
      desired,
      this.config,
    );
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
      this.actuation = { ...base, value: applied };
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
