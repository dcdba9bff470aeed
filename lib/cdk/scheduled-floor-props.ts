import { type Duration, Token } from 'aws-cdk-lib';
import type { ScheduledFloor } from '../control/scheduled-floors.ts';

/**
 * A floor raised on a schedule, ahead of a peak you know (the 09:00 batch, the Monday surge): from each start of
 * `schedule`, for `duration`, the controller holds at least `minConcurrency`. With `ScalerActuator.PROVISIONED` it
 * also keeps that many invocations' worth of event pollers warm (`MinimumPollers`), billed only while the floor is
 * on; with the other actuators it holds the limit only, and the standard mapping's pollers still ramp on the
 * backlog (docs/controller.md, "Scheduled floors").
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html#eb-cron-expressions
 */
export interface ScheduledFloorProps {
  /**
   * When the floor comes on, in EventBridge's cron syntax: `cron(minutes hours day-of-month month day-of-week
   * year)`, one of day-of-month and day-of-week `?`, e.g. `cron(45 8 ? * MON-FRI *)` (weekdays at 08:45), or
   * `Schedule.cron({ minute: '45', hour: '8', weekDay: 'MON-FRI' }).expressionString`.
   */
  readonly schedule: string;
  /**
   * The floor while it is on. Valid: integer, above the scaler's `minConcurrency`, at most the cap; a multiple of
   * 10 with `ScalerActuator.PROVISIONED`.
   */
  readonly minConcurrency: number;
  /** How long the floor stays on from each start. Valid: [1 minute; 7 days], in whole seconds. */
  readonly duration: Duration;
  /**
   * The IANA time zone `schedule` reads in, daylight saving included.
   * @default 'UTC'
   */
  readonly timeZone?: string;
}

/**
 * The props as the validator's floors (`duration` in seconds); a token is a problem, since the schedule becomes the
 * controller's setting. The validator (lib/control/scheduled-floors.ts) checks the rest.
 */
export function floorsFromProps(
  floors: readonly ScheduledFloorProps[] | undefined,
  problems: string[],
): unknown {
  if (floors === undefined || !Array.isArray(floors)) return floors;
  return floors.map((floor, index) => {
    const at = `floors[${index}]`;
    const unresolved = [floor?.schedule, floor?.minConcurrency, floor?.timeZone].some(
      (v) => v !== undefined && Token.isUnresolved(v),
    );
    if (unresolved)
      problems.push(
        `${at} holds a token: it must be known at synth, since it becomes the controller's setting`,
      );
    const duration = floor?.duration as Partial<Duration> | undefined;
    const seconds =
      typeof duration?.toSeconds === 'function' ? duration.toSeconds({ integral: false }) : duration;
    const { duration: _, ...rest } = floor ?? {};
    return { ...rest, durationSeconds: seconds } satisfies Partial<Record<keyof ScheduledFloor, unknown>>;
  });
}

/**
 * A validator's problem in the props' own words: the construct takes `duration` (a `Duration`), the validator reads
 * it as `durationSeconds`.
 */
export function inFloorPropsTerms(problem: string): string {
  return problem
    .replace(
      /^(floors\[\d+\])\.durationSeconds = ([^:]+): must be an integer in \[60; 604800\] \(seconds: a minute to a week\)/,
      '$1.duration = $2 s: must be whole seconds from Duration.minutes(1) to Duration.days(7)',
    )
    .replace(/^(floors\[\d+\])\.durationSeconds\b/, '$1.duration')
    .replace(
      '{ schedule, minConcurrency, durationSeconds, timeZone? }',
      '{ schedule, minConcurrency, duration, timeZone? }',
    );
}
