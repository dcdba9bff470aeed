/**
 * A level over virtual time (concurrent executions, warm environments, reserved concurrency): its peak, its
 * integral (level-seconds) and, for integer levels, the time spent at each level, for a time-weighted percentile.
 * It can be cut into segments (the phases) that keep their own peak and integral.
 */
export interface LevelSegment {
  readonly peak: number;
  readonly integral: number;
}

export interface LevelSummary {
  readonly peak: number;
  /** Level-seconds over the whole run. */
  readonly integral: number;
  /** The time-weighted mean: integral ÷ duration. */
  readonly mean: number;
  /** The time-weighted 99th percentile: the lowest level the meter was at or below for 99 % of the time. */
  readonly p99: number;
}

export class LevelMeter {
  private level = 0;
  private since = 0;
  private peak = 0;
  private integral = 0;
  private segmentPeak = 0;
  private segmentIntegral = 0;
  private readonly segments: LevelSegment[] = [];
  private secondsAt = new Float64Array(64);

  /** @param distribution keep the time at each integer level, for `p99` (levels must then be integers ≥ 0). */
  constructor(
    initial = 0,
    private readonly distribution = true,
  ) {
    this.level = initial;
    this.peak = initial;
    this.segmentPeak = initial;
  }

  get current(): number {
    return this.level;
  }

  /** The level changes to `level` at `now` (times never go back). */
  set(now: number, level: number): void {
    this.advance(now);
    this.level = level;
    if (level > this.peak) this.peak = level;
    if (level > this.segmentPeak) this.segmentPeak = level;
  }

  /** Closes the current segment at `at` and opens the next one. */
  cut(at: number): void {
    this.advance(at);
    this.segments.push({ peak: this.segmentPeak, integral: this.segmentIntegral });
    this.segmentPeak = this.level;
    this.segmentIntegral = 0;
  }

  /** The segments closed so far, in order. */
  closedSegments(): readonly LevelSegment[] {
    return this.segments;
  }

  summary(end: number): LevelSummary {
    this.advance(end);
    const duration = end;
    let p99 = this.peak;
    if (this.distribution && duration > 0) {
      let seen = 0;
      for (let level = 0; level < this.secondsAt.length; level++) {
        seen += this.secondsAt[level] as number;
        if (seen >= 0.99 * duration - 1e-9) {
          p99 = level;
          break;
        }
      }
    }
    return {
      peak: this.peak,
      integral: this.integral,
      mean: duration > 0 ? this.integral / duration : 0,
      p99,
    };
  }

  private advance(now: number): void {
    const dt = now - this.since;
    if (dt <= 0) return;
    const area = this.level * dt;
    this.integral += area;
    this.segmentIntegral += area;
    if (this.distribution) {
      const level = this.level;
      if (level >= this.secondsAt.length) {
        const bigger = new Float64Array(Math.max(level + 1, this.secondsAt.length * 2));
        bigger.set(this.secondsAt);
        this.secondsAt = bigger;
      }
      this.secondsAt[level] = (this.secondsAt[level] as number) + dt;
    }
    this.since = now;
  }
}
