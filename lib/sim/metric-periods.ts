import type { Datapoint, MetricSeries } from '../control/ports.ts';
import type { SimWorld } from './world.ts';

/** What CloudWatch aggregates over one period. */
export interface PeriodMetrics {
  k: number;
  ageMax: number;
  sent: number;
  deleted: number;
  durationMs: number;
  invocations: number;
  /** Items that waited for a connection plus calls refused (429): the simulated downstream health signal. */
  downstreamTrouble: number;
}

/**
 * The simulator's CloudWatch: one-period aggregates, published `metricDelaySeconds` after the period ends. Only the
 * periods a controller can still read (its window, plus the delay) are kept, in a ring: a month at the seed's
 * 250 ms periods would otherwise be ten million records.
 */
export class MetricPeriods {
  private readonly ring: PeriodMetrics[];
  private readonly period: number;
  /** The newest period anything was recorded in. */
  private newest = -1;

  /**
   * `healthThreshold`: the downstream's health signal is published and read, with this threshold (the model's
   * `healthThreshold`); absent: none, as a scaler without `downstreamHealth`.
   */
  constructor(
    private readonly world: SimWorld,
    private readonly healthThreshold?: number,
  ) {
    this.period = world.metricPeriodSeconds;
    const size = Math.ceil((world.metricWindowSeconds + world.metricDelaySeconds) / this.period) + 3;
    this.ring = Array.from({ length: size }, () => ({
      k: -1,
      ageMax: 0,
      sent: 0,
      deleted: 0,
      durationMs: 0,
      invocations: 0,
      downstreamTrouble: 0,
    }));
  }

  /** The period holding `time`, to record into. */
  at(time: number): PeriodMetrics {
    const k = Math.floor(time / this.period + 1e-9);
    const slot = this.ring[k % this.ring.length] as PeriodMetrics;
    if (slot.k !== k) {
      slot.k = k;
      slot.ageMax = 0;
      slot.sent = 0;
      slot.deleted = 0;
      slot.durationMs = 0;
      slot.invocations = 0;
      slot.downstreamTrouble = 0;
    }
    if (k > this.newest) this.newest = k;
    return slot;
  }

  /** SQS samples ApproximateAgeOfOldestMessage: the period keeps the largest sample (the Maximum statistic). */
  recordAge(time: number, ageSeconds: number): void {
    const slot = this.at(time);
    slot.ageMax = Math.max(slot.ageMax, ageSeconds);
  }

  /**
   * The series CloudWatch would return at `now`: only periods published by then (period end + delay). With
   * `instantAge` (the seed's in-process pool) the age is the head's, read the instant it is asked.
   */
  read(now: number, periodSeconds: number, windowSeconds: number, instantAge?: number): MetricSeries {
    const p = this.period;
    if (periodSeconds !== p)
      throw new Error(`the simulator publishes ${p}-second periods, not ${periodSeconds}`);
    const age: Datapoint[] = [];
    const sent: Datapoint[] = [];
    const deleted: Datapoint[] = [];
    const duration: Datapoint[] = [];
    const trouble: Datapoint[] = [];
    const first = Math.max(0, Math.floor((now - windowSeconds) / p));
    for (let k = first; k <= this.newest; k++) {
      const timestamp = k * p;
      if (timestamp + p + this.world.metricDelaySeconds > now + 1e-9) break;
      const slot = this.ring[k % this.ring.length] as PeriodMetrics;
      // A period nothing was recorded in reads as zeros, as CloudWatch's Sum of a quiet minute does.
      const m = slot.k === k ? slot : undefined;
      age.push({ timestamp, value: m?.ageMax ?? 0 });
      sent.push({ timestamp, value: m?.sent ?? 0 });
      deleted.push({ timestamp, value: m?.deleted ?? 0 });
      // Lambda publishes no Duration for a period without invocations: an empty period is omitted.
      if (m !== undefined && m.invocations > 0) duration.push({ timestamp, value: m.durationMs });
      trouble.push({ timestamp, value: m?.downstreamTrouble ?? 0 });
    }
    const ageSeries = instantAge === undefined ? age : [{ timestamp: now - p, value: instantAge }];
    return {
      ageOfOldestMessage: ageSeries,
      messagesSent: sent,
      messagesDeleted: deleted,
      consumerDurationMs: duration,
      ...(this.healthThreshold === undefined
        ? {}
        : {
            downstreamHealth: {
              threshold: this.healthThreshold,
              unhealthyWhen: 'above' as const,
              periodSeconds: p,
              points: trouble,
            },
          }),
    };
  }
}
