/**
 * What the scaler's bill counts, derived from what is deployed: the synthesized template (its alarms' metric
 * references, the controller's memory and architecture, its KMS keys and dashboards, its queues and mappings)
 * and what the controller reads and may publish (its GetMetricData queries, its metric names). Self-contained:
 * it reads a template as plain JSON, so the bench's cost needs no CDK at run time. `scripts/cost-inputs.ts`
 * writes the figures to lib/bench/deployed-cost-inputs.json from the committed template snapshot, and
 * test/bench/cost.test.ts fails when that file and the template disagree.
 */
export interface DeployedFigures {
  /** The template the figures come from, relative to the repository. */
  readonly template: string;
  readonly controller: { readonly memoryMb: number; readonly architecture: string };
  /** Each alarm's logical id and the metrics it references (a metric-math alarm: every `MetricStat`). */
  readonly alarms: readonly { readonly id: string; readonly metrics: number }[];
  /** Σ of the above: CloudWatch bills a standard alarm per metric it references. */
  readonly alarmMetrics: number;
  readonly kmsKeys: number;
  readonly dashboards: number;
  /** The scaler's own queues and mappings (the example's are the app's; none are the scaler's cost). */
  readonly queues: number;
  readonly eventSourceMappings: number;
  /** The mappings that invoke the controller itself: its ticker queue's (the samples between ticks). */
  readonly tickerMappings: number;
  /** Metrics in a warm tick's GetMetricData: the law's (buildMetricQueries for one scaler, no own history). */
  readonly metricsPerTick: number;
  /** The controller's own history, read on top where a container does not remember the tick before. */
  readonly ownHistoryMetrics: number;
  /** Of `metricsPerTick`, the rates: a tick on a quiet queue reuses them (lib/control/rate-reads.ts). */
  readonly rateMetrics: number;
  /** The controller's custom metric names published every tick: each billed a full month. */
  readonly customMetricNames: readonly string[];
  /** Those published only when non-zero (lib/telemetry.ts SPARSE_CONTROLLER_METRICS): billed only in those hours. */
  readonly sparseMetricNames: readonly string[];
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/** The figures a template shows, with the controller's reads and metric names as given. */
export function figuresFromTemplate(
  template: { readonly Resources: Record<string, TemplateResource> },
  templatePath: string,
  controller: {
    readonly metricsPerTick: number;
    readonly ownHistoryMetrics: number;
    readonly rateMetrics: number;
    readonly customMetricNames: readonly string[];
    readonly sparseMetricNames: readonly string[];
  },
): DeployedFigures {
  const entries = Object.entries(template.Resources);
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);
  const alarms = ofType('AWS::CloudWatch::Alarm').map(([id, r]) => {
    const metrics = r.Properties?.Metrics as readonly { MetricStat?: unknown }[] | undefined;
    return { id, metrics: metrics ? metrics.filter((m) => m.MetricStat !== undefined).length : 1 };
  });
  // The controller: the function whose environment names the metric namespace (the consumer's does not).
  const controllers = ofType('AWS::Lambda::Function').filter(([, r]) =>
    JSON.stringify(r.Properties?.Environment ?? {}).includes('METRIC_NAMESPACE'),
  );
  if (controllers.length !== 1) throw new Error(`${templatePath}: expected one controller function`);
  const [controllerId, controllerResource] = controllers[0] as [string, TemplateResource];
  const props = controllerResource.Properties ?? {};
  const invokesController = ([, r]: [string, TemplateResource]) =>
    JSON.stringify(r.Properties?.FunctionName ?? {}) === JSON.stringify({ Ref: controllerId });
  return {
    template: templatePath,
    controller: {
      memoryMb: Number(props.MemorySize ?? 128),
      architecture: ((props.Architectures as string[] | undefined) ?? ['x86_64'])[0] as string,
    },
    alarms,
    alarmMetrics: alarms.reduce((n, a) => n + a.metrics, 0),
    kmsKeys: ofType('AWS::KMS::Key').length,
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    queues: ofType('AWS::SQS::Queue').length,
    eventSourceMappings: ofType('AWS::Lambda::EventSourceMapping').length,
    tickerMappings: ofType('AWS::Lambda::EventSourceMapping').filter(invokesController).length,
    metricsPerTick: controller.metricsPerTick,
    ownHistoryMetrics: controller.ownHistoryMetrics,
    rateMetrics: controller.rateMetrics,
    customMetricNames: [...controller.customMetricNames].sort(),
    sparseMetricNames: [...controller.sparseMetricNames].sort(),
  };
}
