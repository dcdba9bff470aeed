import type { Datapoint } from '../control/index.ts';
import { latest } from './status-metrics.ts';
import type { StatusReading } from './status-reader.ts';

/** The headline numbers, each with where it came from; undefined where nothing says. */
export interface StatusSummary {
  readonly reservedConcurrency?: number | null;
  readonly mappingMaximum?: number | null;
  readonly mappingState?: string;
  /** The controller's last published AppliedConcurrency and DesiredConcurrency. */
  readonly controllerApplied?: Datapoint;
  readonly controllerDesired?: Datapoint;
  readonly cap?: number;
  readonly floor?: number;
  readonly targetAgeSeconds?: number;
  /**
   * AWS/SQS ApproximateAgeOfOldestMessage, the newest minute (1–2 minutes late: docs/aws-facts.md, "SQS metrics").
   */
  readonly headAge?: Datapoint;
  /** What the controller's last tick used as the age. */
  readonly controllerHeadAge?: Datapoint;
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** The controller's last Saturated flag: at the cap with the age above target. */
  readonly saturated?: boolean;
  readonly atCap?: boolean;
}

export function summarize(r: StatusReading): StatusSummary {
  const s = r.series;
  const value = (series: readonly Datapoint[]) => latest(series)?.value;
  const flag = (series: readonly Datapoint[]) => {
    const v = value(series);
    return v === undefined ? undefined : v >= 1;
  };
  return {
    reservedConcurrency: r.reservedConcurrency,
    mappingMaximum: r.mappingMaximum,
    mappingState: r.mappingState,
    controllerApplied: latest(s.applied),
    controllerDesired: latest(s.desired),
    cap: value(s.cap),
    floor: value(s.floor),
    targetAgeSeconds: value(s.targetAge),
    headAge: latest(s.sqsAge),
    controllerHeadAge: latest(s.headAge),
    visible: r.depth.visible,
    inFlight: r.depth.inFlight,
    delayed: r.depth.delayed,
    saturated: flag(s.saturated),
    atCap: flag(s.atCap),
  };
}
