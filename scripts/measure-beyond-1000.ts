/**
 * Beyond the standard mapping's 1,000 (issue 31): shipped shapes replayed at thousands of concurrent consumers, each
 * controller with what AWS lets it bound, side by side, seeds × both readings of the pollers' ramp
 * (lib/bench/beyond-1000.ts; the bench runs the same on seed 1, `npm run bench -- --beyond-1000`):
 *
 *   npx tsx scripts/measure-beyond-1000.ts [--seeds 1-3] [--only TEXT] [--trace FILE.csv ...]
 *
 * `--only TEXT` runs the contenders whose label contains TEXT; `--trace` runs your own load files (as written, each
 * with the four contenders) in place of the shipped shapes. Per row: the worst p99 wait ÷ target and exec peak
 * over the seeds, the mean of the exec and warm-environment means, dead letters and throttled invocations summed,
 * and the $ a month at the run's own pollers (lib/bench/cost.ts); then issue 31's line per shape and reading.
 */
import { beyond1000Table, beyond1000Verdicts, runBeyond1000 } from '../lib/bench/beyond-1000.ts';
import { readLoadFile } from '../lib/load-file/load-file.ts';
import { orExit, scriptArgs } from './script-args.ts';
import { seedsOf } from './seed-range.ts';

const USAGE =
  'usage: npx tsx scripts/measure-beyond-1000.ts [--seeds 1-3] [--only TEXT] [--trace FILE.csv ...]';
const { values, positionals } = scriptArgs(
  {
    seeds: { type: 'string', default: '1-3' },
    only: { type: 'string' },
    trace: { type: 'string', multiple: true },
    help: { type: 'boolean', default: false },
  },
  USAGE,
);
// Files after `--trace` are traces too (`--trace a.csv b.csv`, as a shell glob gives them).
const traces = [...(values.trace ?? []), ...positionals];
const rows = await runBeyond1000({
  seeds: orExit(() => seedsOf(values.seeds, 20)),
  ...(values.only === undefined ? {} : { only: values.only }),
  ...(traces.length === 0 ? {} : { traces: traces.map((path) => orExit(() => readLoadFile(path))) }),
  onRun: (what) => process.stderr.write(`${what}\n`),
});
console.log(beyond1000Table(rows));
console.log('');
console.log(beyond1000Verdicts(rows).join('\n'));
