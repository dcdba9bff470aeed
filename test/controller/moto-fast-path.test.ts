import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { FAST_PATH_ENV, QUIET, quietAtTheFloor, repeat } from './support/minutes.ts';
import { type MinuteOfMetrics, World } from './support/world.ts';

/**
 * The fast path between ticks, against moto: the real handler's loop samples GetQueueAttributes about every 10 s
 * (virtual time), reads Lambda's limits only before it grows, grows on a surge and never shrinks.
 */
let server: MotoServer;
beforeAll(async () => {
  server = await startMotoServer();
});
afterAll(async () => {
  await server?.stop();
});

const ENV = FAST_PATH_ENV;
const quiet: MinuteOfMetrics = QUIET;

/**
 * A quiet queue held at the floor by the controller, and 200 messages arriving in the 10 s before the first sample
 * (20/s, above 1.5 × the 1/s reported: a rise no slower downstream could cause).
 */
async function surgedWorld(): Promise<World> {
  const world = await quietAtTheFloor(await World.create(server, { env: ENV, reserved: 2, mappingMax: 2 }));
  let sent = false;
  world.duringSleep = async () => {
    if (sent) return;
    sent = true;
    await world.sendMessages(200);
  };
  return world;
}

/**
 * An idle queue at the floor with no per-item time known (nothing ran in the last hour) on a mapping of `batchSize`;
 * 10 s after the idle tick 200 messages arrive and each of the 2 workers holds one batch.
 */
async function burstAfterSilence(batchSize: number): Promise<World> {
  const world = await World.create(server, { env: ENV, reserved: 2, mappingMax: 2, batchSize });
  await world.seed(repeat(10, { age: 0, sent: 0, deleted: 0 }));
  await world.seedControllerHistory(2, 10);
  let burst = false;
  world.duringSleep = async () => {
    if (burst) return;
    burst = true;
    await world.sendMessages(200);
    for (let i = 0; i < 2; i++) {
      await world.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: world.queueUrl,
          MaxNumberOfMessages: batchSize,
          VisibilityTimeout: 600,
        }),
      );
    }
  };
  return world;
}

describe('the fast path', () => {
  it('a surge between ticks: one GetQueueAttributes per sample, growth within 10 s, Lambda read only to grow', async () => {
    // GIVEN a quiet queue at the floor, the controller holding it there
    // WHEN 200 messages arrive in the 10 s before the first sample
    const world = await surgedWorld();
    await world.tick();
    // THEN the tick held, and the first sample grew: arrivals ≥ (200 − 10 of the counts' noise) ÷ 10 s = 19/s at
    // 1 s → 19 ÷ 0.9 → 22
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    const fast = world.fastLogs();
    const grew = fast.filter((l) => l.message === 'fast path');
    expect(grew).toHaveLength(1);
    expect(grew[0]?.fields).toMatchObject({ reason: 'grow:fast-surge', applied: 2 });
    const desired = grew[0]?.fields.desired as number;
    expect(desired).toBe(22);
    // One read, the two reads that make sure no operator paused the consumer since the tick, and the two writes
    // of a lockstep raise, in the safe order
    expect((grew[0]?.fields.awsCalls as { commands: string[] } | undefined)?.commands).toEqual([
      'GetQueueAttributesCommand',
      'GetFunctionConcurrencyCommand',
      'GetEventSourceMappingCommand',
      // Who drives the consumer (docs/deploy.md, "One owner per consumer")
      'GetParameterCommand',
      'PutFunctionConcurrencyCommand',
      'UpdateEventSourceMappingCommand',
    ]);
    expect(await world.applied()).toEqual({ reserved: desired, mapping: desired });
    // Five samples in the minute (10 … 50 s), then the loop ends before the next tick
    expect(fast.at(-1)).toMatchObject({
      message: 'fast path done',
      fields: { samples: 5, growths: 1, stoppedBy: 'deadline' },
    });
    // The growth is published: the next tick's carried state sees the change
    expect(world.relay.documents.some((d) => d.FastPathGrowths === 1 && d.ScaleEvents === 1)).toBe(true);
  });

  it.each([
    { comment: 'the console’s Throttle (reserved 0)', pause: { reserved: 0 }, paused: 'reserved-zero' },
    { comment: 'the mapping disabled', pause: { disable: true }, paused: 'mapping-disabled' },
  ])(
    'an operator’s pause after the tick is held: $comment, then a surge — re-read, nothing written',
    async ({ pause, paused }) => {
      // GIVEN the tick holds at 2/2
      const world = await World.create(server, { env: ENV, reserved: 2, mappingMax: 2 });
      await world.seed(repeat(10, quiet));
      await world.seedControllerHistory(2, 10);
      // WHEN, right after it, the operator pauses the consumer and 200 messages arrive
      let acted = false;
      world.duringSleep = async () => {
        if (acted) return;
        acted = true;
        await world.sendMessages(200);
        if ('reserved' in pause) await world.setApplied({ reserved: pause.reserved });
        else {
          world.mappingEnabled = false;
          await world.setMappingEnabled(false);
        }
      };
      await world.tick();
      // THEN the sample that would have grown read both limits first, found the pause, and wrote nothing
      expect(world.lastLog().fields.reason).toBe('hold:steady');
      const fast = world.fastLogs();
      const held = fast.filter((l) => l.message === 'fast path');
      expect(held).toHaveLength(1);
      expect(held[0]?.fields).toMatchObject({ reason: 'hold:paused', paused, wanted: 22 });
      expect((held[0]?.fields.awsCalls as { commands: string[] } | undefined)?.commands).toEqual([
        'GetQueueAttributesCommand',
        'GetFunctionConcurrencyCommand',
        'GetEventSourceMappingCommand',
        'GetParameterCommand',
      ]);
      expect(world.instants).toEqual([]);
      expect(await world.applied()).toEqual({ reserved: 'reserved' in pause ? 0 : 2, mapping: 2 });
      // AND the loop stops: the next tick sees the pause and holds it
      expect(fast.at(-1)).toMatchObject({
        message: 'fast path done',
        fields: { samples: 1, growths: 0, stoppedBy: 'paused' },
      });
    },
  );

  it('an idle queue is sampled too: a burst after silence grows in the invocation that saw it (slow start)', async () => {
    // GIVEN an idle queue at the floor, with no per-item time known (nothing ran in the last hour)
    // WHEN, 10 s after the idle tick, 200 messages arrive and the 2 workers hold a batch of 10 each
    const world = await burstAfterSilence(10);
    await world.tick();
    // THEN the idle tick held and started the loop anyway; its first sample saw the burst and, with no per-item time
    // to size with, doubled on the proof (the depth rose while every allowed worker was busy): 2 → 4
    expect(world.lastLog().fields.reason).toBe('hold:steady');
    const grew = world.fastLogs().filter((l) => l.message === 'fast path');
    expect(grew[0]?.fields).toMatchObject({ reason: 'grow:fast-surge', applied: 2, desired: 4 });
    expect((grew[0]?.fields.awsCalls as { commands: string[] } | undefined)?.commands).toEqual([
      'GetQueueAttributesCommand',
      'GetFunctionConcurrencyCommand',
      'GetEventSourceMappingCommand',
      // Who drives the consumer (docs/deploy.md, "One owner per consumer")
      'GetParameterCommand',
      'PutFunctionConcurrencyCommand',
      'UpdateEventSourceMappingCommand',
    ]);
    // AND the rest of the minute: one GetQueueAttributes a sample, five samples, the loop ending before the next tick
    expect(world.fastLogs().at(-1)).toMatchObject({ message: 'fast path done', fields: { samples: 5 } });
  });

  it.each([1, 4])(
    'a burst after silence grows between ticks on a mapping of BatchSize %i too: busy is judged on its batch',
    async (batchSize) => {
      // GIVEN an idle queue at the floor whose mapping takes batches of `batchSize`
      // WHEN 200 messages arrive and each of the 2 workers holds one batch (fewer in flight than 5 a worker)
      const world = await burstAfterSilence(batchSize);
      await world.tick();
      // THEN the first sample doubled on slow start's proof, as with batches of 10 (the mapping's BatchSize read
      // at the tick; judged on 10, 2 or 8 in flight would look idle and nothing would grow before the next tick)
      const grew = world.fastLogs().filter((l) => l.message === 'fast path');
      expect(grew[0]?.fields).toMatchObject({ reason: 'grow:fast-surge', applied: 2, desired: 4 });
    },
  );

  it('an idle queue with nothing arriving: the loop samples, reads no Lambda value and writes nothing', async () => {
    const world = await World.create(server, { env: ENV, reserved: 2, mappingMax: 2 });
    await world.seed(repeat(10, { age: 0, sent: 0, deleted: 0 }));
    await world.seedControllerHistory(2, 10);
    await world.tick();
    expect(world.instants).toEqual([]);
    expect(world.fastLogs()).toEqual([
      expect.objectContaining({
        message: 'fast path done',
        fields: expect.objectContaining({ samples: 5, growths: 0 }),
      }),
    ]);
    expect(await world.applied()).toEqual({ reserved: 2, mapping: 2 });
  });

  it('never shrinks: a queue that empties between ticks leaves the value alone', async () => {
    const world = await World.create(server, { env: ENV, reserved: 12, mappingMax: 12 });
    // The head at 20 s: neither idle (≤ 15 s) nor behind (> 30 s), so the tick holds 12
    await world.seed(repeat(10, { ...quiet, age: 20 }));
    await world.seedControllerHistory(12, 10);
    await world.sendMessages(5);
    await world.tick();
    expect(world.fastLogs().filter((l) => l.message === 'fast path')).toEqual([]);
    expect(await world.applied()).toEqual({ reserved: 12, mapping: 12 });
  });
});

/**
 * The ticker queue delivers at least once: a sample's message may come twice, after its slot, or never. Each must
 * cost at most one harmless sample, never a second growth, a write into the next slot, or a broken lockstep.
 */
describe('the ticker queue’s deliveries', () => {
  it('the tick sends its five samples to the real ticker queue, delayed 10 … 50 s', async () => {
    const world = await surgedWorld();
    await world.tick();
    const start = world.ticker.sent[0]?.due ?? 0;
    expect(world.ticker.sent.map((m) => m.due - start)).toEqual([0, 10, 20, 30, 40]);
    expect(world.calls.commands).not.toContain('SendMessageBatchCommand');
    // moto holds them, delayed: the queue counts five delayed messages
    const attributes = await world.tickerAttributes();
    expect(Number(attributes.ApproximateNumberOfMessagesDelayed)).toBe(5);
  });

  it('a duplicated message: the second delivery of a sample already taken does nothing', async () => {
    // GIVEN every message delivered twice
    const world = await surgedWorld();
    world.ticker.plan = () => 'twice';
    // WHEN the tick and its samples run
    await world.tick();
    // THEN five samples, one growth, as with single deliveries, and the limits in step
    const fast = world.fastLogs();
    expect(fast.filter((l) => l.message === 'fast path')).toHaveLength(1);
    expect(fast.at(-1)).toMatchObject({ message: 'fast path done', fields: { samples: 5, growths: 1 } });
    expect(await world.applied()).toEqual({ reserved: 22, mapping: 22 });
  });

  it('a lost message: that sample is missed, the next one grows', async () => {
    // GIVEN the first sample's message lost
    const world = await surgedWorld();
    world.ticker.plan = (i) => (i === 0 ? 'lost' : 'once');
    await world.tick();
    // THEN the growth comes at the second sample, from the depth it sees then; four samples in all
    const fast = world.fastLogs();
    const grew = fast.filter((l) => l.message === 'fast path');
    expect(grew).toHaveLength(1);
    expect(grew[0]?.fields).toMatchObject({ reason: 'grow:fast-surge', applied: 2 });
    expect(fast.at(-1)).toMatchObject({ message: 'fast path done', fields: { samples: 4, growths: 1 } });
    const after = await world.applied();
    expect(after.reserved).toBe(after.mapping);
  });

  it('a late message, delivered after the next tick: superseded, no call, no write', async () => {
    // GIVEN the last sample's message held back past its slot
    const world = await surgedWorld();
    world.ticker.plan = (i) => (i === 4 ? 'late' : 'once');
    await world.tick();
    const before = await world.applied();
    // WHEN the next tick has run (its own messages delivered once) and the late message arrives
    world.ticker.plan = () => 'once';
    world.advance();
    await world.tick();
    const logs = world.logs.length;
    world.calls.reset();
    const delivered = await world.ticker.deliverLate(world.handler);
    // THEN it did nothing: no AWS call, no log line, the limits as the tick left them
    expect(delivered).toBe(1);
    expect(world.calls.commands).toEqual([]);
    expect(world.logs.length).toBe(logs);
    const after = await world.applied();
    expect(after.reserved).toBe(after.mapping);
    expect(after.reserved).toBeGreaterThanOrEqual(before.reserved ?? 0);
  });
});
