/**
 * Measures the simulator at the edges of what it accepts (lib/sim/limits.ts): wall time, simulated seconds per
 * wall second and peak memory (the process's maximum resident set) of each largest accepted input, each in a
 * process of its own so one's memory does not hide in another's. A measuring script, not a test: the numbers
 * depend on the machine (docs/simulator.md, "Speed and memory").
 *
 *   npx tsx scripts/measure-simulator.ts [CASE]...
 */
import { execFileSync } from 'node:child_process';
import { resourceUsage } from 'node:process';
import type { ScalerSettings } from '../lib/control/config.ts';
import { type LoadFile, loadScenario, scaleScenario } from '../lib/load-file/load-file.ts';
import type { PresetName } from '../lib/sim/presets.ts';
import { type ControllerKind, runScenario } from '../lib/sim/run.ts';
import type { SimWorld } from '../lib/sim/world.ts';

interface Case {
  readonly what: string;
  readonly preset: PresetName;
  readonly controller: ControllerKind;
  readonly settings?: ScalerSettings;
  readonly world?: Partial<SimWorld>;
  scenario(): LoadFile;
}

const flat = (name: string, seconds: number, rate: number, itemMs = 20): LoadFile => ({
  name,
  phases: [{ durationSeconds: seconds, ratePerSecond: rate, itemMs }],
});

const CASES: Record<string, Case> = {
  'seed-spike': {
    what: 'the seed spike (lambda preset, age law)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => loadScenario('seed-spike'),
  },
  'nasa-day': {
    what: 'a 24-hour per-minute trace, 1,440 phases (NASA-HTTP, as shipped)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => loadScenario('trace-nasa-http-1995-07-13'),
  },
  'nasa-day-x100': {
    what: 'the same day at --rate-scale 100 (13.4 million messages, beyond the cap: a growing backlog)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => scaleScenario(loadScenario('trace-nasa-http-1995-07-13'), 100, 1),
  },
  'day-50m': {
    what: '50 million messages over 24 hours (579/s), all processed (age law)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => flat('day-50m', 86_400, 578.7),
  },
  'backlog-50m': {
    what: '50 million messages in 50 s (1,000,000/s), fixed at the floor: nearly all still queued at the end',
    preset: 'lambda',
    controller: 'fixed-floor',
    scenario: () => flat('backlog-50m', 50, 1_000_000),
  },
  'downstream-50m': {
    what: '50 million messages over 24 hours against a pool of 20 and an API at 2,000 calls/s (an event per item)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => ({
      ...flat('downstream-50m', 86_400, 578.7),
      downstream: { connectionPool: 20, apiRatePerSecond: 2000 },
    }),
  },
  'overpull-47m': {
    what: '46.8 million messages in an hour with reserved concurrency 2 and no mapping maximum: 1,250 pollers overpull',
    preset: 'lambda',
    controller: 'fixed-floor',
    settings: { actuator: 'reserved' },
    scenario: () => flat('overpull-47m', 3600, 13_000),
  },
  'phases-100k': {
    what: '100,000 one-second phases at 200/s (20 million messages)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => ({
      name: 'phases-100k',
      phases: Array.from({ length: 100_000 }, (_, i) => ({
        durationSeconds: 1,
        ratePerSecond: i % 600 < 60 ? 400 : 180,
        itemMs: 20,
      })),
    }),
  },
  'phase-waits-50m': {
    what: '50 million messages in 23,800 one-second phases of 2,100 (each phase keeps 2,100 exact waits in room for 4,096)',
    preset: 'lambda',
    controller: 'age-law',
    scenario: () => ({
      name: 'phase-waits-50m',
      phases: Array.from({ length: 23_800 }, () => ({ durationSeconds: 1, ratePerSecond: 2100, itemMs: 1 })),
    }),
  },
  'ticks-1m': {
    what: 'a million controller ticks: the seed preset (50 ms ticks) for 50,000 s at 50/s',
    preset: 'seed',
    controller: 'age-law',
    scenario: () => flat('ticks-1m', 50_000, 50),
  },
};

async function measure(name: string): Promise<void> {
  const c = CASES[name] as Case;
  const { summary } = await runScenario({
    scenario: c.scenario(),
    preset: c.preset,
    controller: c.controller,
    settings: c.settings,
    world: c.world,
  });
  console.log(
    JSON.stringify({
      case: name,
      what: c.what,
      messages: summary.sent,
      simulatedSeconds: summary.simulatedSeconds,
      wallSeconds: Number(summary.wallSeconds.toFixed(1)),
      simulatedPerWall: Math.round(summary.simulatedSeconds / summary.wallSeconds),
      peakRssMB: Math.round(resourceUsage().maxRSS / 1024),
      lost: summary.lost,
    }),
  );
}

const HELP = `Measures the simulator at the edges of what it accepts: wall time, simulated seconds per wall second and
peak memory of each case, each in a process of its own (one JSON line per case).

Usage: npx tsx scripts/measure-simulator.ts [CASE]...   (no CASE: all of them)

Cases:
${Object.entries(CASES)
  .map(([name, c]) => `  ${name.padEnd(16)}${c.what}`)
  .join('\n')}
`;

const [flag, only] = process.argv.slice(2);
if (flag === '--help' || flag === '-h') {
  process.stdout.write(HELP);
} else if (flag === '--case' && only !== undefined) {
  await measure(only);
} else {
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(CASES);
  const unknown = names.filter((name) => !(name in CASES));
  if (unknown.length > 0) {
    // A user's mistake: one line, no stack trace, nothing measured yet.
    console.error(
      `measure-simulator: unknown case ${unknown.join(', ')} (known: ${Object.keys(CASES).join(', ')}; see --help)`,
    );
    process.exit(2);
  }
  for (const name of names) {
    process.stdout.write(
      execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--case', name], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
  }
}
