import { describe, expect, it } from 'vitest';
import {
  LoadFileError,
  loadScenario,
  parsePhases,
  parseScenarioText,
  shippedScenarios,
} from '../../lib/load-file/load-file.ts';
import { buildPlan } from '../../lib/operator/plan.ts';

const HEADER = 'duration_s,rate_per_s,item_ms';

describe('the optional observed columns of a load file', () => {
  it('reads observed_age_s and observed_concurrency after the three required columns', () => {
    const text = `${HEADER},observed_age_s,observed_concurrency\n60,2,20,12,3\n60,0.5,20,0,1.5\n`;
    expect(parsePhases(text, 'x.csv')).toEqual([
      { durationSeconds: 60, ratePerSecond: 2, itemMs: 20, observed: { ageSeconds: 12, concurrency: 3 } },
      { durationSeconds: 60, ratePerSecond: 0.5, itemMs: 20, observed: { ageSeconds: 0, concurrency: 1.5 } },
    ]);
  });

  it('takes empty cells as not observed, and a row with none as a plain phase', () => {
    const text = `${HEADER},observed_age_s,observed_concurrency\n60,2,20,,3\n60,2,20,7,\n14400,0,20,,\n`;
    expect(parsePhases(text, 'x.csv')).toEqual([
      { durationSeconds: 60, ratePerSecond: 2, itemMs: 20, observed: { concurrency: 3 } },
      { durationSeconds: 60, ratePerSecond: 2, itemMs: 20, observed: { ageSeconds: 7 } },
      { durationSeconds: 14400, ratePerSecond: 0, itemMs: 20 },
    ]);
  });

  it('takes either column alone, in either order', () => {
    expect(parsePhases(`${HEADER},observed_concurrency\n60,2,20,4`, 'x.csv')[0]?.observed).toEqual({
      concurrency: 4,
    });
    expect(
      parsePhases(`${HEADER},observed_concurrency,observed_age_s\n60,2,20,4,9`, 'x.csv')[0]?.observed,
    ).toEqual({ concurrency: 4, ageSeconds: 9 });
  });

  it.each([
    {
      comment: 'an unknown extra column',
      text: `${HEADER},observed_depth\n60,2,20,5`,
      message:
        /^x\.csv line 1: header column 'observed_depth' is not known: after duration_s,rate_per_s,item_ms a load file may have only observed_age_s, observed_concurrency$/,
    },
    {
      comment: 'an extra column before the required ones',
      text: `observed_age_s,${HEADER}\n5,60,2,20`,
      message:
        /^x\.csv line 1: header is 'observed_age_s,duration_s,rate_per_s,item_ms', expected 'duration_s,rate_per_s,item_ms' \(then optionally observed_age_s, observed_concurrency\)$/,
    },
    {
      comment: 'a column given twice',
      text: `${HEADER},observed_age_s,observed_age_s\n60,2,20,5,5`,
      message: /^x\.csv line 1: header column 'observed_age_s' is given twice$/,
    },
    {
      comment: 'a trailing comma in the header',
      text: `${HEADER},\n60,2,20,`,
      message: /header column '' is not known/,
    },
    {
      comment: 'a row short of the header',
      text: `${HEADER},observed_age_s,observed_concurrency\n60,2,20,5`,
      message:
        /^x\.csv line 2: '60,2,20,5' has 4 fields, expected 5 \(duration_s,rate_per_s,item_ms,observed_age_s,observed_concurrency\)$/,
    },
    {
      comment: 'a negative observed age',
      text: `${HEADER},observed_age_s\n60,2,20,-1`,
      message: /^x\.csv line 2: observed_age_s = '-1': must be a number in \[0; 1209600\] \(seconds/,
    },
    {
      comment: 'an exponent in an observed cell',
      text: `${HEADER},observed_concurrency\n60,2,20,1e3`,
      message: /observed_concurrency = '1e3': must be a number .* written as a plain decimal/,
    },
    {
      comment: 'an empty required cell',
      text: `${HEADER},observed_age_s\n60,,20,5`,
      message: /rate_per_s = ''/,
    },
  ])('refuses $comment, naming it', ({ text, message }) => {
    expect(() => parsePhases(text, 'x.csv')).toThrow(LoadFileError);
    expect(() => parsePhases(text, 'x.csv')).toThrow(message);
  });

  it('leaves the load the same: `load` plans the observed file as it plans the plain one', () => {
    const plain = parseScenarioText(`${HEADER}\n60,2,20\n30,4,10`, 'a.csv');
    const observed = parseScenarioText(
      `${HEADER},observed_age_s,observed_concurrency\n60,2,20,5,1\n30,4,10,,`,
      'b.csv',
    );
    const plan = (s: typeof plain) => {
      const { scenario: _, ...rest } = buildPlan({ name: 'x', ...s });
      return rest;
    };
    expect(plan(observed)).toEqual(plan(plain));
  });

  it('reads every shipped scenario unchanged: three columns, no observed values', () => {
    for (const name of shippedScenarios()) {
      const { phases } = loadScenario(name);
      expect(phases.length, name).toBeGreaterThan(0);
      for (const phase of phases)
        expect(Object.keys(phase).sort(), name).toEqual(['durationSeconds', 'itemMs', 'ratePerSecond']);
    }
  });
});
