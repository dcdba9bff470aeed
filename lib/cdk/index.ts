export { ScalerAlarms, type ScalerAlarmsProps } from './alarms.ts';
export { createApp } from './app.ts';
export { EXAMPLE_DEFAULTS, type ExampleContext, exampleContextFrom } from './context.ts';
export { ScalerDashboard, type ScalerDashboardProps } from './dashboard.ts';
export {
  checkAttachedResources,
  MIN_MAX_RECEIVE_COUNT,
  VISIBILITY_TIMEOUT_FACTOR,
} from './deployment-checks.ts';
export { type ExampleStackProps, QueueAgeScalerExampleStack } from './example-stack.ts';
export { ScalerMetricFactory, type ScalerMetricFactoryProps } from './metrics.ts';
export {
  CONTROLLER_ENTRY,
  CONTROLLER_RESOURCE_ENVIRONMENT,
  QueueAgeScaler,
  type QueueAgeScalerProps,
  type QueueAgeScalerSettings,
} from './queue-age-scaler.ts';
