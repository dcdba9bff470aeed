import { FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS } from '../../lib/aws/call-timing.ts';
import type { CallLog } from '../../lib/aws/clients.ts';
import type { TickerPort } from '../../lib/aws/ticker.ts';
import {
  continuedLoop,
  type LoopMemberPorts,
  type LoopSample,
  type LoopState,
  loopTallies,
  nextSampleAt,
  sampleLoop,
} from '../../lib/control/control-loop.ts';
import type { QueuePort, ScalerConfig } from '../../lib/control/index.ts';
import type { Actuation, CarriedLimits, LambdaActuator, WriteLog } from './actuator.ts';
import { failed, failedWrite } from './failure.ts';
import type { FastOutcome } from './outcome.ts';
import type { Reporter } from './report.ts';
import type { TickMemory } from './tick-memory.ts';
import { parseTickerBody, type TickerBody, type TickerEvent, tickerBody } from './ticker-message.ts';

/**
 * The Lambda's samples between ticks: the control loop (lib/control/control-loop.ts), one sample per invocation.
 * At the tick the controller sends its ticker queue one message per grid time of the slot, delayed up to it
 * (lib/aws/ticker.ts); each delivery runs that one sample and returns. One sampler for a lone scaler (a loop of one)
 * and a shared budget's members.
 *
 * What carries from the tick to its samples travels in the message (the loop's state and each actuator's limits as
 * the tick left them) and, after a sample, in this container's memory: the controller runs one invocation at a
 * time, so its next delivery normally finds the state the last sample left; a cold container starts from the
 * tick's. Delivery is at least once, so every sample is level-based: a duplicate of a sample already taken, a
 * message of an older slot, or one delivered after its slot's last sample time does nothing; a lost one is a
 * missed sample, and the next tick re-seeds. No sample reads a Lambda value unless it grows, and then it reads
 * both limits first (a pause or a hand edit since the tick is held); no write starts within 6 s of the next tick,
 * where that tick would take it for its own and skip (`skip:repeat`).
 */

export interface SamplerDependencies {
  readonly calls: CallLog;
  /** Epoch seconds. */
  readonly clock: () => number;
  /** The ticker queue; none: nothing samples between ticks. */
  readonly ticker?: TickerPort;
  /** This container's memory of its ticks: a sample's growth is a change the next tick must count. */
  readonly memory?: TickMemory;
}

/** One member's hands in the Lambda: its actuator, its queue and its reporter. */
export interface LoopMemberRun {
  readonly config: ScalerConfig;
  readonly actuator: LambdaActuator;
  readonly queue: QueuePort;
  readonly reporter?: Reporter;
}

/** What a ticker message carries: the loop's state, and each member's limits as its actuator knows them. */
export interface CarriedLoop {
  readonly loop: LoopState;
  readonly limits: Readonly<Record<string, CarriedLimits>>;
}

/** Builds the members' hands afresh, in a container that did not run the tick. */
export type MemberRuns = (names: readonly string[]) => ReadonlyMap<string, LoopMemberRun>;

/** A slot's loop as this container last left it. */
interface Live {
  readonly state: LoopState;
  readonly runs: ReadonlyMap<string, LoopMemberRun>;
}

/** One member's actuation and writes within a recording. */
export type Recorded = { actuation: Actuation; writes: WriteLog[] };

export class Sampler {
  #live: Live | undefined;

  constructor(
    private readonly deps: SamplerDependencies,
    private readonly memberRuns: MemberRuns,
  ) {}

  /**
   * After a tick: remembers its loop and sends one ticker message per sample time. A send that fails only loses
   * this minute's samples (reported); the tick's own work is done.
   */
  async start(started: LoopState, runs: ReadonlyMap<string, LoopMemberRun>): Promise<void> {
    // Slow start's evidence goes on from this container's loop of the tick before (control-loop.ts).
    const state = continuedLoop(started, this.#live?.state);
    this.#live = { state, runs };
    const { ticker, clock } = this.deps;
    if (ticker === undefined || nextSampleAt(state) === undefined) return;
    const now = clock();
    const carried: CarriedLoop = { loop: state, limits: limitsOf(runs) };
    const messages = state.grid.times.map((at) => ({
      delaySeconds: at - now,
      body: JSON.stringify(tickerBody(state.grid.start, at, startsUntil(state), carried)),
    }));
    try {
      const { refused } = await ticker.schedule(messages);
      if (refused > 0)
        this.reportAll(runs, new Error(`the ticker queue refused ${refused} of ${messages.length} samples`));
    } catch (error) {
      this.reportAll(runs, error);
    }
  }

  /** A ticker delivery: each record's sample, in order (the mapping's batch size is 1). */
  async deliver(event: TickerEvent): Promise<void> {
    for (const record of event.Records) {
      await this.sample(parseTickerBody<CarriedLoop>(record.body));
    }
  }

  /** One sample, unless it is not ours, superseded or a duplicate. */
  async sample(body: TickerBody<CarriedLoop> | undefined): Promise<void> {
    if (body === undefined) return;
    const now = this.deps.clock();
    const live = this.current(body, now);
    if (live === undefined) return;
    // The grid time before this one counts as taken: a lost message is a missed sample, not a later one.
    const earlier = live.state.grid.times.filter((t) => t < body.at).at(-1);
    const state: LoopState = { ...live.state, sampledAt: earlier ?? Number.NEGATIVE_INFINITY };
    if (nextSampleAt(state) !== body.at) return;
    const deadline = { at: startsUntil(state), clock: this.deps.clock };
    for (const run of live.runs.values()) run.actuator.writeDeadline = deadline;
    this.deps.calls.reset();
    const step = await this.step(state, live.runs, now);
    this.#live = { state: step, runs: live.runs };
    if (nextSampleAt(step) === undefined) this.reportTallies(step, live.runs);
  }

  /**
   * The slot's loop this delivery belongs to: this container's own where it holds that slot, else the tick's from
   * the message; undefined where the delivery is superseded (an older slot, its slot's samples over) or a
   * duplicate of a sample already taken.
   */
  private current(body: TickerBody<CarriedLoop>, now: number): Live | undefined {
    if (now > body.end) return undefined;
    const live = this.#live;
    if (live !== undefined && live.state.grid.start > body.slot) return undefined;
    if (live !== undefined && live.state.grid.start === body.slot) {
      return (live.state.sampledAt ?? Number.NEGATIVE_INFINITY) >= body.at ? undefined : live;
    }
    // A cold container with a budget's later sample: the message holds the counts the tick left, and a growth by an
    // earlier sample (in the container that is gone) is not among them, so another member could grow into units
    // already taken. Only the slot's first sample, before which nothing grew, is taken from the message.
    if (body.state.loop.budget !== undefined && body.at !== body.state.loop.grid.times[0]) return undefined;
    const names = body.state.loop.members.map((m) => m.name);
    const runs = this.memberRuns(names);
    for (const [name, run] of runs) {
      const known = body.state.limits[name];
      if (known !== undefined) run.actuator.carry(known);
    }
    return { state: body.state.loop, runs };
  }

  /** The loop's sample at `now`, each member's outcome reported; the loop's state after it. */
  private async step(
    state: LoopState,
    runs: ReadonlyMap<string, LoopMemberRun>,
    now: number,
  ): Promise<LoopState> {
    const active = state.members.filter((m) => m.left === undefined).map((m) => m.name);
    const ports = loopPorts(runs);
    const { value: step, recorded } = await recordingAll(active, runs, () => sampleLoop(state, ports, now));
    for (const [name, result] of step.results) {
      const run = runs.get(name) as LoopMemberRun;
      const outcome = fastOutcome(
        result,
        recorded.get(name) ?? { actuation: { kind: 'unchanged' }, writes: [] },
        run,
      );
      if (outcome !== undefined) run.reporter?.reportFast(outcome, this.deps.calls, now);
      if (result.ok && result.grew) this.deps.memory?.grew(name, now, run.actuator.appliedNow);
      const quiet = result.ok ? result.sample.context.quiet : undefined;
      if (quiet !== undefined) this.deps.memory?.quiet(name, quiet);
    }
    return step.state;
  }

  private reportTallies(state: LoopState, runs: ReadonlyMap<string, LoopMemberRun>): void {
    for (const [name, tally] of loopTallies(state, 'deadline')) {
      const run = runs.get(name);
      run?.reporter?.reportFastLoop({ ...tally, appliedAfter: run.actuator.appliedNow });
    }
  }

  private reportAll(runs: ReadonlyMap<string, LoopMemberRun>, error: unknown): void {
    const now = this.deps.clock();
    for (const run of runs.values()) run.reporter?.reportFast(failed(error), this.deps.calls, now);
  }
}

/**
 * The last instant a sample of this slot may start: where its writes would have to stop. A delivery a moment after
 * its grid time (the mapping's polling) still samples; one after this is superseded by the next tick.
 */
function startsUntil(state: LoopState): number {
  return state.grid.nextTick - FAST_WRITE_DEADLINE_BEFORE_TICK_SECONDS;
}

/** Each member's limits as its actuator knows them now (read, then written). */
function limitsOf(runs: ReadonlyMap<string, LoopMemberRun>): Record<string, CarriedLimits> {
  const limits: Record<string, CarriedLimits> = {};
  for (const [name, run] of runs) {
    const known = run.actuator.carried;
    if (known !== undefined) limits[name] = known;
  }
  return limits;
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
