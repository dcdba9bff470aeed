import type { TickPorts } from '../control/tick.ts';
import { type Phase, totalSeconds } from '../load-file/load-file.ts';
import type { ConsumerMode } from './actuator-model.ts';
import {
  type SampleOutcome,
  type SimController,
  sampleCarrierSeconds,
  type TickReport,
} from './controller-clock.ts';
import { Downstream, type DownstreamModel, type DownstreamStats } from './downstream.ts';
import { EventQueue } from './event-queue.ts';
import { ExecutionSum, LimitSum } from './group-meters.ts';
import type { Invocation } from './invocations.ts';
import type { LevelSummary } from './level-meter.ts';
import { MAX_SEED } from './random.ts';
import { Simulation, type SimulationResult } from './simulation.ts';
import type { SimWorld } from './world.ts';

/**
 * Several queues, each with its own load and consumer, calling one downstream (a database's connection pool, an
 * API's rate): N member simulations that share ONE `Downstream` and run in one virtual-time loop. Each member is
 * a whole `Simulation` (its queue, pollers, invocations, CloudWatch, controller clock), stepped from here: the
 * globally earliest event always runs next, ties going to the group's controller first, then by member order, so
 * a run is as deterministic as one queue's. The shared pool hands a freed connection to whoever waits longest,
 * whichever member it belongs to (`Invocation.owner`).
 *
 * The members are controlled either each by its own controller (native, the age law per queue: its own ticks,
 * as separate scalers would be) or all by one `GroupController` (the shared budget: one tick for every member at
 * once, as its single Lambda will be).
 */

/** A member as the group's controller sees it: its name and the ports its own controller clock builds. */
export interface ControlledMember {
  readonly name: string;
  readonly ports: TickPorts;
}

/** One controller for every member (a shared budget): it ticks and samples them all at the same instant. */
export interface GroupController {
  readonly name: string;
  /** One tick of every member at `now`; each member's report for its timeline, in member order. */
  tick(members: readonly ControlledMember[], now: number): Promise<readonly TickReport[]>;
  /**
   * A fast-path sample of every member between ticks; for each member, in order, whether its limit rose and its
   * last quiet sample (`SampleOutcome`).
   */
  fastSample?(members: readonly ControlledMember[], now: number): Promise<readonly SampleOutcome[]>;
}

export interface GroupMemberInput {
  /** Unique in the group. */
  readonly name: string;
  readonly phases: readonly Phase[];
  /** Its own controller; with a group controller it only names the member's controller in messages. */
  readonly controller: SimController;
  readonly consumer: ConsumerMode;
  readonly floor: number;
  readonly cap: number;
  readonly targetAgeSeconds: number;
}

export interface GroupSimulationInput {
  readonly members: readonly GroupMemberInput[];
  readonly world: SimWorld;
  readonly tickSeconds: number;
  /** The fast path's sampling interval between ticks; 0, or a tick or more: none. */
  readonly fastSampleSeconds?: number;
  /** The downstream every member's items call, shared. */
  readonly downstream: DownstreamModel;
  /** Member 0 runs on this seed, so a group of one replays the single simulation exactly; the others on `memberSeed`. */
  readonly seed: number;
  /** One controller for every member; absent: each member runs its own. */
  readonly controller?: GroupController;
}

export interface GroupSimulationResult {
  /** Each member's run, in member order (without the downstream's figures: they are the group's). */
  readonly members: readonly SimulationResult[];
  /** Σ over members of the limit in force, at every instant (every write counted as it lands). */
  readonly limitSum: LevelSummary;
  /** Σ over members of the concurrent executions, at every instant. */
  readonly executionSum: LevelSummary;
  /** Items that had to wait for a connection of the shared pool. */
  readonly connectionWaits: number;
  /** Calls the shared API refused (HTTP 429). */
  readonly rejectedCalls: number;
  readonly downstream: DownstreamStats | undefined;
  readonly simulatedSeconds: number;
}

// A golden-ratio stride: members' seeds far apart in the generator's 32-bit state, none equal for up to 2^32 members.
const SEED_STRIDE = 0x9e3779b9;

/** Member `index`'s seed: the group's own for the first, so a group of one is the single run it replaces. */
export function memberSeed(seed: number, index: number): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new RangeError(`seed ${seed} is outside [0, ${MAX_SEED}]`);
  return (seed + index * SEED_STRIDE) >>> 0;
}

/**
 * Every member's phases, the shorter loads followed by an idle phase (rate 0) up to the longest: the members run
 * on one clock, and a member whose load has ended still holds connections until its last items finish.
 */
export function alignedPhases(members: readonly { readonly phases: readonly Phase[] }[]): Phase[][] {
  const end = Math.max(...members.map((m) => totalSeconds(m.phases)));
  return members.map((m) => {
    const left = end - totalSeconds(m.phases);
    const last = m.phases[m.phases.length - 1];
    if (left <= 1e-9 || last === undefined) return [...m.phases];
    return [...m.phases, { durationSeconds: left, ratePerSecond: 0, itemMs: last.itemMs }];
  });
}

/** What the group's own schedule runs: the shared controller's tick and its fast path's samples. */
type GroupTask = 'tick' | 'fast-sample';

export class GroupSimulation {
  private readonly members: readonly Simulation[];
  private readonly names: readonly string[];
  private readonly downstream: Downstream<Invocation>;
  private readonly executions = new ExecutionSum();
  private readonly limits: LimitSum;
  /** The group controller's schedule, apart from the members' queues: it runs first on a tie. */
  private readonly tasks = new EventQueue<GroupTask>();
  /** How often the shared controller is asked for a fast-path sample (`sampleCarrierSeconds`). */
  private readonly fastSampleSeconds: number | undefined;
  private lastTickAt = Number.NEGATIVE_INFINITY;
  private readonly end: number;

  constructor(private readonly input: GroupSimulationInput) {
    if (input.members.length === 0) throw new RangeError('a group needs at least one member');
    this.downstream = new Downstream(input.downstream);
    const phases = alignedPhases(input.members);
    const external = input.controller !== undefined;
    this.members = input.members.map(
      (m, i) =>
        new Simulation({
          phases: phases[i] as Phase[],
          world: input.world,
          controller: m.controller,
          tickSeconds: input.tickSeconds,
          floor: m.floor,
          cap: m.cap,
          targetAgeSeconds: m.targetAgeSeconds,
          consumer: m.consumer,
          fastSampleSeconds: input.fastSampleSeconds,
          seed: memberSeed(input.seed, i),
          shared: { downstream: this.downstream, executions: this.executions },
          externallyControlled: external,
        }),
    );
    this.names = input.members.map((m) => m.name);
    this.limits = new LimitSum(this.members.map((m) => m.limits));
    this.end = totalSeconds(phases[0] as Phase[]);
    // The control loop picks its own sample times (the Lambda's grid) among these instants.
    this.fastSampleSeconds =
      input.controller?.fastSample !== undefined
        ? sampleCarrierSeconds(input.fastSampleSeconds, input.tickSeconds)
        : undefined;
  }

  async run(): Promise<GroupSimulationResult> {
    for (const member of this.members) member.start();
    const start = this.input.world.controllerStartSeconds;
    if (this.input.controller !== undefined) {
      this.tasks.push(start, 'tick');
      if (this.fastSampleSeconds !== undefined)
        this.tasks.push(start + this.fastSampleSeconds, 'fast-sample');
    }
    const members = this.members;
    for (;;) {
      // The earliest member event; on a tie the first member in the file.
      let next: Simulation | undefined;
      let nextTime = Number.POSITIVE_INFINITY;
      for (const member of members) {
        const time = member.nextTime();
        if (time !== undefined && time < nextTime) {
          next = member;
          nextTime = time;
        }
      }
      const taskTime = this.tasks.peekTime();
      if (taskTime !== undefined && taskTime <= this.end && taskTime <= nextTime) {
        await this.runTask(taskTime);
        continue;
      }
      if (next === undefined) break;
      const pending = next.step();
      if (pending !== undefined) await pending;
    }
    const end = this.end;
    return {
      members: members.map((m) => m.finish()),
      limitSum: this.limits.meter.summary(end),
      executionSum: this.executions.meter.summary(end),
      connectionWaits: this.downstream.connectionWaits,
      rejectedCalls: this.downstream.rejectedCalls,
      downstream: this.downstream.stats(),
      simulatedSeconds: end,
    };
  }

  private async runTask(now: number): Promise<void> {
    const task = this.tasks.peekItem() as GroupTask;
    this.tasks.removeTop();
    const controller = this.input.controller as GroupController;
    const ports = (): ControlledMember[] =>
      this.members.map((m, i) => ({ name: this.names[i] as string, ports: m.controlPorts(now) }));
    if (task === 'tick') {
      const reports = await controller.tick(ports(), now);
      this.members.forEach((m, i) => {
        m.recordTick(now, reports[i] ?? {});
      });
      this.lastTickAt = now;
      this.tasks.push(now + this.input.tickSeconds, 'tick');
      return;
    }
    // As the Lambda's loop takes them: a sample at a tick's own instant is the tick's.
    if (now !== this.lastTickAt && controller.fastSample !== undefined) {
      const outcomes = await controller.fastSample(ports(), now);
      this.members.forEach((m, i) => {
        const outcome = outcomes[i];
        if (outcome !== undefined) m.fastPathSampled(now, outcome);
      });
    }
    this.tasks.push(now + (this.fastSampleSeconds as number), 'fast-sample');
  }
}
