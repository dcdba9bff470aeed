/**
 * How the event source mapping's pollers scale, evaluated every `pollerScaleSeconds` (10 s by default): the
 * number of batches the mapping may
 * have in flight at once (concurrent invocations), before any bound that reserved concurrency or the mapping's
 * MaximumConcurrency puts on it.
 */
export interface PollerScaling {
  /** Concurrent invocations the pollers can drive now. */
  readonly capacity: number;
  /** Pollers billed now: provisioned mode's event poller units (standard mode's pollers are free). */
  readonly billedPollers: number;
  /**
   * The evaluation interval is over: `backlogSeen` says whether a message waited with every loop busy; `peakBusy`
   * is the most loops busy at once during it; `limit` the bound from MaximumConcurrency (Infinity when unset).
   */
  scale(backlogSeen: boolean, peakBusy: number, limit: number): void;
  /**
   * Provisioned mode's MinimumPollers as a controller wrote them (the scheduled floors' warm pollers): held from the
   * next evaluation on. Standard mode has none.
   */
  setMinimum?(pollers: number): void;
}

/**
 * Standard mode. AWS: "Lambda starts processing five batches at a time with five concurrent invocations … If
 * messages are still available, Lambda increases the number of processes that are reading batches by up to 300
 * more concurrent invokes per minute. The maximum … is 1,250. When traffic is low, Lambda scales back the
 * processing to five concurrent invokes" (services-sqs-scaling). No scale-down rate is documented: assumed that
 * invokes nobody used during the interval are released, down to the starting five. Nor is how often the ramp is
 * applied: evaluated every `evaluationSeconds`, each step is that share of the minute's 300 (10 s: 50 every 10 s;
 * a minute: 300 at once, the coarsest reading).
 */
export class StandardPollers implements PollerScaling {
  capacity: number;
  readonly billedPollers = 0;
  private readonly step: number;

  constructor(
    private readonly initial: number,
    stepPerMinute: number,
    private readonly max: number,
    evaluationSeconds = 60,
  ) {
    this.capacity = initial;
    this.step = stepFor(stepPerMinute, evaluationSeconds);
  }

  scale(backlogSeen: boolean, peakBusy: number, limit: number): void {
    const bound = Math.min(this.max, limit);
    const next = backlogSeen ? this.capacity + this.step : Math.min(this.capacity, peakBusy);
    this.capacity = Math.max(this.initial, Math.min(bound, next));
  }
}

/** The share of a per-minute ramp one evaluation adds, at least 1. */
function stepFor(perMinute: number, evaluationSeconds: number): number {
  return Math.max(1, Math.round((perMinute * evaluationSeconds) / 60));
}

// AWS (provisioned mode, Nov 2025): each event poller handles up to 10 concurrent invokes (lib/control's
// INVOKES_PER_POLLER, which the actuator's steps follow), and the mapping scales by up to 1,000 concurrent
// invocations a minute, i.e. 100 pollers a minute (lib/control's PROVISIONED_RAMP_PER_MINUTE, which the law's slow
// start ahead of the pollers reads).
import { INVOKES_PER_POLLER, PROVISIONED_RAMP_PER_MINUTE } from '../control/config.ts';

export { INVOKES_PER_POLLER };

/**
 * Provisioned mode: between MinimumPollers and MaximumPollers dedicated pollers, each driving up to 10 concurrent
 * invokes; up to 1,000 more concurrent invocations a minute while messages wait. It cannot be combined with
 * MaximumConcurrency: `limit` is the invocations a controller's MaximumPollers allows (10 a poller; Infinity when
 * none drives it). How it scales down is not documented: assumed, as for standard mode, that pollers whose invokes
 * nobody used during the interval are released, down to MinimumPollers.
 */
export class ProvisionedPollers implements PollerScaling {
  private pollers: number;
  private readonly step: number;

  constructor(
    private minimumPollers: number,
    private readonly maximumPollers: number,
    evaluationSeconds = 60,
  ) {
    this.pollers = minimumPollers;
    this.step = stepFor(PROVISIONED_RAMP_PER_MINUTE / INVOKES_PER_POLLER, evaluationSeconds);
  }

  get capacity(): number {
    return this.pollers * INVOKES_PER_POLLER;
  }

  /** AWS bills provisioned mode per event poller unit (EPU) and hour, at least MinimumPollers of them. */
  get billedPollers(): number {
    return this.pollers;
  }

  setMinimum(pollers: number): void {
    this.minimumPollers = pollers;
  }

  scale(backlogSeen: boolean, peakBusy: number, limit: number): void {
    const next = backlogSeen
      ? this.pollers + this.step
      : Math.min(this.pollers, Math.ceil(peakBusy / INVOKES_PER_POLLER));
    const maximum = Math.min(this.maximumPollers, Math.floor(limit / INVOKES_PER_POLLER));
    this.pollers = Math.max(this.minimumPollers, Math.min(maximum, next));
  }
}
