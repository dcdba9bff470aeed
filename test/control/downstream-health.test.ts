import { describe, expect, it } from 'vitest';
import {
  downstreamHealthFromEnvironment,
  downstreamHealthProblems,
  type HealthReading,
  type HealthSeries,
  healthReading,
} from '../../lib/control/downstream-health.ts';
import { fastPathContext } from '../../lib/control/fast-path.ts';
import { observe } from '../../lib/control/observe.ts';
import { decide } from '../../lib/control/policy.ts';
import { config, DB_LOAD_HEALTH, NOW, snapshot, state } from './fixtures.ts';

/** A reading of the health signal: the newest one-minute datapoint, ended `lag` seconds ago. */
function health(value: number, unhealthy: boolean, lag = 60): HealthReading {
  return { value, observedAt: NOW - lag, periodSeconds: 60, unhealthy };
}

/**
 * 800/s at 20 ms on 10 applied with the age 300 s over a 60 s target: healthy, the law grows (need 18 + drain).
 * The same queue with the downstream's signal past its threshold must not grow.
 */
const behind = (extra = {}) => snapshot({ appliedConcurrency: 10, age: 300, ...extra });

describe('hold:downstream-saturated — the health signal past its threshold: no growth, shed while behind', () => {
  it('behind with the signal healthy, the same queue grows', () => {
    const decision = decide(behind({ downstreamHealth: health(3, false) }), state(), config());
    expect(decision.reason).toBe('grow:age-above-target');
    expect(decision.desired).toBeGreaterThan(10);
    expect(decision).toMatchObject({ saturated: false, downstreamUnhealthy: false });
  });

  it('behind with the signal past its threshold: hold, saturated (the shed signal), the value in the inputs', () => {
    const decision = decide(behind({ downstreamHealth: health(14, true) }), state(), config());
    expect(decision).toMatchObject({
      reason: 'hold:downstream-saturated',
      desired: 10,
      atCap: false,
      saturated: true,
      downstreamUnhealthy: true,
    });
    expect(decision.inputs.downstreamHealth).toBe(14);
  });

  it('between the setpoint and the target: hold, but no shed signal (the age is within target)', () => {
    const decision = decide(behind({ age: 45, downstreamHealth: health(14, true) }), state(), config());
    expect(decision).toMatchObject({ reason: 'hold:downstream-saturated', desired: 10, saturated: false });
  });

  it.each([
    { comment: 'no datapoint: no evidence, the law grows as without a signal', reading: undefined },
    { comment: 'a datapoint older than maxDataAge (300 s): no evidence', reading: health(14, true, 400) },
  ])('$comment', ({ reading }) => {
    const decision = decide(behind({ downstreamHealth: reading }), state(), config());
    expect(decision.reason).toBe('grow:age-above-target');
  });

  it('not behind: the shrink rules still run (only growth is blocked)', () => {
    const idle = snapshot({ appliedConcurrency: 30, age: 1, downstreamHealth: health(14, true) });
    const decision = decide(idle, state({ idleSince: NOW - 600 }), config());
    expect(decision.reason).toBe('shrink:sustained-idle');
    expect(decision.desired).toBeLessThan(30);
  });

  it('without an age datapoint, a backlog the depth shows does not grow either (6,000 → 12,000 on 2)', () => {
    const noAge = {
      appliedConcurrency: 2,
      oldestAge: undefined,
      arrivalRatePerSecond: undefined,
      completionRatePerSecond: undefined,
      itemSeconds: undefined,
      visibleMessages: 12_000,
    };
    const earlier = state({ lastVisible: { at: NOW - 60, messages: 6_000 } });
    // The tick's own growth before data, without the samples between ticks (with them, the depth is theirs).
    const alone = config({ fastSampleSeconds: 0 });
    expect(decide(snapshot(noAge), earlier, alone).reason).toBe('grow:backlog-before-data');
    const unhealthy = decide(snapshot({ ...noAge, downstreamHealth: health(14, true) }), earlier, alone);
    expect(unhealthy).toMatchObject({ reason: 'hold:no-data', desired: 2, downstreamUnhealthy: true });
  });

  it('heavier items with the signal past its threshold: the signal holds (heavier items alone would grow)', () => {
    const heavier = {
      appliedConcurrency: 7,
      age: 300,
      arrivalRatePerSecond: 300,
      itemSeconds: 0.06,
    };
    const carried = state({ baselineArrivalRate: 300 });
    expect(decide(snapshot(heavier), carried, config()).reason).toBe('grow:age-above-target');
    const unhealthy = decide(snapshot({ ...heavier, downstreamHealth: health(14, true) }), carried, config());
    expect(unhealthy).toMatchObject({ reason: 'hold:downstream-saturated', desired: 7 });
  });

  it('the fast path is frozen after a tick that saw the signal past its threshold, even when not behind', () => {
    const quiet = snapshot({ appliedConcurrency: 10, age: 1, downstreamHealth: health(14, true) });
    const decision = decide(quiet, state(), config());
    expect(decision.reason).toBe('hold:steady');
    expect(fastPathContext(quiet, decision, 10, config()).frozen).toBe('downstream-unhealthy');
    const healthy = snapshot({ appliedConcurrency: 10, age: 1, downstreamHealth: health(3, false) });
    expect(fastPathContext(healthy, decide(healthy, state(), config()), 10, config()).frozen).toBeUndefined();
  });
});

describe('the health reading: the newest complete datapoint, judged', () => {
  const series = (points: [number, number][], extra: Partial<HealthSeries> = {}): HealthSeries => ({
    threshold: 8,
    unhealthyWhen: 'above',
    periodSeconds: 60,
    points: points.map(([timestamp, value]) => ({ timestamp, value })),
    ...extra,
  });

  it.each([
    { comment: 'above 8 is unhealthy', s: series([[NOW - 120, 9]]), unhealthy: true },
    { comment: 'at the threshold is not past it', s: series([[NOW - 120, 8]]), unhealthy: false },
    {
      comment: "'below': under the threshold is unhealthy",
      s: series([[NOW - 120, 5]], { unhealthyWhen: 'below' }),
      unhealthy: true,
    },
    {
      comment: 'the newest by timestamp, never by position',
      s: series([
        [NOW - 120, 3],
        [NOW - 240, 20],
      ]),
      unhealthy: false,
    },
  ])('$comment', ({ s, unhealthy }) => {
    expect(healthReading(s, NOW)?.unhealthy).toBe(unhealthy);
  });

  it('a period that has not ended is left out; none at all is no reading', () => {
    expect(healthReading(series([[NOW - 30, 99]]), NOW)).toBeUndefined();
    expect(healthReading(series([]), NOW)).toBeUndefined();
    expect(healthReading(undefined, NOW)).toBeUndefined();
  });

  it('observe puts the reading into the snapshot', () => {
    const snap = observe({
      now: NOW,
      periodSeconds: 60,
      appliedConcurrency: 4,
      series: {
        ageOfOldestMessage: [],
        messagesSent: [],
        messagesDeleted: [],
        consumerDurationMs: [],
        downstreamHealth: series([[NOW - 120, 12]]),
      },
    });
    expect(snap.downstreamHealth).toEqual({
      value: 12,
      observedAt: NOW - 60,
      periodSeconds: 60,
      unhealthy: true,
    });
  });
});

describe('the health spec: one validator, every problem at once', () => {
  const good = DB_LOAD_HEALTH;

  it('a good spec has no problem; unhealthyWhen defaults to above', () => {
    expect(downstreamHealthProblems(good, 'downstreamHealth')).toEqual([]);
    const { unhealthyWhen: _, ...rest } = good;
    const problems: string[] = [];
    const spec = downstreamHealthFromEnvironment({ DOWNSTREAM_HEALTH: JSON.stringify(rest) }, problems);
    expect(problems).toEqual([]);
    expect(spec?.unhealthyWhen).toBe('above');
  });

  it('names each bad field, its value and what it must be', () => {
    const problems = downstreamHealthProblems(
      { ...good, statistic: 'Mean', periodSeconds: 90, threshold: Number.NaN, unhealthyWhen: 'over' },
      'downstreamHealth',
    );
    expect(problems).toEqual([
      expect.stringMatching(/^downstreamHealth\.statistic = "Mean": must be one of SampleCount/),
      expect.stringMatching(/^downstreamHealth\.periodSeconds = 90: must be whole minutes in \[60; 3600\]/),
      expect.stringMatching(/^downstreamHealth\.threshold = null: must be a finite number/),
      expect.stringMatching(/^downstreamHealth\.unhealthyWhen = "over": must be one of 'above', 'below'/),
    ]);
  });

  it('the environment: unparsable JSON and unknown fields are named', () => {
    const problems: string[] = [];
    expect(downstreamHealthFromEnvironment({ DOWNSTREAM_HEALTH: '{' }, problems)).toBeUndefined();
    downstreamHealthFromEnvironment(
      { DOWNSTREAM_HEALTH: JSON.stringify({ ...good, unit: 'Count' }) },
      problems,
    );
    expect(problems).toEqual([
      expect.stringMatching(/^DOWNSTREAM_HEALTH: must be a JSON object .* \(it does not parse\)/),
      'DOWNSTREAM_HEALTH.unit: unknown field',
    ]);
    expect(downstreamHealthFromEnvironment({}, problems)).toBeUndefined();
  });
});
