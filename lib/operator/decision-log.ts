import type { FilteredLogEvent } from '@aws-sdk/client-cloudwatch-logs';

/**
 * One controller tick as its structured log line tells it (functions/controller/report.ts `logEntryFor`): the
 * reason code and the numbers behind it. Only the log carries the reason code; the metrics carry flags.
 */
export interface LoggedDecision {
  /** Epoch seconds of the log event. */
  readonly time: number;
  /** `decision`, `tick skipped` or `tick failed: holding`. */
  readonly message: string;
  /** `grow:age-above-target`, `skip:repeat`, `error:throttled`, … */
  readonly reason: string;
  readonly applied?: number;
  readonly desired?: number;
  readonly appliedAfter?: number;
  readonly ageSeconds?: number;
  readonly saturated?: boolean;
  /** For a failed tick: the error and what the controller did about it. */
  readonly error?: string;
}

const TICK_MESSAGES = new Set(['decision', 'tick skipped', 'tick failed: holding']);

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Parses a log event into a decision, or undefined for any other line (EMF documents, Lambda's START/END/REPORT
 * lines, other messages). Lambda's text format may put a timestamp and request id before the JSON.
 */
export function parseDecisionEvent(event: FilteredLogEvent): LoggedDecision | undefined {
  const text = event.message ?? '';
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(text.slice(start)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof entry.message !== 'string' || !TICK_MESSAGES.has(entry.message)) return undefined;
  if (typeof entry.reason !== 'string') return undefined;
  const inputs = (entry.inputs ?? {}) as Record<string, unknown>;
  return {
    time: (event.timestamp ?? 0) / 1000,
    message: entry.message,
    reason: entry.reason,
    applied: num(entry.applied),
    desired: num(entry.desired),
    appliedAfter: num(entry.appliedAfter),
    ageSeconds: num(inputs.ageSeconds),
    saturated: typeof entry.saturated === 'boolean' ? entry.saturated : undefined,
    error: typeof entry.error === 'string' ? entry.error : undefined,
  };
}

/** The newest `limit` decisions, oldest first. */
export function lastDecisions(events: readonly FilteredLogEvent[], limit: number): LoggedDecision[] {
  return events
    .map(parseDecisionEvent)
    .filter((d): d is LoggedDecision => d !== undefined)
    .sort((a, b) => a.time - b.time)
    .slice(-limit);
}
