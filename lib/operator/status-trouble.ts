import type { ReadProblem, StatusReading } from './status-reader.ts';
import type { StatusSummary } from './status-summary.ts';

/** Something the operator should act on, most urgent first. */
export interface Trouble {
  readonly kind: 'overpull' | 'saturated' | 'alarm' | 'not-read';
  readonly message: string;
}

const PART_NAMES: Record<ReadProblem['part'], string> = {
  reserved: 'reserved concurrency',
  mapping: 'the mapping',
  metrics: 'the metrics',
  alarms: 'the alarms',
  decisions: 'the decision log',
};
const PARTS = Object.keys(PART_NAMES) as ReadProblem['part'][];

/**
 * The mapping's pollers do not look at reserved concurrency: with more pollers than the consumer may run, the
 * extra batches are throttled, go back to the queue with a higher receive count, and good messages end in the
 * DLQ ("overpull": docs/aws-facts.md, "Event source mapping"). AWS: never set MaximumConcurrency above reserved
 * concurrency. This is the first thing to fix, so it leads the list.
 */
function overpull(s: StatusSummary, mappingState: string | undefined): Trouble | undefined {
  const reserved = s.reservedConcurrency;
  const maximum = s.mappingMaximum;
  if (typeof reserved !== 'number' || maximum === undefined) return undefined;
  // An unset maximum leaves the pollers to AWS (up to 1,250 per mapping); they start at 5 and grow with the queue.
  const pulls = maximum ?? Number.POSITIVE_INFINITY;
  if (pulls <= reserved) return undefined;
  const disabled = mappingState === 'Disabled';
  const when = disabled ? 'once the mapping is enabled again, ' : '';
  const what =
    maximum === null
      ? `the mapping sets no MaximumConcurrency (its pollers grow with the queue, up to 1,250) while reserved concurrency is ${reserved}`
      : `the mapping's MaximumConcurrency ${maximum} is above the consumer's reserved concurrency ${reserved}`;
  const fix =
    reserved === 0
      ? 'reserved 0 throttles every invocation: to pause, disable the mapping as well'
      : maximum === null
        ? `set MaximumConcurrency (2–1000) to ${reserved} or less`
        : `raise reserved concurrency to ${maximum} or more, or lower MaximumConcurrency to ${reserved} or less`;
  return {
    kind: 'overpull',
    message: `OVERPULL: ${what}: ${when}batches beyond it are throttled, go back to the queue and can reach the DLQ; ${fix}`,
  };
}

/** What is wrong, most urgent first; empty when nothing is. */
export function troubles(r: StatusReading, s: StatusSummary): Trouble[] {
  const found: Trouble[] = [];
  const pull = overpull(s, r.mappingState);
  if (pull) found.push(pull);
  if (s.saturated) {
    found.push({
      kind: 'saturated',
      message:
        'SATURATED: at the cap with the age above target: shed load or raise the cap (the downstream limit)',
    });
  }
  const firing = (r.alarms ?? []).filter((a) => a.state === 'ALARM').map((a) => a.name);
  if (firing.length > 0) found.push({ kind: 'alarm', message: `ALARM: ${firing.join(', ')}` });
  if (r.problems.length > 0) {
    found.push({
      kind: 'not-read',
      message: `NOT READ: ${PARTS.filter((part) => r.problems.some((p) => p.part === part))
        .map((part) => PART_NAMES[part])
        .join(', ')} (the reason is shown in place below)`,
    });
  }
  return found;
}
