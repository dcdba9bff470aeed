import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  BUDGET_DIMENSION,
  BUDGET_METRICS,
  CONTROLLER_METRICS,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
} from '../telemetry.ts';

/**
 * Every metric a scaler's alarms and dashboard use, built in one place (cdk-monitoring-constructs' metric
 * factory): an alarm and the graph beside it take the same object, so they cannot disagree about the
 * statistic, period or dimensions.
 */
export interface ScalerMetricFactoryProps {
  readonly queue: IQueue;
  readonly deadLetterQueue?: IQueue;
  readonly consumer: IFunction;
  readonly controller: IFunction;
  /** The value of the controller's `ScalerName` dimension. */
  readonly scalerName: string;
  /**
   * Dimensions the controller adds to every metric besides `ScalerName` (e.g. Powertools' `service`).
   * @default none
   */
  readonly extraControllerDimensions?: Record<string, string>;
}

// SQS publishes one-minute datapoints; the controller ticks once a minute. A finer period would show gaps.
export const ONE_MINUTE = Duration.minutes(1);

export class ScalerMetricFactory {
  constructor(private readonly props: ScalerMetricFactoryProps) {}

  private sqs(queue: IQueue, metricName: string, statistic: string, label: string): Metric {
    return new Metric({
      namespace: 'AWS/SQS',
      metricName,
      dimensionsMap: { QueueName: queue.queueName },
      statistic,
      period: ONE_MINUTE,
      label,
    });
  }

  private lambda(fn: IFunction, metricName: string, statistic: string, label: string): Metric {
    return new Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { FunctionName: fn.functionName },
      statistic,
      period: ONE_MINUTE,
      label,
    });
  }

  private controllerMetric(
    name: keyof typeof CONTROLLER_METRICS,
    statistic: string,
    label: string,
    period: Duration = ONE_MINUTE,
  ): Metric {
    return new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: CONTROLLER_METRICS[name],
      dimensionsMap: { ...this.props.extraControllerDimensions, [SCALER_DIMENSION]: this.props.scalerName },
      statistic,
      period,
      label,
    });
  }

  // ---- the queue (AWS/SQS) ----

  /** The head age: `ApproximateAgeOfOldestMessage`, Maximum, seconds. */
  metricOldestMessageAge(): Metric {
    return this.sqs(this.props.queue, 'ApproximateAgeOfOldestMessage', 'Maximum', 'head age (s)');
  }

  metricVisibleMessages(): Metric {
    return this.sqs(this.props.queue, 'ApproximateNumberOfMessagesVisible', 'Maximum', 'visible');
  }

  metricInFlightMessages(): Metric {
    return this.sqs(this.props.queue, 'ApproximateNumberOfMessagesNotVisible', 'Maximum', 'in flight');
  }

  metricMessagesSent(): Metric {
    return this.sqs(this.props.queue, 'NumberOfMessagesSent', 'Sum', 'arrivals / min');
  }

  metricMessagesDeleted(): Metric {
    return this.sqs(this.props.queue, 'NumberOfMessagesDeleted', 'Sum', 'deletions / min');
  }

  /** Messages waiting in the dead-letter queue, or undefined when the scaler knows no DLQ. */
  metricDeadLetterMessages(): Metric | undefined {
    const dlq = this.props.deadLetterQueue;
    return dlq && this.sqs(dlq, 'ApproximateNumberOfMessagesVisible', 'Maximum', 'DLQ messages');
  }

  // ---- the consumer (AWS/Lambda) ----

  metricConsumerDuration(): Metric {
    return this.lambda(this.props.consumer, 'Duration', 'Average', 'consumer invocation (ms, avg)');
  }

  /**
   * Milliseconds per message: the consumer's total Duration ÷ messages deleted. An invocation handles a batch,
   * so Duration alone overstates an item's time by the batch size.
   */
  metricConsumerPerItemMilliseconds(): MathExpression {
    return new MathExpression({
      expression: 'IF(deleted > 0, duration / deleted)',
      usingMetrics: {
        duration: this.lambda(this.props.consumer, 'Duration', 'Sum', 'consumer duration (ms, sum)'),
        deleted: this.metricMessagesDeleted(),
      },
      period: ONE_MINUTE,
      label: 'per item (ms)',
    });
  }

  metricConsumerConcurrentExecutions(): Metric {
    return this.lambda(this.props.consumer, 'ConcurrentExecutions', 'Maximum', 'consumer running');
  }

  metricConsumerErrors(): Metric {
    return this.lambda(this.props.consumer, 'Errors', 'Sum', 'consumer errors');
  }

  metricConsumerThrottles(): Metric {
    return this.lambda(this.props.consumer, 'Throttles', 'Sum', 'consumer throttles');
  }

  // ---- the controller function (AWS/Lambda) ----

  metricControllerInvocations(): Metric {
    return this.lambda(this.props.controller, 'Invocations', 'Sum', 'controller invocations');
  }

  metricControllerErrors(): Metric {
    return this.lambda(this.props.controller, 'Errors', 'Sum', 'controller crashes');
  }

  // ---- the controller's own metrics (QueueAgeScaler namespace) ----

  metricAppliedConcurrency(period: Duration = ONE_MINUTE, statistic = 'Maximum'): Metric {
    const label = statistic === 'Maximum' ? 'applied' : `applied (${statistic.toLowerCase()})`;
    return this.controllerMetric('appliedConcurrency', statistic, label, period);
  }

  metricDesiredConcurrency(period: Duration = ONE_MINUTE, statistic = 'Maximum'): Metric {
    return this.controllerMetric(
      'desiredConcurrency',
      statistic,
      statistic === 'Maximum'
        ? 'desired, where it differs from applied'
        : `desired (${statistic.toLowerCase()})`,
      period,
    );
  }

  /**
   * How many times the controller published its applied concurrency in a period: every clean tick does, and
   * every fast-path sample that grew; a crashed, failed or unscheduled tick, and one whose write failed, does not.
   */
  metricAppliedPublications(period: Duration): Metric {
    return this.controllerMetric('appliedConcurrency', 'SampleCount', 'ticks that published', period);
  }

  metricHeadAgeSeen(): Metric {
    return this.controllerMetric('headAgeSeconds', 'Maximum', 'head age the controller used (s)');
  }

  metricScaleEvents(period: Duration = ONE_MINUTE): Metric {
    return this.controllerMetric('scaleEvents', 'Sum', 'scale events', period);
  }

  metricSaturated(): Metric {
    return this.controllerMetric('saturated', 'Maximum', 'saturated (controller)');
  }

  metricAtCap(): Metric {
    return this.controllerMetric('atCap', 'Maximum', 'at cap (controller)');
  }

  metricControllerReportedErrors(): Metric {
    return this.controllerMetric('errors', 'Sum', 'controller errors (handled)');
  }

  /** Ticks without an age datapoint while the real-time depth showed messages waiting. */
  metricNoData(): Metric {
    return this.controllerMetric('noData', 'Sum', 'ticks without age data, messages waiting');
  }

  metricDownstreamSlower(): Metric {
    return this.controllerMetric('downstreamSlower', 'Maximum', 'items slower');
  }

  /** The downstream is saturated (growth bought no throughput) with the head above target: the shed signal. */
  metricShed(): Metric {
    return this.controllerMetric('shed', 'Maximum', 'shed (downstream saturated, age above target)');
  }

  metricClampedByAccountHeadroom(): Metric {
    return this.controllerMetric('clampedByAccountHeadroom', 'Maximum', 'clamped by account headroom');
  }

  /** A tick's raise refused by the account's headroom with the head above target. */
  metricClampedAboveTarget(): Metric {
    return this.controllerMetric(
      'clampedAboveTarget',
      'Maximum',
      'clamped by account headroom, age above target',
    );
  }

  metricPaused(): Metric {
    return this.controllerMetric('paused', 'Maximum', 'paused by an operator');
  }

  /** Paused with the head above target, as the tick saw it. */
  metricPausedAboveTarget(): Metric {
    return this.controllerMetric('pausedAboveTarget', 'Maximum', 'paused, age above target');
  }

  metricPauseOverpull(): Metric {
    return this.controllerMetric('pauseOverpull', 'Maximum', 'pause overpulls (reserved 0, mapping polling)');
  }

  metricLockstepRepairs(): Metric {
    return this.controllerMetric('lockstepRepairs', 'Sum', 'lockstep repairs');
  }

  metricFastPathGrowths(): Metric {
    return this.controllerMetric('fastPathGrowths', 'Sum', 'fast-path growths');
  }
}

/**
 * A shared budget's metrics (`DownstreamBudget`), as its controller publishes them: the budget's own under the
 * `BudgetName` dimension, each member's grant under `BudgetName` and its `ScalerName`.
 */
export class BudgetMetricFactory {
  constructor(private readonly budgetName: string) {}

  private budgetMetric(
    name: keyof typeof BUDGET_METRICS,
    statistic: string,
    label: string,
    scalerName?: string,
  ): Metric {
    return new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: BUDGET_METRICS[name],
      dimensionsMap: {
        [BUDGET_DIMENSION]: this.budgetName,
        ...(scalerName === undefined ? {} : { [SCALER_DIMENSION]: scalerName }),
      },
      statistic,
      period: ONE_MINUTE,
      label,
    });
  }

  /** The budget itself: the line the members' grants stack against. */
  metricLimit(): Metric {
    return this.budgetMetric('limit', 'Maximum', 'budget');
  }

  /** Σ of the members' grants after the tick's writes. */
  metricGranted(): Metric {
    return this.budgetMetric('granted', 'Maximum', 'granted (all members)');
  }

  /** 1 when the budget is fully granted and a member above its target got less than its own law asked. */
  metricExhausted(): Metric {
    return this.budgetMetric('exhausted', 'Maximum', 'budget exhausted, a member starved');
  }

  metricStarvedMembers(): Metric {
    return this.budgetMetric('starvedMembers', 'Maximum', 'starved members');
  }

  /** One member's grant (its applied limit), labelled with its name. */
  metricGrant(scalerName: string): Metric {
    return this.budgetMetric('memberGrant', 'Maximum', scalerName, scalerName);
  }
}
