import { describe, expect, it } from 'vitest';
import {
  BEYOND_CONTENDERS,
  BEYOND_SHAPES,
  type BeyondRow,
  beyond1000Table,
  beyond1000Verdicts,
  runBeyond1000,
} from '../../lib/bench/beyond-1000.ts';
import { parseScenarioText } from '../../lib/load-file/load-file.ts';

const row = (label: string, over: Partial<BeyondRow> = {}): BeyondRow => ({
  shape: 'diurnal',
  rateScale: 100,
  pollerScaleSeconds: 10,
  label,
  controller: label === 'provisioned' ? 'provisioned' : 'age-law',
  p99OverTarget: 0.1,
  execPeak: 2000,
  execMean: 700,
  warmMean: 1400,
  deadLetters: 0,
  throttled: 0,
  dollarsPerMonth: 600,
  ...over,
});

describe('the bench at thousands of concurrent consumers (issue 31)', () => {
  it('runs every controller AWS offers past 1,000, on shapes that need 1,800 to 2,400', () => {
    expect(BEYOND_CONTENDERS.map((c) => c.label)).toEqual([
      'native (1,000)',
      'provisioned',
      'age law, lockstep (1,000)',
      'age law, provisioned',
    ]);
    expect(BEYOND_SHAPES.map((s) => [s.name, s.rateScale])).toEqual([
      ['seed-spike', 150],
      ['diurnal', 100],
    ]);
  });

  it('says met where the age law on provisioned mode is on time, lighter on both counts and clean', () => {
    const verdicts = beyond1000Verdicts([
      row('provisioned'),
      row('age law, provisioned', {
        p99OverTarget: 0.3,
        execPeak: 1500,
        execMean: 690,
        dollarsPerMonth: 550,
      }),
    ]);
    expect(verdicts).toEqual([
      '- diurnal × 100, 10 s reading: met (p99 0.30 × against 0.10 ×, exec peak 1500 against 2000, mean 690 against 700, 0 dead letters, 0 throttled, $550.00 against $600.00 a month).',
    ]);
  });

  it('says missed, and why, where provisioned mode meets the target and the age law does not, or is heavier', () => {
    const [late] = beyond1000Verdicts([
      row('provisioned'),
      row('age law, provisioned', { p99OverTarget: 1.1, execPeak: 1800, execMean: 690 }),
    ]);
    expect(late).toMatch(/^- diurnal × 100, 10 s reading: \*\*missed\*\* \(p99 1\.10 × against 0\.10 ×/);
    expect(late).toMatch(/provisioned mode on its own meets the target, the age law does not\.$/);
    const [heavy] = beyond1000Verdicts([
      row('provisioned', { p99OverTarget: 1.2 }),
      row('age law, provisioned', { p99OverTarget: 1.2, execPeak: 2100 }),
    ]);
    expect(heavy).toMatch(
      /\*\*missed\*\*.*: neither meets the target; not lighter \(a lower peak, the mean within 5 %\)\.$/,
    );
    // The mean is the work: equal means, or within 5 %, are no heavier.
    const [same] = beyond1000Verdicts([
      row('provisioned', { p99OverTarget: 1.2 }),
      row('age law, provisioned', { p99OverTarget: 1.2, execPeak: 1900, execMean: 730 }),
    ]);
    expect(same).toMatch(/^- diurnal × 100, 10 s reading: met \(.*\): neither meets the target\.$/);
    const [dirty] = beyond1000Verdicts([
      row('provisioned'),
      row('age law, provisioned', { execPeak: 1500, execMean: 600, deadLetters: 3 }),
    ]);
    expect(dirty).toMatch(/\*\*missed\*\*.*3 dead letters.*: not clean\.$/);
  });

  it('tabulates every row with its $ a month', () => {
    const table = beyond1000Table([row('provisioned'), row('age law, provisioned')]).split('\n');
    expect(table).toHaveLength(4);
    expect(table[2]).toBe(
      '| diurnal × 100 | 10 s | provisioned | 0.10 | 2000 | 700 | 1400 | 0 · 0 | 600.00 |',
    );
  });

  it('runs a given load file as written, with the four contenders, in place of the shipped shapes', async () => {
    const text = 'duration_s,rate_per_s,item_ms\n120,200,20\n';
    const trace = { name: 'mine', ...parseScenarioText(text, 'mine.csv') };
    const rows = await runBeyond1000({ seeds: [1], readings: [10], traces: [trace] });
    expect(rows.map((r) => [r.shape, r.rateScale, r.label])).toEqual(
      BEYOND_CONTENDERS.map((c) => ['mine', 1, c.label]),
    );
    expect(beyond1000Table(rows).split('\n')[2]).toMatch(/^\| mine \| 10 s \| native \(1,000\) \|/);
  });
});
