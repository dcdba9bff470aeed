import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { attach } from './attached-scaler.ts';

/**
 * How CloudWatch evaluates the "behind" alarms, applied to the synthesized alarms' own settings. moto stores
 * alarms but never evaluates them, so the evaluation is modelled here from AWS's documentation ("How alarm state
 * is evaluated when data is missing"): CloudWatch looks at a range a few periods longer than EvaluationPeriods;
 * if at least EvaluationPeriods datapoints exist in it, it judges the most recent EvaluationPeriods of them and
 * TreatMissingData does not apply; otherwise the missing ones are filled by TreatMissingData. The range is
 * modelled as EvaluationPeriods + 3 one-minute periods, more than SQS's 1–2 minute lag.
 */
interface AlarmSettings {
  readonly EvaluationPeriods: number;
  readonly DatapointsToAlarm?: number;
  readonly Threshold: number;
  readonly TreatMissingData: 'breaching' | 'notBreaching' | 'ignore' | 'missing';
}

type Minute = 0 | 1 | undefined;

/** `minutes`: the expression's value per minute, oldest first, the last being the newest period; undefined: missing. */
function evaluate(alarm: AlarmSettings, minutes: readonly Minute[]): 'ALARM' | 'OK' | 'INSUFFICIENT_DATA' {
  const n = alarm.EvaluationPeriods;
  const m = alarm.DatapointsToAlarm ?? n;
  const range = minutes.slice(-(n + 3));
  const present = range.filter((v): v is 0 | 1 => v !== undefined);
  let judged: (0 | 1 | 'missing')[];
  if (present.length >= n) {
    judged = present.slice(-n);
  } else {
    const fill =
      alarm.TreatMissingData === 'breaching' ? 1 : alarm.TreatMissingData === 'notBreaching' ? 0 : 'missing';
    judged = range.slice(-n).map((v) => v ?? fill);
    if (judged.every((v) => v === 'missing')) return 'INSUFFICIENT_DATA';
  }
  const breaching = judged.filter((v) => v !== 'missing' && v >= alarm.Threshold).length;
  return breaching >= m ? 'ALARM' : 'OK';
}

let alarms: Record<string, AlarmSettings>;
beforeAll(() => {
  const scaler = attach({ scalerName: 'orders' });
  const template = Template.fromStack(Stack.of(scaler));
  alarms = Object.fromEntries(
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => [
      (a.Properties as { AlarmName: string }).AlarmName.replace('orders-', ''),
      a.Properties as AlarmSettings,
    ]),
  );
});

describe('an alarm fires on more than a minute of its condition, continuously', () => {
  it.each<{ comment: string; minutes: Minute[]; state: string }>([
    {
      comment: 'two separate one-minute blips do not alarm ("2 of the last 4" would)',
      minutes: [0, 0, 1, 0, 1],
      state: 'OK',
    },
    { comment: 'one minute is not more than a minute', minutes: [0, 0, 0, 0, 1], state: 'OK' },
    { comment: 'two minutes in a row alarm', minutes: [0, 0, 0, 1, 1], state: 'ALARM' },
    {
      comment:
        'the newest two minutes not published yet (SQS is 1–2 minutes late): the two before them decide',
      minutes: [0, 1, 1, undefined, undefined],
      state: 'ALARM',
    },
    {
      comment:
        'a missing minute inside a run is skipped, not a recovery: a reporting gap, not spare capacity',
      minutes: [0, 0, 1, undefined, 1],
      state: 'ALARM',
    },
    {
      comment: 'an idle queue stops publishing its age: too few datapoints, missing counts as not breaching',
      minutes: [undefined, undefined, undefined, undefined, 1],
      state: 'OK',
    },
  ])('$comment', ({ minutes, state }) => {
    expect(evaluate(alarms.saturated as AlarmSettings, minutes)).toBe(state);
  });

  it.each(['account-headroom', 'paused'])('%s evaluates the same way', (name) => {
    expect(alarms[name]).toMatchObject({
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    expect(evaluate(alarms[name] as AlarmSettings, [0, 0, 1, 0, 1])).toBe('OK');
    expect(evaluate(alarms[name] as AlarmSettings, [0, 0, 0, 1, 1])).toBe('ALARM');
  });

  it('no data with a backlog needs ten minutes in a row: a new queue’s first minutes do not page', () => {
    const noData = alarms['no-data'] as AlarmSettings;
    expect(evaluate(noData, [0, ...Array<Minute>(9).fill(1)])).toBe('OK');
    expect(evaluate(noData, Array<Minute>(10).fill(1))).toBe('ALARM');
  });
});
