import type { MinuteOfMetrics, World } from './world.ts';

/**
 * The minutes of CloudWatch history the controller tests seed, shared by the moto tests and
 * scripts/measure-controller.ts. 0.1 message/s arriving (6 a minute) at 100 s per item: Little's law needs
 * 0.1 × 100 ÷ 0.9 = 11.1 → 12.
 */

/** A one-minute controller, target 60 s, floor 2, cap 16, shrinking one step at a time. */
export const CONTROLLER_ENV: Readonly<Record<string, string>> = {
  TARGET_AGE_SECONDS: '60',
  MIN_CONCURRENCY: '2',
  MAX_CONCURRENCY: '16',
  SCALE_DOWN_SURPLUS_FRACTION: '0',
  // One tick per test; the fast path between ticks has tests of its own (moto-fast-path.test.ts).
  FAST_SAMPLE_SECONDS: '0',
};

/** A busy minute whose oldest message was `age` seconds old. */
export const busy = (age: number): MinuteOfMetrics => ({
  age,
  sent: 6,
  deleted: 6,
  durationMs: 6 * 100_000,
  invocations: 6,
});
/** Behind: the oldest message 5 minutes old. */
export const BEHIND = busy(300);
/** Within the target. */
export const STEADY = busy(30);
/** Nothing waiting, nothing arriving. */
export const IDLE: MinuteOfMetrics = { age: 0, sent: 0, deleted: 0 };

export const repeat = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

/** Behind now after nine steady minutes, with the 30 messages a 5-minute-old head implies at 0.1/s. */
export async function growing(world: World): Promise<void> {
  await world.seed([BEHIND, ...repeat(9, STEADY)]);
  await world.sendMessages(30);
}

/** Ten idle minutes, the controller having held `applied` through them. */
export async function idling(world: World, applied: number): Promise<void> {
  await world.seed(repeat(10, IDLE));
  await world.seedControllerHistory(applied, 10);
}

/** The controller with its samples between ticks on (every 10 s), cap 32. */
export const FAST_PATH_ENV: Readonly<Record<string, string>> = {
  ...CONTROLLER_ENV,
  MAX_CONCURRENCY: '32',
  FAST_SAMPLE_SECONDS: '10',
};

/** 1 message/s at 1 s items, the head young: 2 workers hold it (the need is 1 × 1 ÷ 0.9 = 1.1). */
export const QUIET: MinuteOfMetrics = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };

/** A quiet queue the controller has held at the floor of 2 for ten minutes. */
export async function quietAtTheFloor(world: World): Promise<World> {
  await world.seed(repeat(10, QUIET));
  await world.seedControllerHistory(2, 10);
  return world;
}
