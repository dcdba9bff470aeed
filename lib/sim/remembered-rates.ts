import type { MetricSeries, QueueDepth } from '../control/ports.ts';
import {
  forgetRates,
  type RememberedRates,
  ratesDue,
  rememberRates,
  withRemembered,
} from '../control/rate-reads.ts';
import type { ControllerState } from '../control/snapshot.ts';

/**
 * The simulated controller's memory of its last rate read, as the Lambda's container keeps it (tick-memory.ts):
 * a tick asks `ratesDue` and, where they are not, sees the rates it read before (lib/control/rate-reads.ts).
 * Counts the ticks that read the rates and those that reused them, so a run says what it paid for.
 */
export class RememberedRateReads {
  #remembered: RememberedRates | undefined;
  /** What the tick in progress last read, until its state is saved. */
  #read: { series: MetricSeries; fresh: boolean } | undefined;
  #wroteSinceRead = false;
  reads = 0;
  reuses = 0;

  constructor(private readonly targetAgeSeconds: number) {}

  /**
   * A tick's read: `read` as CloudWatch answers now, or with the remembered rates where they are not due and the
   * tick does not ask for fresh ones.
   */
  async read(
    now: number,
    windowSeconds: number,
    read: () => Promise<MetricSeries>,
    freshRates = false,
  ): Promise<MetricSeries> {
    const series = await read();
    const remembered = this.#remembered;
    this.#wroteSinceRead = false;
    if (!freshRates && remembered !== undefined && !ratesDue(remembered, now)) {
      this.reuses++;
      const reused = withRemembered(series, remembered, now - windowSeconds);
      this.#read = { series: reused, fresh: false };
      return reused;
    }
    this.reads++;
    if (freshRates) this.reuses--;
    this.#read = { series, fresh: true };
    return series;
  }

  /** The tick saved its state: what it read is remembered, reusable while the queue is quiet and it did not write. */
  saved(state: ControllerState, now: number, depth: QueueDepth): void {
    if (this.#read === undefined) return;
    const read = { ...this.#read, depth };
    const next = rememberRates(read, this.#remembered, state, this.targetAgeSeconds, now);
    this.#remembered = this.#wroteSinceRead ? forgetRates(next) : next;
    this.#read = undefined;
  }

  /** Of the ticks that read CloudWatch, the share that read the rates afresh (1 where none read). */
  share(): number {
    const ticks = this.reads + this.reuses;
    return ticks === 0 ? 1 : this.reads / ticks;
  }

  /** A write to the limits (a tick's or a sample's): the next tick reads the rates afresh. */
  wrote(): void {
    this.#wroteSinceRead = true;
    this.#remembered = forgetRates(this.#remembered);
  }
}
