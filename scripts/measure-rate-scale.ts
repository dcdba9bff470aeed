/**
 * Measures what replaying a load smaller than it is costs in accuracy, for `recommend`'s replay of a trace too big
 * to replay in full (docs/operator-tools.md, "recommend"). For every shipped scenario (lambda preset, seeds 1–5,
 * the worst seed on each count as `recommend` reports it), the figures at the scenario's own rates against:
 *
 * - rate scale k (`scaleScenario`, as `--rate-scale`): rates × k, the cap × k (at least 2, the mapping's minimum),
 *   a pool and an API rate × k; concurrency figures scaled back × 1/k;
 * - thinning k (lib/operator/replay-thinning.ts, what `recommend` does): rates × k, item times ÷ k, nothing scaled back.
 *
 * It prints, per scenario and replay, p99 wait ÷ target (the difference, in units of the target: a relative error
 * of a p99 near 0 means nothing), and the relative errors of the exec peak, the exec mean and the scale events;
 * then a summary per replay. `--week` instead times `recommend` on a synthetic 7-day trace (one phase an hour, a
 * daily cycle from 100/s to 1,000/s, 20 ms items) written to a temporary directory: wall time and peak memory;
 * `--week-check` replays its first day (47.5 million messages, inside the simulator's bound) at its own rates
 * and thinned at the week's k (seed 1 unless --seeds), for the error of the week's own figures.
 *
 *   npx tsx scripts/measure-rate-scale.ts [--seeds 1-5] [--controller age-law]... [--scenario NAME]...
 *   npx tsx scripts/measure-rate-scale.ts --week [--week-check [--seeds 1-1]]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchRow } from '../lib/bench/bench.ts';
import { type SeedFigures, seedFigures } from '../lib/bench/seed-figures.ts';
import { type LoadFile, loadScenario, scaleScenario, shippedScenarios } from '../lib/load-file/load-file.ts';
import { RECOMMEND_CONTROLLERS } from '../lib/operator/recommend-run.ts';
import { planReplay } from '../lib/operator/replay-limit.ts';
import { thin } from '../lib/operator/replay-thinning.ts';
import type { DownstreamModel } from '../lib/sim/downstream.ts';
import { PRESETS } from '../lib/sim/presets.ts';
import { CONTROLLER_KINDS, type ControllerKind, downstreamFor, runScenario } from '../lib/sim/run.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TIME = '/usr/bin/time';

interface Replay {
  readonly label: string;
  readonly method: 'rate-scale' | 'thinning';
  readonly k: number;
}

const REPLAYS: readonly Replay[] = [
  { label: 'rate scale 0.5', method: 'rate-scale', k: 0.5 },
  { label: 'rate scale 0.2', method: 'rate-scale', k: 0.2 },
  { label: 'thinning 0.5', method: 'thinning', k: 0.5 },
  { label: 'thinning 0.2', method: 'thinning', k: 0.2 },
  // What a week of a busy queue needs (lib/operator/replay-limit.ts): 0.015 for one peaking at 1,000/s.
  { label: 'thinning 0.05', method: 'thinning', k: 0.05 },
  { label: 'thinning 0.02', method: 'thinning', k: 0.02 },
];

const LAMBDA = PRESETS.lambda;

function seedList(raw: string): number[] {
  const m = /^(\d+)-(\d+)$/.exec(raw);
  if (m === null || Number(m[1]) > Number(m[2])) {
    console.error(`measure-rate-scale: --seeds '${raw}': must be FROM-TO with FROM ≤ TO (e.g. 1-5)`);
    process.exit(2);
  }
  return Array.from({ length: Number(m[2]) - Number(m[1]) + 1 }, (_, i) => Number(m[1]) + i);
}

function scaledDownstream(model: DownstreamModel | undefined, k: number): DownstreamModel | undefined {
  if (model === undefined) return undefined;
  return {
    ...model,
    ...(model.connectionPool === undefined
      ? {}
      : { connectionPool: Math.max(1, Math.round(model.connectionPool * k)) }),
    ...(model.apiRatePerSecond === undefined ? {} : { apiRatePerSecond: model.apiRatePerSecond * k }),
  };
}

/** Runs one controller on every seed of a scenario as the replay has it, concurrency figures in the trace's units. */
async function figures(
  scenario: LoadFile,
  controller: ControllerKind,
  seeds: readonly number[],
  replay?: Replay,
): Promise<SeedFigures> {
  const rows = [];
  for (const seed of seeds) {
    let run: Awaited<ReturnType<typeof runScenario>>;
    if (replay === undefined) {
      run = await runScenario({ scenario, preset: 'lambda', controller, seed });
    } else if (replay.method === 'thinning') {
      const t = thin(scenario, LAMBDA.world, replay.k, downstreamFor(scenario));
      run = await runScenario({
        scenario: t.scenario,
        preset: 'lambda',
        controller,
        seed,
        world: t.world,
        downstream: t.downstream,
      });
    } else {
      const cap = Math.max(2, Math.round(Number(LAMBDA.settings.maxConcurrency) * replay.k));
      run = await runScenario({
        scenario: scaleScenario(scenario, replay.k, 1),
        preset: 'lambda',
        controller,
        seed,
        settings: { maxConcurrency: cap },
        downstream: scaledDownstream(downstreamFor(scenario), replay.k),
      });
    }
    rows.push(benchRow(scenario.name, 'lambda', controller, run));
  }
  const f = seedFigures(rows);
  if (replay?.method !== 'rate-scale') return f;
  return { ...f, peak: f.peak / replay.k, mean: f.mean / replay.k };
}

interface Errors {
  readonly p99: number;
  readonly flips: boolean;
  readonly peak: number;
  readonly mean: number;
  readonly events: number | undefined;
}

const relative = (replayed: number, own: number) => (own === 0 ? 0 : (replayed - own) / own);

function errors(own: SeedFigures, replayed: SeedFigures): Errors {
  return {
    p99: replayed.p99OverTarget - own.p99OverTarget,
    flips: own.p99OverTarget <= 1 !== replayed.p99OverTarget <= 1,
    peak: relative(replayed.peak, own.peak),
    mean: relative(replayed.mean, own.mean),
    events:
      own.scaleEvents === 0 && replayed.scaleEvents === 0
        ? undefined
        : relative(replayed.scaleEvents, own.scaleEvents),
  };
}

const pct = (x: number | undefined) =>
  x === undefined ? '–' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)} %`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** |values|: median / worst. */
function spread(values: number[], show: (x: number) => string): string {
  const abs = values.map(Math.abs);
  return abs.length === 0 ? '–' : `${show(median(abs))} / ${show(Math.max(...abs))}`;
}

const unsignedPct = (x: number) => `${(x * 100).toFixed(0)} %`;

async function measureScenarios(
  names: readonly string[],
  controllers: readonly ControllerKind[],
  seeds: readonly number[],
): Promise<void> {
  for (const controller of controllers) {
    const lines = [
      `### ${controller}, seeds ${seeds[0]}–${seeds[seeds.length - 1]} (the worst seed on each count)`,
      '',
      '| scenario | replay | p99 ÷ target: own → replayed (Δ) | exec peak: own → replayed (error) | exec mean error | scale events error |',
      '|---|---|---|---|---|---|',
    ];
    const all = new Map<string, Errors[]>(REPLAYS.map((r) => [r.label, []]));
    for (const name of names) {
      const scenario = loadScenario(name);
      const started = performance.now();
      const own = await figures(scenario, controller, seeds);
      for (const replay of REPLAYS) {
        const replayed = await figures(scenario, controller, seeds, replay);
        const e = errors(own, replayed);
        all.get(replay.label)?.push(e);
        lines.push(
          `| ${name} | ${replay.label} | ${own.p99OverTarget.toFixed(2)} → ${replayed.p99OverTarget.toFixed(2)} (${signed(e.p99)})${e.flips ? ' **flips**' : ''} | ${own.peak.toFixed(0)} → ${replayed.peak.toFixed(1)} (${pct(e.peak)}) | ${pct(e.mean)} | ${pct(e.events)} |`,
        );
      }
      process.stderr.write(`${controller} ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    }
    lines.push(
      '',
      `Summary (${controller}; |error|: median / worst over the ${names.length} scenarios):`,
      '',
      '| replay | p99 ÷ target \\|Δ\\| | meets-the-target verdict flipped | exec peak | exec mean | scale events |',
      '|---|---|---|---|---|---|',
    );
    for (const replay of REPLAYS) {
      const e = all.get(replay.label) ?? [];
      const events = e.map((x) => x.events).filter((x): x is number => x !== undefined);
      lines.push(
        `| ${replay.label} | ${spread(
          e.map((x) => x.p99),
          (x) => x.toFixed(2),
        )} | ${e.filter((x) => x.flips).length} of ${e.length} | ${spread(
          e.map((x) => x.peak),
          unsignedPct,
        )} | ${spread(
          e.map((x) => x.mean),
          unsignedPct,
        )} | ${spread(events, unsignedPct)} |`,
      );
    }
    console.log(`${lines.join('\n')}\n`);
  }
}

/** A week at one phase an hour: 100/s at 04:00, 1,000/s at 16:00, a cosine between; 20 ms items. */
function weekTrace(): string {
  const rows = Array.from({ length: 7 * 24 }, (_, h) => {
    const rate = 100 + (900 * (1 - Math.cos((2 * Math.PI * ((h + 20) % 24)) / 24))) / 2;
    return `3600,${rate.toFixed(1)},20`;
  });
  return `# a synthetic week: one phase an hour, 100/s at 04:00 to 1,000/s at 16:00, 20 ms items\nduration_s,rate_per_s,item_ms\n${rows.join('\n')}\n`;
}

/** `recommend` on the synthetic week in a process of its own, under /usr/bin/time -v where there is one. */
function measureWeek(): void {
  const dir = mkdtempSync(join(tmpdir(), 'measure-week-'));
  try {
    const file = join(dir, 'week.csv');
    writeFileSync(file, weekTrace());
    const command = [...process.execArgv, join(ROOT, 'bin/recommend.ts'), '--trace', file];
    const timed = existsSync(TIME);
    const started = performance.now();
    const child = spawnSync(
      timed ? TIME : process.execPath,
      timed ? ['-v', process.execPath, ...command] : command,
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const wall = (performance.now() - started) / 1000;
    console.log(child.stdout);
    if (child.status !== 0) {
      console.error(`measure-rate-scale: recommend exited ${child.status}:\n${child.stderr}`);
      process.exit(1);
    }
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(child.stderr)?.[1];
    console.log(
      `7-day trace (${weekTrace().split('\n').length - 3} hourly phases): wall ${wall.toFixed(1)} s, peak memory ${
        rss === undefined
          ? 'not measured (no /usr/bin/time)'
          : `${Math.round(Number(rss) / 1024)} MB (maximum resident set)`
      }`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The week's first day (47.5 million messages, inside the simulator's bound) at its own rates against thinned
 * at the k `recommend` picks for the whole week: the error of the week's figures, measured where it can be.
 */
async function checkWeek(seeds: readonly number[]): Promise<void> {
  const week = weekTrace()
    .split('\n')
    .filter((l) => /^\d/.test(l));
  const day: LoadFile = {
    name: 'week-day-1',
    phases: week.slice(0, 24).map((row) => {
      const [d, r, i] = row.split(',').map(Number) as [number, number, number];
      return { durationSeconds: d, ratePerSecond: r, itemMs: i };
    }),
  };
  const weekMessages = 7 * day.phases.reduce((s, p) => s + p.ratePerSecond * p.durationSeconds, 0);
  const k = planReplay(
    Array.from({ length: 7 }, () => day.phases).flat(),
    RECOMMEND_CONTROLLERS.length * 5,
  ).k;
  const lines = [
    `### The synthetic week's first day (${Math.round(weekMessages / 7).toLocaleString('en-US')} messages) at its own rates against thinned at the week's k = ${k}, seeds ${seeds.join(', ')}`,
    '',
    '| controller | p99 ÷ target: own → thinned | exec peak: own → thinned | exec mean: own → thinned |',
    '|---|---|---|---|',
  ];
  for (const controller of RECOMMEND_CONTROLLERS) {
    const own = await figures(day, controller, seeds);
    const thinned = await figures(day, controller, seeds, { label: `thinning ${k}`, method: 'thinning', k });
    lines.push(
      `| ${controller} | ${own.p99OverTarget.toFixed(2)} → ${thinned.p99OverTarget.toFixed(2)} | ${own.peak} → ${thinned.peak} | ${own.mean.toFixed(2)} → ${thinned.mean.toFixed(2)} |`,
    );
    process.stderr.write(`week check ${controller} done\n`);
  }
  console.log(`${lines.join('\n')}\n`);
}

const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    controller: { type: 'string', multiple: true },
    scenario: { type: 'string', multiple: true },
    week: { type: 'boolean' },
    'week-check': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  console.log(
    'Usage: npx tsx scripts/measure-rate-scale.ts [--seeds 1-5] [--controller age-law]... [--scenario NAME]... [--week] [--week-check]',
  );
} else if (values.week || values['week-check']) {
  if (values.week) measureWeek();
  if (values['week-check']) await checkWeek(seedList(values.seeds ?? '1-1'));
} else {
  const controllers = (values.controller ?? ['age-law']) as ControllerKind[];
  for (const c of controllers)
    if (!CONTROLLER_KINDS.includes(c)) {
      console.error(`measure-rate-scale: --controller '${c}': must be one of ${CONTROLLER_KINDS.join(', ')}`);
      process.exit(2);
    }
  const known = shippedScenarios();
  const names = values.scenario ?? known;
  for (const n of names)
    if (!known.includes(n)) {
      console.error(`measure-rate-scale: unknown scenario '${n}' (known: ${known.join(', ')})`);
      process.exit(2);
    }
  await measureScenarios(names, controllers, seedList(values.seeds ?? '1-5'));
}
