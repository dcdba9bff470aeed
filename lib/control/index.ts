export { type DownstreamLimits, maxConcurrencyFor } from './capacity.ts';
export {
  ACTUATOR_MODES,
  type ActuatorMode,
  ConfigError,
  capInSteps,
  clampConcurrency,
  concurrencyStep,
  EVENT_SOURCE_MAX_CONCURRENCY,
  INVOKES_PER_POLLER,
  LAMBDA_DEFAULTS,
  MIN_FAST_SAMPLE_SECONDS,
  PROVISIONED_MIN_CONCURRENCY,
  PROVISIONED_MIN_POLLERS,
  type ResolveOptions,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
} from './config.ts';
export { type Decision, type DecisionInputs, REASON_CODES, type ReasonCode } from './decision.ts';
export {
  arrivalsRose,
  type DepthSample,
  type DepthTrend,
  depthTrend,
  POLLER_SETTLE_SECONDS,
} from './depth-trend.ts';
export { configFromEnvironment, environmentName, settingsToEnvironment } from './environment.ts';
export {
  decideFast,
  FAST_LOOP_END_BEFORE_TICK_SECONDS,
  type FastDecision,
  type FastPathContext,
  type FastReason,
  fastPathContext,
  fastPathOn,
} from './fast-path.ts';
export { needWithBacklog, setpointSeconds, steadyNeed, unconfirmedLimit } from './need.ts';
export { type ObservationInput, observe } from './observe.ts';
export { decide } from './policy.ts';
export type {
  ActuatorCondition,
  ConcurrencyPort,
  Datapoint,
  MetricSeries,
  MetricsPort,
  QueueDepth,
  QueuePort,
  SeriesName,
  StatePort,
} from './ports.ts';
export { type ControllerState, INITIAL_STATE, type PauseKind, type QueueSnapshot } from './snapshot.ts';
export {
  type FastSampleResult,
  runFastSample,
  runTick,
  type TickOptions,
  type TickPorts,
  type TickResult,
  tickOptions,
} from './tick.ts';
export {
  assertWritable,
  type ConsumerLimits,
  effectiveConcurrency,
  executionCeiling,
  outOfStep,
  overpulls,
  planWrites,
  UnsafeWriteError,
  type Write,
} from './write-plan.ts';
