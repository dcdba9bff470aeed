import { LevelMeter } from './level-meter.ts';

/**
 * Lambda's execution environments: an invocation runs in a warm, idle environment if there is one, otherwise in a
 * new one; an environment stays warm for `keepWarmSeconds` after its last invocation, then is reclaimed. Each
 * warm environment may hold a connection to the downstream, so their count is a load the downstream feels.
 *
 * AWS documents neither how long an idle environment is kept nor which idle one an invocation gets. Assumed here:
 * kept for a fixed time (the environment's `keepWarmSeconds`), and the most recently used idle environment is
 * reused first, so a burst's surplus environments are the ones that age out.
 */
export class ExecutionEnvironments {
  /** Idle since, oldest first (the most recently freed is at the end, and is reused first). */
  private idle: number[] = [];
  private idleHead = 0;
  readonly warm = new LevelMeter(0);

  constructor(private readonly keepWarmSeconds: number) {}

  /** An invocation starts at `now`. */
  start(now: number): void {
    this.expire(now);
    if (this.idle.length > this.idleHead) this.idle.pop();
    else this.warm.set(now, this.warm.current + 1);
  }

  /** An invocation ends at `now`: its environment turns idle. */
  finish(now: number): void {
    this.expire(now);
    this.idle.push(now);
  }

  /** Reclaims every environment idle for `keepWarmSeconds` by `now`, each at its own expiry time. */
  expire(now: number): void {
    while (this.idleHead < this.idle.length) {
      const expiresAt = (this.idle[this.idleHead] as number) + this.keepWarmSeconds;
      if (expiresAt > now) break;
      this.idleHead++;
      this.warm.set(expiresAt, this.warm.current - 1);
    }
    // Drop the reclaimed prefix now and then instead of shifting on every expiry.
    if (this.idleHead > 1024 && this.idleHead * 2 > this.idle.length) {
      this.idle = this.idle.slice(this.idleHead);
      this.idleHead = 0;
    }
  }
}
