/**
 * The concurrency the downstream tolerates (the seed's step 3): above a database pool's size extra workers only
 * wait for a connection; above `apiRate × itemTime ÷ callsPerItem` they only collect 429s.
 *
 * Worked example from the seed: pool 20, 100 calls/s, 20 ms items, 1 call per item → min(20, ⌊100 × 0.02 ÷ 1⌋) = 2.
 */
export interface DownstreamLimits {
  /** Connections in the database pool each worker holds while it works. */
  readonly dbPoolSize?: number;
  /** Calls per second the rate-limited API allows. */
  readonly apiRatePerSecond?: number;
  /** Seconds one item takes (needed with `apiRatePerSecond`). */
  readonly itemTimeSeconds?: number;
  /** API calls one item makes. @default 1 */
  readonly callsPerItem?: number;
  /** A cap set by hand; the result never exceeds it. */
  readonly explicitMax?: number;
}

// ⌊2.0000000001⌋ must be 2 and ⌊1.9999999999⌋ must also be 2: products of decimal fractions are not exact.
const FLOAT_SLACK = 1e-9;

/** The cap, or `undefined` when no limit is given (the caller then applies its default). */
export function maxConcurrencyFor(limits: DownstreamLimits): number | undefined {
  const candidates: number[] = [];
  if (limits.dbPoolSize !== undefined) candidates.push(Math.floor(limits.dbPoolSize));
  if (limits.apiRatePerSecond !== undefined && limits.itemTimeSeconds !== undefined) {
    const calls = limits.callsPerItem ?? 1;
    candidates.push(Math.floor((limits.apiRatePerSecond * limits.itemTimeSeconds) / calls + FLOAT_SLACK));
  }
  if (limits.explicitMax !== undefined) candidates.push(Math.floor(limits.explicitMax));
  if (candidates.length === 0) return undefined;
  return Math.max(1, Math.min(...candidates));
}
