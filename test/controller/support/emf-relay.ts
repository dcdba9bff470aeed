import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  type CloudWatchClient,
  type MetricDatum,
  PutMetricDataCommand,
  type StandardUnit,
} from '@aws-sdk/client-cloudwatch';

interface EmfDocument {
  readonly _aws: {
    readonly Timestamp: number;
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit?: string }[];
    }[];
  };
  readonly [key: string]: unknown;
}

/**
 * Plays CloudWatch Logs' part for the emulator: in Lambda, the EMF line Powertools prints becomes metrics; moto
 * has no such pipeline, so this relays the very document Powertools serialised into `PutMetricData`. The next
 * tick then reads its own history back from the emulator, as it would in AWS (minus the EMF delay).
 */
export class EmfRelay {
  readonly documents: EmfDocument[] = [];
  #pending: Promise<unknown>[] = [];
  constructor(private readonly cloudwatch: CloudWatchClient) {}

  /** A Metrics class whose published documents are relayed (and not printed: the test output stays readable). */
  metricsClass(): typeof Metrics {
    const relay = this;
    return class RelayedMetrics extends Metrics {
      override publishStoredMetrics(): this {
        if (this.hasStoredMetrics()) relay.relay(this.serializeMetrics() as unknown as EmfDocument);
        this.clearMetrics();
        this.clearDimensions();
        return this;
      }
    };
  }

  relay(doc: EmfDocument): void {
    this.documents.push(doc);
    for (const directive of doc._aws.CloudWatchMetrics) {
      const dimensionNames = directive.Dimensions[0] ?? [];
      const data: MetricDatum[] = directive.Metrics.map((m) => ({
        MetricName: m.Name,
        Unit: m.Unit as StandardUnit | undefined,
        Value: Number(doc[m.Name]),
        Timestamp: new Date(doc._aws.Timestamp),
        Dimensions: dimensionNames.map((name) => ({ Name: name, Value: String(doc[name]) })),
      }));
      this.#pending.push(
        this.cloudwatch.send(new PutMetricDataCommand({ Namespace: directive.Namespace, MetricData: data })),
      );
    }
  }

  /** Waits until every relayed document is stored in the emulator. */
  async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    await Promise.all(pending);
  }
}
