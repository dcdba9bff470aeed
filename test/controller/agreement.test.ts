import { describe, expect, it } from 'vitest';
import { lastVisibleFrom, type StateEvidence } from '../../functions/controller/carried-state.ts';
import { DEPTH_NOISE_MESSAGES } from '../../lib/control/depth-trend.ts';
import {
  type ControllerState,
  decide,
  type QueueSnapshot,
  resolveScalerConfig,
} from '../../lib/control/index.ts';

/**
 * The simulator and the Lambda run the same `decide`; the simulator carries the state as `decide` left it, the
 * Lambda rebuilds it from what its warm container remembers of the tick before (tick-memory.ts: the saved state's
 * depth sample) and what the next tick reads afresh. Where their states agree, so must their decisions:
 * these cases replay one tick both ways and compare.
 */
const config = resolveScalerConfig({ maxConcurrency: 32 });
const PERIOD = 60;

/** A tick's snapshot: 2 applied at 50/s, 20 ms items, the late datapoint healthy. */
const at = (now: number, visible: number): QueueSnapshot => ({
  now,
  appliedConcurrency: 2,
  oldestAge: { seconds: 0.5, observedAt: now - 120 },
  visibleMessages: visible,
  inFlightMessages: 20,
  arrivalRatePerSecond: 50,
  peakArrivalRatePerSecond: 50,
  completionRatePerSecond: 50,
  itemSeconds: 0.02,
});

/** What the Lambda carries from tick 1 to tick 2: what tick 1 saved into the container's memory, rebuilt. */
function lambdaState(first: QueueSnapshot, state: ControllerState, secondAt: number): ControllerState {
  const saved = decide(first, state, config).state;
  const evidence: StateEvidence = {
    now: secondAt,
    periodSeconds: PERIOD,
    applied: 2,
    history: {
      series: {
        ageOfOldestMessage: [],
        messagesSent: [],
        messagesDeleted: [],
        consumerDurationMs: [],
      },
      appliedMin: [],
      appliedMax: [],
      scaleEvents: [],
    },
    // As the tick ports' save leaves it (tick-ports.ts): the saved depth sample, the applied value, no change.
    remembered: { at: first.now, lastVisible: saved.lastVisible, applied: 2 },
  };
  return { ...state, lastVisible: lastVisibleFrom(evidence) };
}

describe('the simulator and the Lambda size a spike alike', () => {
  it.each([
    { comment: 'ticks at the start of their minute', offset: 0 },
    { comment: 'ticks 25 s into their minute (the trend over the 60 s between ticks, not 85 s)', offset: 25 },
    { comment: 'ticks 59 s into their minute', offset: 59 },
  ])('$comment', ({ offset }) => {
    // GIVEN a quiet tick, then a minute later 45,000 visible (750/s more than the 50/s served)
    const t1 = 1_800_000_000 + offset;
    const t2 = t1 + 60;
    const carried: ControllerState = {
      baselineItemSeconds: 0.02,
      baselineArrivalRate: 50,
      lastChangeAt: t1 - 3600,
    };
    const first = at(t1, 0);
    const simulatorState = decide(first, carried, config).state;
    const lambda = lambdaState(first, carried, t2);
    // THEN both carry the sample at the time it was taken
    expect(lambda.lastVisible).toEqual(simulatorState.lastVisible);
    // AND the second tick decides the same from either
    const second = at(t2, 45_000);
    const simulated = decide(second, { ...carried, lastVisible: simulatorState.lastVisible }, config);
    const deployed = decide(second, lambda, config);
    // The depth rose 45,000 in 60 s, less the approximate counts' noise
    expect(deployed.inputs.arrivalRatePerSecond).toBeCloseTo((45_000 - DEPTH_NOISE_MESSAGES) / 60, 6);
    expect(deployed.desired).toBe(simulated.desired);
    expect(deployed.inputs.arrivalRatePerSecond).toBe(simulated.inputs.arrivalRatePerSecond);
  });
});
