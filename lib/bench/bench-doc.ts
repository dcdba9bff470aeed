import type { ScalerSettings } from '../control/config.ts';
import { drainCeiling } from '../control/need.ts';
import { INVOKES_PER_POLLER } from '../sim/pollers.ts';
import { PRESETS, type PresetName } from '../sim/presets.ts';
import { configFor, MINIMUM_POLLERS, provisionedMaximumPollers } from '../sim/run.ts';
import type { SimWorld } from '../sim/world.ts';
import { type BenchRow, benchSection, dominated, dominates, latency } from './bench.ts';
import { type BeyondRow, beyond1000Table, beyond1000Verdicts } from './beyond-1000.ts';
import { costBreakdownMarkdown } from './cost.ts';

/**
 * docs/benchmarks.md, written by `npm run bench -- --doc`: the bench's tables and the prose that reads them. Every
 * figure in the prose is taken from the rows; a sentence whose premise the rows do not bear out is left out rather
 * than left wrong, so the document stays true when the law or the model changes.
 */
export interface BenchDocInput {
  /** When the runs were made (YYYY-MM-DD). */
  readonly date: string;
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string };
  /** The command line that produced the document. */
  readonly command: string;
  readonly sections: readonly {
    readonly preset: PresetName;
    readonly rows: readonly BenchRow[];
    /** The reading of the pollers' ramp these rows ran under, where not the preset's own (60: a step a minute). */
    readonly pollerScaleSeconds?: number;
  }[];
  /** The runs at thousands of concurrent consumers (lib/bench/beyond-1000.ts), if made. */
  readonly beyond?: readonly BeyondRow[];
  /** The config file's overrides, applied to every run (the prose quotes the settings the runs used). */
  readonly settings?: ScalerSettings;
  readonly world?: Partial<SimWorld>;
}

interface Trio {
  readonly scenario: string;
  readonly law: BenchRow;
  readonly native: BenchRow;
  readonly provisioned: BenchRow;
}

const NAMES: Record<string, string> = { 'age-law': 'the age law' };
const name = (controller: string) => NAMES[controller] ?? controller;
const code = (s: string) => `\`${s}\``;
const times = (x: number) => `${x.toFixed(2)} ×`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const meets = (r: BenchRow) => r.p99OverTarget <= 1;
const range = (xs: readonly number[]) =>
  Math.min(...xs) === Math.max(...xs) ? int(xs[0] ?? 0) : `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function trios(rows: readonly BenchRow[]): Trio[] {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  return scenarios.flatMap((scenario) => {
    const pick = (c: string) => rows.find((r) => r.scenario === scenario && r.controller === c);
    const [law, native, provisioned] = [pick('age-law'), pick('native'), pick('provisioned')];
    return law && native && provisioned ? [{ scenario, law, native, provisioned }] : [];
  });
}

/** The API's concurrency at the scenario's item time, when one item time holds throughout. */
function apiConcurrency(row: BenchRow): number | undefined {
  const d = row.summary.downstream;
  const [itemMs, ...others] = new Set(row.summary.phases.map((p) => p.itemMs));
  if (d?.apiRatePerSecond === undefined || itemMs === undefined || others.length > 0) return undefined;
  return (d.apiRatePerSecond * itemMs) / 1000 / (d.callsPerItem ?? 1);
}

function scenarioLabel(row: BenchRow): string {
  const d = row.summary.downstream;
  if (d?.apiRatePerSecond !== undefined) {
    const concurrency = apiConcurrency(row);
    const approx = concurrency === undefined ? '' : ` ≈ ${int(concurrency)} concurrent`;
    return `${row.scenario} (API ${int(d.apiRatePerSecond)} calls/s${approx})`;
  }
  if (d?.connectionPool !== undefined) return `${row.scenario} (pool of ${d.connectionPool})`;
  return row.scenario;
}

// ---- the age law against native and provisioned ------------------------------------------------------------

function cell(r: BenchRow, boldMiss: boolean): string {
  const s = r.summary;
  const p99 = boldMiss && !meets(r) ? `**${r.p99OverTarget.toFixed(2)}**` : r.p99OverTarget.toFixed(2);
  const cost = r.monthlyCost === undefined ? '–' : `$${r.monthlyCost.toFixed(2)}`;
  return `${p99} · ${s.deadLettered} · ${s.executions.peak} / ${s.executions.mean.toFixed(2)} · ${int(s.reservedSeconds ?? 0)} · ${cost}`;
}

/** A range of monthly costs, `$20.17` or `$13.32–$20.10`. */
function dollars(costs: readonly (number | undefined)[]): string {
  const known = costs.filter((c): c is number => c !== undefined);
  if (known.length === 0) return '–';
  const [low, high] = [Math.min(...known), Math.max(...known)].map((c) => `$${c.toFixed(2)}`);
  return low === high ? (low as string) : `${low}–${high}`;
}

function trioDominance(t: Trio): string {
  const losers = dominated([t.law, t.native, t.provisioned]);
  if (losers.length === 0) return 'none of the three';
  return losers.map((l) => `${name(l.controller)} (by ${list(l.by.map(name))})`).join('; ');
}

function comparisonTable(all: readonly Trio[]): string {
  const lines = [
    '| scenario | age law: p99 ÷ target · DLQ · exec peak / mean · reserved conc-s · $ a month | native | provisioned | dominated (among the three) |',
    '|---|---|---|---|---|',
  ];
  for (const t of all)
    lines.push(
      `| ${scenarioLabel(t.law)} | ${cell(t.law, true)} | ${cell(t.native, false)} | ${cell(t.provisioned, false)} | ${trioDominance(t)} |`,
    );
  return lines.join('\n');
}

const SLOWER_DOWNSTREAM = new Set(['downstream-slowdown', 'downstream-slowing', 'heavier-items']);

/** What makes a scenario hard for the law, in words; the figures come from the run. */
function whyHard(t: Trio, growthFactor: number): string | undefined {
  const first = t.law.summary.phases[0];
  if ((t.scenario === 'sawtooth' || t.scenario === 'cold-steady') && first)
    return `its first phase, a cold start at ${int(first.ratePerSecond)}/s: until CloudWatch's first datapoints give a per-item time the law grows on the depth alone, doubling per sample while the depth proves arrivals, else at most ${growthFactor} × a tick`;
  if (t.scenario.startsWith('trace-azure-llm') && first)
    return `minute-to-minute swings on ${first.itemMs / 1000} s items`;
  return undefined;
}

function readings(all: readonly Trio[], input: BenchDocInput): string[] {
  const config = configFor('lambda', input.settings);
  const bullets: string[] = [];
  const n = all.length;

  const wins = all.filter(
    (t) => meets(t.law) && dominates(t.law, t.native) && dominates(t.law, t.provisioned),
  );
  if (wins.length > 0) {
    const peaks = (pick: (t: Trio) => BenchRow) =>
      list(wins.map((t) => String(pick(t).summary.executions.peak)));
    let text =
      '**Where the age law earns its place: spiky or varying load in front of a downstream that must not see the ' +
      `cap.** On ${list(wins.map((t) => code(t.scenario)))} it meets the target with a peak of ${peaks((t) => t.law)} ` +
      `concurrent executions where \`native\` reaches ${peaks((t) => t.native)} and \`provisioned\` ` +
      `${peaks((t) => t.provisioned)}, with a mean load no heavier (within 5 %): it dominates both there.`;
    // seed-spike first: the scenario the article and the README describe.
    const later = [...wins.filter((t) => t.scenario === 'seed-spike'), ...wins].find(
      (t) => t.law.p99OverTarget > Math.max(t.native.p99OverTarget, t.provisioned.p99OverTarget),
    );
    if (later)
      text +=
        ` Its p99 is higher than theirs (${times(later.law.p99OverTarget)} the target on ${code(later.scenario)} ` +
        `against ${times(later.native.p99OverTarget)} and ${times(later.provisioned.p99OverTarget)}): it holds the ` +
        `head near ${config.setpointFraction} × the target on purpose (\`setpointFraction\`)` +
        (config.fastSampleSeconds > 0
          ? `, and grows on a surge at a fast-path sample (every ${config.fastSampleSeconds} s) rather than at the next tick.`
          : '.');
    bullets.push(text);
  }

  for (const t of all.filter((t) => apiConcurrency(t.law) !== undefined)) {
    const api = apiConcurrency(t.law) ?? 0;
    const [law, native, prov] = [t.law.summary, t.native.summary, t.provisioned.summary];
    bullets.push(
      `**A rate-limited API ${api < law.cap ? `that the cap of ${law.cap} overstates` : 'under the cap'}.** On ` +
        `${code(t.scenario)} \`native\` pulls up to ${native.executions.peak} invocations into the rate limit and ` +
        `${int(native.failedItems)} items fail (429); the age law peaks at ${law.executions.peak} where the API ` +
        `allows ~${int(api)} (${int(law.failedItems)} fail) at a p99 of ${times(t.law.p99OverTarget)} the target ` +
        `against native's ${times(t.native.p99OverTarget)}; \`provisioned\`: peak ${prov.executions.peak}, ` +
        `${int(prov.failedItems)} fail, ${times(t.provisioned.p99OverTarget)}.`,
    );
  }
  const dead = all.filter((t) => [t.law, t.native, t.provisioned].some((r) => r.summary.deadLettered > 0));
  bullets.push(
    dead.length === 0
      ? '**Dead letters:** none of the three dead-letters a message in this run.'
      : `**Dead letters** (the age law / native / provisioned): ${dead.map((t) => `${code(t.scenario)} ${t.law.summary.deadLettered} / ${t.native.summary.deadLettered} / ${t.provisioned.summary.deadLettered}`).join('; ')}.`,
  );

  // Where the law is beaten outright, or by a slower downstream, the next bullets say so.
  const lawDominated = (t: Trio) => dominates(t.native, t.law) || dominates(t.provisioned, t.law);
  const nativeEnough = all.filter(
    (t) => meets(t.native) && !meets(t.law) && !SLOWER_DOWNSTREAM.has(t.scenario) && !lawDominated(t),
  );
  bullets.push(
    "**Where native alone is enough: any load when the cap already is the downstream's real limit.** If " +
      "`maxConcurrency` is the downstream's true limit, native never exceeds it: the age law's extra protection " +
      'is then only its lower peak below that limit.' +
      nativeEnough
        .map((t) => {
          const why = whyHard(t, config.unconfirmedGrowthFactor);
          return ` On ${code(t.scenario)}${why === undefined ? '' : ` (${why})`} \`native\` meets the target (${times(t.native.p99OverTarget)}) where the age law does not (${times(t.law.p99OverTarget)}).`;
        })
        .join(''),
  );

  const provMisses = all.filter((t) => !meets(t.provisioned));
  const nothingMeets = provMisses.every((t) => !meets(t.law) && !meets(t.native));
  const provLower = all.filter(
    (t) => t.provisioned.summary.executions.peak < t.native.summary.executions.peak,
  );
  const provOverNative = all.filter((t) => dominates(t.provisioned, t.native)).length;
  const nativeOverProv = all.filter((t) => dominates(t.native, t.provisioned)).length;
  const ready = MINIMUM_POLLERS * INVOKES_PER_POLLER;
  bullets.push(
    `**Provisioned mode${provOverNative > nativeOverProv ? ' is the stronger AWS baseline' : ''}**: its minimum of ` +
      `${MINIMUM_POLLERS} pollers keeps up to ${ready} invocations ready, so it meets the target ` +
      (provMisses.length === 0
        ? 'in every scenario'
        : `everywhere but ${list(provMisses.map((t) => code(t.scenario)))}${nothingMeets ? ' (where nothing does)' : ''}`) +
      `, with a lower peak than native on ${provLower.length} of the ${n} scenarios; it dominates native on ` +
      `${provOverNative} of the ${n}. It is billed per poller and hour (the $ a month column: ` +
      `${dollars(all.map((t) => t.provisioned.monthlyCost))} here), ${MINIMUM_POLLERS} pollers at least.`,
  );

  const losses = all.filter(
    (t) =>
      (!meets(t.law) && (meets(t.native) || meets(t.provisioned))) ||
      dominates(t.native, t.law) ||
      dominates(t.provisioned, t.law),
  );
  if (losses.length > 0) {
    const items = losses.map((t) => {
      const why = nativeEnough.includes(t) ? undefined : whyHard(t, config.unconfirmedGrowthFactor);
      const by = [t.native, t.provisioned].filter((r) => dominates(r, t.law)).map((r) => code(r.controller));
      return (
        `${code(t.scenario)}${why === undefined ? '' : ` (${why})`}: ${times(t.law.p99OverTarget)} the target ` +
        `against native's ${times(t.native.p99OverTarget)}${by.length > 0 ? `, dominated by ${list(by)}` : ''}`
      );
    });
    let text = `**Where the age law loses:** ${items.join('; ')}.`;
    const slower = losses.filter((t) => SLOWER_DOWNSTREAM.has(t.scenario));
    if (slower.length > 0)
      text +=
        ` Where the items got slower (${list(slower.map((t) => code(t.scenario)))}) the ` +
        'per-item time alone cannot tell heavier work from a saturated downstream: the law grows once on the time ' +
        'it sees, then waits a few minutes for the period that shows what that growth bought (`hold:probing`), and ' +
        'takes back only growth that bought no throughput (`shrink:downstream-saturated`, the shed signal). The ' +
        'wait is the price of not loading a saturated downstream further.';
    bullets.push(text);
  }

  const reserved = all.map((t) => t.law.summary.reservedSeconds ?? 0);
  const warmer = all.filter(
    (t) =>
      t.native.summary.warmEnvironments.mean > t.law.summary.warmEnvironments.mean &&
      t.provisioned.summary.warmEnvironments.mean > t.law.summary.warmEnvironments.mean,
  );
  const gap = (t: Trio) => t.native.summary.warmEnvironments.mean - t.law.summary.warmEnvironments.mean;
  const most = [...warmer].sort((a, b) => gap(b) - gap(a))[0];
  bullets.push(
    `**Costs native does not have:** the age law holds reserved concurrency (${range(reserved)} ` +
      'concurrency-seconds a scenario of account concurrency no other function may ' +
      `use), and its controller costs ${dollars(all.map((t) => t.law.monthlyCost))} a month against provisioned ` +
      `mode's ${dollars(all.map((t) => t.provisioned.monthlyCost))} and native's nothing.` +
      (most === undefined
        ? ''
        : ` Native and provisioned keep more environments warm on ${warmer.length} of the ${n} scenarios (the most ` +
          `on ${code(most.scenario)}: mean ${most.native.summary.warmEnvironments.mean.toFixed(1)} and ` +
          `${most.provisioned.summary.warmEnvironments.mean.toFixed(1)} against the law's ` +
          `${most.law.summary.warmEnvironments.mean.toFixed(1)}), each of which may hold a downstream connection.`),
  );
  return bullets.map((b) => `- ${b}`);
}

function knownLimits(input: BenchDocInput): string {
  const config = configFor('lambda', input.settings);
  const world = { ...PRESETS.lambda.world, ...input.world };
  const lag =
    world.metricDelaySeconds % 60 === 0
      ? `${world.metricDelaySeconds / 60} minutes`
      : `${world.metricDelaySeconds} s`;
  const f = config.unconfirmedGrowthFactor;
  return [
    '## Known limits',
    '',
    'Visible in the bench:',
    '',
    `- **The pollers' ramp.** AWS documents +300 a minute and no finer step; the model spreads it over ` +
      `${world.pollerScaleSeconds} s steps (\`pollerScaleSeconds\`). Read as one step a minute ` +
      '(`"simulator": {"pollerScaleSeconds": 60}` in a `--config` file), a surge can meet the 5 pollers of a quiet ' +
      'queue until the minute turns whatever maximum the controller set, and that minute sets the p99 of every ' +
      'spike: [docs/simulator.md](simulator.md#the-model) gives the figures by seed. Workers the law adds while ' +
      'the pollers sit still wait for the minute to turn: where the items got heavier (`downstream-slowdown`, ' +
      '`heavier-items`) the law grows a tick after the change, but its new workers run only after the step, while ' +
      'native already runs at its cap: under this reading the age law is late there. The bench runs both ' +
      'readings, a table each (seed 1); `npx tsx scripts/measure-transients.ts` prints both for every scenario over ' +
      'seeds 1–5.',
    `- **Metric lag.** In the \`lambda\` preset the per-item time arrives ${lag} late. Where the depth rises at ` +
      'a settled applied value while the arrivals CloudWatch reports hold, the tick reads the heavier per-item ' +
      'time off the depth (lib/control/heavier-items.ts) and grows at once; where the value just changed, or the ' +
      'workers were grown past what the reported rate needs (a burst not reported yet), it cannot tell heavier ' +
      `items from more arrivals and grows at most ${f} × (the unconfirmed limit, \`unconfirmedGrowthFactor\`) ` +
      'until CloudWatch shows the slower per-item time. What a growth bought shows a period after it: a saturated ' +
      'downstream is found minutes late.',
    '- **Where in the minute the load changes.** Every shipped scenario changes its load on a whole minute of the ' +
      "run, and the controller ticks on whole minutes from the load's start, so each change lands on a tick, with a " +
      'full minute of depth behind the next one. A change between two ticks reads worse: a sample between ticks ' +
      'grows a little on the rising depth, and the next tick, its minute no longer served by one settled value, ' +
      "cannot read the heavier per-item time off the depth and holds on CloudWatch's old figures until they catch " +
      'up, unless the samples read the heavier items off what their growth bought (two rises at two numbers of ' +
      'running workers: lib/control/served-rises.ts), which the pollers allow under the 10 s reading far more often ' +
      'than under one step a minute. `npx tsx scripts/measure-transients.ts --start 10` (or 30) starts the ' +
      'controller 10 s (30 s) after the load, which moves every change that far into a minute: the worst of seeds ' +
      '1–5 on 2026-12-07, `heavier-items` reads a p99 of 0.70 × the target under the 10 s reading and 1.14 × under ' +
      'one step a minute at 0 s, 0.95 × ' +
      'and 1.54 × at 10 s; `downstream-slowdown` under one step a minute 1.08 × and 1.43 ×. (On loads that start at ' +
      '0 s, `cold-steady` and `steady`, the offset also leaves the first seconds without a controller: see the cold start below.)',
    '- **Bursts from quiet close to the cap.** Provisioned mode keeps ' +
      `${MINIMUM_POLLERS} pollers warm (${MINIMUM_POLLERS * INVOKES_PER_POLLER} invokes at once) and serves a ` +
      "burst from its first second; the standard mapping's 5 pollers cannot. The law's backlog drain stops at the " +
      `target utilisation of the cap (${drainCeiling(config)} of ${config.maxConcurrency}, \`drainCeiling\`), so ` +
      "it stays under provisioned's peak where the arrivals allow; where they need more (1,000/s of 30 ms items " +
      `need 34) it reaches the cap, later than provisioned and above its ` +
      `${provisionedMaximumPollers(config.maxConcurrency) * INVOKES_PER_POLLER}: dominated there. The held-out ` +
      "bursts in scenarios-held-out/ show it by seed (that folder's README).",
    "- **Cold start.** CloudWatch has no datapoints for a new queue's first minutes: the controller grows on the " +
      'depth alone, doubling per sample while the depth rises with every allowed worker busy (slow start), else at ' +
      `most ${f} × per tick, until the first datapoint sizes it. The simulator's controller runs from the load's ` +
      "first second, as the construct's start trigger runs it at deploy (`controllerStartSeconds` " +
      `${world.controllerStartSeconds}); a load that starts before the controller does (a scaler added to a busy ` +
      'queue) is blind until its first tick: `"simulator": {"controllerStartSeconds": 60}` replays that (on ' +
      "`cold-steady` the p99 then rises well above the table's, which starts the controller with the load).",
    '- **Overload.** No controller meets the target beyond the cap; the law pins at the cap and reports ' +
      '`saturated` (the shed signal) instead of growing past what the downstream takes. Under one step a minute ' +
      "native is earlier than the law there: its mapping has no MaximumConcurrency, so a moment's backlog at 100/s " +
      'in the minute before the surge steps its pollers up to the cap (the model steps them on any message that ' +
      "waited with every poller busy), while the law's limit of 3 holds its pollers at the starting five until the " +
      'first step after the surge.',
  ].join('\n');
}

/** The same comparison under the pollers' ramp read as one step a minute, where the bench ran it. */
function steppedComparison(
  stepped: { readonly rows: readonly BenchRow[]; readonly pollerScaleSeconds?: number } | undefined,
): string[] {
  if (stepped === undefined) return [];
  const all = trios(stepped.rows);
  const dominatedOn = all.filter((t) => dominates(t.native, t.law) || dominates(t.provisioned, t.law));
  const names = dominatedOn.map((t) => code(t.scenario));
  return [
    `### The same under the pollers' ramp in ${stepped.pollerScaleSeconds} s steps`,
    '',
    'AWS documents the standard mapping\'s ramp as "up to 300 more a minute" without saying whether it comes in ' +
      'steps or spread; the tables above spread it over 10 s steps, these take one step a minute (seed 1):',
    '',
    comparisonTable(all),
    '',
    names.length === 0
      ? 'Under this reading the age law is dominated by neither native nor provisioned on any scenario.'
      : `Under this reading the age law is dominated (no earlier and no lighter than native or provisioned) on ${list(names)}.`,
    '',
  ];
}

// ---- the document ------------------------------------------------------------------------------------------

function fixedFloorSentence(sections: BenchDocInput['sections']): string {
  const floor = sections.flatMap((s) => s.rows.filter((r) => r.controller === 'fixed-floor'));
  if (floor.length === 0) return '';
  // Per preset: the seed preset's seed-spike is not the lambda preset's.
  const beaten = sections.flatMap(({ preset, rows }) =>
    [...new Set(rows.map((r) => r.scenario))].flatMap((s) =>
      dominated(rows.filter((r) => r.scenario === s)).some((d) => d.controller === 'fixed-floor')
        ? [`${preset} ${s}`]
        : [],
    ),
  );
  const late = floor.map(latency);
  const misses = floor.filter((r) => !meets(r)).length;
  const never =
    beaten.length === 0
      ? 'is dominated in no scenario here — nothing is lighter on the downstream than the floor —'
      : `is dominated in ${beaten.length} run${beaten.length === 1 ? '' : 's'}`;
  const missed =
    misses === floor.length
      ? `misses every target by a factor of ${int(Math.min(...late))} to ${int(Math.max(...late))}`
      : `misses the target in ${misses} of ${floor.length} runs, by a factor of up to ${int(Math.max(...late))}`;
  return (
    ` \`fixed-floor\` ${never} while it ` +
    `${missed}: the rule finds who is beaten on both counts, not who is good.`
  );
}

function seedStepSentence(rows: readonly BenchRow[]): string {
  const sentences: string[] = [];
  for (const scenario of new Set(rows.map((r) => r.scenario))) {
    const law = rows.find((r) => r.scenario === scenario && r.controller === 'age-law');
    const step = rows.find((r) => r.scenario === scenario && r.controller === 'seed-step');
    if (!law || !step) continue;
    sentences.push(
      `On ${code(scenario)} the article's literal step rule (\`seed-step\`) sets a limit that peaks at ` +
        `**${step.summary.peakConcurrency}** and makes **${int(step.summary.scaleEvents)}** scale events; the age ` +
        `law peaks at ${law.summary.peakConcurrency} with ${int(law.summary.scaleEvents)}.`,
    );
  }
  return sentences.length === 0
    ? ''
    : `${sentences.join(' ')} Why: [docs/simulator.md](simulator.md#the-article-reproduced).`;
}

export function benchDocument(input: BenchDocInput): string {
  const { machine } = input;
  const lambda = input.sections.find((s) => s.preset === 'lambda' && s.pollerScaleSeconds === undefined);
  const comparison = lambda === undefined ? [] : trios(lambda.rows);
  const stepped = input.sections.find((s) => s.preset === 'lambda' && s.pollerScaleSeconds !== undefined);
  const parts = [
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench -- --doc` (lib/bench/bench-doc.ts): edit the generator, not this file. -->',
    '',
    `Generated on ${input.date} with Node ${machine.node} on ${machine.cpus} CPU${machine.cpus === 1 ? '' : 's'} ` +
      `(${machine.cpuModel}), by:`,
    '',
    '```sh',
    input.command,
    '```',
    '',
    'The model behind these figures, and its assumptions: [docs/simulator.md](simulator.md). The rules of the ' +
      'control law: [docs/design.md](design.md).',
    '',
    '## What the bench runs',
    '',
    'Every shipped scenario, the real traces included, × {the age law, `native`, `provisioned`, fixed at the ' +
      "floor, fixed at the cap, the article's literal step rule at the same tick, a KEDA-like depth rule " +
      '(queueLength 5, in-flight counted, scale-down stabilised over the same delay)}; the seed preset runs the ' +
      "article's own spike with the controllers that exist without a mapping. `--scenario`/`--trace` pick " +
      'scenarios, `--rate-scale`/`--time-scale` replay them scaled, `--config` applies settings to every run; ' +
      'without `--doc` the tables go to stdout and `out/bench.md`.',
    '',
    'Columns: **p99 wait ÷ target** and **dead letters** (how late, how lost); **concurrent executions** peak, p99 ' +
      'and mean and **warm environments** peak and mean (what the downstream feels); **reserved concurrency held** ' +
      '(concurrency-seconds); **$ / month**, what the controller adds to the bill at us-east-1 list prices ' +
      "(lib/bench/cost.ts: the age law's controller Lambda, its GetMetricData and GetQueueAttributes calls, its own " +
      "metrics and alarms; provisioned mode's event poller units at the run's mean, 2 at least; native nothing; the " +
      "consumer's own compute is the same for all and left out); the applied limit's concurrency-seconds ÷ the " +
      "clairvoyant's; **scale events** " +
      '(controller writes: `native` and `provisioned` make none), and per hour once a flat phase of 25+ minutes has ' +
      'run 15; throttled and timed-out invocations, failed items; simulated seconds per wall second.',
    '',
    "The age law's `$ / month` (the lambda preset's settings) on a queue never quiet, line by line, counted " +
      'from the synthesized template and the controller (lib/bench/cost.ts). Each run in the tables is priced at ' +
      "its own share of ticks that read the three rates (a quiet queue's ticks reuse them: " +
      'lib/control/rate-reads.ts), so a scenario with quiet spells costs less than this:',
    '',
    ...costBreakdownMarkdown(configFor('lambda')),
    '',
    "Under each preset's table, a plain statement of **who is dominated**: A dominates B when A is no later (p99 ÷ " +
      'target, anything at or under the target counting as meeting it; dead letters) *and* no heavier on the ' +
      'downstream (peak and mean concurrent executions), and clearly better on at least one of these (by more than ' +
      `5 %, so that seed noise does not rank).${fixedFloorSentence(input.sections)}`,
  ];
  if (comparison.length > 0)
    parts.push(
      '',
      '## The age law against native, honestly',
      '',
      'The `lambda` preset, seed 1; the full tables, every controller, are [below](#lambda-preset).',
      '',
      comparisonTable(comparison),
      '',
      'What the figures say, plainly:',
      '',
      ...readings(comparison, input),
      '',
      ...steppedComparison(stepped),
      knownLimits(input),
    );
  parts.push('', '## The full tables');
  for (const section of input.sections) {
    parts.push('', benchSection(section.preset, section.rows, section.pollerScaleSeconds));
    const steps = section.preset === 'seed' ? seedStepSentence(section.rows) : '';
    if (steps !== '') parts.push('', steps);
  }
  if ((input.beyond ?? []).length > 0) parts.push('', ...beyondSection(input.beyond ?? []));
  parts.push(
    '',
    '## Other measurements',
    '',
    '`npx tsx scripts/measure-law.ts` runs the acceptance figures of the fast path and the setpoint (every scenario ' +
      'across seeds 1–5: p99 in every phase after the first 5 minutes, conc-s, settled scale events, the slowdown ' +
      "bound and shed signal, the sawtooth, the seed preset). The simulator's speed and memory: " +
      '`npx tsx scripts/measure-simulator.ts`, in [docs/simulator.md](simulator.md#speed-and-memory).',
  );
  return `${parts.filter((p, i, a) => !(p === '' && a[i - 1] === '')).join('\n')}\n`;
}

/** Issue 31's table at thousands of concurrent consumers, and its line under it, met or missed. */
function beyondSection(rows: readonly BeyondRow[]): string[] {
  return [
    '## Beyond 1,000 concurrent consumers',
    '',
    "Seed 1, both readings of the standard mapping's ramp (`npx tsx scripts/measure-beyond-1000.ts --seeds 1-3` " +
      "for more seeds; lib/bench/beyond-1000.ts). The seed's spike × 150 (800/s → 120,000/s of 20 ms items, a need " +
      'of about 2,400) and the diurnal day × 100 (to 80,000/s, about 1,800), thinned in time to 0.3 so that a run ' +
      "fits the simulator's 50 million messages. Native and the age law on the standard mapping are held to its " +
      '1,000; provisioned mode on its own runs 2 to 500 pollers; the age law drives provisioned mode with a cap of ' +
      '5,000 (floor 20), and on the diurnal day also with a scheduled floor of 1,500 around the peak. `$ a month` is ' +
      "what a month of the run's pollers would cost, the controller's included (lib/bench/cost.ts).",
    '',
    beyond1000Table(rows),
    '',
    'Whether the age law on provisioned mode meets the target where provisioned mode on its own does, with a lower ' +
      'exec peak and a mean no heavier (within 5 %: the mean is the work wherever the queue is served), 0 dead ' +
      'letters and 0 throttled:',
    '',
    ...beyond1000Verdicts(rows),
  ];
}
