import { Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { BUDGET_ENVIRONMENT } from '../../lib/budget-environment.ts';
import type { DownstreamHealth } from '../../lib/cdk/downstream-health.ts';
import type { QueueAgeScaler } from '../../lib/cdk/queue-age-scaler.ts';
import { attach, errorsOf } from './attached-scaler.ts';
import { budgetApp } from './budget-app.ts';

const dbLoad = (extra: Partial<ConstructorParameters<typeof Metric>[0]> = {}) =>
  new Metric({
    namespace: 'AWS/RDS',
    metricName: 'DBLoad',
    dimensionsMap: { DBInstanceIdentifier: 'orders-db' },
    statistic: 'Average',
    period: Duration.minutes(1),
    ...extra,
  });

/** The controller function's environment variables, resolved. */
function controllerEnvironment(scaler: QueueAgeScaler): Record<string, unknown> {
  const stack = scaler.node.scope as Stack;
  const fn = Template.fromStack(stack).findResources('AWS::Lambda::Function');
  const id = stack.getLogicalId(scaler.controller.node.defaultChild as never);
  return (
    (fn[id]?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {}
  );
}

describe('downstreamHealth: a CloudWatch metric and its threshold, read at every tick', () => {
  it('writes DOWNSTREAM_HEALTH as compact JSON: namespace, name, dimensions, statistic, period, threshold, side', () => {
    // GIVEN a scaler with RDS DBLoad above 8 as its downstream's health signal
    const scaler = attach({ downstreamHealth: { metric: dbLoad(), threshold: 8 } });
    // THEN synth reports nothing, and the controller's environment carries the spec
    expect(errorsOf(scaler)).toEqual([]);
    const env = controllerEnvironment(scaler);
    expect(JSON.parse(env.DOWNSTREAM_HEALTH as string)).toEqual({
      namespace: 'AWS/RDS',
      metricName: 'DBLoad',
      dimensions: { DBInstanceIdentifier: 'orders-db' },
      statistic: 'Average',
      periodSeconds: 60,
      threshold: 8,
      unhealthyWhen: 'above',
    });
  });

  it('a dimension from a token resolves in the template; without the prop there is no variable', () => {
    const scaler = attach((stack) => ({
      downstreamHealth: {
        metric: new Metric({
          namespace: 'Custom/Pool',
          metricName: 'FreeConnections',
          dimensionsMap: { Account: stack.account },
        }),
        threshold: 2,
        unhealthyWhen: 'below',
      },
    }));
    expect(errorsOf(scaler)).toEqual([]);
    expect(JSON.stringify(controllerEnvironment(scaler).DOWNSTREAM_HEALTH)).toContain('AWS::AccountId');
    expect(controllerEnvironment(attach({})).DOWNSTREAM_HEALTH).toBeUndefined();
  });

  it.each([
    {
      comment: 'a threshold that is not a number',
      health: { metric: dbLoad(), threshold: Number.NaN },
      error: /^downstreamHealth\.threshold = null: must be a finite number/,
    },
    {
      comment: 'a side that is neither above nor below',
      health: { metric: dbLoad(), threshold: 8, unhealthyWhen: 'over' as never },
      error: /^downstreamHealth\.unhealthyWhen = "over": must be one of 'above', 'below'/,
    },
    {
      comment: 'a period the tick cannot read (30 s: high resolution)',
      health: { metric: dbLoad({ period: Duration.seconds(30) }), threshold: 8 },
      error: /^downstreamHealth\.periodSeconds = 30: must be whole minutes in \[60; 3600\]/,
    },
    {
      comment: 'a math expression',
      health: {
        metric: new MathExpression({ expression: 'm1 * 2', usingMetrics: { m1: dbLoad() } }),
        threshold: 8,
      },
      error: /^downstreamHealth\.metric = .*: a math expression; give one metric/,
    },
    {
      comment: 'a metric of another account',
      health: { metric: dbLoad({ account: '999999999999' }), threshold: 8 },
      error: /^downstreamHealth\.metric = .*: in account 999999999999.*its own account and region only/,
    },
    {
      comment: 'a metric of another region',
      health: { metric: dbLoad({ region: 'eu-west-1' }), threshold: 8 },
      error: /^downstreamHealth\.metric = .*region eu-west-1.*its own account and region only/,
    },
  ])('refuses $comment, naming the prop, the value and what it must be', ({ health, error }) => {
    const scaler = attach({ downstreamHealth: health as DownstreamHealth });
    expect(errorsOf(scaler)).toEqual([expect.stringMatching(error)]);
    expect(controllerEnvironment(scaler).DOWNSTREAM_HEALTH).toBeUndefined();
  });

  it("a budget's member carries its own in the budget's environment; the other member has none", () => {
    const { stack, scalers } = budgetApp({ dbPoolSize: 40 }, [
      { name: 'Orders', props: { downstreamHealth: { metric: dbLoad(), threshold: 8 } } },
      { name: 'Refunds' },
    ]);
    for (const scaler of scalers) expect(errorsOf(scaler)).toEqual([]);
    const fns = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
    const controller = fns.find((fn) => JSON.stringify(fn).includes(BUDGET_ENVIRONMENT.members));
    const members = JSON.stringify(
      (controller?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables[
        BUDGET_ENVIRONMENT.members
      ],
    );
    expect(members.match(/downstreamHealth/g)).toHaveLength(1);
    expect(members).toContain('DBLoad');
  });
});
