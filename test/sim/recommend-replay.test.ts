import { describe, expect, it } from 'vitest';
import { resolveScalerConfig } from '../../lib/control/config.ts';
import { activeScheduledFloor } from '../../lib/control/scheduled-floors.ts';
import type { LoadFile, Phase } from '../../lib/load-file/load-file.ts';
import { chooseFloor, dailyPeak, hourlyNeeds, proposedFloor } from '../../lib/operator/load-windows.ts';
import { compareReplay, type ReplaySeries, windowSeconds } from '../../lib/operator/replay-comparison.ts';
import { checkReplayRows, planReplay, replayWindow, roundDown } from '../../lib/operator/replay-limit.ts';
import { thin } from '../../lib/operator/replay-thinning.ts';
import { traceStartSeconds } from '../../lib/operator/trace-start.ts';
import { SimulationLimitError } from '../../lib/sim/limits.ts';
import { LAMBDA_WORLD } from '../../lib/sim/world.ts';

const CONFIG = resolveScalerConfig({});
const hour = (ratePerSecond: number, itemMs = 20): Phase => ({
  durationSeconds: 3600,
  ratePerSecond,
  itemMs,
});

/** A day of hourly phases from 100/s at 04:00 to 1,000/s at 16:00. */
function diurnalDay(): Phase[] {
  return Array.from({ length: 24 }, (_, h) =>
    hour(100 + (900 * (1 - Math.cos((2 * Math.PI * ((h + 20) % 24)) / 24))) / 2),
  );
}

describe('the replay plan: thinning k from the budget', () => {
  it.each([
    {
      comment: 'a trace within the budget replays as it is',
      phases: [hour(100)],
      runs: 15,
      k: 1,
      boundBy: 'none',
    },
    {
      comment: 'a week peaking at 1,000/s: 60 million over 15 runs → 0.012',
      phases: Array.from({ length: 7 }, diurnalDay).flat(),
      runs: 15,
      k: 0.012,
      boundBy: 'budget',
    },
    {
      comment: "one run of a week at 1,000/s: the simulator's 50 million a run bounds it",
      phases: [{ durationSeconds: 7 * 86_400, ratePerSecond: 1000, itemMs: 20 }],
      runs: 1,
      k: 0.082,
      boundBy: 'run-bound',
    },
  ])('$comment', ({ phases, runs, k, boundBy }) => {
    const plan = planReplay(phases, runs);
    expect(plan.k).toBe(k);
    expect(plan.boundBy).toBe(boundBy);
    expect(plan.messagesPerRun * runs).toBeLessThanOrEqual(60_000_000);
    expect(plan.messagesPerRun).toBeLessThanOrEqual(50_000_000);
  });

  it.each([
    [0.0271, 0.027],
    [0.5, 0.5],
    [0.01503, 0.015],
    [0.2, 0.2],
    [0.999, 0.99],
    [3, 1],
  ])('rounds %f down to %f (two significant digits)', (k, rounded) => {
    expect(roundDown(k)).toBe(rounded);
  });
});

describe('the stretch a run replays', () => {
  it('keeps a trace of 30 days or less whole', () => {
    const month = Array.from({ length: 30 * 24 }, () => hour(10));
    expect(replayWindow(month)).toEqual({ phases: month, droppedSeconds: 0, droppedPhases: 0 });
  });

  it('replays the last 30 days of a longer trace, cutting the first row kept to fit', () => {
    const forty = Array.from({ length: 40 * 24 }, (_, h) => hour(h));
    const w = replayWindow(forty);
    expect(w.phases).toEqual(forty.slice(10 * 24));
    expect(w.droppedSeconds).toBe(10 * 86_400);
    expect(w.droppedPhases).toBe(240);
    // A day-long row across the 30-day edge: 1.5 days in the window, the rest left out.
    const days = [
      { durationSeconds: 2 * 86_400, ratePerSecond: 5, itemMs: 20 },
      ...Array.from({ length: 685 }, () => hour(1)),
    ];
    const cut = replayWindow(days);
    expect(cut.phases[0]).toEqual({
      durationSeconds: 30 * 86_400 - 685 * 3600,
      ratePerSecond: 5,
      itemMs: 20,
    });
    expect(cut.phases.reduce((s, p) => s + p.durationSeconds, 0)).toBe(30 * 86_400);
    expect(cut.droppedPhases).toBe(0);
  });

  it('refuses more rows than a run keeps, in one line that names no option recommend lacks', () => {
    const rows = Array.from({ length: 130_000 }, () => ({
      durationSeconds: 10,
      ratePerSecond: 1,
      itemMs: 20,
    }));
    expect(() => checkReplayRows(rows)).toThrow(SimulationLimitError);
    expect(() => checkReplayRows(rows)).toThrow(/^--trace: 130,000 rows to replay, more than 100,000/);
    expect(() => checkReplayRows(rows)).not.toThrow(/--time-scale|--rate-scale/);
    expect(() => checkReplayRows(rows.slice(0, 100_000))).not.toThrow();
  });

  it('finds the longest invocation of a 130,000-row trace without overflowing the stack', () => {
    const rows = Array.from({ length: 130_000 }, (_, i) => ({
      durationSeconds: 10,
      ratePerSecond: 1,
      itemMs: 20 + (i % 7),
    }));
    const scenario: LoadFile = { name: 'rows', phases: rows };
    expect(() => thin(scenario, LAMBDA_WORLD, 1)).not.toThrow();
  });
});

describe('thinning a load', () => {
  const scenario: LoadFile = {
    name: 's',
    phases: [
      { durationSeconds: 600, ratePerSecond: 800, itemMs: 20, observed: { ageSeconds: 12, concurrency: 17 } },
    ],
    downstream: { connectionPool: 20, apiRatePerSecond: 300 },
  };

  it('keeps rate × item time (the concurrency), the durations and what was observed', () => {
    const t = thin(scenario, LAMBDA_WORLD, 0.02, scenario.downstream);
    const [p] = t.scenario.phases;
    expect(p?.ratePerSecond).toBeCloseTo(16);
    expect(p?.itemMs).toBeCloseTo(1000);
    expect(((p?.ratePerSecond ?? 0) * (p?.itemMs ?? 0)) / 1000).toBeCloseTo(16);
    expect(p?.durationSeconds).toBe(600);
    expect(p?.observed).toEqual({ ageSeconds: 12, concurrency: 17 });
    // A pool is counted in concurrent items, an API in calls a second: only the API thins.
    expect(t.downstream).toEqual({ connectionPool: 20, apiRatePerSecond: 6 });
    expect(t.world).toEqual({});
  });

  it('raises the function timeout only where a thinned batch would time out and the real one does not', () => {
    const slow: LoadFile = {
      name: 'slow',
      phases: [{ durationSeconds: 600, ratePerSecond: 5, itemMs: 2000 }],
    };
    // 10 items × 2 s × 1.25 = 25 s a batch at most; ÷ 0.1 → 250 s: raised to 276 s (and the visibility with it).
    const t = thin(slow, LAMBDA_WORLD, 0.1);
    expect(t.functionTimeoutRaisedTo).toBe(276);
    expect(t.world).toEqual({ functionTimeoutSeconds: 276, visibilityTimeoutSeconds: 276 });
    const already: LoadFile = {
      name: 'x',
      phases: [{ durationSeconds: 600, ratePerSecond: 5, itemMs: 4000 }],
    };
    expect(thin(already, LAMBDA_WORLD, 0.1).world).toEqual({});
    expect(thin(slow, LAMBDA_WORLD, 1).scenario).toBe(slow);
  });
});

describe('the floor and the daily peak from the hours of a trace', () => {
  it('takes the quietest hour’s need as the floor: 100/s of 20 ms ÷ 0.9 → 3', () => {
    const choice = chooseFloor(hourlyNeeds(diurnalDay(), CONFIG), 32);
    expect(choice.floor).toBe(3);
    expect(choice.quietest).toMatchObject({ start: 4 * 3600, seconds: 3600, need: 3 });
    expect(choice.quietest.ratePerSecond).toBeCloseTo(100);
  });

  it('never goes under 2 (a silent hour needs nothing) or over the cap', () => {
    expect(chooseFloor(hourlyNeeds([hour(0), hour(800)], CONFIG), 32).floor).toBe(2);
    expect(chooseFloor(hourlyNeeds([hour(800)], CONFIG), 12)).toMatchObject({
      floor: 12,
      limitedByCap: true,
    });
  });

  it('reads a phase across an hour’s edge into both hours, and a trace under an hour as one window', () => {
    const hours = hourlyNeeds(
      [
        { durationSeconds: 1800, ratePerSecond: 0, itemMs: 20 },
        { durationSeconds: 3600, ratePerSecond: 900, itemMs: 20 },
        { durationSeconds: 1800, ratePerSecond: 0, itemMs: 20 },
      ],
      CONFIG,
    );
    expect(hours.map((h) => h.ratePerSecond)).toEqual([450, 450]);
    expect(hourlyNeeds([{ durationSeconds: 600, ratePerSecond: 450, itemMs: 20 }], CONFIG)).toEqual([
      { start: 0, seconds: 600, ratePerSecond: 450, need: 10 },
    ]);
  });

  it('finds a daily peak at the same hour on most days, shifted to the clock when the start is known', () => {
    const hours = hourlyNeeds(Array.from({ length: 3 }, diurnalDay).flat(), CONFIG);
    expect(dailyPeak(hours)).toEqual({
      hourOfDay: 16,
      days: 3,
      daysAtThatHour: 3,
      peakNeed: 23,
      troughNeed: 3,
    });
    expect(dailyPeak(hours, 2)?.hourOfDay).toBe(18);
  });

  it('proposes a scheduled floor for the peak: its need, from 15 minutes before the hour ahead to the end of the hour after', () => {
    const peak = { hourOfDay: 16, days: 3, daysAtThatHour: 3, peakNeed: 23, troughNeed: 3 };
    const floor = proposedFloor(peak, 3, 32);
    expect(floor).toEqual({ schedule: 'cron(45 14 * * ? *)', minConcurrency: 23, durationSeconds: 11_700 });
    // On through the peak's hour and the hours either side, off after
    const day = Date.UTC(2026, 11, 7) / 1000;
    const on = (h: number, m = 0) => activeScheduledFloor([floor as never], day + h * 3600 + m * 60);
    expect([on(14, 44), on(14, 45), on(16), on(17, 59), on(18)]).toEqual([undefined, 23, 23, 23, undefined]);
    // Past midnight, within the cap, and none where the floor already holds the peak
    expect(proposedFloor({ ...peak, hourOfDay: 0 }, 3, 32)?.schedule).toBe('cron(45 22 * * ? *)');
    expect(proposedFloor({ ...peak, peakNeed: 50 }, 3, 32)?.minConcurrency).toBe(32);
    expect(proposedFloor(peak, 23, 32)).toBeUndefined();
    // In provisioned mode, whole pollers (23 → 30), within the cap's (45 → 40) and the 200 SQS warms (2,000)
    expect(proposedFloor(peak, 20, 60, 'provisioned')?.minConcurrency).toBe(30);
    expect(proposedFloor({ ...peak, peakNeed: 50 }, 20, 45, 'provisioned')?.minConcurrency).toBe(40);
    expect(proposedFloor({ ...peak, peakNeed: 3000 }, 20, 5000, 'provisioned')?.minConcurrency).toBe(2000);
    expect(proposedFloor({ ...peak, peakNeed: 17 }, 20, 60, 'provisioned')).toBeUndefined();
  });

  it.each([
    { comment: 'a flat load', phases: Array.from({ length: 72 }, () => hour(400)) },
    { comment: 'a single day', phases: diurnalDay() },
    {
      comment: 'a peak at a different hour every day',
      phases: Array.from({ length: 3 }, (_, d) =>
        Array.from({ length: 24 }, (_, h) => hour(h === d * 8 ? 900 : 100)),
      ).flat(),
    },
  ])('finds no daily peak in $comment', ({ phases }) => {
    expect(dailyPeak(hourlyNeeds(phases, CONFIG))).toBeUndefined();
  });
});

describe('the replay against what the queue did', () => {
  const phases: Phase[] = [
    { durationSeconds: 1800, ratePerSecond: 50, itemMs: 20, observed: { ageSeconds: 4, concurrency: 2 } },
    { durationSeconds: 1800, ratePerSecond: 600, itemMs: 20, observed: { ageSeconds: 40, concurrency: 14 } },
    { durationSeconds: 3600, ratePerSecond: 50, itemMs: 20, observed: { concurrency: 3 } },
  ];
  const run = (peaks: number[], waits: number[], ticks: [number, number][]): ReplaySeries => ({
    phasePeakExecutions: peaks,
    phaseMaxWaitSeconds: waits,
    ticks,
  });

  it('sets each window’s observed maxima beside the worst seed’s replay', () => {
    const c = compareReplay(phases, [
      run(
        [3, 28, 4],
        [1, 20, 1],
        [
          [60, 2],
          [2000, 31],
          [5000, 3],
        ],
      ),
      run([2, 30, 5], [2, 25, 2], [[60, 1]]),
    ]);
    // Phases of 30 minutes: windows of 30 minutes; the hour-long phase counts to both of its windows.
    expect(c?.windowSeconds).toBe(1800);
    expect(c?.windows).toEqual([
      {
        start: 0,
        seconds: 1800,
        observedMaxAge: 4,
        observedPeakConcurrency: 2,
        replayedMaxAge: 2,
        replayedPeakExecutions: 3,
      },
      {
        start: 1800,
        seconds: 1800,
        observedMaxAge: 40,
        observedPeakConcurrency: 14,
        replayedMaxAge: 31,
        replayedPeakExecutions: 30,
      },
      {
        start: 3600,
        seconds: 1800,
        observedPeakConcurrency: 3,
        replayedMaxAge: 3,
        replayedPeakExecutions: 5,
      },
      {
        start: 5400,
        seconds: 1800,
        observedPeakConcurrency: 3,
        replayedMaxAge: 2,
        replayedPeakExecutions: 5,
      },
    ]);
    expect(c?.concurrencyRatio?.low).toBeCloseTo(1.5);
    expect(c?.concurrencyRatio?.median).toBeCloseTo(5 / 3);
    expect(c?.concurrencyRatio?.high).toBeCloseTo(30 / 14);
    expect(c?.ageDifference).toEqual({ low: -9, median: -5.5, high: -2 });
  });

  it('has nothing to compare without observed columns', () => {
    expect(
      compareReplay([{ durationSeconds: 60, ratePerSecond: 1, itemMs: 20 }], [run([1], [0], [])]),
    ).toBeUndefined();
  });

  it.each([
    [3600, 60, 600],
    [7200, 60, 900],
    [7200, 3600, 3600],
    [86_400, 60, 10_800],
    [7 * 86_400, 60, 86_400],
    [7 * 86_400, 3600, 86_400],
    [15 * 86_400, 300, 7 * 86_400],
  ])('windows a trace of %i s in phases of %i s by %i s: a few lines, not a page', (total, phase, window) => {
    expect(windowSeconds(total, phase)).toBe(window);
  });
});

describe("a trace file's start", () => {
  it('reads the range line trace writes', () => {
    const text =
      '# queue-age-scaler trace\n# range: 2026-11-03T04:00:00Z – 2026-11-10T04:00:00Z (--since 7d)\nduration_s,rate_per_s,item_ms\n60,1,20\n';
    expect(traceStartSeconds(text)).toBe(Date.parse('2026-11-03T04:00:00Z') / 1000);
  });

  it('has none in a hand-written file, nor from a comment after the header', () => {
    expect(
      traceStartSeconds('duration_s,rate_per_s,item_ms\n# range: 2026-11-03T04:00:00Z\n60,1,20\n'),
    ).toBeUndefined();
    expect(traceStartSeconds('# my load\nduration_s,rate_per_s,item_ms\n60,1,20\n')).toBeUndefined();
  });
});
