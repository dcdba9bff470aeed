import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type LoadFile,
  LoadFileError,
  loadScenario,
  parsePhases,
  parseScenarioText,
  readLoadFile,
  SCENARIO_DIR,
  scaleScenario,
  shippedScenarios,
} from '../../lib/load-file/load-file.ts';
import { buildPlan } from '../../lib/operator/plan.ts';

const HEADER = 'duration_s,rate_per_s,item_ms';

describe('load files', () => {
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
      message:
        /line 2: rate_per_s = '-5': must be a number in \[0; 1000000\] \(messages per second\), written as a plain decimal/,
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
    expect(() => parsePhases(text, 'x.csv')).toThrow(LoadFileError);
  });

  it.each([
    { comment: 'hex', row: '0x3c,10,20', column: 'duration_s', given: '0x3c' },
    { comment: 'binary', row: '60,0b1010,20', column: 'rate_per_s', given: '0b1010' },
    { comment: 'an exponent', row: '60,10,1e-300', column: 'item_ms', given: '1e-300' },
    { comment: 'a large exponent', row: '6e1,10,20', column: 'duration_s', given: '6e1' },
    { comment: 'Infinity', row: '60,Infinity,20', column: 'rate_per_s', given: 'Infinity' },
    { comment: 'a tiny decimal duration', row: '0.0000001,10,20', column: 'duration_s', given: '0.0000001' },
  ])('takes plain decimals only: refuses $comment, showing the value as given', ({ row, column, given }) => {
    // Number() reads 0x3c as 60, 0b1010 as 10 and 1e-300 as a number: a trace's columns are plain decimals.
    expect(() => parsePhases(`${HEADER}\n${row}`, 'x.csv')).toThrow(
      new RegExp(
        `x.csv line 2: ${column} = '${given.replace(/\./g, '\\.')}': must be a number in .*, written as a plain decimal \\(no exponent, hex or binary\\)`,
      ),
    );
  });

  it('reads plain decimals, with or without a fraction', () => {
    expect(parsePhases(`${HEADER}\n60.5,.25,20.\n`, 'x.csv')).toEqual([
      { durationSeconds: 60.5, ratePerSecond: 0.25, itemMs: 20 },
    ]);
  });

  it('reads a @downstream line, anywhere outside the rows, and refuses a malformed one', () => {
    expect(
      parseScenarioText(`@downstream connection_pool=20\n${HEADER}\n60,1,20`, 'x.csv').downstream,
    ).toEqual({
      connectionPool: 20,
    });
    expect(
      parseScenarioText(`${HEADER}\n@downstream api_rate_per_s=2.5 calls_per_item=2\n60,1,20`, 'x.csv')
        .downstream,
    ).toEqual({ apiRatePerSecond: 2.5, callsPerItem: 2 });
    expect(parseScenarioText(`${HEADER}\n60,1,20`, 'x.csv').downstream).toBeUndefined();
    expect(() => parseScenarioText(`@downstream pool=20\n${HEADER}\n60,1,20`, 'x.csv')).toThrow(
      /x.csv line 1: 'pool=20' is not one of connection_pool=N, api_rate_per_s=N, calls_per_item=N/,
    );
    expect(() => parseScenarioText(`@downstream connection_pool=2.5\n${HEADER}\n60,1,20`, 'x.csv')).toThrow(
      /connection_pool = '2.5': must be an integer in \[1; 100000\] \(connections\), written as a plain decimal/,
    );
    expect(() => parseScenarioText(`@upstream x=1\n${HEADER}\n60,1,20`, 'x.csv')).toThrow(
      /unknown directive '@upstream'/,
    );
    // npm run load reads the same file: its phases, the directive left out.
    expect(parsePhases(`@downstream connection_pool=20\n${HEADER}\n60,1,20`, 'x.csv')).toHaveLength(1);
  });

  it('--rate-scale and --time-scale mean what npm run load makes of them', () => {
    const scenario: LoadFile = loadScenario('seed-spike');
    for (const [rate, time] of [
      [100, 1],
      [0.1, 0.2],
      [3, 7],
    ] as const) {
      const scaled = scaleScenario(scenario, rate, time);
      const plan = buildPlan(scenario, rate, time);
      expect(scaled.phases.map((p) => [p.durationSeconds, p.ratePerSecond, p.itemMs])).toEqual(
        plan.phases.map((p) => [p.durationSeconds, p.ratePerSecond, p.itemMs]),
      );
      expect(scaled.scale).toEqual({ rate, time });
    }
    expect(() => scaleScenario(scenario, 0, 1)).toThrow(/--rate-scale = 0: must be a number > 0/);
    expect(() => scaleScenario(scenario, 1, Number.NaN)).toThrow(/--time-scale = NaN: must be a number > 0/);
  });

  it('ships the scenarios docs/simulator.md names', () => {
    expect(shippedScenarios()).toEqual([
      'bursts',
      'cold-steady',
      'diurnal',
      'downstream-at-limit',
      'downstream-saturated',
      'downstream-slowdown',
      'downstream-slowing',
      'heavier-items',
      'hourly-fanout',
      'idle-then-burst',
      'overload',
      'sawtooth',
      'seed-spike',
      'steady',
      'trace-azure-llm-2023-11-16',
      'trace-nasa-http-1995-07-13',
    ]);
    expect(loadScenario('seed-spike').phases).toEqual([
      { durationSeconds: 600, ratePerSecond: 50, itemMs: 20 },
      { durationSeconds: 900, ratePerSecond: 800, itemMs: 20 },
      { durationSeconds: 1800, ratePerSecond: 50, itemMs: 20 },
    ]);
  });

  it('names an unknown scenario and the known ones', () => {
    expect(() => loadScenario('spike')).toThrow(
      /unknown scenario 'spike' \(known: bursts, cold-steady, diurnal/,
    );
  });

  it.each([
    { name: 'trace-nasa-http-1995-07-13', phases: 1440, requests: 134_203, licence: /freely redistributed/ },
    { name: 'trace-azure-llm-2023-11-16', phases: 58, requests: 19_338, licence: /CC-BY 4.0/ },
  ])(
    'ships the real trace $name per minute, with its source, licence and conversion on top',
    ({ name, phases, requests, licence }) => {
      const scenario = loadScenario(name);
      expect(scenario.phases).toHaveLength(phases);
      expect(scenario.phases.every((p) => p.durationSeconds === 60)).toBe(true);
      // Rates are requests per minute ÷ 60, rounded to 4 decimals: the minute's count comes back.
      const total = scenario.phases.reduce((n, p) => n + Math.round(p.ratePerSecond * 60), 0);
      expect(total).toBe(requests);
      const text = readFileSync(join(SCENARIO_DIR, `${name}.csv`), 'utf8');
      const header = text.slice(0, text.indexOf('duration_s'));
      expect(header).toMatch(/Source: [\s\S]*github\.com\//);
      expect(header).toMatch(licence);
      expect(header).toMatch(/Conversion: /);
    },
  );

  it('names a file it cannot read', () => {
    expect(() => readLoadFile('/nonexistent/load.csv')).toThrow(
      /cannot read load file \/nonexistent\/load.csv: ENOENT/,
    );
  });
});
