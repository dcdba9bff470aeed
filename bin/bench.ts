import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type BenchRow, benchScenario, benchTable } from '../lib/sim/bench.ts';
import { PRESET_NAMES, type PresetName } from '../lib/sim/presets.ts';
import { loadScenario, shippedScenarios } from '../lib/sim/scenario.ts';
import { parseOptions, runCli, UsageError } from './cli-error.ts';

const HELP = `Runs every shipped scenario through the age law and the baselines (fixed at the floor, fixed at the cap,
the seed's literal step rule, a KEDA-like depth rule) and prints a markdown table.

Usage: npm run bench -- [--preset lambda|seed] [--scenario NAME]... [--out FILE.md]

The trade-off column is concurrency-seconds ÷ the clairvoyant's × max(1, p99 wait ÷ target): the cost of the
concurrency, with a penalty only for missing the latency target. Lower is better; the best per scenario is bold.
"settled events/h" counts scale events in flat phases of at least 25 minutes, after their first 15 minutes.
Defaults: both presets (seed preset: seed-spike only, as in the article), every scenario, out/bench.md.`;

async function main(): Promise<void> {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        preset: { type: 'string', multiple: true },
        scenario: { type: 'string', multiple: true },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }),
  );
  if (values.help) {
    console.log(HELP);
    return;
  }
  const presets = (values.preset ?? PRESET_NAMES) as PresetName[];
  for (const p of presets)
    if (!PRESET_NAMES.includes(p))
      throw new UsageError(`--preset '${p}': must be one of ${PRESET_NAMES.join(', ')}`);
  const scenarios = values.scenario ?? shippedScenarios();
  const sections: string[] = [];
  for (const preset of presets) {
    // The seed preset is the article's 50 ms pool: its own spike is the scenario it describes.
    const names = preset === 'seed' && values.scenario === undefined ? ['seed-spike'] : scenarios;
    const rows: BenchRow[] = [];
    for (const name of names) {
      rows.push(
        ...(await benchScenario(loadScenario(name), preset, (row) =>
          process.stderr.write(
            `${preset} ${row.scenario} ${row.controller}: ${row.summary.wallSeconds.toFixed(1)} s\n`,
          ),
        )),
      );
    }
    sections.push(`### ${preset} preset\n\n${benchTable(rows)}`);
  }
  const markdown = `${sections.join('\n\n')}\n`;
  console.log(markdown);
  const out = values.out ?? 'out/bench.md';
  mkdirSync(out.replace(/\/[^/]*$/, '') || '.', { recursive: true });
  writeFileSync(out, markdown);
  process.stderr.write(`wrote ${out}\n`);
}

await runCli('bench', main);
