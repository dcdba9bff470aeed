import type { DownstreamModel } from '../load-file/load-file.ts';

/**
 * What the consumer's items call, with a capacity (the load file's `@downstream` line or a config file's
 * `simulator.downstream`: `DownstreamModel`, lib/load-file/load-file.ts). Off by default: the seed's table is
 * measured against a downstream that takes any concurrency at the same per-item time.
 *
 * - A connection pool of N: an item holds a connection for its whole time; past N, an item waits for one, first
 *   come first served, and the wait adds to its time (and to the Lambda's Duration).
 * - An API at R calls per second (a token bucket holding one second of calls): an item makes `callsPerItem`
 *   calls when it starts; a call beyond the rate fails (HTTP 429), the item is reported as a batch item failure,
 *   and its message returns to the queue when its visibility timeout ends. A failed item is assumed to take its
 *   full time (the consumer's client waits for the answer, then handles it).
 */
export type { DownstreamModel };

export function hasCapacity(model: DownstreamModel | undefined): boolean {
  return model !== undefined && (model.connectionPool !== undefined || model.apiRatePerSecond !== undefined);
}

export function describeDownstream(model: DownstreamModel | undefined): string {
  if (!hasCapacity(model)) return 'unlimited';
  const parts: string[] = [];
  if (model?.connectionPool !== undefined) parts.push(`a pool of ${model.connectionPool} connections`);
  if (model?.apiRatePerSecond !== undefined)
    parts.push(`an API at ${model.apiRatePerSecond} calls/s (${model.callsPerItem ?? 1} per item)`);
  const health =
    model?.healthThreshold === undefined
      ? ''
      : `, its health signal read (waits + refused calls a period above ${model.healthThreshold}: unhealthy)`;
  return parts.join(' and ') + health;
}

/** A pool of connections handed out first come, first served. */
export class ConnectionPool<W> {
  private inUse = 0;
  private readonly waiting: W[] = [];
  private waitingHead = 0;
  peakInUse = 0;
  peakWaiting = 0;
  /** Acquisitions that found every connection taken and had to wait in line (a shared pool's contention). */
  waits = 0;

  constructor(readonly size: number) {}

  get busy(): number {
    return this.inUse;
  }

  /** Takes a connection if one is free; otherwise queues the waiter and returns false. */
  acquire(waiter: W): boolean {
    if (this.inUse < this.size) {
      this.inUse++;
      if (this.inUse > this.peakInUse) this.peakInUse = this.inUse;
      return true;
    }
    this.waiting.push(waiter);
    this.waits++;
    this.peakWaiting = Math.max(this.peakWaiting, this.waiting.length - this.waitingHead);
    return false;
  }

  /**
   * Gives a connection back. Returns the waiter it passes to (who now holds it), skipping waiters that `gone`
   * says have left the queue (an invocation that timed out while waiting).
   */
  release(gone: (waiter: W) => boolean): W | undefined {
    while (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead++] as W;
      this.compact();
      if (!gone(next)) return next;
    }
    this.inUse--;
    return undefined;
  }

  private compact(): void {
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
  }
}

/**
 * A rate limit of `ratePerSecond`: a token bucket holding one second of calls (a burst of R is let through), and
 * at least one item's calls, so a rate below one item's calls a second still lets an item through now and then.
 */
export class RateLimiter {
  private tokens: number;
  private readonly capacity: number;
  private at = 0;
  calls = 0;
  rejected = 0;

  constructor(
    private readonly ratePerSecond: number,
    callsPerItem: number,
  ) {
    this.capacity = Math.max(ratePerSecond, callsPerItem);
    this.tokens = this.capacity;
  }

  /** `calls` calls at `now`: true when the limit lets them all through; otherwise they fail and use no tokens. */
  tryCall(now: number, calls: number): boolean {
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.at) * this.ratePerSecond);
    this.at = now;
    this.calls += calls;
    if (this.tokens + 1e-9 >= calls) {
      this.tokens -= calls;
      return true;
    }
    this.rejected += calls;
    return false;
  }
}

export interface DownstreamStats {
  readonly connectionPool?: number;
  readonly peakConnectionsInUse?: number;
  readonly peakWaitingForConnection?: number;
  /** Items that had to wait for a connection: what more workers than the pool cost the downstream's clients. */
  readonly connectionWaits?: number;
  readonly apiRatePerSecond?: number;
  readonly apiCalls?: number;
  readonly rejectedCalls?: number;
}

/**
 * The downstream as the consumer's items meet it: its pool and its rate limit, either or both. Apart from the
 * consumer because it is a different system with its own capacity: the consumer asks it for a connection and for
 * its calls, and only it knows whether they are granted. `W` is who waits for a connection (an invocation).
 */
export class Downstream<W> {
  private readonly connections: ConnectionPool<W> | undefined;
  private readonly rateLimit: RateLimiter | undefined;
  private readonly callsPerItem: number;
  /** Whether items hold connections: a pool of them bounds how many run at once. */
  readonly pooled: boolean;
  /**
   * Whether items must run one by one against it: with a capacity, an item's time and its failure depend on the
   * others in flight; without one, an invocation's duration is drawn up front.
   */
  readonly itemwise: boolean;

  constructor(private readonly model: DownstreamModel | undefined) {
    this.connections =
      model?.connectionPool === undefined ? undefined : new ConnectionPool(model.connectionPool);
    this.callsPerItem = model?.callsPerItem ?? 1;
    this.rateLimit =
      model?.apiRatePerSecond === undefined
        ? undefined
        : new RateLimiter(model.apiRatePerSecond, this.callsPerItem);
    this.pooled = this.connections !== undefined;
    this.itemwise = this.connections !== undefined || this.rateLimit !== undefined;
  }

  /** Takes a connection for `waiter` (call only when `pooled`); false: it waits in line for one. */
  acquire(waiter: W): boolean {
    return (this.connections as ConnectionPool<W>).acquire(waiter);
  }

  /** Gives a connection back: the waiter it passes to, skipping those that `gone` says have left the line. */
  release(gone: (waiter: W) => boolean): W | undefined {
    return this.connections?.release(gone);
  }

  /** Items that had to wait for a connection so far (0 without a pool). */
  get connectionWaits(): number {
    return this.connections?.waits ?? 0;
  }

  /** Calls the rate limit refused so far, each an HTTP 429 (0 without a rate limit). */
  get rejectedCalls(): number {
    return this.rateLimit?.rejected ?? 0;
  }

  /** One item's calls at `now`: false when the rate limit refuses them (HTTP 429). */
  admits(now: number): boolean {
    return this.rateLimit === undefined || this.rateLimit.tryCall(now, this.callsPerItem);
  }

  stats(): DownstreamStats | undefined {
    if (this.connections === undefined && this.rateLimit === undefined) return undefined;
    return {
      connectionPool: this.connections?.size,
      peakConnectionsInUse: this.connections?.peakInUse,
      peakWaitingForConnection: this.connections?.peakWaiting,
      connectionWaits: this.connections?.waits,
      apiRatePerSecond: this.model?.apiRatePerSecond,
      apiCalls: this.rateLimit?.calls,
      rejectedCalls: this.rateLimit?.rejected,
    };
  }
}
