import { describe, expect, it } from 'vitest';
import type { LoadFile } from '../../lib/load-file/load-file.ts';
import { buildPlan, defaultSenders, dueBy, intendedSeconds, phaseOf } from '../../lib/operator/plan.ts';

const scenario: LoadFile = {
  name: 'two-phases',
  phases: [
    { durationSeconds: 60, ratePerSecond: 10, itemMs: 20 },
    { durationSeconds: 30, ratePerSecond: 0, itemMs: 20 },
    { durationSeconds: 120, ratePerSecond: 50, itemMs: 60 },
  ],
};

describe('buildPlan', () => {
  it.each([
    { comment: 'as written', rate: 1, time: 1, counts: [600, 0, 6000], seconds: 210 },
    { comment: 'a tenth of the rate', rate: 0.1, time: 1, counts: [60, 0, 600], seconds: 210 },
    { comment: 'a tenth of the time', rate: 1, time: 0.1, counts: [60, 0, 600], seconds: 21 },
    {
      comment: 'both, rounding 0.25 × 6 = 1.5 up',
      rate: 0.05,
      time: 0.05,
      counts: [2, 0, 15],
      seconds: 10.5,
    },
  ])('$comment: counts $counts', ({ rate, time, counts, seconds }) => {
    const plan = buildPlan(scenario, rate, time);
    expect(plan.phases.map((p) => p.messages)).toEqual(counts);
    expect(plan.totalMessages).toBe(counts.reduce((a, b) => a + b, 0));
    expect(plan.totalSeconds).toBeCloseTo(seconds);
    expect(plan.phases[2]?.firstSequence).toBe(counts[0]);
    expect(plan.phases[2]?.itemMs).toBe(60);
  });

  it.each([
    {
      comment: 'a negative rate scale',
      rate: -1,
      time: 1,
      message: /--rate-scale = -1: must be a number > 0/,
    },
    { comment: 'a zero time scale', rate: 1, time: 0, message: /--time-scale = 0: must be a number > 0/ },
    { comment: 'NaN', rate: Number.NaN, time: 1, message: /--rate-scale = NaN/ },
    { comment: 'a run longer than a week', rate: 1, time: 5000, message: /more than 604800 s/ },
  ])('rejects $comment', ({ rate, time, message }) => {
    expect(() => buildPlan(scenario, rate, time)).toThrow(message);
  });
});

describe('the schedule', () => {
  const plan = buildPlan(scenario);

  it('spaces a phase evenly and never schedules past its end', () => {
    expect(intendedSeconds(plan, 0)).toBe(0);
    expect(intendedSeconds(plan, 1)).toBeCloseTo(0.1);
    expect(intendedSeconds(plan, 599)).toBeCloseTo(59.9);
    // The quiet phase has no messages: the next is the third phase's first, at 90 s.
    expect(intendedSeconds(plan, 600)).toBe(90);
    expect(phaseOf(plan, 600).index).toBe(3);
    expect(intendedSeconds(plan, 6599)).toBeLessThan(210);
  });

  it.each([
    { elapsed: -1, due: 0 },
    { elapsed: 0, due: 1 },
    { elapsed: 0.25, due: 3 },
    { elapsed: 59.95, due: 600 },
    { elapsed: 75, due: 600 },
    { elapsed: 90, due: 601 },
    { elapsed: 91, due: 651 },
    { elapsed: 1e6, due: 6600 },
  ])('by $elapsed s, $due messages are due', ({ elapsed, due }) => {
    expect(dueBy(plan, elapsed)).toBe(due);
  });

  it('agrees with the intended times: message n is due exactly from its intended time on', () => {
    for (const n of [0, 1, 17, 599, 600, 601, 4321, 6599]) {
      const t = intendedSeconds(plan, n);
      expect(dueBy(plan, t)).toBeGreaterThan(n);
      expect(dueBy(plan, t - 1e-6)).toBeLessThanOrEqual(n);
    }
  });

  it('sizes the senders to the peak rate, within [4; 64]', () => {
    expect(defaultSenders(plan)).toBe(4);
    expect(defaultSenders(buildPlan(scenario, 20))).toBe(10);
    expect(defaultSenders(buildPlan(scenario, 1000))).toBe(64);
  });
});
