import type { Batch } from './message-queue.ts';

/**
 * What the simulator's event queue holds. One union for every part, because the parts share one queue: ties
 * between them keep insertion order, and that order (with the random draws it leads to) is the run.
 */
export type SimEvent =
  | { readonly kind: 'arrival' }
  | { readonly kind: 'receive' }
  | { readonly kind: 'slot-free' }
  | { readonly kind: 'complete'; readonly invocation: Invocation }
  | { readonly kind: 'timeout'; readonly invocation: Invocation }
  | { readonly kind: 'item-done'; readonly invocation: Invocation }
  | { readonly kind: 'return'; readonly batch: Batch }
  | { readonly kind: 'periodic'; readonly task: number };

// Events without a payload are made once: they are on every message's path.
export const ARRIVAL: SimEvent = { kind: 'arrival' };
export const RECEIVE: SimEvent = { kind: 'receive' };
export const SLOT_FREE: SimEvent = { kind: 'slot-free' };

/**
 * One invocation (or one worker's item) in progress: the payload of the complete, timeout and item-done events, so
 * it lives with them; lib/sim/invocations.ts makes and runs them.
 */
export interface Invocation {
  /**
   * The consumer it runs in. A pool shared by several queues' consumers hands a freed connection to whoever waits
   * longest, maybe another consumer's invocation: its item must then run with its own consumer's item times,
   * random draws and events, so the invocation carries who that is.
   */
  readonly owner: InvocationOwner;
  readonly batch: Batch;
  /** Its item-done event, made once and pushed for each item (no allocation per item). */
  itemDone: SimEvent | undefined;
  readonly receivedAt: number;
  /** The invocation's duration: planned up front without a downstream model, measured with one. */
  duration: number;
  /** With a downstream model: the next item to start, and which items failed. */
  next: number;
  failed: Uint8Array | undefined;
  holdsConnection: boolean;
  /** Completed or timed out: later events for it are void. */
  ended: boolean;
}

/** The consumer an invocation runs in (lib/sim/invocations.ts's `Invocations`): it serves the invocation's items. */
export interface InvocationOwner {
  serveItem(invocation: Invocation, now: number): void;
}
