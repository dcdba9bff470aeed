import {
  FAST_SAMPLE_WORST_SECONDS,
  FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS,
} from '../../lib/aws/call-budget.ts';
import type { CallLog } from '../../lib/aws/clients.ts';
import {
  activeMembers,
  type LoopMemberPorts,
  type LoopSample,
  type LoopState,
  loopTallies,
  nextSampleAt,
  sampleLoop,
} from '../../lib/control/control-loop.ts';
import type { QueuePort, ScalerConfig } from '../../lib/control/index.ts';
import type { Actuation, LambdaActuator, WriteLog } from './actuator.ts';
import { failed, failedWrite } from './failure.ts';
import type { FastOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';

/**
 * The Lambda's fast path: the control loop (lib/control/control-loop.ts) between this tick and the next, one
 * sample at each of the slot's grid times, sleeping in between. One loop for a lone scaler (a loop of one) and a
 * shared budget's members. No Lambda read per sample (the control plane is 15 requests/s per account): each
 * actuator carries the limits the tick read and wrote, and reads them afresh only before a growth, so an
 * operator's pause or hand edit since the tick is seen first. No write starts within 6 s of the next tick, where
 * that tick would take it for its own and skip (`skip:repeat`).
 */

export interface LoopClock {
  readonly calls: CallLog;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** Waits; the tests step a virtual clock instead. @default setTimeout */
  readonly sleep?: (seconds: number) => Promise<void>;
}

/** One member's hands in the Lambda: its actuator (carried from the tick), its queue and its reporter. */
export interface LoopMemberRun {
  readonly config: ScalerConfig;
  readonly actuator: LambdaActuator;
  readonly queue: QueuePort;
  readonly reporter?: Reporter;
}

/** What Lambda passes as the handler's context (only the remaining time is used). */
export interface InvocationContext {
  getRemainingTimeInMillis?(): number;
}

type Recorded = { actuation: Actuation; writes: WriteLog[] };

export async function runFastLoop(
  deps: LoopClock,
  start: LoopState,
  runs: ReadonlyMap<string, LoopMemberRun>,
  context: InvocationContext | undefined,
): Promise<void> {
  const sleep = deps.sleep ?? ((s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000)));
  const deadline = { at: start.grid.nextTick - FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS, clock: deps.clock };
  for (const run of runs.values()) run.actuator.writeDeadline = deadline;
  const ports = loopPorts(runs);
  let state = start;
  let stoppedBy: 'deadline' | 'remaining-time' = 'deadline';
  for (let at = nextSampleAt(state); at !== undefined; at = nextSampleAt(state)) {
    const wait = Math.max(0, at - deps.clock());
    if (!timeForSample(context, wait, activeMembers(state).length)) {
      stoppedBy = 'remaining-time';
      break;
    }
    if (wait > 0) await sleep(wait);
    deps.calls.reset();
    const now = deps.clock();
    const active = activeMembers(state).map((m) => m.name);
    const { value: step, recorded } = await recordingAll(active, runs, () => sampleLoop(state, ports, now));
    state = step.state;
    for (const [name, result] of step.results) {
      const run = runs.get(name) as LoopMemberRun;
      const outcome = fastOutcome(
        result,
        recorded.get(name) ?? { actuation: { kind: 'unchanged' }, writes: [] },
        run,
      );
      if (outcome !== undefined) run.reporter?.reportFast(outcome, deps.calls, now);
    }
  }
  for (const [name, tally] of loopTallies(state, stoppedBy)) {
    const run = runs.get(name);
    run?.reporter?.reportFastLoop({ ...tally, appliedAfter: run.actuator.appliedNow });
  }
}

/** Lambda's time left when the samples would start: each must fit at its worst case, else none is waited for. */
function timeForSample(context: InvocationContext | undefined, wait: number, members: number): boolean {
  const remaining = context?.getRemainingTimeInMillis?.();
  return remaining === undefined || remaining - wait * 1000 >= members * FAST_SAMPLE_WORST_SECONDS * 1000;
}

/** The loop's ports: each member's queue and actuator, whose last actuation is the write's verdict. */
function loopPorts(runs: ReadonlyMap<string, LoopMemberRun>): Map<string, LoopMemberPorts> {
  return new Map(
    [...runs].map(([name, run]) => [
      name,
      {
        queue: run.queue,
        concurrency: run.actuator,
        config: run.config,
        lastWrite: () => run.actuator.actuation,
      },
    ]),
  );
}

/** Nests every named member's recording around `work`, so each gets its own actuation and writes. */
export async function recordingAll<T>(
  names: readonly string[],
  runs: ReadonlyMap<string, { readonly actuator: LambdaActuator }>,
  work: () => Promise<T>,
): Promise<{ value: T; recorded: Map<string, Recorded> }> {
  const recorded = new Map<string, Recorded>();
  const nest = async (i: number): Promise<T> => {
    const name = names[i];
    const run = name === undefined ? undefined : runs.get(name);
    if (name === undefined || run === undefined) return work();
    const { value, actuation, writes } = await run.actuator.recording(() => nest(i + 1));
    recorded.set(name, { actuation, writes });
    return value;
  };
  return { value: await nest(0), recorded };
}

/**
 * What a sample reports: a failure, a pause, a failed write (one the deadline kept back is no error: the calls
 * were slow, and the next tick decides), a growth, or a growth the headroom refused. Nothing for a quiet sample.
 */
function fastOutcome(
  result: LoopSample,
  { actuation, writes }: Recorded,
  run: LoopMemberRun,
): FastOutcome | undefined {
  if (!result.ok) return failed(result.error);
  const { sample, grew } = result;
  if (sample.paused) return { kind: 'paused', paused: sample.paused, sample };
  if (actuation.kind === 'failed')
    return actuation.failure === 'deadline' ? undefined : failedWrite(actuation);
  if (!grew && actuation.kind !== 'clamped') return undefined;
  return {
    kind: grew ? 'grew' : 'clamped',
    sample,
    actuation,
    writes,
    applied: sample.applied,
    appliedAfter: run.actuator.appliedNow,
    config: run.config,
  };
}
