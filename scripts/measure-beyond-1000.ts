/**
 * Beyond the standard mapping's 1,000 (issue 31): shipped shapes replayed at thousands of concurrent consumers, each
 * controller with what AWS lets it bound, side by side, seeds × both readings of the pollers' ramp
 * (lib/bench/beyond-1000.ts; the bench runs the same on seed 1, `npm run bench -- --beyond-1000`):
 *
 *   npx tsx scripts/measure-beyond-1000.ts [--seeds 1-3] [--only TEXT]
 *
 * `--only TEXT` runs the contenders whose label contains TEXT. Per row: the worst p99 wait ÷ target and exec peak
 * over the seeds, the mean of the exec and warm-environment means, dead letters and throttled invocations summed,
 * and the $ a month at the run's own pollers (lib/bench/cost.ts); then issue 31's line per shape and reading.
 */
import { parseArgs } from 'node:util';
import { beyond1000Table, beyond1000Verdicts, runBeyond1000 } from '../lib/bench/beyond-1000.ts';
import { seedsOf } from './seed-range.ts';

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '1-3' }, only: { type: 'string' } },
});
const rows = await runBeyond1000({
  seeds: seedsOf(values.seeds, 20),
  ...(values.only === undefined ? {} : { only: values.only }),
  onRun: (what) => process.stderr.write(`${what}\n`),
});
console.log(beyond1000Table(rows));
console.log('');
console.log(beyond1000Verdicts(rows).join('\n'));
