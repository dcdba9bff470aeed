/**
 * The controller's own metrics: one namespace, one dimension, one set of names, shared by the controller
 * Lambda (which publishes them in EMF), the CDK alarms and dashboard, and `npm run status`.
 */
export const METRIC_NAMESPACE = 'QueueAgeScaler';
/** Each scaler publishes under its own dimension value, so several scalers share the namespace. */
export const SCALER_DIMENSION = 'ScalerName';

export const CONTROLLER_METRICS = {
  appliedConcurrency: 'AppliedConcurrency',
  desiredConcurrency: 'DesiredConcurrency',
  cap: 'MaxConcurrency',
  floor: 'MinConcurrency',
  headAgeSeconds: 'HeadAgeSeconds',
  targetAgeSeconds: 'TargetAgeSeconds',
  visibleMessages: 'VisibleMessages',
  inFlightMessages: 'InFlightMessages',
  atCap: 'AtCap',
  saturated: 'Saturated',
  scaleEvents: 'ScaleEvents',
  downstreamSlower: 'DownstreamSlower',
  noData: 'NoData',
  errors: 'ControllerErrors',
  clampedByAccountHeadroom: 'ClampedByAccountHeadroom',
  // Ticks that did not run the control law: a stale or repeated schedule event.
  skippedTicks: 'SkippedTicks',
} as const;
