import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  AlarmWidget,
  Dashboard,
  GraphWidget,
  type GraphWidgetProps,
  type IWidget,
  PeriodOverride,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { ScalerAlarms } from './alarms.ts';
import type { BudgetMetricFactory, ScalerMetricFactory } from './metrics.ts';

export interface ScalerDashboardProps {
  readonly dashboardName: string;
  readonly metrics: ScalerMetricFactory;
  readonly alarms: ScalerAlarms;
  readonly targetAge: Duration;
  readonly maxConcurrency: number;
  readonly minConcurrency: number;
  readonly oscillationThreshold: number;
  /**
   * Graph the head age the controller used (HeadAgeSeconds) beside AWS/SQS's: only a budget's member publishes
   * it, in the minutes it is behind (lib/telemetry.ts BUDGET_MEMBER_BEHIND_METRICS); a lone scaler's graph is
   * AWS/SQS's age and the target line.
   */
  readonly headAgeSeen: boolean;
}

const WIDTH = 12;
const HEIGHT = 6;

/**
 * One dashboard per scaler. The graphs that have an alarm show the alarm's own metric or expression, so what the
 * operator sees is what the alarm evaluates. A dashboard is billed as one, whatever it graphs: it shows the raw
 * flags beside the alarms' and the oscillation expression whether or not that alarm is on.
 */
export class ScalerDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ScalerDashboardProps) {
    super(scope, id);
    const m = props.metrics;
    const a = props.alarms;
    const targetAgeSeconds = props.targetAge.toSeconds({ integral: false });
    const graph = (title: string, rest: Omit<GraphWidgetProps, 'title' | 'width' | 'height'>) =>
      new GraphWidget({ title, width: WIDTH, height: HEIGHT, ...rest });

    const widgets: IWidget[][] = [
      [new AlarmStatusWidget({ title: 'Alarms', alarms: a.all, width: 2 * WIDTH, height: 3 })],
      [
        graph('Applied concurrency vs cap', {
          // The cap and the floor are settings: lines, not published metrics.
          left: [
            m.metricAppliedConcurrency(),
            m.metricDesiredConcurrency(),
            m.metricConsumerConcurrentExecutions(),
          ],
          leftAnnotations: [
            { value: props.maxConcurrency, label: `cap ${props.maxConcurrency}` },
            { value: props.minConcurrency, label: `floor ${props.minConcurrency}` },
          ],
          leftYAxis: { min: 0 },
        }),
        graph('Head age vs target (s)', {
          // The target is a setting: a line, not a published metric.
          left: [m.metricOldestMessageAge(), ...(props.headAgeSeen ? [m.metricHeadAgeSeen()] : [])],
          leftAnnotations: [{ value: targetAgeSeconds, label: `target ${targetAgeSeconds} s` }],
          leftYAxis: { min: 0 },
        }),
      ],
      [
        graph('Queue depth: visible and in flight', {
          left: [m.metricVisibleMessages(), m.metricInFlightMessages()],
          leftYAxis: { min: 0 },
        }),
        graph('Arrivals vs deletions (per minute)', {
          left: [m.metricMessagesSent(), m.metricMessagesDeleted()],
          leftYAxis: { min: 0 },
        }),
      ],
      [
        graph('Consumer per-item duration (ms)', {
          left: [m.metricConsumerPerItemMilliseconds(), m.metricConsumerDuration()],
          leftYAxis: { min: 0 },
        }),
        graph('Errors and throttles', {
          left: [
            m.metricConsumerErrors(),
            a.consumerThrottles.metric,
            m.metricControllerErrors(),
            m.metricControllerReportedErrors(),
            ...(a.deadLetters ? [a.deadLetters.metric] : []),
          ],
          right: [a.controllerHealthyTicks],
          leftYAxis: { min: 0 },
          rightYAxis: { min: 0 },
        }),
      ],
      [
        graph('Scale events', {
          left: [m.metricScaleEvents()],
          right: [a.oscillationExpression],
          rightAnnotations: [{ value: props.oscillationThreshold, label: 'oscillation threshold' }],
          leftYAxis: { min: 0 },
          rightYAxis: { min: 0 },
        }),
        graph('Saturated (at cap, or downstream saturated, with age above target)', {
          left: [a.saturated.metric, m.metricAtCap()],
          leftYAxis: { min: 0, max: 1 },
        }),
      ],
      [
        // Every state in which the queue falls behind and the controller cannot act, as its alarm evaluates it.
        graph('Behind and the controller cannot act (alarms)', {
          left: [
            m.metricShed(),
            a.accountHeadroom.metric,
            a.paused.metric,
            a.noData.metric,
            // No alarm of its own: -consumer-throttles catches the throttles it causes.
            m.metricPauseOverpull(),
          ],
          leftYAxis: { min: 0, max: 1 },
        }),
        graph('Controller flags', {
          left: [m.metricDownstreamSlower(), m.metricClampedByAccountHeadroom(), m.metricPaused()],
          right: [m.metricLockstepRepairs(), m.metricFastPathGrowths()],
          leftYAxis: { min: 0 },
          rightYAxis: { min: 0 },
        }),
      ],
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
      periodOverride: PeriodOverride.INHERIT,
      widgets,
    });
  }
}

/** What a shared budget's dashboard row shows. */
export interface BudgetRowProps {
  readonly budgetName: string;
  /** The budget, in concurrent executions: the line the grants stack against. */
  readonly budget: number;
  readonly metrics: BudgetMetricFactory;
  readonly exhausted: Alarm;
  /** The members' scaler names so far; later ones are added with `addMember`. */
  readonly members: readonly string[];
}

/**
 * The budget's row on a member's dashboard: every member's grant stacked against the budget's line (a stacked
 * graph stacks each of its series, so the line is an annotation at the budget, which `BudgetLimit` also reports),
 * the `-budget-exhausted` alarm, and the budget's total with the starved members.
 */
export class BudgetRow {
  readonly widgets: IWidget[];
  private readonly grants: GraphWidget;

  constructor(private readonly props: BudgetRowProps) {
    const m = props.metrics;
    this.grants = new GraphWidget({
      title: `Budget ${props.budgetName}: granted per member (stacked) vs the budget`,
      width: WIDTH,
      height: HEIGHT,
      left: props.members.map((name) => m.metricGrant(name)),
      stacked: true,
      leftAnnotations: [{ value: props.budget, label: `budget ${props.budget}` }],
      leftYAxis: { min: 0 },
    });
    this.widgets = [
      this.grants,
      new AlarmWidget({
        title: `Budget ${props.budgetName}: exhausted with a member starved`,
        alarm: props.exhausted,
        width: WIDTH / 2,
        height: HEIGHT,
        leftYAxis: { min: 0, max: 1 },
      }),
      new GraphWidget({
        title: `Budget ${props.budgetName}: granted vs limit, starved members`,
        width: WIDTH / 2,
        height: HEIGHT,
        left: [m.metricGranted(), m.metricLimit()],
        right: [m.metricStarvedMembers()],
        leftYAxis: { min: 0 },
        rightYAxis: { min: 0 },
      }),
    ];
  }

  /** A member that joined after this row was made. */
  addMember(scalerName: string): void {
    this.grants.addLeftMetric(this.props.metrics.metricGrant(scalerName));
  }
}
