/** The fields of an EventBridge scheduled event the controller uses. Anything else is ignored. */
export interface ScheduleEvent {
  readonly id?: string;
  /** When the schedule fired (ISO 8601, whole seconds). */
  readonly time?: string;
}

/**
 * The event's scheduled time in epoch seconds; undefined for an invocation without one: the start trigger's run at
 * deploy (aws-cdk-lib's trigger invokes with no payload) or a run by hand.
 */
export function eventTime(event: unknown): number | undefined {
  const time = (event as ScheduleEvent | null | undefined)?.time;
  if (typeof time !== 'string') return undefined;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/**
 * EventBridge delivers at least once and Lambda retries async invokes: an event older than 1.5 periods has a
 * newer tick behind it, and acting on it would apply a decision about the past
 * (docs/aws-facts.md, "EventBridge schedules").
 */
export const STALE_AFTER_PERIODS = 1.5;

export function isStale(scheduledAt: number, now: number, tickSeconds: number): boolean {
  return now - scheduledAt > STALE_AFTER_PERIODS * tickSeconds;
}

/** The evidence of the last change, as the carried state sees it. */
export interface ChangeEvidence {
  /** The mapping's `LastModified`, epoch seconds (whole seconds). */
  readonly mappingModifiedAt?: number;
  /** The start of the newest period with a published `ScaleEvents` above zero. */
  readonly scaleEventPeriod?: number;
}

/**
 * A change recorded in this event's slot was made by this very tick delivered before (a duplicate) or by a
 * concurrent one: acting again would step twice. The mapping's `LastModified` has whole-second resolution, so
 * the event time is compared at whole seconds; `ScaleEvents` is stamped with the period of the tick that
 * changed, so it is compared by period.
 */
export function isRepeat(scheduledAt: number, evidence: ChangeEvidence, periodSeconds: number): boolean {
  const slot = Math.floor(scheduledAt / periodSeconds) * periodSeconds;
  return (
    (evidence.mappingModifiedAt !== undefined && evidence.mappingModifiedAt >= Math.floor(scheduledAt)) ||
    (evidence.scaleEventPeriod !== undefined && evidence.scaleEventPeriod >= slot)
  );
}

/**
 * The time a run's repeat check compares with: its event's scheduled time, or, for a run without one (the start
 * trigger's, a run by hand), the start of the slot it runs in. One decision per slot, whichever comes first: a start
 * run after the slot's scheduled tick changed something does not step again, and the slot's scheduled delivery after
 * a start run that changed something is its repeat; the next slot's tick always decides. Running both would decide
 * twice within seconds on the same data, which is what the repeat check exists to prevent (a step-limited growth
 * would step twice).
 */
export function repeatCheckTime(scheduledAt: number | undefined, now: number, periodSeconds: number): number {
  return scheduledAt ?? Math.floor(now / periodSeconds) * periodSeconds;
}
