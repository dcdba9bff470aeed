import { INVOKES_PER_POLLER } from '../control/config.ts';
import type { DepthSample } from '../control/depth-sample.ts';
import type { QueueDepth } from '../control/ports.ts';
import type { ControllerState } from '../control/snapshot.ts';
import type { TickPorts } from '../control/tick.ts';
import type { ActuatorModel } from './actuator-model.ts';
import type { MessageQueue } from './message-queue.ts';
import type { MetricPeriods } from './metric-periods.ts';
import type { ReceiveLoops } from './receive-loops.ts';
import { RememberedRateReads } from './remembered-rates.ts';

/** What a controller tick reports back for the timeline. */
export interface TickReport {
  readonly reason?: string;
  readonly saturated?: boolean;
  /** The downstream got slower with the age above target: the shed signal. */
  readonly shed?: boolean;
}

export interface SimController {
  readonly name: string;
  tick(ports: TickPorts, now: number): Promise<TickReport>;
  /**
   * A sub-tick sample of the real-time depth (the fast path), when the controller has one and the last tick
   * started it. Reports whether it changed the applied concurrency.
   */
  fastSample?(ports: TickPorts, now: number): Promise<SampleOutcome>;
}

/**
 * What a sample between ticks tells the next tick: whether it changed the applied concurrency, and the last sample
 * with no backlog (lib/control/quiet-sample.ts), where the loop took one.
 */
export interface SampleOutcome {
  readonly changed: boolean;
  readonly quiet?: DepthSample;
}

/** What the controller's ports reach: late CloudWatch, the queue's real-time depth, the consumer's limits. */
export interface ControlledParts {
  readonly metrics: MetricPeriods;
  readonly queue: MessageQueue;
  readonly actuator: ActuatorModel;
  readonly loops: ReceiveLoops;
  /** The seed's in-process pool reads its queue's head age the instant it asks, not from CloudWatch. */
  readonly instantAge: boolean;
  /** The consumer function's timeout, where it has one (a budget's release waits for it). */
  readonly functionTimeoutSeconds?: number;
  /** The mapping's BatchSize, as the Lambda's adapter reads it with the limits. */
  readonly batchSize?: number;
  /** The scaler's target age: whether a tick found the queue on time, so the next may reuse its rates. */
  readonly targetAgeSeconds: number;
}

/**
 * How often the simulator asks the controller whether a fast-path sample is due: the largest step that lands on
 * every sample time of every slot (the grid restarts at each tick, so at 7 s in a 60 s tick that is 1 s). The
 * control loop itself says which of these instants are its samples (`sampleDue`), on the Lambda's grid. Milliseconds
 * are the resolution. Undefined without a fast path (an interval of 0, or of a tick or more).
 */
export function sampleCarrierSeconds(interval: number | undefined, tickSeconds: number): number | undefined {
  if (interval === undefined || !(interval > 0 && interval < tickSeconds)) return undefined;
  let a = Math.round(interval * 1000);
  let b = Math.round(tickSeconds * 1000);
  while (b > 0) [a, b] = [b, a % b];
  return a / 1000;
}

/**
 * The controller under test on its schedule: its ticks, the fast path's samples between them, and the ports it
 * sees the system through, the same a real controller has (TickPorts). Apart from the model so that the
 * controller cannot see more than the Lambda would: it gets only what these ports return, and its writes reach
 * the consumer only through the actuator's write plan.
 */
export class ControllerClock {
  private state: ControllerState = {};
  /** The time of the tick or sample in progress: the ports' writes happen then. */
  private at = 0;
  private lastTickAt = 0;
  private readonly ports: TickPorts;
  /** The rates the last tick read, as the Lambda's container remembers them (lib/control/rate-reads.ts). */
  readonly rateReads: RememberedRateReads;
  /** How often the fast path is asked for a sample (`sampleCarrierSeconds`), when there is one. */
  readonly sampleCarrierSeconds: number | undefined;

  constructor(
    private readonly controller: SimController,
    tickSeconds: number,
    fastSampleSeconds: number | undefined,
    parts: ControlledParts,
  ) {
    this.sampleCarrierSeconds = controller.fastSample
      ? sampleCarrierSeconds(fastSampleSeconds, tickSeconds)
      : undefined;
    this.rateReads = new RememberedRateReads(parts.targetAgeSeconds);
    this.ports = this.buildPorts(parts);
  }

  async tick(now: number): Promise<TickReport> {
    this.at = now;
    const report = await this.controller.tick(this.ports, now);
    this.lastTickAt = now;
    return report;
  }

  /** The fast path's sample at `now`, if its loop has one due then: one at a tick's own instant is the tick's. */
  async fastSample(now: number): Promise<void> {
    if (now === this.lastTickAt) return;
    this.at = now;
    const result = await this.controller.fastSample?.(this.ports, now);
    if (result !== undefined) this.fastPathSampled(now, result);
  }

  /**
   * The ports for a controller outside this clock's schedule (one controller for a group of queues sharing a
   * budget, as its Lambda will be): its reads see the system at `now`, and its writes land at `now`.
   */
  portsAt(now: number): TickPorts {
    this.at = now;
    return this.ports;
  }

  /**
   * A sample between ticks at `now` (this clock's, or an outside controller's): the carried state learns of its write,
   * as the Lambda learns of its own from the mapping's LastModified at the next tick, and of its last quiet sample,
   * as the Lambda's container remembers it.
   */
  fastPathSampled(now: number, outcome: SampleOutcome): void {
    this.state = {
      ...this.state,
      ...(outcome.changed ? { lastChangeAt: now } : {}),
      ...(outcome.quiet === undefined ? {} : { lastQuiet: outcome.quiet }),
    };
  }

  private buildPorts(parts: ControlledParts): TickPorts {
    const { metrics, queue, actuator, loops, instantAge } = parts;
    return {
      metrics: {
        read: async (now, period, window, options) =>
          this.rateReads.read(
            now,
            window,
            async () => metrics.read(now, period, window, instantAge ? queue.headAge(this.at) : undefined),
            options?.freshRates,
          ),
      },
      queue: {
        depth: async (): Promise<QueueDepth> => ({
          visible: queue.visibleCount(),
          inFlight: queue.inFlight,
          delayed: 0,
        }),
      },
      concurrency: {
        applied: async () => actuator.effective(),
        ceiling: async () => actuator.ceiling(),
        condition: async () => ({ ...actuator.condition(), batchSize: parts.batchSize }),
        functionTimeoutSeconds: async () => parts.functionTimeoutSeconds,
        apply: async (desired, _applied, warm) => {
          actuator.apply(desired, this.at, warm);
          if (actuator.warm !== undefined) loops.warm(actuator.warm / INVOKES_PER_POLLER);
          loops.resize(this.at);
          this.rateReads.wrote();
        },
      },
      state: {
        load: async () => this.state,
        save: async (state, now) => {
          this.state = state;
          this.rateReads.saved(state, now, {
            visible: queue.visibleCount(),
            inFlight: queue.inFlight,
            delayed: 0,
          });
        },
      },
    };
  }
}
