import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { BEHIND, CONTROLLER_ENV, repeat, STEADY } from './support/minutes.ts';
import { World } from './support/world.ts';

/**
 * Refused items in flight against moto (lib/control/refusals.ts): the tick reads them off the GetQueueAttributes
 * it already makes (ApproximateNumberOfMessagesNotVisible) and the mapping's BatchSize, and backs off.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A queue 5 minutes behind at 12 workers, 400 messages waiting; `failed` of them received and not deleted. */
async function behindAt12(failed: number): Promise<World> {
  const world = await World.create(server, {
    env: { ...CONTROLLER_ENV, MAX_CONCURRENCY: '32' },
    reserved: 12,
    mappingMax: 12,
    batchSize: 10,
  });
  await world.seed([BEHIND, ...repeat(9, STEADY)]);
  await world.seedControllerHistory(12, 10);
  await world.sendMessages(400);
  // A consumer reporting its refused items as batch item failures leaves them in flight until the timeout ends.
  for (let received = 0; received < failed; received += 10) {
    await world.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: world.queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 600,
      }),
    );
  }
  return world;
}

describe('refused items in flight (moto)', () => {
  it('more in flight than two full batches per worker: back a quarter, the shed signal up', async () => {
    // GIVEN 300 in flight where 12 workers hold at most 240 in two batches of 10 each
    const world = await behindAt12(300);
    // WHEN one tick runs
    await world.tick();
    // THEN it backs off to 9 and says why: the mapping's maximum at once, reserved concurrency a tick later (it trails
    // a shrink, so a poll in flight is not throttled: lib/control/write-plan.ts)
    const { fields } = world.lastLog();
    expect(fields).toMatchObject({ reason: 'shrink:downstream-saturated', desired: 9 });
    expect(await world.applied()).toEqual({ reserved: 12, mapping: 9 });
    expect(world.relay.documents.at(-1)).toMatchObject({ Shed: 1 });
  });

  it('the same queue with its messages visible, not refused, does not back off', async () => {
    const world = await behindAt12(0);
    await world.tick();
    const { reason, desired } = world.lastLog().fields;
    expect(reason).not.toBe('shrink:downstream-saturated');
    expect(desired).toBeGreaterThanOrEqual(12);
  });
});
