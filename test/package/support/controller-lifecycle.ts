import {
  DeleteEventSourceMappingCommand,
  GetEventSourceMappingCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import type { MotoServer } from '../../support/moto-server.ts';
import {
  type ControllerRun,
  type RunnerOptions,
  runDeployedController,
  scheduleEvent,
  seedMinutes,
} from './deployed-controller.ts';
import type { MotoDeployment } from './moto-deploy.ts';

/** The fixture app's OrdersStack deployed into moto, and the controller bundle its template names. */
export interface DeployedOrdersStack {
  readonly server: MotoServer;
  readonly deployment: MotoDeployment;
  /** The deployed function's environment (see `deployedEnvironment`). */
  readonly environment: Record<string, string>;
  /** The staged asset's index.mjs in the cloud assembly: the bytes that were zipped and deployed. */
  readonly bundle: string;
}

/**
 * Ticks the deployed controller through its life on the freshly deployed OrdersStack (targetAge 1 minute,
 * maxConcurrency 20, the SqsEventSource's mapping starting at MaximumConcurrency 2), asserting each step: paused,
 * no data, growth, the same event again, the mapping deleted. Each tick is a fresh process, run as `runner` says.
 * It leaves the mapping deleted, so it runs once per deployment. Returns the five runs, in order.
 */
export async function tickThroughLifecycle(
  { server, deployment, environment, bundle }: DeployedOrdersStack,
  runner: RunnerOptions = {},
): Promise<ControllerRun[]> {
  const lambda = new LambdaClient(server.clientConfig);
  const runs: ControllerRun[] = [];
  const tick = async (event: unknown) => {
    const run = await runDeployedController(server, bundle, environment, event, runner);
    runs.push(run);
    return run;
  };
  const applied = async () => {
    const [fn, mapping] = await Promise.all([
      lambda.send(
        new GetFunctionConcurrencyCommand({ FunctionName: deployment.outputs.ConsumerFunctionName }),
      ),
      lambda.send(new GetEventSourceMappingCommand({ UUID: deployment.outputs.EventSourceMappingUuid })),
    ]);
    return { reserved: fn.ReservedConcurrentExecutions, mapping: mapping.ScalingConfig?.MaximumConcurrency };
  };
  const queueUrl = deployment.outputs.QueueUrl as string;
  const names = {
    queue: queueUrl.split('/').at(-1) as string,
    consumer: deployment.outputs.ConsumerFunctionName as string,
  };

  // The deploy leaves the mapping disabled (moto would run the consumer in Docker for every message sent to an
  // enabled one), and a disabled mapping is an operator's pause: the controller holds and writes nothing.
  const mappingUuid = deployment.outputs.EventSourceMappingUuid as string;
  // The mapping's LastModified is whole seconds: an event of the same second would read the edit as its own
  // change and skip (skip:repeat), so the next event is a second later; the deploy's own edit included.
  const aSecondLater = () => new Promise((resolve) => setTimeout(resolve, 1_100));
  const setEnabled = async (Enabled: boolean) => {
    await lambda.send(new UpdateEventSourceMappingCommand({ UUID: mappingUuid, Enabled }));
    await aSecondLater();
  };
  await aSecondLater();
  const paused = await tick(scheduleEvent(Date.now() / 1000));
  expect(paused.outcome).toMatchObject({
    kind: 'decided',
    writes: [],
    result: { decision: { reason: 'hold:paused' } },
  });

  // Enabled, no datapoints: hold; the one write puts reserved concurrency in lockstep with the mapping's
  // maximum the template set (2), which is the level it already ran at.
  await setEnabled(true);
  const quiet = await tick(scheduleEvent(Date.now() / 1000));
  expect(quiet.outcome).toMatchObject({
    kind: 'decided',
    writes: [{ target: 'reserved', value: 2, ok: true }],
    result: { decision: { reason: 'hold:no-data' } },
  });
  expect(await applied()).toEqual({ reserved: 2, mapping: 2 });

  // Ten minutes of history, the newest with the head 10 minutes old (target 1 minute), and real messages
  // queued: 1 message/s at 10 s each needs 1 × 10 ÷ 0.9 = 11.1 → 12, more to drain the backlog.
  const now = Date.now() / 1000;
  const steady = { age: 30, sent: 60, deleted: 60, durationMs: 60 * 10_000, invocations: 6 };
  await seedMinutes(server, names, now, [
    { ...steady, age: 600 },
    ...Array.from({ length: 9 }, () => steady),
  ]);
  const sqs = new SQSClient({ ...server.clientConfig, useQueueUrlAsEndpoint: false });
  await setEnabled(false);
  for (let i = 0; i < 200; i += 10) {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: `order ${i + j}` })),
      }),
    );
  }
  await setEnabled(true);
  const event = scheduleEvent(Date.now() / 1000);
  const grown = await tick(event);
  const after = await applied();
  console.log(
    `[deploy ${grown.node}] no data → ${quiet.outcome.result?.decision?.reason}, writes ${quiet.outcome.writes?.length}; ` +
      `head 600 s with 200 queued → ${grown.outcome.result?.decision?.reason}, reserved ${after.reserved}, mapping ${after.mapping}`,
  );
  expect(grown.outcome).toMatchObject({ kind: 'decided', result: { changed: true } });
  expect(after.reserved).toBe(after.mapping);
  expect(after.mapping).toBeGreaterThan(2);
  expect(after.mapping).toBeLessThanOrEqual(20);

  // The same schedule event again (EventBridge delivers at least once): no second change.
  const repeated = await tick(event);
  expect(await applied()).toEqual(after);
  expect(repeated.outcome.kind === 'skipped' || repeated.outcome.writes?.length === 0).toBe(true);
  console.log(
    `[deploy ${repeated.node}] the same event again → ${repeated.outcome.kind} ${repeated.outcome.reason ?? ''}`,
  );

  // The mapping deleted under the controller: it returns normally and reports the error. (moto leaves an
  // enabled mapping attached on delete: disabled first.)
  await setEnabled(false);
  await lambda.send(new DeleteEventSourceMappingCommand({ UUID: mappingUuid }));
  const orphaned = await tick(scheduleEvent(Date.now() / 1000));
  expect(orphaned.outcome).toMatchObject({ kind: 'failed', failure: 'not-found' });
  expect(orphaned.stdout).toMatch(/not-found/);
  console.log(
    `[deploy ${orphaned.node}] mapping deleted → ${orphaned.outcome.kind} ${orphaned.outcome.failure}: ${orphaned.outcome.error}`,
  );
  return runs;
}
