import { describe, expect, it } from 'vitest';
import { resolveScalerConfig } from '../../lib/control/config.ts';
import { continuedLoop, type LoopState, startLoop } from '../../lib/control/control-loop.ts';
import { withRisesCarried } from '../../lib/control/fast-context.ts';
import { decideFast, type FastPathContext } from '../../lib/control/fast-path.ts';
import { runScenario } from '../../lib/sim/run.ts';

const config = resolveScalerConfig({ targetAgeSeconds: 60, maxConcurrency: 32 });
const TICK = 1_230;

/**
 * idle-then-burst with the ticks 30 s into the minute (800/s of 15 ms items after 20 quiet minutes): the loop before
 * the tick doubled 2 → 4 → 8 on rises at 2 and 4; the tick at 1,230 s held at 8 (settling). No per-item time known.
 */
const beforeTick: FastPathContext = {
  applied: 8,
  tickApplied: 2,
  lastChangeAt: 1_220,
  tickSample: { at: 1_170, messages: 0, inFlight: 0 },
  previous: { at: 1_220, messages: 12_674, inFlight: 30 },
  reportedArrivals: 0,
  tickArrivals: 0,
  confirmed: false,
  batchSize: 10,
  drainCeiling: 28,
  lastRise: { applied: 4, perSecond: 574.3 },
  roseBusySince: true,
  grownFrom: 4,
};
const tickContext: FastPathContext = {
  applied: 8,
  tickApplied: 8,
  lastChangeAt: 1_220,
  tickSample: { at: TICK, messages: 16_218, inFlight: 60 },
  previous: { at: TICK, messages: 16_218, inFlight: 60 },
  reportedArrivals: 0,
  tickArrivals: 270,
  provenBusy: 8,
  confirmed: true,
  batchSize: 10,
  drainCeiling: 28,
};

/** The samples at 40 s and 50 s: a rise at 8, the doubling to 16, then 14 running and the depth falling 109/s. */
function afterTwoSamples(start: FastPathContext) {
  const first = decideFast({ at: TICK + 10, messages: 19_550, inFlight: 70 }, start, config);
  const second = decideFast({ at: TICK + 20, messages: 18_462, inFlight: 140 }, first.context, config);
  return { first, second };
}

describe('the rises a loop measured, across a tick (withRisesCarried)', () => {
  it('a fall after the doubling is judged by the fit the rise before the tick gives, not read as a fan-out’s end', () => {
    // WITHOUT the loop before: the rise at 8 fits nothing, and the fall at 16 reads as the burst's end: 16 → 28
    const alone = afterTwoSamples(tickContext);
    expect(alone.first.desired).toBe(16);
    expect(alone.second.desired).toBe(28);
    // WITH it: the rise at 4 and the one at 8 fit a service; the fall is that fit's, and 16 holds
    const carried = afterTwoSamples(withRisesCarried(tickContext, beforeTick));
    expect(carried.first.desired).toBe(16);
    expect(carried.first.context.serviceFit?.perWorker).toBeCloseTo(60.2, 0);
    expect(carried.second.desired).toBe(16);
  });

  it('carries the rise only where a fit judged it: the fit, a burst’s end and the busy rise stay there', () => {
    const judged = { ...beforeTick, serviceFit: { perWorker: 6.6, arrivals: 133 }, burstEnded: true };
    const carried = withRisesCarried(tickContext, judged);
    expect(carried.lastRise).toEqual(beforeTick.lastRise);
    expect([carried.serviceFit, carried.burstEnded, carried.roseBusySince]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('carries a busy rise no fit judged, so that a fan-out that rose before the tick and fell after it has ended', () => {
    // held-out fan-out, ticks 30 s into the minute: a rise at 2 busy workers, 2 → 4; the tick holds at 4 while 1 runs
    const fanOutLoop: FastPathContext = {
      ...beforeTick,
      applied: 4,
      lastChangeAt: 1_810,
      previous: { at: 1_820, messages: 55_323, inFlight: 10 },
      lastRise: { applied: 2, perSecond: 2_862.5 },
      grownFrom: 2,
    };
    const fanOutTick: FastPathContext = {
      ...tickContext,
      applied: 4,
      tickApplied: 4,
      lastChangeAt: 1_810,
      tickSample: { at: 1_830, messages: 52_133, inFlight: 20 },
      previous: { at: 1_830, messages: 52_133, inFlight: 20 },
      tickArrivals: 868.7,
      provenBusy: undefined,
    };
    const fallsAfterTick = (start: FastPathContext) => {
      const first = decideFast({ at: 1_840, messages: 48_942, inFlight: 30 }, start, config);
      const second = decideFast({ at: 1_850, messages: 42_538, inFlight: 60 }, first.context, config);
      return [first.desired, second.desired];
    };
    // WITHOUT the carry the falls at 4 follow no rise this loop saw: 4 holds (2.94 × the target on that file)
    expect(fallsAfterTick(fanOutTick)).toEqual([4, 4]);
    // WITH it the fall is the fan-out's end, and the backlog it left is doubled into: 4 → 8 → 16 (1.43 ×)
    expect(withRisesCarried(fanOutTick, fanOutLoop).roseBusySince).toBe(true);
    expect(fallsAfterTick(withRisesCarried(fanOutTick, fanOutLoop))).toEqual([8, 16]);
    // not where the pollers stepped up between the loop's last sample and the tick's: the fall is the new workers'
    const loopAt16 = { ...fanOutLoop, applied: 16, previous: { at: 1_820, messages: 55_323, inFlight: 50 } };
    const tickAt16 = (inFlight: number) => ({
      ...fanOutTick,
      applied: 16,
      tickApplied: 16,
      tickSample: { at: 1_830, messages: 52_133, inFlight },
    });
    expect(withRisesCarried(tickAt16(60), loopAt16).roseBusySince).toBe(true);
    expect(withRisesCarried(tickAt16(160), loopAt16).roseBusySince).toBeUndefined();
    // nor where a fit judges falls (it is not carried: the first test), nor where the tick changed the value
    expect(
      withRisesCarried(fanOutTick, { ...fanOutLoop, serviceFit: { perWorker: 96, arrivals: 3_054 } })
        .roseBusySince,
    ).toBeUndefined();
    expect(
      withRisesCarried({ ...fanOutTick, applied: 6, grownFrom: 4, lastChangeAt: 1_830 }, fanOutLoop)
        .roseBusySince,
    ).toBeUndefined();
  });

  it('carries nothing across a change of regime (one tick knows a per-item time, the other not), or from a frozen loop', () => {
    expect(withRisesCarried({ ...tickContext, itemSeconds: 0.015 }, beforeTick).lastRise).toBeUndefined();
    expect(withRisesCarried(tickContext, { ...beforeTick, itemSeconds: 0.015 }).lastRise).toBeUndefined();
    expect(withRisesCarried(tickContext, { ...beforeTick, frozen: 'paused' }).lastRise).toBeUndefined();
    expect(withRisesCarried(tickContext, undefined)).toBe(tickContext);
  });

  it('where both ticks know a per-item time, carries the rises with the workers that served them (served-rises.ts)', () => {
    const servedRises = [{ at: 1_220, perSecond: 248, seconds: 10, fewest: 5, applied: 5 }];
    const known = { ...tickContext, itemSeconds: 0.01 };
    expect(withRisesCarried(known, { ...beforeTick, itemSeconds: 0.01, servedRises }).servedRises).toEqual(
      servedRises,
    );
    expect(withRisesCarried(known, { ...beforeTick, servedRises }).servedRises).toBeUndefined();
  });

  it('keeps the value the last growth started from only where the tick left the value as the samples did', () => {
    expect(withRisesCarried(tickContext, beforeTick).grownFrom).toBe(4);
    const grownAtTick = { ...tickContext, applied: 12, grownFrom: 8, lastChangeAt: TICK };
    expect(withRisesCarried(grownAtTick, beforeTick).grownFrom).toBe(8);
    expect(withRisesCarried(grownAtTick, beforeTick).lastRise).toEqual(beforeTick.lastRise);
  });
});

describe('continuedLoop', () => {
  const loopAt = (start: number, context: FastPathContext): LoopState =>
    startLoop([{ name: 'scaler', config, context }], { started: start, scheduledAt: start });

  it("goes on from the loop of the slot just before, member by member, and from no other's", () => {
    const before = loopAt(TICK - 60, beforeTick);
    const next = loopAt(TICK, tickContext);
    expect(continuedLoop(next, before).members[0]?.context.lastRise).toEqual(beforeTick.lastRise);
    // a tick skipped between them: the evidence is two minutes old
    expect(continuedLoop(next, loopAt(TICK - 120, beforeTick)).members[0]?.context.lastRise).toBeUndefined();
    // another member's loop carries nothing to this one
    const other = startLoop([{ name: 'other', config, context: beforeTick }], { started: TICK - 60 });
    expect(continuedLoop(next, other).members[0]?.context.lastRise).toBeUndefined();
    expect(continuedLoop(next, undefined)).toBe(next);
  });

  it('in the simulator, a burst after quiet that a tick falls inside of is met as one that starts on a tick', async () => {
    const idleThenBurst = {
      name: 'idle-then-burst',
      phases: [
        { durationSeconds: 1_200, ratePerSecond: 0, itemMs: 15 },
        { durationSeconds: 240, ratePerSecond: 800, itemMs: 15 },
        { durationSeconds: 300, ratePerSecond: 0, itemMs: 15 },
      ],
    };
    const peakAt = async (controllerStartSeconds: number) => {
      const { summary } = await runScenario({
        scenario: idleThenBurst,
        preset: 'lambda',
        controller: 'age-law',
        world: { pollerScaleSeconds: 10, controllerStartSeconds },
      });
      return summary.executions.peak;
    };
    // the burst on the tick doubles 2 → 16 and holds; 30 s off the tick it does the same (28 without the carry)
    expect(await peakAt(0)).toBeLessThanOrEqual(18);
    expect(await peakAt(30)).toBeLessThanOrEqual(18);
  });
});
