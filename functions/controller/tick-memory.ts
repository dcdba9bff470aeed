import { type ControllerState, type DepthSample, POLLER_SETTLE_SECONDS } from '../../lib/control/index.ts';
import { forgetRates, type RememberedRates } from '../../lib/control/rate-reads.ts';

/**
 * What this container remembers of each scaler's last tick, so that the next tick need not read the controller's
 * own history back from CloudWatch (three metrics a tick, $1.30 a month: docs/controller.md, "What each tick reads from CloudWatch, and why").
 * EventBridge ticks a minute apart and the samples between them run one at a time, so one warm container
 * normally serves them all; a tick in a container that does not hold the tick just before (a cold start, or a
 * tick another container ran) reads the history as before (`carried-state.ts`). Nothing here is trusted beyond
 * what the tick reads afresh: the applied value and the mapping's `LastModified` are read at every tick, and a
 * value this memory did not leave counts as a change now.
 */
export interface RememberedTick {
  /** When that tick ran, epoch seconds. */
  readonly at: number;
  /** The newest change this container made or saw proof of (a tick's write, a sample's growth). */
  readonly lastChangeAt?: number;
  /**
   * That tick wrote, and this container's last change before the write was a pollers' settling time earlier or more
   * (or none): a lowering it wrote binds at once (lib/control/depth-sample.ts). Known here to the second, where the
   * carried `lastChangeAt` counts a change from its period's start and could call a change made 20 s before settled.
   */
  readonly wroteOnSettled?: boolean;
  /** The depth that tick took, and when. */
  readonly lastVisible?: DepthSample;
  /** The last sample since with no backlog (lib/control/quiet-sample.ts), where the loop took one. */
  readonly lastQuiet?: DepthSample;
  /** The value applied as that tick, or a later sample's growth, left it (undefined: nothing set). */
  readonly applied?: number;
  /**
   * The saturation evidence that tick carried (lib/control/saturation.ts): a growth waiting to be judged, a ceiling
   * in force, the value that tick left (where the samples' growth since may be taken back to). Only in memory: a cold
   * start judges no probe and holds no ceiling (the cap still bounds every growth).
   */
  readonly saturation?: Pick<ControllerState, 'growthProbe' | 'saturation' | 'tickLeft'>;
  /** The rates the last tick that read them read, and whether the next tick may reuse them (rate-reads.ts). */
  readonly rates?: RememberedRates;
}

/** The saturation evidence a tick's saved state carries to the next tick in this container (`RememberedTick`). */
export function rememberedSaturation(saved: ControllerState): RememberedTick['saturation'] {
  return { growthProbe: saved.growthProbe, saturation: saved.saturation, tickLeft: saved.tickLeft };
}

/**
 * This container's last change, to the second, was a pollers' settling time before `at` or more (none: settled).
 * A cold start knows no such thing: not settled.
 */
export function settledBefore(remembered: RememberedTick | undefined, at: number): boolean {
  if (remembered === undefined) return false;
  const last = remembered.lastChangeAt;
  return last === undefined || at - last >= POLLER_SETTLE_SECONDS;
}

/** Older than this many tick periods, the memory may miss a tick another container ran: read the history. */
const REMEMBERED_FOR_TICKS = 1.5;

export class TickMemory {
  readonly #ticks = new Map<string, RememberedTick>();

  /** The tick just before `now` for this scaler, if this container ran it. */
  recall(scaler: string, now: number, tickSeconds: number): RememberedTick | undefined {
    const last = this.#ticks.get(scaler);
    if (last === undefined || !(now > last.at) || now - last.at > REMEMBERED_FOR_TICKS * tickSeconds) {
      return undefined;
    }
    return last;
  }

  remember(scaler: string, tick: RememberedTick): void {
    this.#ticks.set(scaler, tick);
  }

  /** A sample between ticks found no backlog: where the next tick reads a rise from (lib/control/quiet-sample.ts). */
  quiet(scaler: string, sample: DepthSample): void {
    const last = this.#ticks.get(scaler);
    if (last !== undefined && sample.at > last.at) this.#ticks.set(scaler, { ...last, lastQuiet: sample });
  }

  /** A sample between ticks grew this scaler: the change and its value, for the next tick, which reads the rates. */
  grew(scaler: string, at: number, applied: number | undefined): void {
    const last = this.#ticks.get(scaler);
    if (last !== undefined) {
      this.#ticks.set(scaler, { ...last, lastChangeAt: at, applied, rates: forgetRates(last.rates) });
    }
  }
}
