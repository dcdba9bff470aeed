import type { AwsClients } from '../../lib/aws/clients.ts';
import { readHistories } from '../../lib/aws/metric-history.ts';
import type { ControllerHistory, QueryNeeds } from '../../lib/aws/metric-queries.ts';
import { drivenElsewhere, readConsumerOwner } from '../../lib/aws/owner-parameter.ts';
import { sqsQueuePort } from '../../lib/aws/queue-depth.ts';
import {
  type ScalerConfig,
  type StatePort,
  type TickOptions,
  type TickPorts,
  tickOptions,
} from '../../lib/control/index.ts';
import { forgetRates, ratesDue, rememberRates, withRemembered } from '../../lib/control/rate-reads.ts';
import { LambdaActuator } from './actuator.ts';
import { deriveState, lastRecordedChange, type StateEvidence } from './carried-state.ts';
import type { ControllerResources } from './resources.ts';
import type { RememberedTick, TickMemory } from './tick-memory.ts';

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
      : async () =>
          drivenElsewhere(await readConsumerOwner(clients.ssm, resources.consumerFunctionName), owner);
  return new LambdaActuator(clients.lambda, target, config, drivenBy);
}

/** A read made once, on first use: every port of the tick shares its answer. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= read();
    return answer;
  };
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
  const needs = historyNeeds(remembered, now);
  const readOwn = async (asked: QueryNeeds) => {
    const reads = [{ resources, windowSeconds: options.windowSeconds, needs: asked }];
    const [own] = await readHistories(clients.cloudwatch, reads, now, options.periodSeconds);
    return own as ControllerHistory;
  };
  // The history as read: without the rates where they are reused (the remembered ones fill in, below).
  const readAsAsked = once(sharedHistory ?? (() => readOwn(needs)));
  // The rates read afresh within the tick, where reused ones would have served only a hold (rate-reads.ts).
  let freshRead: (() => Promise<ControllerHistory>) | undefined;
  const readHistory = once(async (): Promise<ControllerHistory> => {
    const history = await readAsAsked();
    const reused = needs.rates ? undefined : remembered?.rates;
    if (reused === undefined) return history;
    const from = now - options.windowSeconds;
    return { ...history, series: withRemembered(history.series, reused, from) };
  });
  const readDepth = once(() => queue.depth());
  const evidence = once(async (): Promise<StateEvidence> => {
    const [history, applied, reading] = await Promise.all([
      readHistory(),
      actuator.applied(),
      actuator.read(),
      readDepth(),
    ]);
    const { periodSeconds } = options;
    const modified = reading.mappingModifiedAt;
    return { now, periodSeconds, history, applied, mappingModifiedAt: modified, remembered };
  });
  // The state is saved into this container's memory (and, for a cold start's reader, in the metrics the reporter
  // publishes after the tick): the change this tick made, else the newest one the evidence proves.
  const state: StatePort = {
    load: async () => deriveState(await evidence(), config),
    save: async (saved, savedAt) => {
      const before = await evidence();
      const applied = actuator.appliedNow;
      const wrote = applied !== before.applied;
      const afresh = needs.rates ? await readAsAsked() : await freshRead?.();
      const depth = await readDepth();
      const read = afresh
        ? { series: afresh.series, fresh: true, depth }
        : { series: (await readHistory()).series, fresh: false, depth };
      const rates = rememberRates(read, remembered?.rates, saved, config.targetAgeSeconds, now);
      memory.remember(resources.scalerName, {
        at: savedAt,
        lastChangeAt: wrote ? savedAt : lastRecordedChange(before),
        lastVisible: saved.lastVisible,
        applied,
        saturation: { growthProbe: saved.growthProbe, saturation: saved.saturation },
        rates: wrote ? forgetRates(rates) : rates,
      });
    },
  };
  return {
    // runTick asks for the same window the tick options give; the one GetMetricData call serves both.
    metrics: {
      read: async (_now, _period, _window, asked) => {
        if (!asked?.freshRates || needs.rates) return (await readHistory()).series;
        freshRead ??= once(() => readOwn({ ownHistory: false, rates: true }));
        return (await freshRead()).series;
      },
    },
    queue: { depth: readDepth },
    concurrency: actuator,
    state,
    actuator,
    evidence,
  };
}
