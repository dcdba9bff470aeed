import type { Datapoint } from '../control/index.ts';
import type { LoggedDecision, LoggedSettings } from './decision-log.ts';
import { desiredNow, latest } from './status-metrics.ts';
import type { StatusReading } from './status-reader.ts';

/** The headline numbers, each with where it came from; undefined where nothing says. */
export interface StatusSummary {
  readonly reservedConcurrency?: number | null;
  readonly mappingMaximum?: number | null;
  readonly mappingState?: string;
  /** The controller's last published AppliedConcurrency, and DesiredConcurrency (where absent, as applied). */
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

/** The newest logged settings: a tick's own cap, floor and target. */
function newestSettings(decisions: readonly LoggedDecision[] = []): LoggedSettings {
  // Oldest first (lastDecisions): the newest is the last with settings.
  return [...decisions].reverse().find((d) => d.settings !== undefined)?.settings ?? {};
}

export function summarize(r: StatusReading): StatusSummary {
  const s = r.series;
  // The tick's log line carries its settings; an older controller published them as metrics instead.
  const settings = newestSettings(r.decisions);
  const value = (series: readonly Datapoint[]) => latest(series)?.value;
  // The flags are sparse (published only when 1, lib/telemetry.ts): one is set only when its newest datapoint is
  // from the controller's newest minute; an older one is a past state, and none with a newer tick means 0.
  const newestTick = latest(s.applied)?.timestamp;
  const flag = (series: readonly Datapoint[]) => {
    if (newestTick === undefined) return undefined;
    const newest = latest(series);
    return newest !== undefined && newest.timestamp >= newestTick && newest.value >= 1;
  };
  return {
    reservedConcurrency: r.reservedConcurrency,
    mappingMaximum: r.mappingMaximum,
    mappingState: r.mappingState,
    controllerApplied: latest(s.applied),
    controllerDesired: desiredNow(s.desired, s.applied),
    cap: settings.maxConcurrency ?? value(s.cap),
    floor: settings.minConcurrency ?? value(s.floor),
    targetAgeSeconds: value(s.targetAge) ?? settings.targetAgeSeconds,
    headAge: latest(s.sqsAge),
    controllerHeadAge: latest(s.headAge),
    visible: r.depth.visible,
    inFlight: r.depth.inFlight,
    delayed: r.depth.delayed,
    saturated: flag(s.saturated),
    atCap: flag(s.atCap),
  };
}
