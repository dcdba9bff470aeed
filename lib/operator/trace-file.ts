import { OBSERVED_COLUMNS, PHASE_HEADER } from '../load-file/load-file.ts';
import { TRACE_SERIES } from './trace-metrics.ts';
import type { BatchSize, ItemSource, TraceRow } from './trace-phases.ts';
import { isoSeconds, periodName, type TraceRange } from './trace-range.ts';

/**
 * The text of the load file `trace` writes: the load-file format `simulate`, `bench` and `load` read
 * (lib/load-file/load-file.ts), its two optional observed columns, and a header of comments that says where every
 * number came from. Pure: the rows in, the text out.
 */
export interface TraceFileInputs {
  readonly queueUrl: string;
  readonly queueName: string;
  readonly functionName: string;
  readonly range: TraceRange;
  readonly batch: BatchSize;
  readonly rows: readonly TraceRow[];
  /** Epoch seconds. */
  readonly exportedAt: number;
}

export interface TraceSummary {
  readonly periods: number;
  readonly phases: number;
  /** Periods with a NumberOfMessagesSent datapoint. */
  readonly withData: number;
  readonly gaps: number;
  readonly gapPeriods: number;
  /** Periods with data, by where their item time came from. */
  readonly items: Readonly<Record<ItemSource, number>>;
}

export function traceSummary(rows: readonly TraceRow[], periodSeconds: number): TraceSummary {
  const items: Record<ItemSource, number> = { counts: 0, 'batch-size': 0, carried: 0 };
  let gaps = 0;
  let gapPeriods = 0;
  let withData = 0;
  rows.forEach((row, i) => {
    if (row.gap) {
      // A gap longer than a phase may last is several rows, one gap.
      if (rows[i - 1]?.gap !== true) gaps++;
      gapPeriods += row.durationSeconds / periodSeconds;
      return;
    }
    withData++;
    items[row.itemSource]++;
  });
  return { periods: withData + gapPeriods, phases: rows.length, withData, gaps, gapPeriods, items };
}

/**
 * A plain decimal (the load file refuses exponents) rounded to `places`, without trailing zeros. Rates get 6
 * places: 1 message in a 1-hour period is 0.000278/s, which 4 places would turn into 0.0003.
 */
export function decimalText(value: number, places: number): string {
  const fixed = value.toFixed(places);
  const trimmed = fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  return trimmed === '-0' ? '0' : trimmed;
}

/** `4 h`, `1 h 38 min`, `2 d 3 h`. */
export function span(seconds: number): string {
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3_600), 'h'],
    [Math.round((seconds % 3_600) / 60), 'min'],
  ] as const;
  return (
    parts
      .filter(([n]) => n > 0)
      .map(([n, unit]) => `${n} ${unit}`)
      .join(' ') || `${seconds} s`
  );
}

/** `2026-11-03T04:00:00Z – 08:00:00Z`: the end's date left out when it is the start's. */
export function gapSpan(start: number, end: number): string {
  const from = isoSeconds(start);
  const to = isoSeconds(end);
  return `${from} – ${from.slice(0, 10) === to.slice(0, 10) ? to.slice(11) : to}`;
}

function metric(name: keyof typeof TRACE_SERIES): string {
  const s = TRACE_SERIES[name];
  return `${s.namespace} ${s.metric} (${s.stat})`;
}

function header(inputs: TraceFileInputs, summary: TraceSummary): string[] {
  const { range, batch } = inputs;
  const period = range.periodSeconds;
  const p = `${period} s`;
  return [
    `# queue-age-scaler trace: the CloudWatch history of an SQS queue and its Lambda consumer, one phase a period.`,
    `# queue: ${inputs.queueName} (${inputs.queueUrl})`,
    `# function: ${inputs.functionName}`,
    `# range: ${isoSeconds(range.start)} – ${isoSeconds(range.end)} (${range.given}), exported ${isoSeconds(inputs.exportedAt)}`,
    `# period: ${periodName(period)} (${p}): ${range.why}`,
    `# the newest periods may still be incomplete: SQS metrics arrive 1-2 minutes late`,
    `# columns:`,
    `#   duration_s: the period, ${p}; a gap's row lasts the whole gap (at most 30 days a row)`,
    `#   rate_per_s: ${metric('sent')} ÷ ${p}`,
    `#   item_ms: ${metric('duration')}, per invocation (one batch), ÷ messages per invocation:`,
    `#     ${metric('deleted')} ÷ ${metric('invocations')}, at least 1; where those`,
    `#     counts are missing, ÷ the batch size ${batch.size}; a period without Duration (no invocation ended in it)`,
    `#     takes the previous period's item_ms`,
    `#   observed_age_s: ${metric('age')}; not replayed, empty: no datapoint`,
    `#   observed_concurrency: ${metric('concurrency')}; not replayed, empty: no datapoint`,
    `# batch size: ${batch.size}, ${batch.source}`,
    `# gaps: a run of periods without a NumberOfMessagesSent datapoint (CloudWatch omits empty periods; SQS stops`,
    `#   reporting a queue idle for 6 hours) is one row, after a "# gap" line, with rate 0 and empty observed cells:`,
    `#   the replay sends nothing for that long and the queue drains, as an idle queue would`,
    `# periods: ${summary.periods}, ${summary.withData} with data (item_ms from the counts in ${summary.items.counts}, from the batch size in ${summary.items['batch-size']}, carried in ${summary.items.carried}); ${summary.gaps} gap${summary.gaps === 1 ? '' : 's'} of ${summary.gapPeriods} periods`,
    `# replay: npm start -- --trace FILE.csv (or queue-age-scaler simulate | bench | load --trace FILE.csv)`,
  ];
}

function rowText(row: TraceRow): string {
  const cell = (value: number | undefined) => (value === undefined ? '' : decimalText(value, 3));
  return [
    String(row.durationSeconds),
    decimalText(row.ratePerSecond, 6),
    decimalText(row.itemMs, 3),
    row.gap ? '' : cell(row.observedAgeSeconds),
    row.gap ? '' : cell(row.observedConcurrency),
  ].join(',');
}

export function traceFileText(inputs: TraceFileInputs): { text: string; summary: TraceSummary } {
  const summary = traceSummary(inputs.rows, inputs.range.periodSeconds);
  const lines = [...header(inputs, summary), [...PHASE_HEADER, ...OBSERVED_COLUMNS].join(',')];
  const rows = inputs.rows;
  rows.forEach((row, i) => {
    if (row.gap && rows[i - 1]?.gap !== true) {
      let end = row.start + row.durationSeconds;
      let count = 1;
      for (let k = i + 1; rows[k]?.gap === true; k++) {
        end = (rows[k]?.start ?? end) + (rows[k]?.durationSeconds ?? 0);
        count++;
      }
      const split = count > 1 ? ` (${count} rows: a phase lasts 30 days at most)` : '';
      lines.push(
        `# gap ${gapSpan(row.start, end)}: no datapoints for ${span(end - row.start)}; replayed as no arrivals${split}`,
      );
    }
    lines.push(rowText(row));
  });
  return { text: `${lines.join('\n')}\n`, summary };
}
