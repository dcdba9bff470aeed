import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { ONE_MINUTE, type ScalerMetricFactory } from './metrics.ts';

/** What the alarms compare against: the validated config's numbers and the alarm-only thresholds. */
export interface ScalerAlarmsProps {
  readonly metrics: ScalerMetricFactory;
  /** Prefix of every alarm name. */
  readonly scalerName: string;
  /** The latency budget the saturation alarm compares the head age with (whole or fractional seconds). */
  readonly targetAge: Duration;
  /** The cap: at or above it the controller cannot add concurrency. */
  readonly maxConcurrency: number;
  /** How often the controller runs (a whole number of minutes). */
  readonly tick: Duration;
  /** Scale events per 10 minutes, with a reversal, above which the controller is oscillating. */
  readonly oscillationThreshold: number;
  /** Consumer throttles per minute at or above which the throttle alarm counts a minute as bad. */
  readonly throttleThreshold: number;
  /** Where alarm and OK notifications go. */
  readonly actions: readonly IAlarmAction[];
}

/**
 * The scaler's alarms, each with its missing-data treatment chosen for what absence means for that signal.
 * The expressions are exposed so the dashboard graphs exactly what the alarms evaluate.
 */
export class ScalerAlarms extends Construct {
  /** At the cap with the head age above target for more than a minute: the seed's "shed, don't scale" hook. */
  readonly saturated: Alarm;
  readonly saturatedExpression: MathExpression;
  /** Scale events per 10 minutes above the threshold while the concurrency reversed direction. */
  readonly oscillation: Alarm;
  readonly oscillationExpression: MathExpression;
  /** No clean controller tick for several periods: not scheduled, crashing, or reporting errors. */
  readonly controllerUnhealthy: Alarm;
  readonly controllerHealthyTicks: MathExpression;
  /** Any message in the dead-letter queue (absent when the scaler knows no DLQ). */
  readonly deadLetters?: Alarm;
  /** The consumer is being throttled: the pollers pull more than the reserved concurrency admits. */
  readonly consumerThrottles: Alarm;

  constructor(scope: Construct, id: string, props: ScalerAlarmsProps) {
    super(scope, id);
    const m = props.metrics;
    const name = (suffix: string) => `${props.scalerName}-${suffix}`;
    const targetAgeSeconds = props.targetAge.toSeconds({ integral: false });
    const tickSeconds = props.tick.toSeconds();

    // Pinned at cap with age above target. Both inputs are one-minute series; the expression is 1 in a minute
    // where both hold. SQS datapoints arrive 1–2 minutes late (AWS-FACTS), so the newest periods are often
    // still empty: "2 of the last 4 minutes" fires from the delayed points instead of waiting on a strict
    // "2 consecutive newest". Missing = not breaching: an idle queue stops publishing its age (nothing waits,
    // so nothing is saturated), and a controller that stopped publishing is the controller alarm's job.
    this.saturatedExpression = new MathExpression({
      expression: `IF(applied >= ${props.maxConcurrency} AND age > ${targetAgeSeconds}, 1, 0)`,
      usingMetrics: { applied: m.metricAppliedConcurrency(), age: m.metricOldestMessageAge() },
      period: ONE_MINUTE,
      label: 'saturated (at cap, age above target)',
    });
    this.saturated = new Alarm(this, 'Saturated', {
      alarmName: name('saturated'),
      alarmDescription: [
        `The consumer has been at its cap (${props.maxConcurrency}) with the oldest message older than the`,
        `target (${targetAgeSeconds} s) for more than a minute: the downstream-derived cap, not the`,
        'controller, is the limit and work is accumulating. Shed or slow the producers, or raise the',
        'downstream capacity and then the cap. Do not just raise the cap: that overloads the downstream.',
      ].join(' '),
      metric: this.saturatedExpression,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 4,
      datapointsToAlarm: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // Oscillation. A plain count cannot tell a flapping controller from a legitimate drain: shrinking from a
    // cap of 32 one step a minute is 10 events per 10 minutes. But every change moves the concurrency by at
    // least 1, so a path that only goes one way over N changes spans at least N - 1 (the first change may
    // start from the previous window's value). Events beyond the span + 1 mean the path reversed.
    // Worked example: 10 ↔ 12 every minute → events 10, span 2 → 10 - 2 = 8 ≥ 2 → counts 10 > 3: alarm.
    // A drain 32 → 22 → events 10, span 9 → 1 < 2 → counts 0: no alarm. Missing = not breaching: no
    // published events means no scaling; a silent controller is the controller alarm's job.
    const window = Duration.minutes(10);
    this.oscillationExpression = new MathExpression({
      expression: 'IF(events - (high - low) >= 2, events, 0)',
      usingMetrics: {
        events: m.metricScaleEvents(window),
        high: m.metricDesiredConcurrency(window, 'Maximum'),
        low: m.metricDesiredConcurrency(window, 'Minimum'),
      },
      period: window,
      label: 'scale events / 10 min (with a reversal)',
    });
    this.oscillation = new Alarm(this, 'Oscillation', {
      alarmName: name('oscillation'),
      alarmDescription: [
        `More than ${props.oscillationThreshold} scale events in 10 minutes with the concurrency changing`,
        'direction: the controller is oscillating. At steady traffic, lengthen scaleDownDelay or',
        'scaleDownInterval, or lower maxScaleUpStep; check that the metric delay (maxDataAge)',
        'is not making it act on stale ages.',
      ].join(' '),
      metric: this.oscillationExpression,
      threshold: props.oscillationThreshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // Controller health: ticks that ran and neither crashed nor reported an error. Missing = breaching:
    // a controller that is not scheduled, or whose metrics stopped, is exactly what this alarm is for.
    // Several periods in a row, because EventBridge's once-a-minute schedule can put 0 or 2 runs in a minute.
    const tick = props.tick;
    const periods = Math.max(3, Math.ceil(300 / tickSeconds));
    this.controllerHealthyTicks = new MathExpression({
      expression: 'FILL(invocations, 0) - FILL(crashes, 0) - FILL(reported, 0)',
      usingMetrics: {
        invocations: m.metricControllerInvocations().with({ period: tick }),
        crashes: m.metricControllerErrors().with({ period: tick }),
        reported: m.metricControllerReportedErrors().with({ period: tick }),
      },
      period: tick,
      label: 'clean controller ticks',
    });
    this.controllerUnhealthy = new Alarm(this, 'ControllerUnhealthy', {
      alarmName: name('controller-unhealthy'),
      alarmDescription: [
        `The controller has not completed a clean tick in ${periods} consecutive periods of ${tickSeconds} s:`,
        'it is not scheduled, is crashing, or is reporting errors (missing permissions, a deleted consumer or',
        'mapping, throttled control-plane calls). The consumer keeps its last concurrency meanwhile.',
        "Read the controller's log group for the error and its reason code.",
      ].join(' '),
      metric: this.controllerHealthyTicks,
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      treatMissingData: TreatMissingData.BREACHING,
    });

    // Dead letters: any message is a failure a human should look at. Missing = not breaching: SQS stops
    // publishing for a queue inactive for ~6 hours, which an empty DLQ is (a non-empty queue counts as active).
    const deadLetterMessages = m.metricDeadLetterMessages();
    if (deadLetterMessages) {
      this.deadLetters = new Alarm(this, 'DeadLetters', {
        alarmName: name('dead-letters'),
        alarmDescription: [
          'Messages reached the dead-letter queue: they failed maxReceiveCount times. Read a few, fix the cause',
          '(consumer errors, poison messages, or throttling that returned messages), then redrive them to the',
          'source queue (SQS console: Start DLQ redrive).',
        ].join(' '),
        metric: deadLetterMessages,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }

    // Throttles: with MaximumConcurrency ≤ reserved there should be none; throttled messages return to the
    // queue and their receive count grows toward the DLQ (AWS-FACTS: overpull). 2 of 3 minutes ignores one
    // blip during a change. Missing = not breaching: Lambda publishes nothing for a function that is not invoked.
    this.consumerThrottles = new Alarm(this, 'ConsumerThrottles', {
      alarmName: name('consumer-throttles'),
      alarmDescription: [
        `The consumer was throttled (${props.throttleThreshold}+ per minute in 2 of 3 minutes): the pollers pull`,
        'more than its reserved concurrency admits, and returned messages grow toward the DLQ. Use the',
        "lockstep actuator, keep the mapping's MaximumConcurrency at or below the reserved concurrency, and",
        "check the account's unreserved concurrency.",
      ].join(' '),
      metric: m.metricConsumerThrottles(),
      threshold: props.throttleThreshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    for (const alarm of this.all) {
      alarm.addAlarmAction(...props.actions);
      alarm.addOkAction(...props.actions);
    }
  }

  get all(): Alarm[] {
    return [
      this.saturated,
      this.oscillation,
      this.controllerUnhealthy,
      ...(this.deadLetters ? [this.deadLetters] : []),
      this.consumerThrottles,
    ];
  }
}
