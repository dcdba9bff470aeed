import { dueBy, intendedSeconds, type LoadPlan, phaseOf } from './plan.ts';
import { type BatchResult, type BatchSender, type LoadMessage, SendAbortError } from './sender.ts';

/** SQS takes at most 10 entries per `SendMessageBatch` (SQS API reference). */
export const BATCH_SIZE = 10;

export interface PhaseStats {
  readonly index: number;
  readonly planned: number;
  readonly targetRatePerSecond: number;
  readonly durationSeconds: number;
  sent: number;
  failed: number;
  retried: number;
  /** The latest a message of this phase left the pacer after its intended time, seconds. */
  maxLagSeconds: number;
  /** Seconds from the run's start at which the last batch holding a message of this phase completed. */
  lastDoneSeconds: number | undefined;
}

export interface LoadProgress {
  readonly elapsedSeconds: number;
  /** The phase whose messages are being sent now (the last one once all are dispatched). */
  readonly phase: number;
  readonly phases: number;
  readonly planned: number;
  readonly sent: number;
  readonly failed: number;
  readonly retried: number;
  readonly inFlight: number;
  /** The phase's rate in the plan. */
  readonly targetRatePerSecond: number;
  /** Messages sent in the last few seconds ÷ that window. */
  readonly achievedRatePerSecond: number;
  /** How late the next message to send is against its intended time (0 when on schedule). */
  readonly behindSeconds: number;
}

export interface LoadReport {
  readonly planned: number;
  readonly sent: number;
  readonly failed: number;
  readonly retried: number;
  /** Planned but never attempted: only after Ctrl-C or an aborting error. */
  readonly unsent: number;
  readonly elapsedSeconds: number;
  readonly interrupted: boolean;
  /** Why the run stopped early, when it did because of an error. */
  readonly abortedBy?: string;
  readonly failureCodes: Readonly<Record<string, number>>;
  readonly phases: readonly PhaseSummary[];
}

export interface PhaseSummary {
  readonly index: number;
  readonly planned: number;
  readonly sent: number;
  readonly failed: number;
  readonly retried: number;
  readonly targetRatePerSecond: number;
  /**
   * Sent ÷ the time the phase took: its planned duration, or longer when its last batch completed after the
   * phase's end. Never above the target (the pacer never sends early); below it when the run fell behind.
   */
  readonly achievedRatePerSecond: number;
  /** achieved ÷ target − 1: 0 on schedule, −0.2 for a fifth too slow. */
  readonly pacingError: number;
  readonly maxLagSeconds: number;
  /** The pacer was more than `behindThresholdSeconds` late in this phase. */
  readonly fellBehind: boolean;
}

export interface LoadRunOptions {
  readonly plan: LoadPlan;
  readonly sender: BatchSender;
  /** Batches in flight at once. */
  readonly senders: number;
  readonly signal?: AbortSignal;
  /** Milliseconds, monotonic. */
  readonly clock?: () => number;
  /** Wall-clock epoch milliseconds at the run's start, for the messages' intended-time stamp. */
  readonly epochMs?: number;
  /** How long a partial batch may wait for more due messages before it leaves anyway. */
  readonly lingerMs?: number;
  /** Lateness beyond which a phase is reported as fallen behind. */
  readonly behindThresholdSeconds?: number;
}

const RATE_WINDOW_MS = 3_000;

/** Resolves after `ms`, or at once when the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The pacer. Message n is due at its intended time (`intendedSeconds`); the loop dispatches due messages in
 * batches of 10 to at most `senders` calls in flight, and lets a partial batch wait up to `lingerMs` for company.
 * It never sends early and never skips: when the calls cannot keep up, messages leave late and the lateness is
 * measured and reported per phase, rather than the rate silently dropping.
 */
export class LoadRun {
  readonly #o: LoadRunOptions;
  readonly #clock: () => number;
  readonly #stats: PhaseStats[];
  readonly #recent: { at: number; count: number }[] = [];
  readonly #failureCodes: Record<string, number> = {};
  #start = 0;
  #next = 0;
  #inFlight = new Set<Promise<void>>();
  #inFlightMessages = 0;
  #behind = 0;
  #abortedBy: string | undefined;
  #ended: number | undefined;

  constructor(options: LoadRunOptions) {
    if (!Number.isInteger(options.senders) || options.senders < 1) {
      throw new RangeError(`senders = ${options.senders}: must be a whole number ≥ 1`);
    }
    this.#o = options;
    this.#clock = options.clock ?? (() => performance.now());
    this.#stats = options.plan.phases.map((p) => ({
      index: p.index,
      planned: p.messages,
      targetRatePerSecond: p.ratePerSecond,
      durationSeconds: p.durationSeconds,
      sent: 0,
      failed: 0,
      retried: 0,
      maxLagSeconds: 0,
      lastDoneSeconds: undefined,
    }));
  }

  #elapsed(): number {
    return (this.#clock() - this.#start) / 1000;
  }

  #stopped(): boolean {
    return this.#o.signal?.aborted === true || this.#abortedBy !== undefined;
  }

  async run(): Promise<LoadReport> {
    const { plan } = this.#o;
    const linger = (this.#o.lingerMs ?? 25) / 1000;
    this.#start = this.#clock();
    const epoch = this.#o.epochMs ?? Date.now();
    while (this.#next < plan.totalMessages && !this.#stopped()) {
      const elapsed = this.#elapsed();
      const due = dueBy(plan, elapsed);
      if (this.#next >= due) {
        this.#behind = 0;
        await sleep(intendedSeconds(plan, this.#next) * 1000 - elapsed * 1000, this.#o.signal);
        continue;
      }
      const lag = elapsed - intendedSeconds(plan, this.#next);
      this.#behind = lag;
      if (this.#inFlight.size >= this.#o.senders) {
        await Promise.race(this.#inFlight);
        continue;
      }
      const count = Math.min(BATCH_SIZE, due - this.#next);
      if (count < BATCH_SIZE && due < plan.totalMessages && lag < linger) {
        await sleep(Math.min(5, (linger - lag) * 1000), this.#o.signal);
        continue;
      }
      const batch: LoadMessage[] = [];
      for (let s = this.#next; s < this.#next + count; s++) {
        const phase = phaseOf(plan, s);
        const stats = this.#stats[phase.index - 1];
        if (stats) stats.maxLagSeconds = Math.max(stats.maxLagSeconds, elapsed - intendedSeconds(plan, s));
        batch.push({
          sequence: s,
          phase: phase.index,
          intendedAt: Math.round(epoch + intendedSeconds(plan, s) * 1000),
          itemMs: phase.itemMs,
        });
      }
      this.#next += count;
      this.#dispatch(batch);
    }
    await Promise.all(this.#inFlight);
    // A quiet tail (phases at rate 0) is part of the load: wait it out unless stopped.
    if (!this.#stopped()) await sleep(plan.totalSeconds * 1000 - this.#elapsed() * 1000, this.#o.signal);
    this.#ended = this.#elapsed();
    return this.report();
  }

  #dispatch(batch: LoadMessage[]): void {
    this.#inFlightMessages += batch.length;
    const record = (result: BatchResult, unsent: ReadonlySet<number> = new Set()) => {
      const doneAt = this.#elapsed();
      const failedSet = new Set(result.failed.map((f) => f.sequence));
      for (const f of result.failed) {
        this.#failureCodes[f.code] = (this.#failureCodes[f.code] ?? 0) + 1;
      }
      for (const m of batch) {
        const stats = this.#stats[m.phase - 1];
        if (!stats || unsent.has(m.sequence)) continue;
        if (failedSet.has(m.sequence)) stats.failed += 1;
        else stats.sent += 1;
        stats.lastDoneSeconds = doneAt;
      }
      // Retries are counted per batch; attribute them to the batch's first phase.
      const first = this.#stats[(batch[0]?.phase ?? 1) - 1];
      if (first) first.retried += result.retried;
      this.#recent.push({ at: this.#clock(), count: result.sent });
    };
    const call = this.#o.sender
      .send(batch)
      .then(record)
      .catch((error: unknown) => {
        // What the batch came to, where the sender knows it; the rest of its messages stay unsent
        // (planned − sent − failed), and the loop stops dispatching.
        if (error instanceof SendAbortError && error.result !== undefined) {
          record(error.result, new Set(error.unsent));
        }
        this.#abortedBy ??= error instanceof Error ? error.message : String(error);
      })
      .finally(() => {
        this.#inFlightMessages -= batch.length;
        this.#inFlight.delete(call);
      });
    this.#inFlight.add(call);
  }

  progress(): LoadProgress {
    const now = this.#clock();
    while ((this.#recent[0]?.at ?? now) < now - RATE_WINDOW_MS) this.#recent.shift();
    const elapsedSeconds = this.#ended ?? this.#elapsed();
    const window = Math.min(RATE_WINDOW_MS / 1000, Math.max(elapsedSeconds, 1e-3));
    const recentSent = this.#recent.reduce((s, r) => s + r.count, 0);
    const { plan } = this.#o;
    const phase =
      this.#next < plan.totalMessages ? phaseOf(plan, this.#next) : plan.phases[plan.phases.length - 1];
    return {
      elapsedSeconds,
      phase: phase?.index ?? 0,
      phases: plan.phases.length,
      planned: plan.totalMessages,
      sent: this.#sum('sent'),
      failed: this.#sum('failed'),
      retried: this.#sum('retried'),
      inFlight: this.#inFlightMessages,
      targetRatePerSecond: phase?.ratePerSecond ?? 0,
      achievedRatePerSecond: recentSent / window,
      behindSeconds: Math.max(0, this.#behind),
    };
  }

  #sum(key: 'sent' | 'failed' | 'retried'): number {
    return this.#stats.reduce((s, p) => s + p[key], 0);
  }

  report(): LoadReport {
    const threshold = this.#o.behindThresholdSeconds ?? 1;
    const sent = this.#sum('sent');
    const failed = this.#sum('failed');
    const phases = this.#stats.map((p): PhaseSummary => {
      const phase = this.#o.plan.phases[p.index - 1];
      const start = phase?.startSeconds ?? 0;
      const took = Math.max(p.durationSeconds, (p.lastDoneSeconds ?? start) - start);
      const achieved = took > 0 ? p.sent / took : 0;
      return {
        index: p.index,
        planned: p.planned,
        sent: p.sent,
        failed: p.failed,
        retried: p.retried,
        targetRatePerSecond: p.targetRatePerSecond,
        achievedRatePerSecond: achieved,
        pacingError: p.targetRatePerSecond > 0 ? achieved / p.targetRatePerSecond - 1 : 0,
        maxLagSeconds: p.maxLagSeconds,
        fellBehind: p.maxLagSeconds > threshold,
      };
    });
    return {
      planned: this.#o.plan.totalMessages,
      sent,
      failed,
      retried: this.#sum('retried'),
      unsent: this.#o.plan.totalMessages - sent - failed,
      elapsedSeconds: this.#ended ?? this.#elapsed(),
      interrupted: this.#o.signal?.aborted === true,
      abortedBy: this.#abortedBy,
      failureCodes: { ...this.#failureCodes },
      phases,
    };
  }
}
