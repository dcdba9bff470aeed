/**
 * Measures the age law against AWS's own scaling on transients (lambda preset), for the closing note: every
 * scenario × seeds × both readings of the pollers' ramp (pollerScaleSeconds 10 and 60), and prints markdown:
 *
 *   npx tsx scripts/measure-transients.ts [--seeds 1-5] [--trace FILE.csv ...] [--start 0[,10,30]]
 *
 * Per scenario and reading: the age law's, native's and provisioned's worst p99 wait ÷ target and worst exec peak
 * over the seeds; on how many seeds the age law is dominated (the bench's rule, among the three); dead letters,
 * throttled invocations and lost messages summed over seeds. Then, for every scenario that starts from quiet, the
 * reaction: seconds from the first message after a quiet stretch of 5 minutes or more to the age law's first
 * growth. `--trace` replaces the shipped scenarios with your own files; `--start S` is the simulator's
 * controllerStartSeconds (0: the controller runs when the load starts). Every shipped scenario changes its load on a
 * whole minute, the controller's tick: `--start 0,10,30` runs each offset in turn, so a change to the law is not judged
 * on one phase of the minute only.
 */
import { type BenchRow, dominates } from '../lib/bench/bench.ts';
import { monthlyCost } from '../lib/bench/cost.ts';
import { type LoadFile, loadScenario, readLoadFile, shippedScenarios } from '../lib/load-file/load-file.ts';
import { type ControllerKind, runScenario } from '../lib/sim/run.ts';
import { orExit, scriptArgs } from './script-args.ts';
import { seedsOf, startsOf } from './seed-range.ts';

const CONTROLLERS: ControllerKind[] = ['age-law', 'native', 'provisioned'];
const QUIET_SECONDS = 300;

/** The starts of bursts from quiet: the first second of a loaded phase after ≥ 5 minutes without arrivals. */
function burstStarts(scenario: LoadFile): number[] {
  const starts: number[] = [];
  let t = 0;
  let quietSince = 0;
  for (const phase of scenario.phases) {
    if (phase.ratePerSecond > 0) {
      if (t - quietSince >= QUIET_SECONDS || t === 0) starts.push(t);
      quietSince = Number.POSITIVE_INFINITY;
    } else if (quietSince === Number.POSITIVE_INFINITY) quietSince = t;
    t += phase.durationSeconds;
  }
  return starts.filter((s) => s > 0);
}

// Files after `--trace` are traces too (`--trace a.csv b.csv`, as a shell glob gives them).
const USAGE =
  'usage: npx tsx scripts/measure-transients.ts [--seeds 1-5] [--trace FILE.csv ...] [--start 0[,10,30]]';
const { values, positionals } = scriptArgs(
  {
    seeds: { type: 'string', default: '1-5' },
    trace: { type: 'string', multiple: true },
    start: { type: 'string', default: '0' },
    help: { type: 'boolean', default: false },
  },
  USAGE,
);
const seeds = orExit(() => seedsOf(values.seeds));
const controllerStarts = orExit(() => startsOf(values.start));
const traces = [...(values.trace ?? []), ...positionals];
const scenarios: LoadFile[] = traces.length
  ? traces.map((path) => orExit(() => readLoadFile(path)))
  : shippedScenarios().map((name) => loadScenario(name));

/** Each reading of the pollers' ramp at each offset of the controller's tick. */
function readings(): [number, number][] {
  return [10, 60].flatMap((ramp) => controllerStarts.map((start): [number, number] => [ramp, start]));
}
const ramp = (pollerScaleSeconds: number, controllerStartSeconds: number) =>
  controllerStarts.length > 1 || controllerStartSeconds > 0
    ? `${pollerScaleSeconds} s, tick +${controllerStartSeconds} s`
    : `${pollerScaleSeconds} s`;

const reactions: string[] = [];
console.log(
  '| scenario | ramp | age law p99 ÷ target · peak | native | provisioned | law dominated (seeds) | DLQ · throttled · lost | $ a month: law · provisioned |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const scenario of scenarios) {
  for (const [pollerScaleSeconds, controllerStartSeconds] of readings()) {
    const rows = new Map<ControllerKind, BenchRow[]>(CONTROLLERS.map((c) => [c, []]));
    let dominatedSeeds = 0;
    let [dlq, throttled, lost] = [0, 0, 0];
    const delays: number[] = [];
    for (const seed of seeds) {
      const trio: BenchRow[] = [];
      for (const controller of CONTROLLERS) {
        const { summary, result, config } = await runScenario({
          scenario,
          preset: 'lambda',
          controller,
          seed,
          world: { pollerScaleSeconds, controllerStartSeconds },
        });
        const row: BenchRow = {
          scenario: scenario.name,
          controller,
          summary,
          p99OverTarget: summary.p99WaitSeconds / summary.targetAgeSeconds,
          monthlyCost: monthlyCost(controller, config, summary),
        };
        trio.push(row);
        rows.get(controller)?.push(row);
        if (controller === 'age-law') {
          dlq += summary.deadLettered;
          throttled += summary.throttledInvocations;
          lost += summary.lost;
          for (const start of burstStarts(scenario)) {
            const before = result.concurrencyChanges.filter(([t]) => t <= start).at(-1)?.[1] ?? 0;
            const growth = result.concurrencyChanges.find(([t, v]) => t > start && v > before);
            if (growth) delays.push(growth[0] - start);
          }
        }
      }
      const [law, ...others] = trio as [BenchRow, ...BenchRow[]];
      if (others.some((o) => dominates(o, law))) dominatedSeeds++;
    }
    const worst = (c: ControllerKind) => {
      const r = rows.get(c) ?? [];
      const p99 = Math.max(...r.map((x) => x.p99OverTarget));
      const peaks = r.map((x) => x.summary.executions.peak);
      const [lo, hi] = [Math.min(...peaks), Math.max(...peaks)];
      return `${p99.toFixed(2)} · ${lo === hi ? lo : `${lo}–${hi}`}`;
    };
    const cost = (c: ControllerKind) =>
      Math.max(...(rows.get(c) ?? []).map((x) => x.monthlyCost ?? 0)).toFixed(2);
    console.log(
      `| ${scenario.name} | ${ramp(pollerScaleSeconds, controllerStartSeconds)} | ${worst('age-law')} | ${worst('native')} | ${worst('provisioned')} | ${dominatedSeeds} of ${seeds.length} | ${dlq} · ${throttled} · ${lost} | ${cost('age-law')} · ${cost('provisioned')} |`,
    );
    if (delays.length > 0)
      reactions.push(
        `| ${scenario.name} | ${ramp(pollerScaleSeconds, controllerStartSeconds)} | ${delays.length} | ${Math.min(...delays).toFixed(0)} | ${Math.max(...delays).toFixed(0)} |`,
      );
  }
}
if (reactions.length > 0) {
  console.log(
    '\nReaction: seconds from the first message after ≥ 5 quiet minutes to the first growth (all seeds)\n',
  );
  console.log('| scenario | ramp | bursts | fastest | slowest |');
  console.log('|---|---|---|---|---|');
  for (const line of reactions) console.log(line);
}
