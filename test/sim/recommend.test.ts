import { describe, expect, it } from 'vitest';
import type { BenchRow } from '../../lib/bench/bench.ts';
import { type SeedFigures, seedFigures } from '../../lib/bench/seed-figures.ts';
import { chooseController, meetsTarget } from '../../lib/operator/recommend.ts';
import type { ControllerKind } from '../../lib/sim/run.ts';
import type { RunSummary } from '../../lib/sim/summary.ts';

/** An option's figures: p99 ÷ target on its worst seed, exec peak, $ a month; dead letters and mean optional. */
function option(
  controller: ControllerKind,
  p99OverTarget: number,
  peak: number,
  monthlyCost: number,
  extra: Partial<SeedFigures> = {},
): SeedFigures {
  return {
    controller,
    seeds: 5,
    p99OverTarget,
    peak,
    mean: 5,
    deadLetters: 0,
    scaleEvents: 0,
    monthlyCost,
    reservedMean: 0,
    ...extra,
  };
}

const LAW = 20.18;
const PROVISIONED = 13.32;

describe('which controller recommend chooses', () => {
  it.each([
    {
      comment: 'the age law meets the target with a lower peak: the law',
      options: [
        option('age-law', 0.5, 18, LAW),
        option('native', 0.05, 32, 0),
        option('provisioned', 0, 23, PROVISIONED),
      ],
      expected: { controller: 'age-law', rule: 'lowest-peak', tied: ['age-law'] },
    },
    {
      comment: "all meet the target and native's peak is no higher: native, the cheapest",
      options: [
        option('age-law', 0.4, 24, LAW),
        option('native', 0, 23, 0),
        option('provisioned', 0, 23, PROVISIONED),
      ],
      expected: {
        controller: 'native',
        rule: 'cheaper-on-near-tie',
        tied: ['age-law', 'native', 'provisioned'],
      },
    },
    {
      comment: 'equal peaks on a flat load: native, nothing to pay',
      options: [
        option('age-law', 0, 8, LAW),
        option('native', 0, 8, 0),
        option('provisioned', 0, 10, PROVISIONED),
      ],
      expected: { controller: 'native', rule: 'cheaper-on-near-tie', tied: ['age-law', 'native'] },
    },
    {
      comment: 'only provisioned meets the target: provisioned, whatever its peak',
      options: [
        option('age-law', 1.5, 16, LAW),
        option('native', 1.2, 20, 0),
        option('provisioned', 0.3, 25, PROVISIONED),
      ],
      expected: { controller: 'provisioned', rule: 'lowest-peak', tied: ['provisioned'] },
    },
    {
      comment: 'a near-tie (21 within 5 % of 20) goes to the cheaper: provisioned over the law',
      options: [
        option('age-law', 0.5, 20, LAW),
        option('native', 0, 32, 0),
        option('provisioned', 0, 21, PROVISIONED),
      ],
      expected: { controller: 'provisioned', rule: 'cheaper-on-near-tie', tied: ['age-law', 'provisioned'] },
    },
    {
      comment: 'beyond 5 % (22 against 20) the lower peak wins although it costs more',
      options: [
        option('age-law', 0.5, 20, LAW),
        option('native', 0, 32, 0),
        option('provisioned', 0, 22, PROVISIONED),
      ],
      expected: { controller: 'age-law', rule: 'lowest-peak', tied: ['age-law'] },
    },
    {
      comment: 'exactly at the target meets it',
      options: [
        option('age-law', 1, 16, LAW),
        option('native', 0, 32, 0),
        option('provisioned', 0, 30, PROVISIONED),
      ],
      expected: { controller: 'age-law', rule: 'lowest-peak', tied: ['age-law'] },
    },
    {
      comment: 'dead letters do not meet the target, however early the rest',
      options: [
        option('age-law', 0.3, 16, LAW, { deadLetters: 3 }),
        option('native', 0, 32, 0),
        option('provisioned', 0, 30, PROVISIONED),
      ],
      expected: { controller: 'provisioned', rule: 'lowest-peak', tied: ['provisioned'] },
    },
    {
      comment: 'none meets the target: the least late',
      options: [
        option('age-law', 4.2, 32, LAW),
        option('native', 4.0, 32, 0),
        option('provisioned', 5.0, 30, PROVISIONED),
      ],
      expected: { controller: 'native', rule: 'least-late', tied: ['age-law', 'native'] },
    },
    {
      comment: 'none meets the target: fewer dead letters first',
      options: [
        option('age-law', 3, 20, LAW),
        option('native', 2, 32, 0, { deadLetters: 10 }),
        option('provisioned', 4, 30, PROVISIONED),
      ],
      expected: { controller: 'age-law', rule: 'least-late', tied: ['age-law'] },
    },
  ])('$comment', ({ options, expected }) => {
    const choice = chooseController(options);
    expect({ controller: choice.controller, rule: choice.rule, tied: choice.tied }).toEqual(expected);
    expect(choice.meeting).toEqual(options.filter(meetsTarget).map((o) => o.controller));
  });

  it('refuses an empty list', () => {
    expect(() => chooseController([])).toThrow(/no options/);
  });
});

describe("an option's figures over the seeds", () => {
  function row(p99OverTarget: number, peak: number, mean: number, cost: number, reserved: number): BenchRow {
    return {
      scenario: 's',
      controller: 'age-law',
      p99OverTarget,
      monthlyCost: cost,
      summary: {
        deadLettered: 0,
        scaleEvents: 3,
        reservedSeconds: reserved,
        simulatedSeconds: 100,
        executions: { peak, mean, p99: peak },
      } as unknown as RunSummary,
    };
  }

  it('takes the worst seed on every count and the mean of the costs', () => {
    expect(seedFigures([row(0.4, 18, 5.1, 20, 500), row(1.2, 16, 5.3, 22, 700)])).toEqual({
      controller: 'age-law',
      seeds: 2,
      p99OverTarget: 1.2,
      peak: 18,
      mean: 5.3,
      deadLetters: 0,
      scaleEvents: 3,
      monthlyCost: 21,
      reservedMean: 6,
    });
  });

  it('refuses rows of two controllers', () => {
    expect(() => seedFigures([row(0, 1, 1, 0, 0), { ...row(0, 1, 1, 0, 0), controller: 'native' }])).toThrow(
      /more than one controller/,
    );
  });
});
