/**
 * Waits (receive time − send time) of processed messages, for percentiles, in bounded memory. A set keeps its
 * values exactly while it holds at most EXACT_LIMIT of them; past that it folds them into a log-linear histogram
 * (HdrHistogram's layout: 128 sub-buckets per power of two of microseconds, so a percentile is within ±0.4 % of
 * the true value). Memory is at most 10 bytes a message (8 while exact; one 40 KiB histogram per set past 4,096
 * waits), so a run of 50 million messages or of 100,000 phases fits; sorting every wait took 4.7 GB for 360 million.
 */

const EXACT_LIMIT = 4096;
const SUB_BUCKET_BITS = 7;
const SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
// Waits up to 2^45 µs (about 400 days) are distinguished; anything longer shares the top bucket.
const MAX_EXPONENT = 45;
const BUCKETS = 2 * SUB_BUCKETS + (MAX_EXPONENT - SUB_BUCKET_BITS - 1) * SUB_BUCKETS;

// Powers of two as multipliers: dividing by 2^k is exact in floating point, and a lookup beats Math.pow.
const INVERSE_POWERS = Array.from({ length: MAX_EXPONENT + 1 }, (_, k) => 2 ** -k);

/** floor(log2(n)) for an integer 1 ≤ n < 2^53, with integer instructions. */
function exponentOf(n: number): number {
  if (n < 2 ** 31) return 31 - Math.clz32(n);
  return 63 - Math.clz32(Math.floor(n / 2 ** 32));
}

function bucketOf(seconds: number): number {
  const micros = Math.min(2 ** MAX_EXPONENT - 1, Math.max(0, Math.floor(seconds * 1e6)));
  if (micros < 2 * SUB_BUCKETS) return micros;
  const exponent = exponentOf(micros);
  const shift = exponent - SUB_BUCKET_BITS;
  const mantissa = Math.floor(micros * (INVERSE_POWERS[shift] as number));
  return 2 * SUB_BUCKETS + (exponent - SUB_BUCKET_BITS - 1) * SUB_BUCKETS + (mantissa - SUB_BUCKETS);
}

/** The middle of a bucket's range, in seconds. */
function bucketMiddle(bucket: number): number {
  if (bucket < 2 * SUB_BUCKETS) return (bucket + 0.5) / 1e6;
  const rest = bucket - 2 * SUB_BUCKETS;
  const exponent = Math.floor(rest / SUB_BUCKETS) + SUB_BUCKET_BITS + 1;
  const mantissa = (rest % SUB_BUCKETS) + SUB_BUCKETS;
  const shift = exponent - SUB_BUCKET_BITS;
  return ((mantissa + 0.5) * 2 ** shift) / 1e6;
}

export class WaitStats {
  private exact: Float64Array | undefined = new Float64Array(16);
  private histogram: Float64Array | undefined;
  private n = 0;
  private low = Number.POSITIVE_INFINITY;
  private high = 0;

  get count(): number {
    return this.n;
  }

  get max(): number {
    return this.n === 0 ? 0 : this.high;
  }

  record(seconds: number): void {
    if (seconds < this.low) this.low = seconds;
    if (seconds > this.high) this.high = seconds;
    const exact = this.exact;
    if (exact !== undefined) {
      if (this.n < EXACT_LIMIT) {
        if (this.n === exact.length) {
          const bigger = new Float64Array(exact.length * 2);
          bigger.set(exact);
          this.exact = bigger;
          bigger[this.n++] = seconds;
        } else exact[this.n++] = seconds;
        return;
      }
      this.fold();
    }
    const histogram = this.histogram as Float64Array;
    const b = bucketOf(seconds);
    histogram[b] = (histogram[b] as number) + 1;
    this.n++;
  }

  /** Adds another set's waits to this one. */
  merge(other: WaitStats): void {
    if (other.n === 0) return;
    if (other.exact !== undefined) {
      for (let i = 0; i < other.n; i++) this.record(other.exact[i] as number);
      return;
    }
    if (this.exact !== undefined) this.fold();
    const histogram = this.histogram as Float64Array;
    const theirs = other.histogram as Float64Array;
    for (let b = 0; b < BUCKETS; b++) histogram[b] = (histogram[b] as number) + (theirs[b] as number);
    this.n += other.n;
    this.low = Math.min(this.low, other.low);
    this.high = Math.max(this.high, other.high);
  }

  /** The q-quantile (nearest rank: the smallest wait with at least q of the waits at or below it); 0 when empty. */
  quantile(q: number): number {
    if (this.n === 0) return 0;
    const rank = Math.min(this.n, Math.max(1, Math.ceil(q * this.n - 1e-9)));
    if (this.exact !== undefined) {
      const sorted = this.exact.slice(0, this.n).sort();
      return sorted[rank - 1] as number;
    }
    const histogram = this.histogram as Float64Array;
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += histogram[b] as number;
      if (seen >= rank) return Math.min(this.high, Math.max(this.low, bucketMiddle(b)));
    }
    return this.high;
  }

  private fold(): void {
    const exact = this.exact as Float64Array;
    const histogram = new Float64Array(BUCKETS);
    for (let i = 0; i < this.n; i++) {
      const b = bucketOf(exact[i] as number);
      histogram[b] = (histogram[b] as number) + 1;
    }
    this.histogram = histogram;
    this.exact = undefined;
  }
}
