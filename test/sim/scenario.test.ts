import { describe, expect, it } from 'vitest';
import {
  loadPhaseFile,
  loadScenario,
  parsePhases,
  ScenarioError,
  shippedScenarios,
} from '../../lib/sim/scenario.ts';

describe('phase files', () => {
  it('parses rows, skipping comments and blank lines', () => {
    expect(parsePhases('duration_s,rate_per_s,item_ms\n# c\n\n60,10,20\n30, 0 ,5\n', 'x.csv')).toEqual([
      { durationSeconds: 60, ratePerSecond: 10, itemMs: 20 },
      { durationSeconds: 30, ratePerSecond: 0, itemMs: 5 },
    ]);
  });

  it.each([
    { comment: 'empty file', text: '', message: /x.csv: empty/ },
    {
      comment: 'wrong header',
      text: 'seconds,rate,item\n1,2,3',
      message: /x.csv line 1: header is 'seconds,rate,item', expected 'duration_s,rate_per_s,item_ms'/,
    },
    { comment: 'no phases', text: 'duration_s,rate_per_s,item_ms\n', message: /no phases/ },
    {
      comment: 'a missing field',
      text: 'duration_s,rate_per_s,item_ms\n60,10',
      message: /line 2: '60,10' has 2 fields, expected 3/,
    },
    {
      comment: 'a negative rate',
      text: 'duration_s,rate_per_s,item_ms\n60,-5,20',
      message: /line 2: rate_per_s = '-5': must be a plain decimal number in \[0;/,
    },
    {
      comment: 'a zero duration',
      text: 'duration_s,rate_per_s,item_ms\n0,5,20',
      message: /duration_s = '0'/,
    },
    {
      comment: 'text for a number',
      text: 'duration_s,rate_per_s,item_ms\n60,fast,20',
      message: /rate_per_s = 'fast'/,
    },
  ])('rejects $comment', ({ text, message }) => {
    expect(() => parsePhases(text, 'x.csv')).toThrow(message);
    expect(() => parsePhases(text, 'x.csv')).toThrow(ScenarioError);
  });

  it('ships the scenarios the README names', () => {
    expect(shippedScenarios()).toEqual([
      'bursts',
      'diurnal',
      'downstream-slowdown',
      'overload',
      'seed-spike',
      'steady',
    ]);
    expect(loadScenario('seed-spike').phases).toEqual([
      { durationSeconds: 600, ratePerSecond: 50, itemMs: 20 },
      { durationSeconds: 900, ratePerSecond: 800, itemMs: 20 },
      { durationSeconds: 1800, ratePerSecond: 50, itemMs: 20 },
    ]);
  });

  it('names an unknown scenario and the known ones', () => {
    expect(() => loadScenario('spike')).toThrow(/unknown scenario 'spike' \(known: bursts, diurnal/);
  });

  it('names a file it cannot read', () => {
    expect(() => loadPhaseFile('/nonexistent/load.csv')).toThrow(
      /cannot read phase file \/nonexistent\/load.csv: ENOENT/,
    );
  });
});
