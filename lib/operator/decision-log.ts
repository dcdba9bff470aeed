import type { FilteredLogEvent } from '@aws-sdk/client-cloudwatch-logs';
import { CONTROLLER_LOG_MESSAGES as LOG } from '../telemetry.ts';

/**
 * One controller decision as its structured log line tells it (functions/controller/report.ts `logEntryFor`,
 * `logEntryForFast`): the reason code and the numbers behind it. Only the log carries the reason code; the
 * metrics carry flags.
 */
export interface LoggedDecision {
  /** Epoch seconds of the log event. */
  readonly time: number;
  /** `decision`, `tick skipped`, `tick failed: holding`, `fast path` or `fast path failed: …`. */
  readonly message: string;
  /** The minute's tick, or a fast-path sample between ticks. */
  readonly source: 'tick' | 'fast path';
  /** `grow:age-above-target`, `grow:fast-surge`, `skip:repeat`, `error:throttled`, … */
  readonly reason: string;
  readonly applied?: number;
  readonly desired?: number;
  readonly appliedAfter?: number;
  readonly ageSeconds?: number;
  /** The real-time depth a fast-path sample grew on. */
  readonly visibleMessages?: number;
  readonly saturated?: boolean;
  /**
   * The settings a tick ran under (its cap, floor and target): the controller logs them rather than publishing
   * them as metrics, billed every hour for constants of the deployment.
   */
  readonly settings?: LoggedSettings;
  /** For a failed tick or sample: the error and what the controller did about it. */
  readonly error?: string;
}

export interface LoggedSettings {
  readonly maxConcurrency?: number;
  readonly minConcurrency?: number;
  readonly targetAgeSeconds?: number;
}

/**
 * The lines that say what the controller decided: every tick (one a minute, holds included: "nothing changed, and
 * why" is what a reader of status asks), and the fast path's samples that grew or failed between ticks, which
 * change the concurrency as much as a tick does. The fast path logs only those (functions/controller/handler.ts
 * reports a sample only when it wrote, found a pause, or failed); its samples that held (`hold:fast`, up to 5 a minute,
 * idle or busy) are counted in the loop's `fast path done` summary, left out here: one more line a minute that
 * changes nothing would push the decisions off a screen of 8.
 */
const DECISION_SOURCES = new Map<string, LoggedDecision['source']>([
  [LOG.decision, 'tick'],
  [LOG.tickSkipped, 'tick'],
  [LOG.tickFailed, 'tick'],
  [LOG.fastPath, 'fast path'],
  [LOG.fastPathFailed, 'fast path'],
]);

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
  const source = typeof entry.message === 'string' ? DECISION_SOURCES.get(entry.message) : undefined;
  if (source === undefined || typeof entry.reason !== 'string') return undefined;
  const inputs = (entry.inputs ?? {}) as Record<string, unknown>;
  const settings = entry.settings as Record<string, unknown> | undefined;
  return {
    time: (event.timestamp ?? 0) / 1000,
    message: entry.message as string,
    source,
    reason: entry.reason,
    applied: num(entry.applied),
    desired: num(entry.desired),
    appliedAfter: num(entry.appliedAfter),
    ageSeconds: num(inputs.ageSeconds),
    visibleMessages: num(inputs.visibleMessages),
    saturated: typeof entry.saturated === 'boolean' ? entry.saturated : undefined,
    settings:
      settings === undefined || typeof settings !== 'object'
        ? undefined
        : {
            maxConcurrency: num(settings.maxConcurrency),
            minConcurrency: num(settings.minConcurrency),
            targetAgeSeconds: num(settings.targetAgeSeconds),
          },
    error: typeof entry.error === 'string' ? entry.error : undefined,
  };
}

/** The newest `limit` decisions, ticks and fast-path samples together, oldest first. */
export function lastDecisions(events: readonly FilteredLogEvent[], limit: number): LoggedDecision[] {
  return events
    .map(parseDecisionEvent)
    .filter((d): d is LoggedDecision => d !== undefined)
    .sort((a, b) => a.time - b.time)
    .slice(-limit);
}
