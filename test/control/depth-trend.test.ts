import { describe, expect, it } from 'vitest';
import {
  backlogLeftBehind,
  depthFalling,
  depthTrend,
  executionsLagged,
  itemSecondsShown,
  roseWithAppliedHeld,
  slowStartProof,
  workersProvenBusy,
} from '../../lib/control/depth-trend.ts';
import { fittedService } from '../../lib/control/service-fit.ts';

describe('slow start’s proof: the depth rose with every allowed worker busy', () => {
  it.each([
    {
      comment: 'rose 0 → 6,700, 20 in flight for 2',
      previous: 0,
      messages: 6_700,
      inFlight: 20,
      applied: 2,
      proof: true,
    },
    {
      comment: 'half a batch each is enough (10 for 2)',
      previous: 0,
      messages: 6_700,
      inFlight: 10,
      applied: 2,
      proof: true,
    },
    {
      comment: 'fewer in flight: the pollers have not reached it',
      previous: 0,
      messages: 6_700,
      inFlight: 9,
      applied: 2,
      proof: false,
    },
    {
      comment: 'a rise within the counts’ noise',
      previous: 100,
      messages: 110,
      inFlight: 20,
      applied: 2,
      proof: false,
    },
    {
      comment: 'no backlog (under a batch per worker)',
      previous: 0,
      messages: 19,
      inFlight: 20,
      applied: 2,
      proof: false,
    },
    {
      comment: 'in flight unknown',
      previous: 0,
      messages: 6_700,
      inFlight: undefined,
      applied: 2,
      proof: false,
    },
  ])('$comment → $proof', ({ previous, messages, inFlight, applied, proof }) => {
    expect(slowStartProof({ at: 0, messages: previous }, { at: 10, messages, inFlight }, applied)).toBe(
      proof,
    );
  });

  it('no previous sample, or none earlier: no proof', () => {
    expect(slowStartProof(undefined, { at: 10, messages: 6_700, inFlight: 20 }, 2)).toBe(false);
    expect(slowStartProof({ at: 10, messages: 0 }, { at: 10, messages: 6_700, inFlight: 20 }, 2)).toBe(false);
  });

  it('falling: beyond the noise only', () => {
    expect(depthFalling({ at: 0, messages: 16_000 }, 14_000)).toBe(true);
    expect(depthFalling({ at: 0, messages: 16_000 }, 15_995)).toBe(false);
    expect(depthFalling(undefined, 0)).toBe(false);
  });
});

describe('a burst ended: the depth rose at an applied value held, then fell', () => {
  it.each([
    {
      comment: 'rose 28,625 → 55,323 at 4 held since the previous sample',
      changedAt: 0,
      inFlight: 20,
      rose: true,
    },
    {
      comment: 'the value changed inside the interval: the rise was not at it',
      changedAt: 5,
      inFlight: 20,
      rose: false,
    },
    {
      comment: 'fewer than half a batch each in flight: the pollers had not reached it',
      changedAt: 0,
      inFlight: 19,
      rose: false,
    },
  ])('$comment', ({ changedAt, inFlight, rose }) => {
    expect(
      roseWithAppliedHeld(
        { at: 0, messages: 28_625, inFlight },
        { at: 10, messages: 55_323, inFlight: 10 },
        4,
        changedAt,
      ),
    ).toBe(rose);
  });

  it.each([
    {
      comment:
        'a fan-out left 52,133 behind, falling 319/s at 4 applied: 163 s to drain, up to 4 × 48,942 ÷ (319 × 30)',
      previous: 52_133,
      messages: 48_942,
      need: 21,
    },
    {
      comment: 'falling fast enough for the target: 9,000 → 3,000 in 10 s',
      previous: 9_000,
      messages: 3_000,
      need: undefined,
    },
    { comment: 'rising: slow start proper, not this', previous: 3_000, messages: 9_000, need: undefined },
    { comment: 'falling within the noise', previous: 48_950, messages: 48_942, need: undefined },
    { comment: 'no backlog: a batch each or less waits', previous: 60, messages: 30, need: undefined },
  ])('left behind: $comment', ({ previous, messages, need }) => {
    expect(
      backlogLeftBehind({ at: 0, messages: previous }, { at: 10, messages }, 4, { target: 60, setpoint: 30 }),
    ).toBe(need);
  });
});

describe("slow start's last step: a per-worker service fitted from two rises", () => {
  it('+33.3/s at 8 and +6.7/s at 16: 300 ms items (3.33/s a worker), 60/s arriving', () => {
    const fit = fittedService({ applied: 8, perSecond: 33.3 }, { applied: 16, perSecond: 6.7 });
    expect(fit?.perWorker).toBeCloseTo(3.325, 6);
    expect(fit?.arrivals).toBeCloseTo(59.9, 6);
  });

  it.each([
    { comment: 'no earlier rise', before: undefined, now: { applied: 16, perSecond: 6.7 } },
    {
      comment: 'more workers, a larger rise: arrivals grew',
      before: { applied: 8, perSecond: 6.7 },
      now: { applied: 16, perSecond: 33.3 },
    },
    {
      comment: 'a fall now: not a rise to fit',
      before: { applied: 8, perSecond: 33.3 },
      now: { applied: 16, perSecond: -5 },
    },
    {
      comment: 'the same applied value',
      before: { applied: 16, perSecond: 33.3 },
      now: { applied: 16, perSecond: 6.7 },
    },
  ])('nothing fitted: $comment', ({ before, now }) => {
    expect(fittedService(before, now)).toBeUndefined();
  });
});

describe('the trend’s arrival estimate counts the workers that ran, not the applied value (issue 28)', () => {
  // 14 applied held for an hour, 20 ms items, the depth rising 400/s over a minute with a backlog at both ends.
  const input = (inFlight: { before?: number; now?: number }) =>
    depthTrend({
      previous: { at: 0, messages: 10_000, inFlight: inFlight.before },
      now: 60,
      visible: 34_000,
      applied: 14,
      inFlight: inFlight.now,
      itemSeconds: 0.02,
      lastChangeAt: -3_600,
      maxElapsedSeconds: 120,
    });

  it.each([
    {
      comment: 'all 14 busy at both ends (140 in flight): 400 + 14 ÷ 0.02',
      before: 140,
      now: 140,
      estimate: 1_100,
    },
    {
      comment: '4 running at one end (40 in flight: the pollers behind the limit): 400 + 4 ÷ 0.02',
      before: 40,
      now: 140,
      estimate: 600,
    },
    {
      comment: 'in flight unknown: the applied value, as before',
      before: undefined,
      now: 140,
      estimate: 1_100,
    },
  ])('$comment → $estimate/s', ({ before, now, estimate }) => {
    expect(input({ before, now })?.arrivalsEstimate).toBeCloseTo(estimate);
  });

  // The same minute where the applied value changed 30 s into it (a sample grew 14 → 20 the pollers had not followed).
  const changed = (inFlight: { before?: number; now?: number }, previousMessages = 10_000) =>
    depthTrend({
      previous: { at: 0, messages: previousMessages, inFlight: inFlight.before },
      now: 60,
      visible: 34_000,
      applied: 20,
      inFlight: inFlight.now,
      itemSeconds: 0.02,
      lastChangeAt: 30,
      maxElapsedSeconds: 120,
    });

  it('a change within the minute: the fewest its messages in flight show at either end count (140 and 200: 14, so 400 + 14 ÷ 0.02)', () => {
    expect(changed({ before: 140, now: 200 })?.arrivalsEstimate).toBeCloseTo(1_100);
  });

  it('a change within the minute with in flight unread at either end, or no backlog at its start: no estimate, only the rise', () => {
    expect(changed({ before: undefined, now: 140 })?.arrivalsEstimate).toBeUndefined();
    expect(changed({ before: 140, now: undefined })?.arrivalsEstimate).toBeUndefined();
    const fromQuiet = changed({ before: 140, now: 140 }, 100);
    expect(fromQuiet?.arrivalsEstimate).toBeUndefined();
    expect(fromQuiet?.arrivalsAtLeast).toBeCloseTo((34_000 - 100 - 10) / 60);
  });
});

describe('executionsLagged: a backlog waits and fewer run than the applied value', () => {
  it.each([
    { comment: '5 running of 16, 5,900 waiting', messages: 5_900, inFlight: 50, lagged: true },
    { comment: 'all 16 busy (half a batch each is busy)', messages: 5_900, inFlight: 80, lagged: false },
    { comment: 'no backlog: few in flight is only a light load', messages: 100, inFlight: 10, lagged: false },
    { comment: 'in flight unknown', messages: 5_900, inFlight: undefined, lagged: false },
  ])('$comment → $lagged', ({ messages, inFlight, lagged }) => {
    expect(executionsLagged({ at: 0, messages, inFlight }, 16)).toBe(lagged);
  });

  it('judges busy on the mapping’s BatchSize: 16 in flight is all 16 busy at BatchSize 1', () => {
    expect(executionsLagged({ at: 0, messages: 5_900, inFlight: 16 }, 16, 1)).toBe(false);
    expect(executionsLagged({ at: 0, messages: 5_900, inFlight: 16 }, 16)).toBe(true);
  });
});

describe('itemSecondsShown: the per-item time the depth shows before CloudWatch does (issue 29)', () => {
  // heavier-items: 5 applied for an hour at 400/s, items 10 → 30 ms; the depth rose 277 → 15,070 in 60 s.
  const shown = (
    overrides: {
      reported?: number;
      visible?: number;
      inFlight?: number;
      lastChangeAt?: number;
      settled?: boolean;
      previousMessages?: number;
    } = {},
  ) =>
    itemSecondsShown(
      {
        previous: {
          at: 0,
          messages: overrides.previousMessages ?? 277,
          inFlight: 50,
          ...(overrides.settled === undefined ? {} : { settled: overrides.settled }),
        },
        now: 60,
        visible: overrides.visible ?? 15_070,
        applied: 5,
        inFlight: overrides.inFlight ?? 50,
        itemSeconds: 0.01,
        lastChangeAt: overrides.lastChangeAt ?? -3_600,
        maxElapsedSeconds: 120,
      },
      overrides.reported ?? 400,
    );

  it('5 workers served 400 − 246.6 = 153/s: 33 ms an item, where CloudWatch still reports 10', () => {
    const result = shown();
    expect(result?.servedPerSecond).toBeCloseTo(400 - (15_070 - 277) / 60);
    expect(result?.itemSeconds).toBeCloseTo(5 / (400 - (15_070 - 277) / 60));
  });

  it('a backlog at both ends: the 5 applied served, though 30 in flight at the end show 3 batches', () => {
    // Workers between two batches hold nothing in flight; with a backlog throughout every applied one was busy.
    expect(shown({ inFlight: 30 })?.itemSeconds).toBeCloseTo(5 / (400 - (15_070 - 277) / 60));
  });

  it('from a start with no backlog, the workers running at the end (30 in flight: 3), not the applied value', () => {
    expect(shown({ inFlight: 30, previousMessages: 40 })?.itemSeconds).toBeCloseTo(
      3 / (400 - (15_070 - 40) / 60),
    );
  });

  it('nothing in flight read: nothing is read, whatever waited at the start', () => {
    expect(shown({ inFlight: Number.NaN })).toBeUndefined();
  });

  it.each([
    {
      comment: 'a rise of the reported rate or more: the arrivals rose, nothing said of the items',
      reported: 240,
    },
    { comment: 'no reported rate', reported: Number.NaN },
  ])('undefined: $comment', ({ reported }) => {
    expect(shown({ reported })).toBeUndefined();
  });

  it('undefined where the depth did not rise beyond its noise, or ended below a backlog', () => {
    expect(shown({ visible: 280 })).toBeUndefined();
    expect(shown({ visible: 40 })).toBeUndefined();
  });

  it('undefined where the applied value changed within the interval (its new workers did not serve all of it)', () => {
    expect(shown({ lastChangeAt: 30 })).toBeUndefined();
  });

  it('a lowering at the interval’s start binds at once: read at once, unlike any other change that recent', () => {
    expect(shown({ lastChangeAt: 0 })).toBeUndefined();
    expect(shown({ lastChangeAt: 0, settled: true })?.itemSeconds).toBeCloseTo(
      5 / (400 - (15_070 - 277) / 60),
    );
    // A change after that lowering: its workers did not serve all of the interval.
    expect(shown({ lastChangeAt: 30, settled: true })).toBeUndefined();
  });
});

describe('executionsLagged: nothing in flight is no ramp', () => {
  it('a backlog with none in flight says nothing of the pollers; with 50 for 27 applied they lag', () => {
    expect(executionsLagged({ at: 0, messages: 20_000, inFlight: 0 }, 27, 10)).toBe(false);
    expect(executionsLagged({ at: 0, messages: 20_000, inFlight: 50 }, 27, 10)).toBe(true);
  });
});

describe('workersProvenBusy: a backlog waits and every applied worker holds half a batch in flight', () => {
  it.each([
    { comment: 'all 48 busy, 184,000 waiting', messages: 184_000, inFlight: 480, proven: 48 },
    { comment: 'half a batch each is busy', messages: 184_000, inFlight: 240, proven: 48 },
    {
      comment: '10 running of 48 (the pollers ramping) prove nothing',
      messages: 184_000,
      inFlight: 100,
      proven: undefined,
    },
    {
      comment: 'no backlog: a light load keeps workers between batches',
      messages: 300,
      inFlight: 480,
      proven: undefined,
    },
    { comment: 'in flight unknown', messages: 184_000, inFlight: undefined, proven: undefined },
  ])('$comment → $proven', ({ messages, inFlight, proven }) => {
    expect(workersProvenBusy({ messages, inFlight }, 48)).toBe(proven);
  });

  it('judges busy on the mapping’s BatchSize: 48 in flight is all 48 busy at BatchSize 1', () => {
    expect(workersProvenBusy({ messages: 184_000, inFlight: 48 }, 48, 1)).toBe(48);
    expect(workersProvenBusy({ messages: 184_000, inFlight: 48 }, 48)).toBeUndefined();
  });
});
