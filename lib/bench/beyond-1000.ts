import type { ScalerSettings } from '../control/index.ts';
import { type LoadFile, loadScenario, scaleScenario } from '../load-file/load-file.ts';
import { type ControllerKind, runScenario } from '../sim/run.ts';
import { monthlyCost } from './cost.ts';

/**
 * Beyond the standard mapping's 1,000 (issue 31): shipped shapes replayed at thousands of concurrent consumers, each
 * controller with what AWS lets it bound, side by side, under both readings of the standard ramp. The bench's
 * "Beyond 1,000" table (`npm run bench -- --beyond-1000`, and in `--doc`) and scripts/measure-beyond-1000.ts (more
 * seeds) both run these.
 *
 * - native: the standard mapping, its MaximumConcurrency at AWS's highest, 1,000;
 * - provisioned: provisioned mode on its own, 2 to cap ÷ 10 pollers;
 * - age law, lockstep: the age law on the standard mapping, capped at 1,000 like native;
 * - age law, provisioned: the age law driving provisioned mode (actuator 'provisioned', floor 20), cap 5,000;
 * - on the diurnal day, the same with a scheduled floor around its peak: what a user who knows the day's peak sets
 *   (`recommend` proposes one from a trace's daily peak), warming the pollers only then.
 *
 * The replays are thinned in time (0.3: phases a third as long) so that a run stays within the simulator's 50 million
 * messages; each still runs minutes at thousands of concurrent consumers.
 */

const CAP = 5_000;
const STANDARD_MAPPING_MAX = 1_000;

export interface BeyondContender {
  readonly label: string;
  readonly controller: ControllerKind;
  readonly settings: ScalerSettings;
}

export const BEYOND_CONTENDERS: readonly BeyondContender[] = [
  { label: 'native (1,000)', controller: 'native', settings: { maxConcurrency: STANDARD_MAPPING_MAX } },
  {
    label: 'provisioned',
    controller: 'provisioned',
    // Its MaximumPollers come from the cap (cap ÷ 10); a cap past 1,000 is valid only where the mapping's
    // MaximumConcurrency is not driven.
    settings: { actuator: 'provisioned', minConcurrency: 20, maxConcurrency: CAP },
  },
  {
    label: 'age law, lockstep (1,000)',
    controller: 'age-law',
    settings: { maxConcurrency: STANDARD_MAPPING_MAX },
  },
  {
    label: 'age law, provisioned',
    controller: 'age-law',
    settings: { actuator: 'provisioned', minConcurrency: 20, maxConcurrency: CAP },
  },
];

/**
 * The diurnal day at 0.3 of its length rises in 90 s steps to 80,000/s at 540–630 s (20 ms items: a need of about
 * 1,800). A floor of 1,500 from 00:02 to 00:14 of the run (the simulator's clock starts at 00:00 UTC) covers the
 * steps at and around the peak.
 */
const DIURNAL_PEAK_FLOOR: BeyondContender = {
  label: 'age law, provisioned, floor 1,500 at 2–14 min',
  controller: 'age-law',
  settings: {
    actuator: 'provisioned',
    minConcurrency: 20,
    maxConcurrency: CAP,
    floors: [{ schedule: 'cron(2 0 * * ? *)', minConcurrency: 1500, durationSeconds: 720 }],
  },
};

export interface BeyondShape {
  readonly name: string;
  readonly rateScale: number;
  readonly timeScale: number;
  readonly extra: readonly BeyondContender[];
}

/** Shipped shapes at thousands: the seed's spike (800/s → 120,000/s, need 2,400) and the diurnal day (× 100). */
export const BEYOND_SHAPES: readonly BeyondShape[] = [
  { name: 'seed-spike', rateScale: 150, timeScale: 0.3, extra: [] },
  { name: 'diurnal', rateScale: 100, timeScale: 0.3, extra: [DIURNAL_PEAK_FLOOR] },
];

/** One contender on one shape and reading, over the seeds: the worst p99 and peak, the means' mean. */
export interface BeyondRow {
  readonly shape: string;
  readonly rateScale: number;
  readonly pollerScaleSeconds: number;
  readonly label: string;
  readonly controller: ControllerKind;
  readonly p99OverTarget: number;
  readonly execPeak: number;
  readonly execMean: number;
  readonly warmMean: number;
  readonly deadLetters: number;
  readonly throttled: number;
  /** What it adds to the bill a month at the run's own pollers (lib/bench/cost.ts). */
  readonly dollarsPerMonth: number;
}

export interface BeyondOptions {
  readonly seeds: readonly number[];
  readonly readings?: readonly number[];
  /** Runs only the contenders whose label contains this. */
  readonly only?: string;
  /** Load files to run, as written, in place of the shipped shapes (a user's own, the held-out sets). */
  readonly traces?: readonly LoadFile[];
  readonly onRun?: (what: string) => void;
}

/** The shapes to run: the shipped ones scaled, or the given load files as written (scale 1, no extra contender). */
function shapesOf(options: BeyondOptions): { shape: BeyondShape; scenario: LoadFile }[] {
  if (options.traces === undefined)
    return BEYOND_SHAPES.map((shape) => ({
      shape,
      scenario: scaleScenario(loadScenario(shape.name), shape.rateScale, shape.timeScale),
    }));
  return options.traces.map((scenario) => ({
    shape: { name: scenario.name, rateScale: 1, timeScale: 1, extra: [] },
    scenario,
  }));
}

export async function runBeyond1000(options: BeyondOptions): Promise<BeyondRow[]> {
  const rows: BeyondRow[] = [];
  for (const { shape, scenario } of shapesOf(options)) {
    for (const pollerScaleSeconds of options.readings ?? [10, 60]) {
      for (const contender of [...BEYOND_CONTENDERS, ...shape.extra]) {
        if (options.only !== undefined && !contender.label.includes(options.only)) continue;
        const runs = [];
        for (const seed of options.seeds) {
          options.onRun?.(
            `${shape.name} × ${shape.rateScale} ${pollerScaleSeconds} s ${contender.label} seed ${seed}`,
          );
          runs.push(
            await runScenario({
              scenario,
              preset: 'lambda',
              controller: contender.controller,
              settings: contender.settings,
              seed,
              world: { pollerScaleSeconds },
            }),
          );
        }
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        const summaries = runs.map((r) => r.summary);
        rows.push({
          shape: shape.name,
          rateScale: shape.rateScale,
          pollerScaleSeconds,
          label: contender.label,
          controller: contender.controller,
          p99OverTarget: Math.max(...summaries.map((s) => s.p99WaitSeconds / s.targetAgeSeconds)),
          execPeak: Math.max(...summaries.map((s) => s.executions.peak)),
          execMean: mean(summaries.map((s) => s.executions.mean)),
          warmMean: mean(summaries.map((s) => s.warmEnvironments.mean)),
          deadLetters: summaries.reduce((n, s) => n + s.deadLettered, 0),
          throttled: summaries.reduce((n, s) => n + s.throttledInvocations, 0),
          dollarsPerMonth: mean(runs.map((r) => monthlyCost(contender.controller, r.config, r.summary) ?? 0)),
        });
      }
    }
  }
  return rows;
}

/** The shape and its rate scale (a load file replayed as written is named alone). */
function shapeLabel(row: BeyondRow): string {
  return row.rateScale === 1 ? row.shape : `${row.shape} × ${row.rateScale}`;
}

export function beyond1000Table(rows: readonly BeyondRow[]): string {
  const lines = [
    '| scenario | ramp | controller | p99 ÷ target (worst) | exec peak | exec mean | warm mean | DLQ · throttled | $ a month |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${shapeLabel(r)} | ${r.pollerScaleSeconds} s | ${r.label} | ${r.p99OverTarget.toFixed(2)} | ${r.execPeak} | ${r.execMean.toFixed(0)} | ${r.warmMean.toFixed(0)} | ${r.deadLetters} · ${r.throttled} | ${r.dollarsPerMonth.toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Issue 31's line, per shape and reading: the age law on provisioned mode meets the target where provisioned mode on
 * its own does, with a lower exec peak and mean, 0 dead letters and 0 throttled; met or missed, with the figures.
 */
export function beyond1000Verdicts(rows: readonly BeyondRow[]): string[] {
  const verdicts: string[] = [];
  const keys = [...new Set(rows.map((r) => `${r.shape}|${r.pollerScaleSeconds}`))];
  for (const key of keys) {
    const of = (label: string) =>
      rows.find((r) => `${r.shape}|${r.pollerScaleSeconds}` === key && r.label === label);
    const [law, alone] = [of('age law, provisioned'), of('provisioned')];
    if (law === undefined || alone === undefined) continue;
    const where = `${shapeLabel(law)}, ${law.pollerScaleSeconds} s reading`;
    const late = alone.p99OverTarget <= 1 && law.p99OverTarget > 1;
    // The mean is the work (arrivals × item time) wherever the queue is served: lighter is a lower peak and a mean
    // no heavier, within the bench's 5 % (bench.ts, `dominates`).
    const lighter = law.execPeak < alone.execPeak && law.execMean <= alone.execMean * 1.05;
    const clean = law.deadLetters === 0 && law.throttled === 0;
    const neither = alone.p99OverTarget > 1 && law.p99OverTarget > 1;
    const figures =
      `p99 ${law.p99OverTarget.toFixed(2)} × against ${alone.p99OverTarget.toFixed(2)} ×, exec peak ` +
      `${law.execPeak} against ${alone.execPeak}, mean ${law.execMean.toFixed(0)} against ` +
      `${alone.execMean.toFixed(0)}, ${law.deadLetters} dead letters, ${law.throttled} throttled, ` +
      `$${law.dollarsPerMonth.toFixed(2)} against $${alone.dollarsPerMonth.toFixed(2)} a month`;
    const why = [
      ...(neither ? ['neither meets the target'] : []),
      ...(late ? ['provisioned mode on its own meets the target, the age law does not'] : []),
      ...(lighter ? [] : ['not lighter (a lower peak, the mean within 5 %)']),
      ...(clean ? [] : ['not clean']),
    ];
    verdicts.push(
      `- ${where}: ${!late && lighter && clean ? 'met' : '**missed**'} (${figures})` +
        `${why.length === 0 ? '' : `: ${why.join('; ')}`}.`,
    );
  }
  return verdicts;
}
