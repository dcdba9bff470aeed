import type { AwsClients } from '../../lib/aws/clients.ts';
import { readHistories } from '../../lib/aws/metric-history.ts';
import type { ControllerHistory, QueryNeeds } from '../../lib/aws/metric-queries.ts';
import { drivenElsewhere, readConsumerOwner } from '../../lib/aws/owner-parameter.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import {
  type QueueDepth,
  type ScalerConfig,
  type StatePort,
  type TickOptions,
  type TickPorts,
  tickOptions,
} from '../../lib/control/index.ts';
import { forgetRates, ratesDue, rememberRates } from '../../lib/control/rate-reads.ts';
import { LambdaActuator } from './actuator.ts';
import { deriveState, lastRecordedChange, type StateEvidence } from './carried-state.ts';
import type { ControllerResources } from './resources.ts';
import { once, type TickHistory, tickHistory } from './tick-history.ts';
import { type RememberedTick, rememberedSaturation, settledBefore, type TickMemory } from './tick-memory.ts';

/** SQS publishes its metrics at one-minute resolution. */
export const METRIC_PERIOD_SECONDS = 60;
// An hour of one-minute datapoints for the baselines (about 60 per series, far below GetMetricData's 100,800).
const BASELINE_WINDOW_SECONDS = 3600;

/** How far back the Lambda's tick reads: an hour of baselines at least (lib/control `tickOptions`). */
export function lambdaTickOptions(config: ScalerConfig): TickOptions {
  return tickOptions(config, METRIC_PERIOD_SECONDS, BASELINE_WINDOW_SECONDS);
}

/** The ports for one tick, and the evidence they share. Every read happens at most once per tick. */
export interface ControllerTickPorts extends TickPorts {
  readonly actuator: LambdaActuator;
  /** The evidence the carried state and the duplicate check are built from (starts every read at once). */
  evidence(): Promise<StateEvidence>;
}

/** The consumer's actuator, in the mode the settings name. */
export function actuatorFor(
  clients: AwsClients,
  resources: ControllerResources,
  config: ScalerConfig,
): LambdaActuator {
  const target = {
    mode: config.actuator,
    functionName: resources.consumerFunctionName,
    mappingUuid: resources.eventSourceMappingUuid,
  };
  const { owner } = resources;
  const drivenBy =
    owner === undefined
      ? undefined
      : async () => {
          const read = await readConsumerOwner(clients.ssm, resources.consumerFunctionName);
          return {
            drivenBy: drivenElsewhere(read.owner, owner),
            ...(read.fault ? { fault: read.fault } : {}),
          };
        };
  return new LambdaActuator(clients.lambda, target, config, drivenBy);
}

/** How a tick's ports read and remember: alone, or as a member of a budget's one shared read. */
export interface TickPortOptions {
  /** This container's memory of the ticks before; the tick's state is saved into it. */
  readonly memory: TickMemory;
  /**
   * The member's part of a read several scalers share (a budget's one `GetMetricData` for every member,
   * `readHistories`), asked with or without the own history as `remembered` says; by default the ports read
   * their own.
   */
  readonly sharedHistory?: () => Promise<ControllerHistory>;
}

/** The tick just before, as this container remembers it for this scaler (undefined: a cold start). */
export function rememberedFor(
  memory: TickMemory,
  resources: ControllerResources,
  config: ScalerConfig,
  now: number,
): RememberedTick | undefined {
  return memory.recall(resources.scalerName, now, config.tickSeconds);
}

/**
 * What this scaler's tick reads beyond the queue's age: its own history on a cold start, the rates unless this
 * container remembers them from a quiet queue and may reuse them (lib/control/rate-reads.ts).
 */
export function historyNeeds(remembered: RememberedTick | undefined, now: number): Required<QueryNeeds> {
  return {
    ownHistory: remembered === undefined,
    rates: ratesDue(remembered?.rates, now),
  };
}

/**
 * The state is saved into this container's memory (and, for a cold start's reader, in the metrics the reporter
 * publishes after the tick): the change this tick made, else the newest one the evidence proves; the rates it read.
 */
function statePort(tick: {
  readonly config: ScalerConfig;
  readonly resources: ControllerResources;
  readonly now: number;
  readonly memory: TickMemory;
  readonly remembered: RememberedTick | undefined;
  readonly actuator: LambdaActuator;
  readonly history: TickHistory;
  readonly readDepth: () => Promise<QueueDepth>;
  readonly evidence: () => Promise<StateEvidence>;
}): StatePort {
  const { config, now, actuator } = tick;
  return {
    load: async () => deriveState(await tick.evidence(), config),
    save: async (saved, savedAt) => {
      const before = await tick.evidence();
      const applied = actuator.appliedNow;
      const wrote = applied !== before.applied;
      const read = { ...(await tick.history.rateRead()), depth: await tick.readDepth() };
      const rates = rememberRates(read, tick.remembered?.rates, saved, config.targetAgeSeconds, now);
      tick.memory.remember(tick.resources.scalerName, {
        at: savedAt,
        lastChangeAt: wrote ? savedAt : lastRecordedChange(before),
        wroteOnSettled: wrote && settledBefore(tick.remembered, savedAt),
        lastVisible: saved.lastVisible,
        applied,
        saturation: rememberedSaturation(saved),
        rates: wrote ? forgetRates(rates) : rates,
      });
    },
  };
}

export function createTickPorts(
  clients: AwsClients,
  resources: ControllerResources,
  config: ScalerConfig,
  now: number,
  { memory, sharedHistory }: TickPortOptions,
): ControllerTickPorts {
  const options = lambdaTickOptions(config);
  const actuator = actuatorFor(clients, resources, config);
  const queue = sqsQueuePort(clients.sqs, resources.queueUrl);
  const remembered = rememberedFor(memory, resources, config, now);
  const readOwn = async (needs: QueryNeeds) => {
    const reads = [{ resources, windowSeconds: options.windowSeconds, needs }];
    return (
      await readHistories(clients.cloudwatch, reads, now, options.periodSeconds)
    )[0] as ControllerHistory;
  };
  const reused = { rates: remembered?.rates, from: now - options.windowSeconds };
  const history = tickHistory(readOwn, historyNeeds(remembered, now), reused, sharedHistory);
  const readDepth = once(() => queue.depth());
  const evidence = once(async (): Promise<StateEvidence> => {
    const [read, applied, reading] = await Promise.all([
      history.history(),
      actuator.applied(),
      actuator.read(),
      readDepth(),
    ]);
    const { periodSeconds } = options;
    const modified = reading.mappingModifiedAt;
    return { now, periodSeconds, history: read, applied, mappingModifiedAt: modified, remembered };
  });
  const state = statePort({
    config,
    resources,
    now,
    memory,
    remembered,
    actuator,
    history,
    readDepth,
    evidence,
  });
  return {
    // runTick asks for the same window the tick options give; the one GetMetricData call serves both.
    metrics: { read: (_now, _period, _window, asked) => history.series(asked) },
    queue: { depth: readDepth },
    concurrency: actuator,
    state,
    actuator,
    evidence,
  };
}
