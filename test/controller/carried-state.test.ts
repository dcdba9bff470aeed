import { describe, expect, it } from 'vitest';
import {
  baselinesFrom,
  deriveState,
  idleSinceFrom,
  lastChangeFrom,
  lastQuietFrom,
  lastVisibleFrom,
  type StateEvidence,
} from '../../functions/controller/carried-state.ts';
import type { ControllerHistory } from '../../lib/aws/metric-queries.ts';
import { type Datapoint, resolveScalerConfig } from '../../lib/control/index.ts';

/** The carried state, rebuilt from plain CloudWatch-shaped history: the pure half of the design. */
const NOW = 10_000; // 10,000 s: 40 s into the minute that started at 9,960
const NEWEST = 9_900; // the newest complete minute: [9,900; 9,960)
const config = resolveScalerConfig({ targetAgeSeconds: 60, maxConcurrency: 20, idleAgeFraction: 0.25 });

/** `values[0]` at the newest complete minute, `values[1]` a minute before …; undefined leaves a gap. */
const series = (values: readonly (number | undefined)[], newest = NEWEST): Datapoint[] =>
  values.flatMap((value, i) => (value === undefined ? [] : [{ timestamp: newest - 60 * i, value }]));

type HistoryInput = Partial<Omit<ControllerHistory, 'series'>> & {
  series?: Partial<ControllerHistory['series']>;
};

function evidence(history: HistoryInput, more: Partial<StateEvidence> = {}): StateEvidence {
  return {
    now: NOW,
    periodSeconds: 60,
    applied: 5,
    ...more,
    history: {
      appliedMin: [],
      appliedMax: [],
      scaleEvents: [],
      ...history,
      series: {
        ageOfOldestMessage: [],
        messagesSent: [],
        messagesDeleted: [],
        consumerDurationMs: [],
        ...history.series,
      },
    },
  };
}

describe('idleSince: the observed run of idle minutes', () => {
  it.each([
    {
      comment: 'six idle minutes: idle for the 360 s the data covers',
      ages: [0, 0, 10, 15, 0, 0, 200],
      idleFor: 360,
    },
    { comment: 'the newest minute busy: not idle', ages: [40, 0, 0], idleFor: undefined },
    {
      comment: 'a missing minute breaks the run (missing is unknown)',
      ages: [0, 0, undefined, 0, 0],
      idleFor: 120,
    },
    { comment: 'no data: not idle', ages: [], idleFor: undefined },
    { comment: '15 s is the threshold (0.25 × 60): idle', ages: [15], idleFor: 60 },
    { comment: '16 s: not idle', ages: [16], idleFor: undefined },
  ])('$comment', ({ ages, idleFor }) => {
    const since = idleSinceFrom(evidence({ series: { ageOfOldestMessage: series(ages) } }), config);
    expect(since === undefined ? undefined : NOW - since).toBe(idleFor);
  });

  it('the unfinished current minute does not count', () => {
    const e = evidence({ series: { ageOfOldestMessage: series([0, 0, 0], NEWEST + 60) } });
    expect(NOW - (idleSinceFrom(e, config) ?? NOW)).toBe(120);
  });

  it('a PartialData age series: not idle', () => {
    const e = evidence({
      series: { ageOfOldestMessage: series([0, 0, 0]), partial: ['ageOfOldestMessage'] },
    });
    expect(idleSinceFrom(e, config)).toBeUndefined();
  });
});

describe('lastChangeAt', () => {
  const held = { appliedMin: series([5, 5]), appliedMax: series([5, 5]) };
  it.each([
    { comment: 'held at 5, no scale event: no change known', history: held, more: {}, expected: undefined },
    {
      comment: 'a scale event two minutes ago: the start of its minute',
      history: { ...held, scaleEvents: series([0, 0, 1]) },
      more: {},
      expected: NEWEST - 120,
    },
    {
      comment: 'the mapping modified later than the scale event: the start of the mapping change’s minute',
      history: { ...held, scaleEvents: series([0, 0, 1]) },
      more: { mappingModifiedAt: NEWEST - 30 },
      expected: NEWEST - 60,
    },
    {
      comment:
        'a write a second into the tick counts from the tick’s period, so the next tick is a full period later',
      history: held,
      more: { mappingModifiedAt: NEWEST + 1 },
      expected: NEWEST,
    },
    {
      comment: 'applied 4 but CloudWatch last saw 5: a change it has not shown yet, so now',
      history: held,
      more: { applied: 4 },
      expected: NOW,
    },
    {
      comment: 'no AppliedConcurrency history at all: spacing unprovable, so now',
      history: {},
      more: {},
      expected: NOW,
    },
    {
      comment: 'the newest minute saw 6 and 5 (a change within it): 5 is known',
      history: { appliedMin: series([5, 6]), appliedMax: series([6, 6]), scaleEvents: series([1]) },
      more: {},
      expected: NEWEST,
    },
  ])('$comment', ({ history, more, expected }) => {
    expect(lastChangeFrom(evidence(history, more))).toBe(expected);
  });
});

describe('baselines: medians over the minutes before the newest', () => {
  const minutes = (items: number[]) => ({
    series: {
      consumerDurationMs: series(items.map((s) => s * 1000 * 6)),
      messagesDeleted: series(items.map(() => 6)),
      messagesSent: series(items.map(() => 6)),
    },
  });
  it('a slowdown in the newest two minutes does not move the baseline', () => {
    const b = baselinesFrom(evidence(minutes([3, 3, 1, 1, 1, 1, 1.2])));
    expect(b.baselineItemSeconds).toBe(1);
    expect(b.baselineArrivalRate).toBeCloseTo(0.1);
  });
  it('fewer than three earlier minutes: no baseline', () => {
    expect(baselinesFrom(evidence(minutes([1, 1, 1])))).toEqual({});
  });
  it('minutes with nothing deleted carry no per-item time', () => {
    const e = evidence({
      series: { consumerDurationMs: series([6000, 6000, 6000, 6000]), messagesDeleted: series([6, 0, 0, 6]) },
    });
    expect(baselinesFrom(e)).toEqual({});
  });
});

describe('lastVisible: the depth the tick before sampled, at the time it sampled it (remembered)', () => {
  const remembered = (at: number, messages: number) => ({
    at: at - 35,
    lastVisible: { at, messages },
    applied: 5,
  });
  it('a tick 25 s into its minute: the sample keeps its own time', () => {
    // Stamped with the period's start, the next tick (60 s later) would divide the depth change by 85 s, not 60 s.
    expect(lastVisibleFrom(evidence({}, { remembered: remembered(NEWEST + 25, 40) }))).toEqual({
      at: NEWEST + 25,
      messages: 40,
    });
  });
  it('keeps the sample’s messages in flight: the next tick judges whether the executions lagged (issue 28)', () => {
    const e = evidence(
      {},
      { remembered: { at: NEWEST - 10, lastVisible: { at: NEWEST, messages: 40, inFlight: 20 } } },
    );
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST, messages: 40, inFlight: 20 });
  });
  it('a cold start remembers nothing: no sample, whatever the history holds', () => {
    expect(lastVisibleFrom(evidence({ appliedMin: series([5]), appliedMax: series([5]) }))).toBeUndefined();
  });
  it('a change after the sample (the mapping modified) marks it unsettled: only its lower bound on arrivals counts', () => {
    expect(
      lastVisibleFrom(evidence({}, { remembered: remembered(NEWEST, 40), mappingModifiedAt: NEWEST + 30 })),
    ).toEqual({ at: NEWEST, messages: 40, settled: false });
  });
  it('a change more than the pollers’ settling time before the sample leaves it settled', () => {
    expect(
      lastVisibleFrom(evidence({}, { remembered: remembered(NEWEST, 40), mappingModifiedAt: NEWEST - 61 })),
    ).toEqual({ at: NEWEST, messages: 40 });
  });
  it('a remembered change in the period of the sample (a sample’s growth in this container) marks it unsettled', () => {
    const e = evidence({}, { remembered: { ...remembered(NEWEST + 5, 40), lastChangeAt: NEWEST + 30 } });
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST + 5, messages: 40, settled: false });
  });
  // The tick that took the sample lowered a settled value (lib/control/depth-sample.ts): its own write binds at once.
  const lowered = (more: { lastChangeAt?: number; applied?: number; wroteOnSettled?: boolean } = {}) => ({
    at: NEWEST,
    lastVisible: { at: NEWEST, messages: 40, settled: true },
    lastChangeAt: NEWEST,
    applied: 5,
    wroteOnSettled: true,
    ...more,
  });
  it('a lowering by the sample’s own tick, nothing since: the sample stays settled, its own write notwithstanding', () => {
    const e = evidence({}, { remembered: lowered(), mappingModifiedAt: NEWEST + 1 });
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST, messages: 40, settled: true });
  });
  it('a change after that lowering (a sample’s growth here): unsettled', () => {
    const e = evidence(
      {},
      { remembered: lowered({ lastChangeAt: NEWEST + 30 }), mappingModifiedAt: NEWEST + 30 },
    );
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST, messages: 40, settled: false });
  });
  it('a lowering this container did not know to follow settled pollers (a growth 25 s before it): unsettled', () => {
    // The carried lastChangeAt counts that growth from its minute's start, so the law took the pollers as settled.
    const e = evidence({}, { remembered: lowered({ wroteOnSettled: false }), mappingModifiedAt: NEWEST + 1 });
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST, messages: 40, settled: false });
  });
  it('a value the lowering did not leave (a hand edit, another container): unsettled', () => {
    const e = evidence({}, { remembered: lowered({ applied: 6 }), mappingModifiedAt: NEWEST + 1 });
    expect(lastVisibleFrom(e)).toEqual({ at: NEWEST, messages: 40, settled: false });
  });
});

describe('the last change, warm: the tick before as this container remembers it', () => {
  it('the applied value the memory left, no newer proof: the remembered change', () => {
    const e = evidence({}, { remembered: { at: NOW - 60, lastChangeAt: NOW - 300, applied: 5 } });
    expect(lastChangeFrom(e)).toBe(Math.floor((NOW - 300) / 60) * 60);
  });
  it('a value the memory did not leave (a hand edit, or a write by another container): a change now', () => {
    const e = evidence({}, { remembered: { at: NOW - 60, lastChangeAt: NOW - 300, applied: 4 } });
    expect(lastChangeFrom(e)).toBe(NOW);
  });
  it('the mapping modified after the remembered change: the mapping’s period', () => {
    const e = evidence(
      {},
      { remembered: { at: NOW - 60, lastChangeAt: NOW - 300, applied: 5 }, mappingModifiedAt: NOW - 100 },
    );
    expect(lastChangeFrom(e)).toBe(Math.floor((NOW - 100) / 60) * 60);
  });
});

describe('lastQuiet: the last sample between ticks with no backlog, as this container’s loop took it', () => {
  // The tick before ran at NEWEST + 20 and sampled its loop; one sample 30 s later found 5 waiting.
  const quiet = { at: NEWEST + 50, messages: 5, inFlight: 50 };
  const remembered = (more: { lastChangeAt?: number; applied?: number } = {}) => ({
    at: NEWEST + 20,
    lastVisible: { at: NEWEST + 20, messages: 3 },
    lastQuiet: quiet,
    applied: 5,
    lastChangeAt: NEWEST - 600,
    ...more,
  });
  it('nothing changed within the settling time before it or since: the next tick reads a rise from it', () => {
    expect(
      lastQuietFrom(evidence({}, { remembered: remembered(), mappingModifiedAt: NEWEST - 600 })),
    ).toEqual(quiet);
  });
  it('this container’s own growth 40 s before it: none (the added workers were not all running)', () => {
    expect(
      lastQuietFrom(evidence({}, { remembered: remembered({ lastChangeAt: NEWEST + 10 }) })),
    ).toBeUndefined();
  });
  it('the mapping modified after it (a hand edit, another writer): none', () => {
    expect(
      lastQuietFrom(evidence({}, { remembered: remembered(), mappingModifiedAt: NEWEST + 55 })),
    ).toBeUndefined();
  });
  it('a value other than the one this container left: none', () => {
    expect(lastQuietFrom(evidence({}, { remembered: remembered({ applied: 4 }) }))).toBeUndefined();
  });
  it('a cold start remembers none', () => {
    expect(lastQuietFrom(evidence({}))).toBeUndefined();
  });
});

describe('the value the tick before left (lib/control/saturation.ts: its probe judges the samples’ growth since)', () => {
  const left = { value: 4, at: NEWEST + 40 };
  it('remembered by this container with the saturation evidence, whatever the samples grew to since', () => {
    const remembered = { at: NEWEST + 40, applied: 9, saturation: { tickLeft: left } };
    expect(deriveState(evidence({}, { applied: 9, remembered }), config).tickLeft).toEqual(left);
  });
  it('a cold start knows none: the probe runs from where its own growth starts', () => {
    expect(deriveState(evidence({}), config).tickLeft).toBeUndefined();
  });
});
