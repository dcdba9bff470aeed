import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  type MetricDatum,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchLogsClient,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  CreateEventSourceMappingCommand,
  CreateFunctionCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
} from '@aws-sdk/client-lambda';
import { CreateQueueCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  CONTROLLER_LOG_MESSAGES as LOG,
  CONTROLLER_METRICS as M,
  METRIC_NAMESPACE,
  SCALER_DIMENSION,
} from '../../../lib/telemetry.ts';
import { consumerZip } from '../../controller/support/consumer-zip.ts';
import { uniqueName } from '../../controller/support/world.ts';
import { createLambdaRole, MOTO_ACCOUNT } from '../../support/moto-iam.ts';
import type { MotoServer } from '../../support/moto-server.ts';

/** What the seeded scaler holds, so a test can compare the status it reads with what was put in. */
export interface SeededScaler {
  readonly stackName: string;
  readonly queueUrl: string;
  readonly queueName: string;
  readonly consumer: string;
  readonly mappingUuid: string;
  readonly scalerName: string;
  readonly logGroup: string;
  /** Epoch seconds the minutes were seeded back from. */
  readonly now: number;
}

export interface SeedValues {
  readonly reserved: number;
  readonly mappingMax: number;
  /** Oldest first: one controller tick per minute ending with the newest complete minute. */
  readonly ticks: readonly {
    applied: number;
    desired: number;
    age: number;
    reason: string;
    scaled?: boolean;
    saturated?: boolean;
    /** A fast-path sample 30 s after this tick grew to `to` on `visible` messages waiting. */
    fastGrowth?: { to: number; visible: number };
  }[];
  readonly cap: number;
  readonly floor: number;
  readonly targetAge: number;
  readonly visibleMessages: number;
  /** Alarm suffix → state. */
  readonly alarms: Readonly<Record<string, 'OK' | 'ALARM' | 'INSUFFICIENT_DATA'>>;
}

/**
 * A deployed scaler as the emulator can hold one: the example stack's outputs (a CloudFormation stack whose only
 * resource is the controller's log group), a queue with messages, a consumer with reserved concurrency, its
 * (disabled) mapping, the controller's metrics and decision log lines for the last minutes, and its alarms.
 */
/** What a tick left applied for the next one: its own value, or what the fast path grew to after it. */
const appliedAfter = (tick: SeedValues['ticks'][number] | undefined) => tick?.fastGrowth?.to ?? tick?.applied;

export async function seedScaler(server: MotoServer, values: SeedValues): Promise<SeededScaler> {
  const config = server.clientConfig;
  const sqs = new SQSClient(config);
  const lambda = new LambdaClient(config);
  const cloudwatch = new CloudWatchClient(config);
  const logs = new CloudWatchLogsClient(config);
  const cloudformation = new CloudFormationClient(config);

  const queueName = uniqueName('orders');
  const consumer = uniqueName('consumer');
  const scalerName = uniqueName('scaler');
  const stackName = uniqueName('QueueAgeScalerExample');
  const logGroup = `/${stackName}/controller`;
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl ?? '';
  for (let i = 0; i < values.visibleMessages; i += 10) {
    const n = Math.min(10, values.visibleMessages - i);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: n }, (_, k) => ({ Id: String(k), MessageBody: `m${i + k}` })),
      }),
    );
  }
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: consumer,
      Runtime: 'nodejs20.x',
      Role: await createLambdaRole(server, uniqueName('role')),
      Handler: 'index.handler',
      Code: { ZipFile: consumerZip() },
    }),
  );
  // Disabled: moto would otherwise try to run the consumer (Docker) for the messages in the queue.
  const mapping = await lambda.send(
    new CreateEventSourceMappingCommand({
      FunctionName: consumer,
      EventSourceArn: `arn:aws:sqs:us-east-1:${MOTO_ACCOUNT}:${queueName}`,
      Enabled: false,
      ScalingConfig: { MaximumConcurrency: values.mappingMax },
    }),
  );
  await lambda.send(
    new PutFunctionConcurrencyCommand({
      FunctionName: consumer,
      ReservedConcurrentExecutions: values.reserved,
    }),
  );

  const template = {
    Resources: {
      ScalerControllerLogs3F2A9C1B: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: logGroup } },
    },
    Outputs: {
      QueueUrl: { Value: queueUrl },
      QueueName: { Value: queueName },
      ConsumerFunctionName: { Value: consumer },
      EventSourceMappingUuid: { Value: mapping.UUID ?? '' },
      ScalerName: { Value: scalerName },
    },
  };
  await cloudformation.send(
    new CreateStackCommand({ StackName: stackName, TemplateBody: JSON.stringify(template) }),
  );

  const now = Date.now() / 1000;
  const newest = Math.floor(now / 60) * 60 - 60;
  const dimensions = [{ Name: SCALER_DIMENSION, Value: scalerName }];
  const controller: MetricDatum[] = [];
  const age: MetricDatum[] = [];
  const lines: { timestamp: number; message: string }[] = [];
  values.ticks.forEach((tick, i) => {
    const minute = newest - (values.ticks.length - 1 - i) * 60;
    const Timestamp = new Date((minute + 5) * 1000);
    const put = (MetricName: string, Value: number) =>
      controller.push({ MetricName, Dimensions: dimensions, Timestamp, Value });
    put(M.appliedConcurrency, tick.applied);
    put(M.desiredConcurrency, tick.desired);
    // The cap and the floor are in the decision's log line, not in the metrics (report.ts metricsFor).
    put(M.targetAgeSeconds, values.targetAge);
    put(M.headAgeSeconds, tick.age);
    put(M.saturated, tick.saturated ? 1 : 0);
    put(M.atCap, tick.applied >= values.cap ? 1 : 0);
    put(M.scaleEvents, tick.scaled ? 1 : 0);
    put(M.errors, 0);
    age.push({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: queueName }],
      Timestamp,
      Value: tick.age,
    });
    // The line Powertools' Logger prints for a decision (functions/controller/report.ts logEntryFor), and the EMF
    // document beside it, which the reader must skip.
    lines.push({
      timestamp: (minute + 5) * 1000,
      message: JSON.stringify({
        level: 'INFO',
        message: LOG.decision,
        timestamp: new Date((minute + 5) * 1000).toISOString(),
        service: 'queue-age-scaler',
        scaler: scalerName,
        reason: tick.reason,
        applied: i === 0 ? tick.applied : appliedAfter(values.ticks[i - 1]),
        desired: tick.desired,
        appliedAfter: tick.applied,
        saturated: tick.saturated ?? false,
        inputs: { ageSeconds: tick.age },
        settings: {
          targetAgeSeconds: values.targetAge,
          maxConcurrency: values.cap,
          minConcurrency: values.floor,
        },
      }),
    });
    if (tick.fastGrowth !== undefined) {
      // The line a fast-path sample that grew logs (report.ts logEntryForFast), before the loop's summary line.
      lines.push({
        timestamp: (minute + 35) * 1000,
        message: JSON.stringify({
          level: 'INFO',
          message: LOG.fastPath,
          timestamp: new Date((minute + 35) * 1000).toISOString(),
          service: 'queue-age-scaler',
          scaler: scalerName,
          reason: 'grow:fast-surge',
          applied: tick.applied,
          desired: tick.fastGrowth.to,
          appliedAfter: tick.fastGrowth.to,
          inputs: { visibleMessages: tick.fastGrowth.visible, confirmed: true },
        }),
      });
      lines.push({
        timestamp: (minute + 55) * 1000,
        message: JSON.stringify({
          level: 'INFO',
          message: LOG.fastPathDone,
          samples: 5,
          growths: 1,
          maxVisible: tick.fastGrowth.visible,
          appliedAfter: tick.fastGrowth.to,
          stoppedBy: 'deadline',
        }),
      });
    }
    lines.push({
      timestamp: (minute + 5) * 1000 + 1,
      message: JSON.stringify({
        _aws: { Timestamp: (minute + 5) * 1000, CloudWatchMetrics: [] },
        reason: 'x',
      }),
    });
  });
  await cloudwatch.send(new PutMetricDataCommand({ Namespace: METRIC_NAMESPACE, MetricData: controller }));
  await cloudwatch.send(new PutMetricDataCommand({ Namespace: 'AWS/SQS', MetricData: age }));
  await logs.send(new CreateLogStreamCommand({ logGroupName: logGroup, logStreamName: 'tick' }));
  // PutLogEvents takes a batch in time order only.
  lines.sort((x, y) => x.timestamp - y.timestamp);
  await logs.send(
    new PutLogEventsCommand({ logGroupName: logGroup, logStreamName: 'tick', logEvents: lines }),
  );

  for (const [suffix, state] of Object.entries(values.alarms)) {
    const AlarmName = `${scalerName}-${suffix}`;
    await cloudwatch.send(
      new PutMetricAlarmCommand({
        AlarmName,
        Namespace: METRIC_NAMESPACE,
        MetricName: M.saturated,
        Dimensions: dimensions,
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
    await cloudwatch.send(
      new SetAlarmStateCommand({ AlarmName, StateValue: state, StateReason: `seeded ${state}` }),
    );
  }
  for (const client of [sqs, lambda, cloudwatch, logs, cloudformation]) client.destroy();
  return {
    stackName,
    queueUrl,
    queueName,
    consumer,
    mappingUuid: mapping.UUID ?? '',
    scalerName,
    logGroup,
    now,
  };
}
