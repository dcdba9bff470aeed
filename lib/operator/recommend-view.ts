import type { SeedFigures } from '../bench/seed-figures.ts';
import { type ControllerKind, MINIMUM_POLLERS, provisionedMaximumPollers } from '../sim/run.ts';
import { LOWEST_FLOOR } from './load-windows.ts';
import { meetsTarget, NEAR_TIE } from './recommend.ts';
import type { RecommendReport } from './recommend-run.ts';
import { isoSeconds } from './trace-range.ts';

/**
 * What `recommend` prints: a few lines a user reads top to bottom — the answer first, then the settings, the
 * options' figures, and how far the model is from their queue. Pure: the report in, the text out.
 */

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const count = (n: number, noun: string) => `${grouped(n)} ${noun}${n === 1 ? '' : 's'}`;
const money = (x: number) => `$${x.toFixed(2)}`;
const ratio = (x: number) => x.toFixed(2);
/** A setting in seconds as given: 60, 0.5, 90.25. */
const secs = (x: number) => `${Number(x.toFixed(3))} s`;
const NAMES: Partial<Record<ControllerKind, string>> = { 'age-law': 'the age law' };
const named = (c: ControllerKind) => NAMES[c] ?? c;

function duration(seconds: number): string {
  if (seconds >= 86_400) return `${Number((seconds / 86_400).toFixed(1))} d`;
  if (seconds >= 3600) return `${Number((seconds / 3600).toFixed(1))} h`;
  if (seconds >= 60) return `${Number((seconds / 60).toFixed(1))} min`;
  return `${Number(seconds.toFixed(1))} s`;
}

function rate(r: number): string {
  return `${r >= 10 ? grouped(r) : Number(r.toFixed(2))}/s`;
}

function option(report: RecommendReport, controller: ControllerKind): SeedFigures {
  return report.options.find((o) => o.controller === controller) as SeedFigures;
}

/** "native's 32" or, missing the target, "native's 32 (p99 1.40 × the target)". */
function peakOf(o: SeedFigures): string {
  const late = meetsTarget(o)
    ? ''
    : o.deadLetters > 0
      ? ` (${grouped(o.deadLetters)} dead letters)`
      : ` (p99 ${ratio(o.p99OverTarget)} × the target)`;
  return `${named(o.controller)}'s ${grouped(o.peak)}${late}`;
}

function lawCost(report: RecommendReport): string {
  const law = option(report, 'age-law');
  const mean = report.ageLawReservedSeconds / report.trace.seconds;
  return `${money(law.monthlyCost)} a month (its controller), and holds ${mean.toFixed(1)} reserved concurrency on average (${grouped(report.ageLawReservedSeconds)} concurrency-seconds over the trace) that no other function may use`;
}

/** Why the age law is not the choice, in one clause: "the age law would add $3.33 a month and a peak no lower". */
function againstLaw(report: RecommendReport, chosen: SeedFigures): string {
  const law = option(report, 'age-law');
  const extra = law.monthlyCost - chosen.monthlyCost;
  const cost = extra > 0 ? `would add ${money(extra)} a month` : `would cost ${money(-extra)} a month less`;
  if (!meetsTarget(law))
    return law.deadLetters > 0
      ? `the age law dead-letters ${grouped(law.deadLetters)} messages on its worst seed`
      : `the age law misses the target (p99 ${ratio(law.p99OverTarget)} × it on its worst seed) and ${cost}`;
  if (law.peak >= chosen.peak)
    return `the age law ${cost} and a peak no lower (${grouped(law.peak)} against ${grouped(chosen.peak)})`;
  const lower = ((chosen.peak - law.peak) / chosen.peak) * 100;
  return `the age law ${cost} for a peak only ${lower.toFixed(0)} % lower (${grouped(law.peak)} against ${grouped(chosen.peak)}), within the ${(NEAR_TIE * 100).toFixed(0)} % that seeds vary by`;
}

export function recommendationLine(report: RecommendReport): string {
  const line = choiceLine(report);
  return report.choice.controller === report.current ? `${line}. It is what you run today (--current)` : line;
}

function choiceLine(report: RecommendReport): string {
  const { choice } = report;
  const chosen = option(report, choice.controller);
  const target = `the ${secs(report.settings.targetAgeSeconds)} target`;
  const others = report.options.filter((o) => o.controller !== chosen.controller);
  if (choice.rule === 'least-late') {
    return `recommend: ${chosen.controller} — no option meets ${target} on every seed; ${chosen.controller} is the least late (p99 ${ratio(chosen.p99OverTarget)} × the target, peak ${grouped(chosen.peak)}; ${others.map(peakOf).join(', ')}). Above the cap nothing can meet it: raise the cap if the downstream takes more, or the target`;
  }
  if (chosen.controller === 'age-law') {
    return `recommend: age-law — meets ${target} on every seed with an exec peak of ${grouped(chosen.peak)} against ${others.map(peakOf).join(' and ')}; it adds ${lawCost(report)}`;
  }
  const cost =
    chosen.controller === 'native'
      ? 'with no controller and nothing to pay'
      : `for ${money(chosen.monthlyCost)} a month in event pollers`;
  const tie = choice.rule === 'cheaper-on-near-tie' ? ' (peaks within 5 %: the cheaper wins)' : '';
  return `recommend: ${chosen.controller} — it meets ${target} on every seed with an exec peak of ${grouped(chosen.peak)}, ${cost}${tie}; ${againstLaw(report, chosen)}`;
}

function capText(report: RecommendReport): string {
  const sources = report.settings.capFrom.map((s) =>
    s.field === 'maxConcurrency'
      ? `maxConcurrency ${s.value}${s.isDefault ? " (the preset's default)" : ''}`
      : s.field === 'dbPoolSize'
        ? `dbPoolSize ${s.value}`
        : `apiRatePerSecond × itemTime ÷ callsPerItem = ${s.value}`,
  );
  if (sources.length > 1) return `the lowest of ${sources.join(', ')}`;
  return report.settings.capFrom[0]?.isDefault === true
    ? `${sources[0]}: --db-pool, --api-rate or --max-concurrency give yours`
    : (sources[0] as string);
}

/** When a window of the trace starts: its date and time when the file gives its start, else hours from it. */
function at(report: RecommendReport, start: number): string {
  const from = report.trace.startSeconds;
  if (from === undefined)
    return start === 0
      ? "the trace's start"
      : `${Number((start / 3600).toFixed(2))} h from the trace's start`;
  return isoSeconds(from + start)
    .slice(0, 16)
    .replace('T', ' ');
}

function floorText(report: RecommendReport): string {
  const f = report.settings.floorFrom;
  if (f.by === 'config') return 'minConcurrency from your --config';
  const q = f.quietest;
  const period = q.seconds === 3600 ? 'hour' : duration(q.seconds);
  const quietest = `${at(report, q.start)}, ${rate(q.ratePerSecond)}: a need of ${q.need}`;
  if (f.limitedByCap) return `the cap: even the quietest ${period} needs more (${quietest})`;
  return `the quietest ${period}'s need, at least ${LOWEST_FLOOR} (${quietest}); below it the law would only shrink to grow back`;
}

function dailyPeakNote(report: RecommendReport): string | undefined {
  const p = report.dailyPeak;
  if (p === undefined) return undefined;
  const known = report.trace.startSeconds !== undefined;
  const clock = known ? ' UTC' : " (counted from the trace's start)";
  const peak = `note: a daily peak around ${String(p.hourOfDay).padStart(2, '0')}:00${clock} on ${p.daysAtThatHour} of ${p.days} days, a need of ${p.peakNeed} against ${p.troughNeed} in the quietest hour.`;
  const f = report.floorProposal;
  if (f === undefined) return `${peak} The floor already holds it: no scheduled floor to add.`;
  const hours = Number((f.durationSeconds / 3600).toFixed(2));
  const pollers = Math.ceil(f.minConcurrency / 10) * 10;
  const zone = known
    ? ''
    : " (the hours count from the trace's start: write the schedule in your queue's clock, or give timeZone)";
  return [
    peak,
    `A scheduled floor meets it warm: floors: [{ schedule: '${f.schedule}', minConcurrency: ${f.minConcurrency}, duration: Duration.minutes(${f.durationSeconds / 60}) }], ${hours} h a day${zone}.`,
    `With ScalerActuator.PROVISIONED it keeps the pollers warm for it (${pollers}, whole pollers; billed only while on); with the other actuators it holds the limit, and the standard mapping's pollers still ramp on the backlog.`,
    'The figures above do not replay it: each option meets the peak as it comes.',
  ].join(' ');
}

/**
 * Below k = 0.1 the thinned replay's exec peaks were off by a median of up to a quarter on the shipped scenarios
 * (scripts/measure-rate-scale.ts, docs/operator-tools.md): a choice won by a narrower margin is within that error,
 * and the line says so rather than let the 5 % rule look sharper than the replay is.
 */
const THIN_K = 0.1;
const THIN_PEAK_ERROR = 0.25;

function thinningCaution(report: RecommendReport): string | undefined {
  if (report.plan.k >= THIN_K || report.choice.rule === 'least-late') return undefined;
  const chosen = option(report, report.choice.controller);
  const close = report.options.filter(
    (o) =>
      o !== chosen &&
      meetsTarget(o) &&
      o.peak <= chosen.peak * (1 + THIN_PEAK_ERROR) &&
      o.peak >= chosen.peak,
  );
  if (close.length === 0) return undefined;
  return `caution: at k = ${report.plan.k} the thinned replay's peaks were off by a median of up to ${(THIN_PEAK_ERROR * 100).toFixed(0)} % on the shipped scenarios; ${close.map(peakOf).join(' and ')} ${close.length === 1 ? 'is' : 'are'} within that of ${grouped(chosen.peak)}. Replay a shorter stretch (a busy day) for a sharper answer.`;
}

function planText(report: RecommendReport): string[] {
  const p = report.plan;
  const runs = `${count(p.runs, 'run')} (${report.options.length} controllers × ${count(report.seeds.length, 'seed')})`;
  const window = windowText(report);
  if (p.k === 1)
    return [...window, `replay: the trace as it is, ${grouped(p.messagesPerRun)} messages a run, ${runs}`];
  const bound =
    p.boundBy === 'run-bound'
      ? 'the simulator replays at most 50,000,000 messages a run'
      : `${grouped(p.budget)} messages for all runs keeps them to about two minutes (--budget)`;
  const lines = [
    `replay: thinned, k = ${p.k}: ${grouped(p.traceMessages)} messages are too many (${bound}); each replayed message stands for ${Number((1 / p.k).toFixed(1))} of yours and does their work (rates × k, item times ÷ k), ${grouped(p.messagesPerRun)} a run, ${runs}.`,
    `  Concurrency (rate × item time), ages and costs are your trace's, so no figure is scaled back; the figures are a thinned replay's all the same: its arrivals are noisier. The error this brings, measured on every shipped scenario: docs/operator-tools.md, "recommend".`,
  ];
  lines.unshift(...window);
  if (p.functionTimeoutRaisedTo !== undefined)
    lines.push(
      `  The function timeout is raised to ${p.functionTimeoutRaisedTo} s for the replay: a thinned batch does 1/k times your work, and must not time out where yours does not.`,
    );
  return lines;
}

/** A trace longer than one run may be: which stretch was replayed, and how to choose another. */
function windowText(report: RecommendReport): string[] {
  const w = report.plan.window;
  if (w === undefined) return [];
  const kept = report.trace.seconds;
  const clock =
    report.trace.startSeconds === undefined ? " (times below count from this stretch's start)" : '';
  return [
    `window: the trace's last ${duration(kept)} (${grouped(report.trace.phases)} rows), the most one run replays (30 days); its first ${duration(w.droppedSeconds)} (${grouped(w.droppedPhases)} rows) are left out${clock}. For another stretch, export it with trace --from and --to, or cut the file.`,
  ];
}

function optionsTable(report: RecommendReport): string[] {
  const header = `  ${'option'.padEnd(12)} ${'p99÷target'.padStart(10)} ${'meets'.padStart(5)} ${'peak'.padStart(5)} ${'mean'.padStart(7)} ${'DLQ'.padStart(5)} ${'$/month'.padStart(8)} ${'reserved'.padStart(9)}`;
  return [
    `options (lambda preset, ${report.seeds.length === 1 ? 'seed' : 'seeds'} ${seedText(report.seeds)}: the worst seed's p99 ÷ target, exec peak and mean, dead letters; reserved concurrency held on average):`,
    header,
    ...report.options.map(
      (o) =>
        `  ${o.controller.padEnd(12)} ${ratio(o.p99OverTarget).padStart(10)} ${(meetsTarget(o) ? 'yes' : 'no').padStart(5)} ${grouped(o.peak).padStart(5)} ${o.mean.toFixed(2).padStart(7)} ${grouped(o.deadLetters).padStart(5)} ${o.monthlyCost.toFixed(2).padStart(8)} ${(o.controller === 'age-law' ? o.reservedMean.toFixed(1) : '–').padStart(9)}`,
    ),
    ...(report.settings.cap < 20
      ? [
          `  provisioned keeps at least ${MINIMUM_POLLERS} pollers, up to 20 invocations at once: with a cap under 20 its peak can pass the cap, which only reserved concurrency (the age law's) holds.`,
        ]
      : []),
    `  $/month: what each adds to the bill, us-east-1 list prices (the age law: its controller Lambda, reads, metrics and alarms; provisioned: its event pollers; native: nothing). The consumer's own compute is the same for all (the same messages, the same item times) and left out.`,
  ];
}

function seedText(seeds: readonly number[]): string {
  const first = seeds[0] as number;
  const last = seeds[seeds.length - 1] as number;
  const contiguous = seeds.every((s, i) => s === first + i);
  return contiguous && seeds.length > 1 ? `${first}–${last}` : seeds.join(', ');
}

function windowLabel(report: RecommendReport, start: number, seconds: number): string {
  const from = report.trace.startSeconds;
  if (from !== undefined) {
    const iso = isoSeconds(from + start);
    return seconds >= 86_400 ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  }
  return seconds >= 86_400
    ? `day ${start / 86_400 + 1}`
    : `${Number((start / 3600).toFixed(2))}–${Number(((start + seconds) / 3600).toFixed(2))} h`;
}

function comparisonText(report: RecommendReport): string[] {
  const current = `${report.current} (what you run today: --current)`;
  const c = report.comparison;
  if (c === undefined)
    return [
      `replay vs your queue: the file has no observed_age_s or observed_concurrency values (it was not exported by trace, or CloudWatch had no datapoints): nothing to compare ${current} with.`,
    ];
  const num = (x: number | undefined, unit = '') => (x === undefined ? '–' : `${grouped(x)}${unit}`);
  const lines = [
    `replay vs your queue: ${current}, the worst of ${count(report.seeds.length, 'seed')}, per ${c.windowSeconds === 3600 ? 'hour' : c.windowSeconds === 86_400 ? 'day' : duration(c.windowSeconds)}:`,
    `  ${'window'.padEnd(13)} ${'max age: observed'.padStart(17)} ${'replayed'.padStart(9)}   ${'peak concurrency: observed'.padStart(26)} ${'replayed'.padStart(9)}`,
    ...c.windows.map(
      (w) =>
        `  ${windowLabel(report, w.start, w.seconds).padEnd(13)} ${num(w.observedMaxAge, ' s').padStart(17)} ${num(w.replayedMaxAge, ' s').padStart(9)}   ${num(w.observedPeakConcurrency).padStart(26)} ${num(w.replayedPeakExecutions).padStart(9)}`,
    ),
  ];
  const parts: string[] = [];
  if (c.concurrencyRatio !== undefined) {
    const r = c.concurrencyRatio;
    const range = r.low === r.high ? ratio(r.low) : `${ratio(r.low)}–${ratio(r.high)}`;
    const median = r.low === r.high ? '' : ` (median ${ratio(r.median)})`;
    parts.push(`the replay's peak concurrency is ${range} × what your queue showed${median}`);
  }
  if (c.ageDifference !== undefined) {
    const d = c.ageDifference;
    const signed = (x: number) => `${x >= 0 ? '+' : '−'}${grouped(Math.abs(x))} s`;
    parts.push(
      d.low === d.high
        ? `its max age ${signed(d.low)} from yours`
        : `its max age ${signed(d.low)} to ${signed(d.high)} from yours (median ${signed(d.median)})`,
    );
  }
  if (parts.length > 0)
    lines.push(
      `  ${parts.join('; ')}. The further apart, the less the figures above describe your account (the model: docs/simulator.md).`,
    );
  return lines;
}

/** The settings of the choice; the age law's too when it is not the choice, so a user sees what it would take. */
function settingsText(report: RecommendReport): string[] {
  const s = report.settings;
  const law = `targetAge ${secs(s.targetAgeSeconds)} · maxConcurrency ${s.cap} · minConcurrency ${s.floor}`;
  const why = [`  the cap: ${capText(report)}`, `  the floor: ${floorText(report)}`];
  switch (report.choice.controller) {
    case 'age-law':
      return [`settings: ${law}`, ...why];
    case 'native':
      return [
        `settings: the event source mapping's MaximumConcurrency ${s.cap}, reserved concurrency unset, no scaler`,
        `  the age law's, to try it: ${law}`,
        ...why,
      ];
    default:
      return [
        `settings: the mapping's provisioned mode, MinimumPollers ${MINIMUM_POLLERS}, MaximumPollers ${provisionedMaximumPollers(s.cap)} (the cap ${s.cap} ÷ 10 invokes a poller, at least ${MINIMUM_POLLERS}), no scaler`,
        `  the age law's, to try it: ${law}`,
        ...why,
      ];
  }
}

export function recommendText(report: RecommendReport): string {
  const t = report.trace;
  const items = t.itemMs.min === t.itemMs.max ? `${t.itemMs.min} ms` : `${t.itemMs.min}–${t.itemMs.max} ms`;
  const lines = [
    `trace: ${t.name}: ${duration(t.seconds)} in ${count(t.phases, 'phase')}, ${grouped(t.messages)} messages, up to ${rate(t.peakRatePerSecond)}, items ${items}${t.observed ? '' : '; no observed columns'}`,
    ...planText(report),
    '',
    recommendationLine(report),
    ...(thinningCaution(report) === undefined ? [] : [thinningCaution(report) as string]),
    ...settingsText(report),
    ...(dailyPeakNote(report) === undefined ? [] : [dailyPeakNote(report) as string]),
    '',
    ...optionsTable(report),
    '',
    ...comparisonText(report),
  ];
  return `${lines.join('\n')}\n`;
}
