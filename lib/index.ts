/**
 * The package's entry point: the construct and what goes with it. Nothing here may import a dev dependency
 * (cdk-nag, esbuild, the example stack): an app that installs the package has only its peers and dependencies.
 */

export { MAX_BUDGET_MEMBERS } from './budget-environment.ts';
export { ScalerAlarms, type ScalerAlarmsProps } from './cdk/alarms.ts';
export { ScalerDashboard, type ScalerDashboardProps } from './cdk/dashboard.ts';
export { MIN_MAX_RECEIVE_COUNT, VISIBILITY_TIMEOUT_FACTOR } from './cdk/deployment-checks.ts';
export { DownstreamBudget, type DownstreamBudgetProps } from './cdk/downstream-budget.ts';
export type { DownstreamHealth } from './cdk/downstream-health.ts';
export {
  BudgetMetricFactory,
  ScalerMetricFactory,
  type ScalerMetricFactoryProps,
} from './cdk/metrics.ts';
export {
  CONTROLLER_RESOURCE_ENVIRONMENT,
  QueueAgeScaler,
  type QueueAgeScalerProps,
  SCALER_OUTPUTS,
} from './cdk/queue-age-scaler.ts';
export { type QueueAgeScalerSettings, ScalerActuator } from './cdk/scaler-settings.ts';
export type { ScheduledFloorProps } from './cdk/scheduled-floor-props.ts';
export { type DownstreamLimits, maxConcurrencyFor } from './control/capacity.ts';
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
} from './control/config.ts';
export {
  BUDGET_DIMENSION,
  BUDGET_METRICS,
  CONTROLLER_METRICS,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
} from './telemetry.ts';
