import { describe, expect, it } from 'vitest';
import { busyMessagesPerWorker, slowStartProof } from '../../lib/control/depth-trend.ts';
import { decideFast } from '../../lib/control/fast-path.ts';
import { afterSilence, config, NOW } from './fixtures.ts';

/** "Every worker busy" on the mapping's BatchSize (issue 27 row 2, issue 28 item 4): slow start on any batch. */
describe('every worker busy on the mapping’s BatchSize', () => {
  it.each([
    { batchSize: undefined, busy: 5 },
    { batchSize: 10, busy: 5 },
    { batchSize: 4, busy: 2 },
    { batchSize: 1, busy: 1 },
  ])('BatchSize $batchSize: $busy in flight a worker', ({ batchSize, busy }) => {
    expect(busyMessagesPerWorker(batchSize)).toBe(busy);
  });

  it.each([1, 4])('BatchSize %i: slow start’s proof with every worker holding its batch', (batchSize) => {
    const sample = { at: NOW + 10, messages: 6_700, inFlight: 2 * batchSize };
    expect(slowStartProof({ at: NOW, messages: 0 }, sample, 2, batchSize)).toBe(true);
    // Judged on the default batch of 10, the same workers look idle: no proof
    expect(slowStartProof({ at: NOW, messages: 0 }, sample, 2)).toBe(false);
  });

  it.each([1, 4])('BatchSize %i: a burst after silence grows between ticks, 2 → 4', (batchSize) => {
    const ctx = afterSilence({ batchSize });
    const decision = decideFast({ at: NOW + 10, messages: 6_700, inFlight: 2 * batchSize }, ctx, config());
    expect(decision).toMatchObject({ reason: 'grow:fast-surge', desired: 4 });
  });
});
