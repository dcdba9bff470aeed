import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetEventSourceMappingCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueAgeScaler, ScalerActuator } from '../../lib/index.ts';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { deployToMoto, type MotoDeployment } from './support/moto-deploy.ts';

/**
 * Actuator 'provisioned' (issue 31) deployed as `cdk deploy` would, into moto's CloudFormation (which stores the
 * mapping's `ProvisionedPollerConfig`): the mapping in provisioned mode at the floor's pollers and no
 * MaximumConcurrency, the controller told to drive it. What its ticks write is test/controller/moto-actuators.test.ts.
 */
let server: MotoServer;
let outdir: string;
let deployment: MotoDeployment;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-provisioned-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'ProvisionedStack');
  const deadLetters = new Queue(stack, 'Dlq', { enforceSSL: true });
  const queue = new Queue(stack, 'Orders', {
    visibilityTimeout: Duration.minutes(3),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
    enforceSSL: true,
  });
  const consumer = new LambdaFunction(stack, 'Consumer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(30),
  });
  new QueueAgeScaler(stack, 'Scaler', {
    queue,
    consumer,
    eventSource: new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }),
    actuator: ScalerActuator.PROVISIONED,
    minConcurrency: 40,
    maxConcurrency: 2_500,
  });
  app.synth();
  server = await startMotoServer();
  deployment = await deployToMoto(server, outdir, 'ProvisionedStack');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe("actuator 'provisioned', deployed", () => {
  it('creates the mapping in provisioned mode at the floor’s pollers, without MaximumConcurrency', async () => {
    const lambda = new LambdaClient(server.clientConfig);
    const uuid = deployment.outputs.EventSourceMappingUuid as string;
    const mapping = await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }));
    expect(mapping.ProvisionedPollerConfig).toEqual({ MinimumPollers: 2, MaximumPollers: 4 });
    expect(mapping.ScalingConfig?.MaximumConcurrency).toBeUndefined();
    const controller = await lambda.send(
      new GetFunctionConfigurationCommand({
        FunctionName: deployment.outputs.ControllerFunctionName as string,
      }),
    );
    expect(controller.Environment?.Variables).toMatchObject({
      ACTUATOR: 'provisioned',
      MIN_CONCURRENCY: '40',
      MAX_CONCURRENCY: '2500',
      EVENT_SOURCE_MAPPING_UUID: uuid,
    });
  });
});
