import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { BudgetMetricFactory, ScalerMetricFactory } from './metrics.ts';

/**
 * "More than a minute, continuously" at one-minute resolution: the two most recent one-minute datapoints both
 * breaching. CloudWatch evaluates the most recent datapoints that exist within a range a few periods longer than
 * EvaluationPeriods, so SQS's 1–2 minute lag delays the alarm by that much rather than hiding it; the missing-data
 * treatment applies only when fewer than two datapoints exist in that range (AWS: "How alarm state is evaluated
 * when data is missing").
 */
export const CONTINUOUS_MINUTES = 2;
/**
 * No age datapoint with messages waiting, for this many minutes in a row. A new queue has no datapoints for its
 * first minutes, and one inactive for ~6 h may take up to 15 minutes to report again
 * (docs/aws-facts.md, "SQS metrics"); meanwhile the controller grows on the depth. Ten minutes without data and a
 * backlog is a pipeline that stopped reporting.
 */
export const NO_DATA_MINUTES = 10;

/** What the alarms compare against: the validated config's numbers and the alarm-only thresholds. */
export interface ScalerAlarmsProps {
  readonly metrics: ScalerMetricFactory;
  /** Prefix of every alarm name. */
  readonly scalerName: string;
  /** The latency target the saturation alarm compares the head age with (whole or fractional seconds). */
  readonly targetAge: Duration;
  /** The cap: at or above it the controller cannot add concurrency. */
  readonly maxConcurrency: number;
  /** How often the controller runs (a whole number of minutes). */
  readonly tick: Duration;
  /** Scale events per 10 minutes, with a reversal, above which the controller is oscillating. */
  readonly oscillationThreshold: number;
  /**
   * Whether to add the oscillation alarm. Off by default: it reads three metrics (the scale events and the applied
   * concurrency's highest and lowest), $0.30 a month, for a tuning signal, not a stuck state; the dashboard graphs
   * its expression either way.
   */
  readonly oscillationAlarm: boolean;
  /** Consumer throttles per minute at or above which the throttle alarm counts a minute as bad. */
  readonly throttleThreshold: number;
  /** Where alarm and OK notifications go. */
  readonly actions: readonly IAlarmAction[];
}

/**
 * The scaler's alarms, each with its missing-data treatment chosen for what absence means for that signal. Each
 * reads as few metrics as carry its signal, none twice (CloudWatch bills an alarm per metric it references). The
 * alarms and the expressions are exposed so the dashboard graphs exactly what the alarms evaluate.
 */
export class ScalerAlarms extends Construct {
  /**
   * Behind for more than a minute where more workers cannot help: at the cap, the downstream's health signal past
   * its threshold, or a growth that bought no throughput (`Shed`). The seed's "shed, don't scale" hook: one state,
   * one alarm (it was two, `-saturated` and `-shed`: $0.10 a month for the same page), the decision log says which.
   */
  readonly saturated: Alarm;
  /** A raise refused by the account's unreserved concurrency floor, with the head above target. */
  readonly accountHeadroom: Alarm;
  /** An operator's pause (reserved 0, or the mapping disabled) with the head above target. */
  readonly paused: Alarm;
  /** No age datapoint while messages wait, for NO_DATA_MINUTES in a row. */
  readonly noData: Alarm;
  /** Scale events per 10 minutes above the threshold while the concurrency reversed direction (opt-in). */
  readonly oscillation?: Alarm;
  /** What the oscillation alarm evaluates, graphed on the dashboard whether or not the alarm exists. */
  readonly oscillationExpression: MathExpression;
  /** No clean controller tick for several periods: not scheduled, crashing, or reporting errors. */
  readonly controllerUnhealthy: Alarm;
  /** What it evaluates, graphed on the dashboard: the periods in which a tick published its applied value. */
  readonly controllerHealthyTicks: Metric;
  /** Any message in the dead-letter queue (absent when the scaler knows no DLQ). */
  readonly deadLetters?: Alarm;
  /**
   * The consumer is being throttled: the pollers pull more than the reserved concurrency admits, a pause by
   * reserved concurrency 0 with the mapping still polling included (that pause's own alarm, `-pause-overpull`,
   * read the controller's PauseOverpull flag: one metric more, $0.10 a month, for a state whose every minute shows
   * as throttles; the flag is still published and graphed).
   */
  readonly consumerThrottles: Alarm;

  constructor(scope: Construct, id: string, props: ScalerAlarmsProps) {
    super(scope, id);
    const on: AlarmContext = {
      scope: this,
      props,
      name: (suffix) => `${props.scalerName}-${suffix}`,
      targetAgeSeconds: props.targetAge.toSeconds({ integral: false }),
    };
    this.saturated = saturatedAlarm(on);
    this.accountHeadroom = accountHeadroomAlarm(on);
    this.paused = pausedAlarm(on);
    this.noData = noDataAlarm(on);
    this.oscillationExpression = oscillationExpression(props.metrics);
    if (props.oscillationAlarm) this.oscillation = oscillationAlarm(on, this.oscillationExpression);
    ({ alarm: this.controllerUnhealthy, metric: this.controllerHealthyTicks } = controllerUnhealthyAlarm(on));
    this.deadLetters = deadLettersAlarm(on);
    this.consumerThrottles = consumerThrottlesAlarm(on);
    for (const alarm of this.all) {
      alarm.addAlarmAction(...props.actions);
      alarm.addOkAction(...props.actions);
    }
  }

  get all(): Alarm[] {
    return [
      this.saturated,
      this.accountHeadroom,
      this.paused,
      this.noData,
      ...(this.oscillation ? [this.oscillation] : []),
      this.controllerUnhealthy,
      ...(this.deadLetters ? [this.deadLetters] : []),
      this.consumerThrottles,
    ];
  }
}

/** What every alarm below is built from. */
interface AlarmContext {
  readonly scope: Construct;
  readonly props: ScalerAlarmsProps;
  /** The alarm's name: the scaler's name and a suffix. */
  readonly name: (suffix: string) => string;
  readonly targetAgeSeconds: number;
}

interface AlarmWithMetric {
  readonly alarm: Alarm;
  readonly metric: Metric;
}

/**
 * A "behind for more than a minute, continuously" alarm on one of the controller's sparse flags: 1 in a minute
 * the condition held at a tick, absent otherwise. Missing = not breaching: the flag is published only when it is 1
 * (lib/telemetry.ts SPARSE_CONTROLLER_METRICS), and a controller that stopped publishing is the controller
 * alarm's job. SQS datapoints arrive 1–2 minutes late (docs/aws-facts.md, "SQS metrics"), so the tick's age is
 * that late too: the lag delays the alarm rather than hiding it.
 */
function behindAlarm(
  on: AlarmContext,
  id: string,
  suffix: string,
  flag: Metric,
  description: string[],
): Alarm {
  return new Alarm(on.scope, id, {
    alarmName: on.name(suffix),
    alarmDescription: description.join(' '),
    metric: flag,
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: CONTINUOUS_MINUTES,
    datapointsToAlarm: CONTINUOUS_MINUTES,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * Behind where more workers cannot help, with age above target: the controller's `Saturated` flag, which folds in
 * every such condition at the tick (the applied value after its writes at the cap, the health signal past its
 * threshold, or a growth that bought no throughput: `Shed`), so the alarm reads one metric. "More than a minute,
 * continuously": the two most recent datapoints (CONTINUOUS_MINUTES); "2 of the last 4" would also fire on two
 * separate one-minute blips. `applied` is what the controller applied, not what it wanted: a raise the account
 * refused is not "at cap" (that is the account-headroom alarm).
 */
function saturatedAlarm(on: AlarmContext): Alarm {
  const { props, targetAgeSeconds } = on;
  return behindAlarm(on, 'Saturated', 'saturated', props.metrics.metricSaturated(), [
    `The consumer has been at its cap (${props.maxConcurrency}), or its downstream saturated (the`,
    'downstreamHealth metric past its threshold, or a growth that bought no throughput: the decision log says',
    `hold:at-cap or hold:downstream-saturated), with the oldest message older than the target (${targetAgeSeconds} s)`,
    'for more than a minute: the downstream, not the controller, is the limit and work is accumulating. Shed or',
    'slow the producers, or raise the downstream capacity and then the cap. Do not just raise the cap: that',
    'overloads the downstream. After a growth that bought nothing the controller took it back and holds; when',
    'the queue catches up it may probe with one growth again.',
  ]);
}

/** A raise the account's unreserved floor refused, with the age above target (`ClampedAboveTarget`). */
function accountHeadroomAlarm(on: AlarmContext): Alarm {
  const { props, targetAgeSeconds } = on;
  return behindAlarm(on, 'AccountHeadroom', 'account-headroom', props.metrics.metricClampedAboveTarget(), [
    "The controller's raise was refused: reserving more would take the account's unreserved concurrency",
    `below its floor, and the oldest message is older than the target (${targetAgeSeconds} s). The`,
    'consumer runs below its need. Free reserved concurrency held by other functions, or ask AWS for a',
    "higher account concurrency quota. The controller's log line names the floor and the headroom.",
  ]);
}

/** An operator's pause with the age above target (`PausedAboveTarget`). */
function pausedAlarm(on: AlarmContext): Alarm {
  const { targetAgeSeconds } = on;
  return behindAlarm(on, 'Paused', 'paused', on.props.metrics.metricPausedAboveTarget(), [
    'An operator paused the consumer (reserved concurrency 0, or its event source mapping disabled) and',
    `the oldest message is older than the target (${targetAgeSeconds} s): the controller holds and`,
    'writes nothing while paused. Resume when ready: enable the mapping, or put back a reserved concurrency',
    '(docs/deploy.md, "Pausing and resuming"). The controller takes over again at the next tick.',
  ]);
}

/**
 * No data with a backlog: the controller's `NoData` flag, published only when a tick had no age datapoint and its
 * real-time depth read showed messages waiting (SQS's own depth metric may be missing as well). Missing = not
 * breaching: no controller metrics is the controller alarm's job.
 */
function noDataAlarm(on: AlarmContext): Alarm {
  return new Alarm(on.scope, 'NoData', {
    alarmName: on.name('no-data'),
    alarmDescription: [
      `For ${NO_DATA_MINUTES} minutes CloudWatch has had no ApproximateAgeOfOldestMessage datapoint for the`,
      "queue while messages wait: the controller cannot see the age and grows only on the queue's depth, in",
      "limited steps. Check the queue's metrics in the CloudWatch console (a renamed or recreated queue?), and",
      "the controller's log for hold:no-data. A queue idle for ~6 h can take up to 15 minutes to report again.",
    ].join(' '),
    metric: on.props.metrics.metricNoData(),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: NO_DATA_MINUTES,
    datapointsToAlarm: NO_DATA_MINUTES,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * Oscillation. A plain count cannot tell a flapping controller from a legitimate drain: shrinking from a cap of 32
 * one step a minute is 10 events per 10 minutes. But every change moves the concurrency by at least 1, so a path
 * of N changes in one direction spans at least N - 1 (the span: the window's highest applied value minus the
 * window's lowest). Events beyond the span + 1 mean the path reversed. Worked example: 10 ↔ 12 every minute →
 * events 10, span 2 → 10 - 2 = 8 ≥ 2 → counts 10 > 3: alarm. A drain 32 → 22 → events 10, span 9 → 1 < 2 →
 * counts 0: no alarm. The span needs the applied concurrency twice (its highest and its lowest: the desired one is
 * published only where it differs), one metric read twice, three in all, which is why the alarm is opt-in (`oscillationAlarm`) and the dashboard graphs it anyway.
 */
function oscillationExpression(m: ScalerMetricFactory): MathExpression {
  const window = Duration.minutes(10);
  return new MathExpression({
    expression: 'IF(events - (high - low) >= 2, events, 0)',
    usingMetrics: {
      events: m.metricScaleEvents(window),
      high: m.metricAppliedConcurrency(window, 'Maximum'),
      low: m.metricAppliedConcurrency(window, 'Minimum'),
    },
    period: window,
    label: 'scale events / 10 min (with a reversal)',
  });
}

/** Missing = not breaching: no published events means no scaling; a silent controller is the controller alarm's job. */
function oscillationAlarm(on: AlarmContext, expression: MathExpression): Alarm {
  return new Alarm(on.scope, 'Oscillation', {
    alarmName: on.name('oscillation'),
    alarmDescription: [
      `More than ${on.props.oscillationThreshold} scale events in 10 minutes with the concurrency changing`,
      'direction: the controller is oscillating. At steady traffic, lengthen scaleDownDelay or',
      'scaleDownInterval, or lower maxScaleUpStep; check that the metric delay (maxDataAge)',
      'is not making it act on stale ages.',
    ].join(' '),
    metric: expression,
    threshold: on.props.oscillationThreshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * Controller health: periods in which a clean tick published its applied concurrency. A tick publishes it only when
 * nothing failed (report.ts: a failed tick, a failed write publish ControllerErrors instead; a crash publishes
 * nothing), so one metric carries both "not running" and "running with errors" (it was two, the applied count and
 * the errors: $0.10 a month more). Missing = breaching: a controller that is not scheduled, or whose metrics
 * stopped, is exactly what this alarm is for. Several periods in a row, because EventBridge's once-a-minute
 * schedule can put 0 or 2 runs in a minute. Not Lambda's Invocations: they also count the samples between ticks,
 * which run whether or not the ticks succeed.
 */
function controllerUnhealthyAlarm(on: AlarmContext): AlarmWithMetric {
  const m = on.props.metrics;
  const tick = on.props.tick;
  const tickSeconds = tick.toSeconds();
  const periods = Math.max(3, Math.ceil(300 / tickSeconds));
  const cleanTicks = m.metricAppliedPublications(tick);
  const alarm = new Alarm(on.scope, 'ControllerUnhealthy', {
    alarmName: on.name('controller-unhealthy'),
    alarmDescription: [
      `The controller has not completed a clean tick in ${periods} consecutive periods of ${tickSeconds} s:`,
      'it is not scheduled, is crashing, or is reporting errors (missing permissions, a deleted consumer or',
      'mapping, throttled control-plane calls). The consumer keeps its last concurrency meanwhile.',
      "Read the controller's log group for the error and its reason code.",
    ].join(' '),
    metric: cleanTicks,
    threshold: 1,
    comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
    evaluationPeriods: periods,
    datapointsToAlarm: periods,
    treatMissingData: TreatMissingData.BREACHING,
  });
  return { alarm, metric: cleanTicks };
}

/**
 * Dead letters: any message is a failure a human should look at. Missing = not breaching: SQS stops publishing
 * for a queue inactive for ~6 hours, which an empty DLQ is (a non-empty queue counts as active).
 */
function deadLettersAlarm(on: AlarmContext): Alarm | undefined {
  const deadLetterMessages = on.props.metrics.metricDeadLetterMessages();
  if (!deadLetterMessages) return undefined;
  return new Alarm(on.scope, 'DeadLetters', {
    alarmName: on.name('dead-letters'),
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

/**
 * Throttles: with MaximumConcurrency ≤ reserved there should be none; throttled messages return to the queue and
 * their receive count grows toward the DLQ (overpull: docs/aws-facts.md, "Event source mapping"). A pause by
 * reserved concurrency 0 while the mapping polls throttles every invocation (docs/aws-facts.md, "Reserved
 * concurrency"), so it is this alarm's too, with its own line in the runbook. 2 of 3 minutes ignores one blip
 * during a change. Missing = not breaching: Lambda publishes nothing for a function that is not invoked.
 */
function consumerThrottlesAlarm(on: AlarmContext): Alarm {
  return new Alarm(on.scope, 'ConsumerThrottles', {
    alarmName: on.name('consumer-throttles'),
    alarmDescription: [
      `The consumer was throttled (${on.props.throttleThreshold}+ per minute in 2 of 3 minutes): the pollers pull`,
      'more than its reserved concurrency admits, and returned messages grow toward the DLQ. If its reserved',
      'concurrency is 0 (a pause: the controller logs hold:paused with pauseOverpull, the PauseOverpull flag is 1),',
      'pause by disabling the mapping instead (aws lambda update-event-source-mapping --uuid … --no-enabled), then',
      'put the reserved concurrency back (docs/deploy.md, "Pausing and resuming"). Otherwise use the lockstep',
      "actuator, keep the mapping's MaximumConcurrency at or below the reserved concurrency, and check the",
      "account's unreserved concurrency.",
    ].join(' '),
    metric: on.props.metrics.metricConsumerThrottles(),
    threshold: on.props.throttleThreshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/** What a shared budget's alarm is built from. */
export interface BudgetExhaustedAlarmProps {
  readonly metrics: BudgetMetricFactory;
  /** Prefix of the alarm's name. */
  readonly budgetName: string;
  /** The runbook line (CloudWatch allows 1024 characters). */
  readonly description: string;
  readonly actions: readonly IAlarmAction[];
}

/**
 * The budget is fully granted and a member above its target got less than its own law asked, for more than a
 * minute continuously: the controller's `BudgetExhausted` flag in the two most recent one-minute periods, as
 * `-saturated` is for one scaler (the shared downstream, not the controller, is the limit). Missing = not
 * breaching: a controller that stopped publishing is each member's `-controller-unhealthy` alarm's job.
 */
export function budgetExhaustedAlarm(scope: Construct, id: string, props: BudgetExhaustedAlarmProps): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmName: `${props.budgetName}-budget-exhausted`,
    alarmDescription: props.description,
    metric: props.metrics.metricExhausted(),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: CONTINUOUS_MINUTES,
    datapointsToAlarm: CONTINUOUS_MINUTES,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(...props.actions);
  alarm.addOkAction(...props.actions);
  return alarm;
}
