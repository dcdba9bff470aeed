export { type DownstreamLimits, maxConcurrencyFor } from './capacity.ts';
export {
  ACTUATOR_MODES,
  type ActuatorMode,
  ConfigError,
  EVENT_SOURCE_MAX_CONCURRENCY,
  LAMBDA_DEFAULTS,
  type ResolveOptions,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
} from './config.ts';
export { type Decision, type DecisionInputs, REASON_CODES, type ReasonCode } from './decision.ts';
export { configFromEnvironment, environmentName, settingsToEnvironment } from './environment.ts';
export { type ObservationInput, observe } from './observe.ts';
export { clampConcurrency, decide } from './policy.ts';
export type {
  ConcurrencyPort,
  Datapoint,
  MetricSeries,
  MetricsPort,
  QueueDepth,
  QueuePort,
  StatePort,
} from './ports.ts';
export { type ControllerState, INITIAL_STATE, type QueueSnapshot } from './snapshot.ts';
export { runTick, type TickOptions, type TickPorts, type TickResult } from './tick.ts';
