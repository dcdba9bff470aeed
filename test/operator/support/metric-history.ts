import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CreateEventSourceMappingCommand, CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { consumerZip } from '../../controller/support/consumer-zip.ts';
import { createLambdaRole } from '../../support/moto-iam.ts';
import type { MotoServer } from '../../support/moto-server.ts';

/**
 * A queue's and its consumer's CloudWatch history, put into moto: what `trace` reads back. moto generates no
 * AWS/SQS or AWS/Lambda metrics itself, so every datapoint is seeded with PutMetricData.
 */
export interface SeededConsumer {
  readonly queueName: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly functionName: string;
  readonly mappingUuid: string;
}

/**
 * A queue, a consumer function and its (disabled) mapping with this batch size. Disabled: moto would otherwise try
 * to run the consumer in Docker (docs/aws-facts.md, "The local emulator (moto)").
 */
export async function createConsumer(
  server: MotoServer,
  names: { queueName: string; functionName: string; roleName: string; batchSize: number },
): Promise<SeededConsumer> {
  const sqs = new SQSClient(server.clientConfig);
  const lambda = new LambdaClient(server.clientConfig);
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: names.queueName }))).QueueUrl ?? '';
  const queueArn =
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })))
      .Attributes?.QueueArn ?? '';
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: names.functionName,
      Runtime: 'nodejs20.x',
      Role: await createLambdaRole(server, names.roleName),
      Handler: 'index.handler',
      Code: { ZipFile: consumerZip() },
    }),
  );
  const mapping = await lambda.send(
    new CreateEventSourceMappingCommand({
      FunctionName: names.functionName,
      EventSourceArn: queueArn,
      Enabled: false,
      BatchSize: names.batchSize,
    }),
  );
  sqs.destroy();
  lambda.destroy();
  return {
    queueName: names.queueName,
    queueUrl,
    queueArn,
    functionName: names.functionName,
    mappingUuid: mapping.UUID ?? '',
  };
}

/** A stack with the outputs `--stack` reads (the construct's names); its one resource is a log group. */
export async function createStack(
  server: MotoServer,
  stackName: string,
  consumer: SeededConsumer,
): Promise<void> {
  const cloudformation = new CloudFormationClient(server.clientConfig);
  const template = {
    Resources: { Logs: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: `/${stackName}/logs` } } },
    Outputs: {
      QueueUrl: { Value: consumer.queueUrl },
      ConsumerFunctionName: { Value: consumer.functionName },
      EventSourceMappingUuid: { Value: consumer.mappingUuid },
    },
  };
  await cloudformation.send(
    new CreateStackCommand({ StackName: stackName, TemplateBody: JSON.stringify(template) }),
  );
  cloudformation.destroy();
}

/** One datapoint of a queue's (`AWS/SQS`) or a function's (`AWS/Lambda`) metric. */
export interface HistoryPoint {
  readonly namespace: 'AWS/SQS' | 'AWS/Lambda';
  readonly metric: string;
  /** The QueueName or FunctionName. */
  readonly dimension: string;
  /** Epoch seconds. */
  readonly at: number;
  readonly value: number;
}

/**
 * PutMetricData, 1,000 datapoints a call (AWS takes up to 1,000 metrics and 1 MB a request). Request compression
 * is off: moto 5.2.1 answers 500 (`BadGzipFile`) to the gzipped body the SDK sends once a request passes 10 KB
 * (docs/aws-facts.md, "The local emulator (moto)").
 */
export async function putHistory(server: MotoServer, points: readonly HistoryPoint[]): Promise<void> {
  const cloudwatch = new CloudWatchClient({ ...server.clientConfig, disableRequestCompression: true });
  for (const namespace of ['AWS/SQS', 'AWS/Lambda'] as const) {
    const data: MetricDatum[] = points
      .filter((p) => p.namespace === namespace)
      .map((p) => ({
        MetricName: p.metric,
        Dimensions: [{ Name: namespace === 'AWS/SQS' ? 'QueueName' : 'FunctionName', Value: p.dimension }],
        Timestamp: new Date(p.at * 1000),
        Value: p.value,
      }));
    for (let i = 0; i < data.length; i += 1000)
      await cloudwatch.send(
        new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 1000) }),
      );
  }
  cloudwatch.destroy();
}
