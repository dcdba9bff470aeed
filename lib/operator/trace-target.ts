import {
  GetEventSourceMappingCommand,
  type LambdaClient,
  ListEventSourceMappingsCommand,
} from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { errorMessage } from '../aws/aws-errors.ts';
import { OperatorError } from './operator-error.ts';
import { type BatchSize, DEFAULT_BATCH_SIZE } from './trace-phases.ts';

/**
 * What `trace` exports: the queue and its consumer, and the batch size that stands in for messages per
 * invocation where CloudWatch lacks the counts. Every call here is a read.
 */
export interface TraceTarget {
  readonly queueUrl: string;
  readonly functionName: string;
  /** The stack's `EventSourceMappingUuid` output, when read from a stack. */
  readonly mappingUuid?: string;
}

/**
 * The region in a queue URL: `https://sqs.<region>.amazonaws.com/…` (and `.amazonaws.com.cn`), or the legacy
 * `https://<region>.queue.amazonaws.com/…`. Undefined for any other host (an emulator's own).
 */
export function queueRegion(queueUrl: string): string | undefined {
  let host: string;
  try {
    host = new URL(queueUrl).hostname;
  } catch {
    return undefined;
  }
  return (
    /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host)?.[1] ??
    /^([a-z0-9-]+)\.queue\.amazonaws\.com(\.cn)?$/.exec(host)?.[1]
  );
}

/**
 * The SQS client sends to the host in the queue URL, CloudWatch to the client's region: a queue of eu-west-1 read
 * with us-east-1 would be found, and its metrics not, which would look like a queue with no history.
 */
export function checkSameRegion(queueUrl: string, region: string | undefined): void {
  const inUrl = queueRegion(queueUrl);
  if (inUrl !== undefined && region !== undefined && inUrl !== region)
    throw new OperatorError(
      `the queue ${queueUrl} is in ${inUrl}, but the region is ${region} (from --region, AWS_REGION or your profile): give --region ${inUrl}`,
    );
}

/** The queue's ARN; this is also the check that the queue exists. */
export async function readQueueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = out.Attributes?.QueueArn;
  if (arn === undefined)
    throw new OperatorError(`queue ${queueUrl}: GetQueueAttributes returned no QueueArn`);
  return arn;
}

/**
 * The mapping's `BatchSize`: the stack's mapping when it names one, otherwise the mapping of this queue to this
 * function. It only stands in where the counts are missing, so a mapping that cannot be read is not worth
 * stopping the export for: the header says the default was used, and why.
 */
export async function readBatchSize(
  lambda: LambdaClient,
  target: TraceTarget,
  queueArn: string,
): Promise<BatchSize> {
  const fallback = (why: string): BatchSize => ({
    size: DEFAULT_BATCH_SIZE,
    source: `Lambda's default for SQS, because ${why}`,
  });
  try {
    if (target.mappingUuid !== undefined) {
      const out = await lambda.send(new GetEventSourceMappingCommand({ UUID: target.mappingUuid }));
      if (out.BatchSize !== undefined)
        return {
          size: out.BatchSize,
          source: `the BatchSize of the event source mapping ${target.mappingUuid}, GetEventSourceMapping`,
        };
      return fallback(`the mapping ${target.mappingUuid} has no BatchSize`);
    }
    const out = await lambda.send(
      new ListEventSourceMappingsCommand({ FunctionName: target.functionName, EventSourceArn: queueArn }),
    );
    const mapping = (out.EventSourceMappings ?? []).find((m) => m.BatchSize !== undefined);
    if (mapping?.BatchSize === undefined)
      return fallback(`no event source mapping of this queue to ${target.functionName} was found`);
    return {
      size: mapping.BatchSize,
      source: `the BatchSize of the event source mapping ${mapping.UUID ?? ''}, ListEventSourceMappings`,
    };
  } catch (error) {
    return fallback(
      `the mapping could not be read (${errorMessage(error).replace(/\s+/g, ' ').slice(0, 200)})`,
    );
  }
}
