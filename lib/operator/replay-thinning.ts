import type { LoadFile } from '../load-file/load-file.ts';
import type { DownstreamModel } from '../sim/downstream.ts';
import type { SimWorld } from '../sim/world.ts';

/**
 * A load too big to replay in full, replayed thinned by k < 1: each replayed message stands for 1/k of the
 * trace's, carrying their work. Rates × k and item times ÷ k, so rate × item time — the concurrency the load
 * needs, λ·S — is the trace's, and so are the cap, the floor and the pollers (counted in concurrent invokes):
 * nothing is scaled back. The figures a run reports are a thinned replay's all the same, approximate below
 * k = 0.1 (the measured error: docs/operator-tools.md). Durations, the controller's tick and the metric delays are
 * untouched, so the control loop sees the same time.
 *
 * Why not `scaleScenario`'s rate scale alone (`--rate-scale k`, concurrency × 1/k afterwards): concurrency is a
 * whole number with a floor of 2 (the mapping's minimum) and provisioned mode keeps 2 pollers (20 invokes) ready
 * whatever the rate, so at k = 0.05 every controller's scaled-back peak is 40 or more wherever the real one is
 * 17 to 32. scripts/measure-rate-scale.ts measures both on every shipped scenario (docs/operator-tools.md).
 *
 * What thinning does change: the arrivals' Poisson noise is relatively larger (1/√k), and the law's thresholds in
 * messages (a depth noise of 10, a backlog of 10 per worker: lib/control/depth-trend.ts) stand for 1/k times as
 * many of the trace's messages. The mapping's batch stays its size, so an invocation does 1/k times the trace's
 * work (a batch of ten 20 ms items at k = 0.0066 runs 30 s): `thin` keeps that inside the function
 * timeout, and the waits it adds coarsen the ages the law reads.
 */
export interface Thinning {
  /** The factor: 1 replays the trace as it is. */
  readonly k: number;
  readonly scenario: LoadFile;
  readonly world: Partial<SimWorld>;
  /** The downstream as the thinned load meets it: an API's calls per second × k, a pool as it is. */
  readonly downstream?: DownstreamModel;
  /** Set when the function timeout had to be raised for the thinned invocations (seconds). */
  readonly functionTimeoutRaisedTo?: number;
}

/** The longest invocation a batch of the trace's slowest items makes, at the jitter's high end (seconds). */
export function longestInvocationSeconds(scenario: LoadFile, world: SimWorld, k = 1): number {
  // A loop, not Math.max(...spread): a trace of 130,000 rows overflows the call stack as arguments.
  let itemMs = 0;
  for (const p of scenario.phases) if (p.ratePerSecond > 0 && p.itemMs > itemMs) itemMs = p.itemMs;
  return (world.batchSize * itemMs * (1 + world.itemJitter)) / 1000 / k + world.invocationOverheadSeconds;
}

export function thinScenario(scenario: LoadFile, k: number): LoadFile {
  if (k === 1) return scenario;
  return {
    ...scenario,
    // `observed` stays: it is what the queue showed, and thinning keeps ages and concurrency comparable with it.
    phases: scenario.phases.map((p) => ({ ...p, ratePerSecond: p.ratePerSecond * k, itemMs: p.itemMs / k })),
  };
}

/**
 * The world a thinned replay runs in: the one given, with the function timeout raised (and the visibility
 * timeout with it, which Lambda requires to be at least the function timeout) only where a thinned batch would
 * otherwise time out although the trace's does not. Worked example: 20 ms items, batch 10, k = 0.02 → 1 s
 * items, a 12.5 s invocation at most, under the 30 s timeout: nothing changes.
 */
export function thin(scenario: LoadFile, world: SimWorld, k: number, downstream?: DownstreamModel): Thinning {
  const thinned = thinScenario(scenario, k);
  const real = longestInvocationSeconds(scenario, world);
  const replayed = longestInvocationSeconds(scenario, world, k);
  const raised =
    k < 1 && replayed > world.functionTimeoutSeconds && real <= world.functionTimeoutSeconds
      ? Math.ceil(replayed * 1.1)
      : undefined;
  const overrides: Partial<SimWorld> =
    raised === undefined
      ? {}
      : {
          functionTimeoutSeconds: raised,
          visibilityTimeoutSeconds: Math.max(world.visibilityTimeoutSeconds, raised),
        };
  const api = downstream?.apiRatePerSecond;
  return {
    k,
    scenario: thinned,
    world: overrides,
    downstream:
      downstream && api !== undefined && k !== 1 ? { ...downstream, apiRatePerSecond: api * k } : downstream,
    ...(raised === undefined ? {} : { functionTimeoutRaisedTo: raised }),
  };
}
