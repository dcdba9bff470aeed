import { capInSteps, concurrencyStep, type ScalerConfig } from './config.ts';
import { batchOf } from './depth-trend.ts';
import type { ControllerState, QueueSnapshot, SaturationCeiling } from './snapshot.ts';

/**
 * A downstream that refuses items (an API's 429s): the seed's "the downstream got slower" read off the queue
 * itself. A refused item is reported as a batch item failure and waits in flight until its visibility timeout ends,
 * so the queue holds more messages in flight than the applied workers can hold in full batches. Workers that pull
 * faster than the downstream takes make only refusals, which return together a visibility timeout later to be
 * refused again, one receive nearer the dead-letter queue. The API's rate is not known to the law (the per-item
 * time does not show it: a refused call's time says nothing of the rate), so its level is found as a congestion
 * window is: back off by a quarter on each tick that finds refusals still rising, grow back by a quarter a tick
 * while behind once none wait in flight (`refusalCeilingOf`).
 * Worked example (held-out step-onto-api-limit, seed 1: an API of 400 calls/s, 30 ms items, 12 workers' worth):
 * the law grew 6 → 28 at 960 s on a step to 300/s; at 1,020 s 5,217 refused items wait in flight: back to 21, at
 * 1,080 s still rising: 15; then held while they wait out their visibility timeout, and served as they return. A
 * burst of 500/s at 1,560 s grows 11 → 24, backed off to 18 and 13 as the refusals rise. No dead letters on 10
 * runs of 10 (seeds 1–5, both readings of the pollers' ramp), against 7 of 10 without the back-off.
 */

/** In flight beyond this many full batches per applied worker: failed items waiting out their timeout. */
const BATCHES_PER_WORKER = 2;
/**
 * And beyond this many seconds of CloudWatch's completions: refusals at an eighteenth of the completions or more,
 * over a visibility timeout of three minutes, are a downstream refusing; a few poison messages are not.
 */
const REFUSED_COMPLETION_SECONDS = 10;
/** The share of the applied workers kept when refusals rise. */
const BACK_OFF = 0.75;
/** The ceiling's growth a tick while behind with no refusals in flight. */
const REGROWTH = 1.25;

/** The queue holds refused items in flight (see the module's comment). */
export function refusalsInFlight(snapshot: QueueSnapshot): boolean {
  const { inFlightMessages: inFlight, completionRatePerSecond: completions, appliedConcurrency } = snapshot;
  if (inFlight === undefined || completions === undefined || !Number.isFinite(appliedConcurrency))
    return false;
  const held = BATCHES_PER_WORKER * batchOf(snapshot.batchSize) * appliedConcurrency;
  return inFlight - held > REFUSED_COMPLETION_SECONDS * completions;
}

/** What the tick knows (saturation.ts, `ProbeView`). */
export interface RefusalView {
  readonly snapshot: QueueSnapshot;
  readonly state: ControllerState;
  readonly config: ScalerConfig;
  readonly now: number;
  /** The age is above the setpoint, or will be when a growth binds. */
  readonly behind: boolean;
}

/**
 * What refusals say of the saturation ceiling: a quarter below the applied value where refusals in flight rose
 * since the previous tick (at most the ceiling in force); the ceiling they set, while they wait in flight no
 * longer rising; once none wait, behind, a quarter above it (lifted at the cap), not behind, as it is. Undefined
 * where they say nothing (no refusals, no ceiling of theirs): a probe's ceiling is carried as before
 * (saturation.ts).
 */
export function refusalCeilingOf(view: RefusalView): { saturation?: SaturationCeiling } | undefined {
  const { snapshot, state, config, now } = view;
  const applied = snapshot.appliedConcurrency;
  if (!Number.isFinite(applied)) return undefined;
  const prior = state.saturation;
  const theirs = prior?.refused === true ? prior : undefined;
  const until = now + config.scaleDownDelaySeconds;
  if (refusalsInFlight(snapshot)) {
    const before = state.lastVisible?.inFlight;
    const rising = before === undefined || (snapshot.inFlightMessages ?? 0) > before;
    if (!rising || applied <= config.minConcurrency)
      return theirs === undefined ? undefined : { saturation: theirs };
    // On the actuator's levels (a poller's 10 in provisioned mode), as a probe's ceiling is (saturation.ts).
    const quarterOff = Math.min(applied - 1, Math.floor(BACK_OFF * applied));
    const backedOff = Math.max(config.minConcurrency, capInSteps(quarterOff, config.actuator));
    const ceiling = Math.min(backedOff, prior?.ceiling ?? Number.POSITIVE_INFINITY);
    return { saturation: { ceiling, until, refused: true } };
  }
  if (theirs === undefined) return undefined;
  if (!view.behind) return { saturation: theirs };
  const step = concurrencyStep(config.actuator);
  const regrown = capInSteps(
    Math.max(theirs.ceiling + step, Math.ceil(REGROWTH * theirs.ceiling)),
    config.actuator,
  );
  return regrown >= config.maxConcurrency ? {} : { saturation: { ceiling: regrown, until, refused: true } };
}
