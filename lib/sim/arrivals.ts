import type { Phase } from '../load-file/load-file.ts';
import { PhaseLocator, phaseEnds } from './phase-locator.ts';
import type { Random } from './random.ts';
import { WaitStats } from './wait-stats.ts';

export interface PhaseTally {
  sent: number;
  readonly waits: WaitStats;
}

/**
 * The load: the scenario's phases laid end to end, the Poisson arrivals they draw, and what each phase sent and
 * how long its messages waited. A phase is a property of a time, asked both of the clock (the rate, an item's
 * time) and of a message's send time (whose phase its wait counts in), so it lives apart from the queue and the
 * consumer that ask.
 */
export class Arrivals {
  /** Each phase's end time: the cumulative durations. */
  readonly ends: Float64Array;
  /** The end of the last phase: the run's length. */
  readonly end: number;
  readonly tally: PhaseTally[];
  sent = 0;
  /** The phase of the clock (it only moves forward) and the phase of a message's send time. */
  private readonly clockPhase: PhaseLocator;
  private readonly sentPhase: PhaseLocator;

  constructor(
    readonly phases: readonly Phase[],
    private readonly random: Random,
  ) {
    this.ends = phaseEnds(phases.map((p) => p.durationSeconds));
    this.clockPhase = new PhaseLocator(this.ends);
    this.sentPhase = new PhaseLocator(this.ends);
    this.end = this.ends[this.ends.length - 1] ?? 0;
    this.tally = phases.map(() => ({ sent: 0, waits: new WaitStats() }));
  }

  /** The phase in force at `now`. */
  phaseAt(now: number): Phase {
    return this.phases[this.clockPhase.indexAt(now)] as Phase;
  }

  /**
   * The next arrival after `from`, or undefined when no phase after it sends. Poisson arrivals: the gap is
   * exponential at the phase's rate; memoryless, so a phase change just redraws.
   */
  nextAfter(from: number): number | undefined {
    let t = from;
    const phases = this.phases;
    for (let i = this.clockPhase.indexAt(t); i < phases.length; i++) {
      const phase = phases[i] as Phase;
      const phaseEnd = this.ends[i] as number;
      if (phase.ratePerSecond > 0) {
        const candidate = t + this.random.exponential(phase.ratePerSecond);
        if (candidate < phaseEnd) return candidate;
      }
      t = phaseEnd;
    }
    return undefined;
  }

  /** A message is sent at `now`. */
  arrive(now: number): void {
    this.sent++;
    (this.tally[this.clockPhase.indexAt(now)] as PhaseTally).sent++;
  }

  /** A message sent at `sentAt` and received at `receivedAt` is deleted: its wait counts in its send's phase. */
  recordWait(sentAt: number, receivedAt: number): void {
    (this.tally[this.sentPhase.indexAt(sentAt)] as PhaseTally).waits.record(receivedAt - sentAt);
  }
}
