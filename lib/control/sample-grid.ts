import type { ScalerConfig } from './config.ts';
import { FAST_LOOP_END_BEFORE_TICK_SECONDS } from './fast-path.ts';

/**
 * When the fast path's samples fall between two ticks: the one place that knows it, for the Lambda (which sleeps
 * to each time, or, later, is woken at each) and the simulator (which schedules an event at each).
 *
 * The samples belong to the tick's schedule slot, not to the invocation that runs them: they fall on the slot's
 * grid (its start plus whole intervals) and stop `FAST_LOOP_END_BEFORE_TICK_SECONDS` before the next scheduled
 * tick, so the next invocation (reserved concurrency 1) finds the controller free. An event delivered late (a
 * retry, a duplicate) samples what is left of its slot and never reaches into the next one.
 */

/** A tick's place in the schedule. */
export interface TickSlot {
  /** When the tick's invocation started, epoch seconds. */
  readonly started: number;
  /** When the schedule fired (the event's time); undefined for a hand-made invocation. */
  readonly scheduledAt?: number;
}

export interface SampleGrid {
  /** The slot's start: the scheduled time, or the start where the invocation began before it (clock skew). */
  readonly start: number;
  /** The next scheduled tick. */
  readonly nextTick: number;
  /** The last instant a sample may start. */
  readonly end: number;
  /** The sample times, ascending: every whole interval after the start, after `started`, up to `end`. */
  readonly times: readonly number[];
}

export function sampleGrid(
  slot: TickSlot,
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
): SampleGrid {
  const start = Math.min(slot.started, slot.scheduledAt ?? slot.started);
  const nextTick = start + config.tickSeconds;
  const end = nextTick - FAST_LOOP_END_BEFORE_TICK_SECONDS;
  const times: number[] = [];
  const interval = config.fastSampleSeconds;
  if (interval > 0) {
    for (let k = 1; start + k * interval <= end; k++) {
      const at = start + k * interval;
      if (at > slot.started) times.push(at);
    }
  }
  return { start, nextTick, end, times };
}

/** The fast path's sample times in a tick's slot (`sampleGrid`'s times). */
export function sampleTimes(
  slot: TickSlot,
  config: Pick<ScalerConfig, 'tickSeconds' | 'fastSampleSeconds'>,
): readonly number[] {
  return sampleGrid(slot, config).times;
}
