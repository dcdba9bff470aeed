/** The generator's state is 32 bits: every seed in [0, MAX_SEED] is a different run, and no other is accepted. */
export const MAX_SEED = 2 ** 32 - 1;

/** A seeded generator (mulberry32): the same seed replays the same arrivals and item times. */
export class Random {
  private state: number;

  constructor(seed: number) {
    // `seed >>> 0` alone would fold 2^32 + 1 onto 1: two seeds, one run.
    if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
      throw new RangeError(`seed ${seed} is outside [0, ${MAX_SEED}]`);
    this.state = seed;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** The gap to the next Poisson arrival at `ratePerSecond`. */
  exponential(ratePerSecond: number): number {
    return -Math.log(1 - this.next()) / ratePerSecond;
  }

  /** `value` scaled by a uniform factor in [1 - spread, 1 + spread]. */
  jitter(value: number, spread: number): number {
    return value * (1 - spread + 2 * spread * this.next());
  }
}
