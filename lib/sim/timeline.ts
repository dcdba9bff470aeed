import type { TickReport } from './controller-clock.ts';

/** One row of the timeline, taken at every controller tick. */
export interface TimelineSample {
  readonly time: number;
  readonly arrivalsPerSecond: number;
  /** The concurrency limit in force: what the controller applied, or the mapping's fixed bound. */
  readonly applied: number;
  /** Invocations (or busy workers) running at the tick: what the downstream feels. */
  readonly executions: number;
  /** Execution environments kept warm (the pool's workers). */
  readonly warm: number;
  readonly headAgeSeconds: number;
  readonly visible: number;
  readonly inFlight: number;
  readonly reason: string;
  readonly saturated: boolean;
  readonly shed: boolean;
}

/** The system as a tick finds it, after the controller's writes, and the messages sent since the run began. */
export type TickReading = Pick<
  TimelineSample,
  'applied' | 'executions' | 'warm' | 'headAgeSeconds' | 'visible' | 'inFlight'
> & { readonly sent: number };

/**
 * The rows the charts and the CSV are drawn from, and the seconds spent saturated. Apart from the controller's
 * clock because it reads the true system (the head age as it is, not as CloudWatch reports it late), which the
 * controller must not see.
 */
export class Timeline {
  readonly samples: TimelineSample[] = [];
  /** Seconds at the cap with the true head age above target. */
  saturatedSeconds = 0;
  private lastSent = 0;
  private lastAt = 0;

  constructor(
    private readonly cap: number,
    private readonly targetAgeSeconds: number,
    private readonly tickSeconds: number,
  ) {}

  record(now: number, report: TickReport, reading: TickReading): void {
    const interval = now - this.lastAt;
    if (reading.applied >= this.cap && reading.headAgeSeconds > this.targetAgeSeconds)
      this.saturatedSeconds += this.tickSeconds;
    this.samples.push({
      time: now,
      arrivalsPerSecond: interval > 0 ? (reading.sent - this.lastSent) / interval : 0,
      applied: reading.applied,
      executions: reading.executions,
      warm: reading.warm,
      headAgeSeconds: reading.headAgeSeconds,
      visible: reading.visible,
      inFlight: reading.inFlight,
      reason: report.reason ?? '',
      saturated: report.saturated ?? false,
      shed: report.shed ?? false,
    });
    this.lastSent = reading.sent;
    this.lastAt = now;
  }
}
