/**
 * Beyond the standard mapping's 1,000 (issue 31): shipped shapes replayed at thousands of concurrent consumers, each
 * controller with what AWS lets it bound, side by side, seeds × both readings of the pollers' ramp:
 *
 *   npx tsx scripts/measure-beyond-1000.ts [--seeds 1-3]
 *
 * - native: the standard mapping, its MaximumConcurrency at AWS's highest, 1,000;
 * - provisioned: provisioned mode on its own, 2 to cap ÷ 10 pollers;
 * - age law, lockstep: the age law on the standard mapping, capped at 1,000 like native;
 * - age law, provisioned: the age law driving provisioned mode (actuator 'provisioned', floor 20), cap 5,000;
 * - on the diurnal day, the same with a scheduled floor around its peak (issue 31 item 2): what a user who knows the
 *   day's peak sets (`recommend` proposes one from a trace's daily peak), warming the pollers only then.
 *
 * `--only TEXT` runs the contenders whose label contains TEXT.
 *
 * The replays are thinned in time (`--time-scale` 0.3: phases a third as long) so that a run stays within the
 * simulator's 50 million messages; each still runs minutes at thousands of concurrent consumers. Per row: the worst
 * p99 wait ÷ target and exec peak over the seeds, the mean of the exec and warm-environment means, dead letters and
 * throttled invocations summed, and the $ a month at the run's own pollers (lib/bench/cost.ts).
 */
import { parseArgs } from 'node:util';
import { monthlyCost } from '../lib/bench/cost.ts';
import type { ScalerSettings } from '../lib/control/index.ts';
import { loadScenario, scaleScenario } from '../lib/load-file/load-file.ts';
import { type ControllerKind, runScenario } from '../lib/sim/run.ts';
import { seedsOf } from './seed-range.ts';

const CAP = 5_000;
const STANDARD_MAPPING_MAX = 1_000;

interface Contender {
  readonly label: string;
  readonly controller: ControllerKind;
  readonly settings: ScalerSettings;
}

const CONTENDERS: readonly Contender[] = [
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
 * 1,800). A floor of 1,500 from 00:04 to 00:14 of the run (the simulator's clock starts at 00:00 UTC) covers the
 * steps at and around the peak, from 35,000/s up and back.
 */
const DIURNAL_PEAK_FLOOR: Contender = {
  label: 'age law, provisioned, floor 1,500 at 2–14 min',
  controller: 'age-law',
  settings: {
    actuator: 'provisioned',
    minConcurrency: 20,
    maxConcurrency: CAP,
    floors: [{ schedule: 'cron(2 0 * * ? *)', minConcurrency: 1500, durationSeconds: 720 }],
  },
};

/** Shipped shapes at thousands: the seed's spike (800/s → 120,000/s, need 2,400) and the diurnal day (× 100). */
const SHAPES = [
  { name: 'seed-spike', rate: 150, time: 0.3, extra: [] },
  { name: 'diurnal', rate: 100, time: 0.3, extra: [DIURNAL_PEAK_FLOOR] },
] as const;

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '1-3' }, only: { type: 'string' } },
});
const seeds = seedsOf(values.seeds, 20);

console.log(
  '| scenario | ramp | controller | p99 ÷ target (worst) | exec peak | exec mean | warm mean | DLQ · throttled | $ a month |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const shape of SHAPES) {
  const scenario = scaleScenario(loadScenario(shape.name), shape.rate, shape.time);
  for (const pollerScaleSeconds of [10, 60]) {
    for (const contender of [...CONTENDERS, ...shape.extra]) {
      if (values.only !== undefined && !contender.label.includes(values.only)) continue;
      const p99s: number[] = [];
      const peaks: number[] = [];
      const execMeans: number[] = [];
      const warmMeans: number[] = [];
      const costs: number[] = [];
      let [dlq, throttled] = [0, 0];
      for (const seed of seeds) {
        process.stderr.write(`${shape.name} ${pollerScaleSeconds} s ${contender.label} seed ${seed}\n`);
        const { summary, config } = await runScenario({
          scenario,
          preset: 'lambda',
          controller: contender.controller,
          settings: contender.settings,
          seed,
          world: { pollerScaleSeconds },
        });
        p99s.push(summary.p99WaitSeconds / summary.targetAgeSeconds);
        peaks.push(summary.executions.peak);
        execMeans.push(summary.executions.mean);
        warmMeans.push(summary.warmEnvironments.mean);
        costs.push(monthlyCost(contender.controller, config, summary) ?? 0);
        dlq += summary.deadLettered;
        throttled += summary.throttledInvocations;
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(
        `| ${shape.name} × ${shape.rate} | ${pollerScaleSeconds} s | ${contender.label} | ${Math.max(...p99s).toFixed(2)} | ${Math.max(...peaks)} | ${mean(execMeans).toFixed(0)} | ${mean(warmMeans).toFixed(0)} | ${dlq} · ${throttled} | ${mean(costs).toFixed(2)} |`,
      );
    }
  }
}
