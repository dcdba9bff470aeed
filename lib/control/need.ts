import type { ScalerConfig } from './config.ts';

/**
 * Little's law, shared by the tick's law and the fast path so both size concurrency the same way.
 */

// A product like 17.000000001 must need 17, not 18.
const ROUNDING_SLACK = 1e-9;

/**
 * The busy workers arrivals keep, sized for the target utilisation so a Poisson queue stays stable (at 100 % it
 * never drains). Worked example (the seed): λ = 800/s, S = 20 ms, utilisation 0.9 → 16 ÷ 0.9 = 17.8 → 18.
 * The cap is the last resort: the headroom alone never takes the value to it, only work that needs it (λ·S at
 * 100 % reaching the cap) does; the downstream keeps one worker's room. Worked example: cap 32, 1,000/s at 30 ms
 * is 30 busy, 33.3 at 0.9: 31, not the cap; 1,100/s is 33 busy: the cap. (In provisioned mode whole pollers round
 * one below the cap back up to it: a poller is the least the downstream can be spared there.)
 */
export function steadyNeed(arrivalsPerSecond: number, itemSeconds: number, config: ScalerConfig): number {
  const busy = arrivalsPerSecond * itemSeconds;
  const withHeadroom = Math.ceil(busy / config.targetUtilization - ROUNDING_SLACK);
  const cap = config.maxConcurrency;
  if (withHeadroom < cap || Math.ceil(busy - ROUNDING_SLACK) >= cap) return withHeadroom;
  return cap - 1;
}

/**
 * The steady need plus draining the visible backlog within the drain horizon. The utilisation headroom drains it
 * already; only where it is too slow is more added. The setpoint decides when to grow; once growing, the whole
 * backlog goes, so the age settles well below the setpoint rather than on it, but the drain takes the value no
 * higher than `ceiling` (`drainCeiling`: the cap is the last resort); the steady need alone may reach the cap.
 * Worked example: λ = 800/s, S = 20 ms, 36,000 visible over the 120 s horizon = 300/s × 20 ms = 6;
 * 16 + 6 = 22, above the 18 the headroom alone gives.
 */
export function needWithBacklog(
  arrivalsPerSecond: number,
  itemSeconds: number,
  visibleMessages: number | undefined,
  config: ScalerConfig,
  ceiling = drainCeiling(config),
): number {
  const backlog = Math.max(0, visibleMessages ?? 0);
  const busy = arrivalsPerSecond * itemSeconds;
  const draining = Math.ceil(busy + (backlog * itemSeconds) / config.backlogDrainSeconds - ROUNDING_SLACK);
  return Math.max(steadyNeed(arrivalsPerSecond, itemSeconds, config), Math.min(draining, ceiling));
}

/**
 * The cap is the last resort: what arrivals need gets up to the cap, but draining a backlog faster, or growing on
 * a guess (slow start's doubling, the seed's step), stops at `targetUtilization` × the cap, where that headroom is
 * at least one whole worker; below that (a cap under 10 at 0.9) it would take a worker out of a handful, and the cap
 * stays the bound. Without it a need of 29 for a cap of 32 became 32 on the backlog the pollers' first minute left,
 * the downstream at its limit for a drain that 28 finish a little later. (Tried: the cap less its headroom in whole
 * workers, 29 of 32: `heavier-items` under the one-step-a-minute reading went from dominated on no seed to 3 of 5.)
 * Worked example: cap 32, utilisation 0.9 → 28; arrivals needing 30 at 0.9 still get 30, and 34 (30.6 busy) 31:
 * the cap only where the work itself needs it (`steadyNeed`); cap 8 → 8.
 */
export function drainCeiling(config: ScalerConfig): number {
  const { maxConcurrency: cap, minConcurrency: floor, targetUtilization } = config;
  if ((1 - targetUtilization) * cap < 1 - ROUNDING_SLACK) return cap;
  return Math.max(floor, Math.floor(targetUtilization * cap + ROUNDING_SLACK));
}

/** The age the law holds at steady load: growth starts above it; the target is the ceiling. */
export function setpointSeconds(config: ScalerConfig): number {
  return config.setpointFraction * config.targetAgeSeconds;
}

/**
 * The applied workers work off the visible backlog within the setpoint: the last message waiting now is served
 * before the head could pass it, so growth can wait for the next sample. Worked example: 500 waiting for 2
 * workers at 1 s is 250 s of work: within a 1-hour target's 30-minute setpoint (hold), not a 60 s target's 30 s.
 */
export function backlogWorkedOffInTime(
  visibleMessages: number,
  applied: number,
  itemSeconds: number,
  config: ScalerConfig,
): boolean {
  return applied > 0 && (visibleMessages * itemSeconds) / applied <= setpointSeconds(config);
}

/**
 * How far growth that CloudWatch has not confirmed may go: `unconfirmedGrowthFactor` × the need the confirmed
 * data supports (or × the applied value when no need is known yet), and never less than what is applied. At
 * least one above that need, so a floor of 1 can still grow. Callers pass as the need the workers the depth proves
 * busy where that is more (`workersProvenBusy`): a need CloudWatch confirmed two minutes ago is no bound on a load
 * that already keeps more at work.
 * Worked example: 300/s at 20 ms needs 7; items get 3× slower and the depth climbs; before CloudWatch shows the
 * slower per-item time, growth stops at ⌊1.5 × 7⌋ = 10, not at the 20 a spike of the same depth would need.
 */
export function unconfirmedLimit(
  applied: number,
  confirmedNeed: number | undefined,
  config: ScalerConfig,
): number {
  if (config.unconfirmedGrowthFactor <= 1) return applied;
  const base = Math.max(config.minConcurrency, confirmedNeed ?? applied);
  const limit = Math.max(base + 1, Math.floor(config.unconfirmedGrowthFactor * base + ROUNDING_SLACK));
  return Math.max(applied, limit);
}

/**
 * Growth between ticks on items the tick read heavier, which the tick did not grow for itself, goes at most this many
 * times the value applied. Heavier items and a saturated downstream look alike on the depth, and only a tick's
 * growth is judged (saturation.ts): unbounded, the samples grew a pool of 16 that saturated from 8 to 23 on the time
 * the tick read, the judged growth after it started past the pool's knee, and its verdict found room (163,668 waits
 * for a connection, native's 169,579).
 */
export const UNJUDGED_GROWTH_FACTOR = 2;
