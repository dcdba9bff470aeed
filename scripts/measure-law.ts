/**
 * Measures the control law on what the fast path and the setpoint must achieve (lambda preset, the age law,
 * seeds 1–5), and prints markdown tables:
 *
 *   npx tsx scripts/measure-law.ts [--seeds 1-5]
 *
 * - every shipped scenario: p99 wait ÷ target, concurrency-seconds ÷ the clairvoyant, scale events, peak,
 *   throttled, dead-lettered, lost; and the worst phase's p99 wait ÷ target counting only messages sent after the
 *   scenario's first 5 minutes (the run is replayed with its phases split at 300 s, so that a phase's waits after
 *   minute 5 are a phase of their own: the same load, a different random draw);
 * - settled scale events per hour (flat phases of ≥ 25 minutes, after their first 15, as the bench counts them);
 * - seed-spike: the floor before and after the spike;
 * - downstream-slowdown: peak concurrency in the slow phase against its value before, the value it returns to,
 *   and the share of slow-phase ticks with the shed signal on;
 * - sawtooth: scale events per 20-minute cycle and direction reversals within a phase (oscillation);
 * - the seed preset's seed-spike: 2 → peak → 2.
 */
import { parseArgs } from 'node:util';
import { settledScaleEventsPerHour } from '../lib/bench/bench.ts';
import { type LoadFile, loadScenario, type Phase, shippedScenarios } from '../lib/load-file/load-file.ts';
import { runScenario } from '../lib/sim/run.ts';

const WARM_UP_SECONDS = 300;

function splitAt(scenario: LoadFile, at: number): { scenario: LoadFile; measured: boolean[] } {
  const phases: Phase[] = [];
  const measured: boolean[] = [];
  let start = 0;
  for (const p of scenario.phases) {
    const end = start + p.durationSeconds;
    if (start < at && end > at) {
      phases.push({ ...p, durationSeconds: at - start }, { ...p, durationSeconds: end - at });
      measured.push(false, true);
    } else {
      phases.push(p);
      measured.push(start >= at);
    }
    start = end;
  }
  return { scenario: { name: scenario.name, phases }, measured };
}

/**
 * Oscillations within one phase: a growth after a shrink at the same load (the law undoing its own shrink).
 * Growing for a surge and then releasing the drain's surplus is following the load, not counted. A change at the
 * very instant a phase starts is the tick that has not seen the new phase yet: it counts to the phase before.
 */
function reversalsWithinPhases(phases: readonly Phase[], changes: readonly (readonly [number, number])[]) {
  let reversals = 0;
  let start = 0;
  let value = changes[0]?.[1] ?? 0;
  for (const phase of phases) {
    const end = start + phase.durationSeconds;
    let direction = 0;
    for (const [t, v] of changes.slice(1)) {
      if (t <= start) {
        value = v;
        continue;
      }
      if (t > end) break;
      const d = Math.sign(v - value);
      if (direction < 0 && d > 0) reversals++;
      if (d !== 0) direction = d;
      value = v;
    }
    start = end;
  }
  return reversals;
}

const f = (x: number | undefined, digits = 2) => (x === undefined ? '–' : x.toFixed(digits));

const USAGE = `usage: npx tsx scripts/measure-law.ts [--seeds FROM-TO]

Runs every shipped scenario with the age law (lambda preset) for each seed, and the seed preset's seed-spike,
and prints the acceptance tables as markdown. --seeds: a range of whole numbers, e.g. 1-5 (the default), 1-20.`;

/** The seeds asked for, or a one-line reason why not. */
function seedsFrom(given: string | undefined): number[] | string {
  const match = /^(\d+)(?:-(\d+))?$/.exec(given ?? '1-5');
  if (!match) return `--seeds = '${given}': must be FROM-TO, two whole numbers, e.g. 1-5`;
  const from = Number(match[1]);
  const to = Number(match[2] ?? match[1]);
  if (to < from || to - from >= 100) return `--seeds = '${given}': FROM-TO with FROM ≤ TO, at most 100 seeds`;
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

async function main(): Promise<void> {
  let values: { seeds?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { seeds: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    console.error(`measure-law: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const seeds = seedsFrom(values.seeds);
  if (typeof seeds === 'string') {
    console.error(`measure-law: ${seeds}`);
    process.exit(2);
  }
  const scenarios = shippedScenarios();

  console.log('### Every shipped scenario (lambda preset, age law)\n');
  console.log(
    '| scenario | seed | p99 ÷ target | worst phase p99 ÷ target after 5 min | conc-s ÷ oracle | scale events | settled events/h | peak | throttled | dead-lettered | lost |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const slowdown: string[] = [];
  const spike: string[] = [];
  const sawtooth: string[] = [];
  for (const name of scenarios) {
    const scenario = loadScenario(name);
    for (const seed of seeds) {
      const settings = process.env.SETTINGS ? JSON.parse(process.env.SETTINGS) : undefined;
      const { summary, result, config } = await runScenario({ scenario, preset: 'lambda', seed, settings });
      const split = splitAt(scenario, WARM_UP_SECONDS);
      const after = await runScenario({ scenario: split.scenario, preset: 'lambda', seed, settings });
      const worst = Math.max(
        ...after.summary.phases.filter((_, i) => split.measured[i]).map((p) => p.p99WaitSeconds),
      );
      const target = config.targetAgeSeconds;
      const changes = result.concurrencyChanges;
      console.log(
        `| ${name} | ${seed} | ${f(summary.p99WaitSeconds / target)} | ${f(worst / target)} | ${f(summary.concurrencySeconds / summary.oracleConcurrencySeconds)} | ${summary.scaleEvents} | ${f(settledScaleEventsPerHour(scenario.phases, changes.slice(1)), 1)} | ${summary.peakConcurrency} | ${summary.throttledInvocations} | ${summary.deadLettered} | ${summary.lost} |`,
      );
      if (name === 'seed-spike') {
        const [before, , last] = summary.phases;
        spike.push(
          `| ${seed} | ${f(summary.p99WaitSeconds / target)} | ${f(summary.concurrencySeconds / summary.oracleConcurrencySeconds)} | ${before?.minConcurrency}–${before?.peakConcurrency} | ${last?.finalConcurrency} | ${summary.phases[1]?.peakConcurrency} | ${summary.lost} | ${summary.throttledInvocations} | ${summary.deadLettered} |`,
        );
      }
      if (name === 'downstream-slowdown') {
        const slowFrom = scenario.phases[0]?.durationSeconds ?? 0;
        const slowTo = slowFrom + (scenario.phases[1]?.durationSeconds ?? 0);
        const ticks = result.timeline.filter((s) => s.time > slowFrom && s.time <= slowTo);
        const beforeValue = result.timeline.filter((s) => s.time <= slowFrom).at(-1)?.applied ?? 0;
        const slowPeak = summary.phases[1]?.peakConcurrency ?? 0;
        const endOfSlow = summary.phases[1]?.finalConcurrency ?? 0;
        const shedShare = ticks.filter((s) => s.shed).length / Math.max(1, ticks.length);
        slowdown.push(
          `| ${seed} | ${beforeValue} | ${slowPeak} | ${f(slowPeak / Math.max(1, beforeValue))} | ${endOfSlow} | ${f(100 * shedShare, 0)} % |`,
        );
      }
      if (name === 'sawtooth') {
        const cycles = scenario.phases.length / 2;
        sawtooth.push(
          `| ${seed} | ${f(summary.scaleEvents / cycles, 1)} | ${reversalsWithinPhases(scenario.phases, changes)} | ${summary.phases.map((p) => `${p.minConcurrency}–${p.peakConcurrency}`).join(', ')} |`,
        );
      }
    }
  }
  console.log('\n### seed-spike\n');
  console.log(
    '| seed | p99 ÷ target | conc-s ÷ oracle | before spike (min–peak) | final | spike peak | lost | throttled | dead-lettered |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(spike.join('\n'));
  console.log('\n### downstream-slowdown\n');
  console.log(
    '| seed | before | peak in slow phase | ÷ before | end of slow phase | shed on (slow-phase ticks) |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(slowdown.join('\n'));
  console.log('\n### sawtooth\n');
  console.log(
    '| seed | scale events per 20-min cycle | growths after a shrink within a phase | per phase (min–peak) |',
  );
  console.log('|---|---|---|---|');
  console.log(sawtooth.join('\n'));
  console.log('\n### seed preset (the article)\n');
  console.log('| seed | phase 1 (min–peak–final) | phase 2 | phase 3 |');
  console.log('|---|---|---|---|');
  for (const seed of seeds) {
    const { summary } = await runScenario({ scenario: loadScenario('seed-spike'), preset: 'seed', seed });
    console.log(
      `| ${seed} | ${summary.phases.map((p) => `${p.minConcurrency}–${p.peakConcurrency}–${p.finalConcurrency}`).join(' | ')} |`,
    );
  }
}

await main();
