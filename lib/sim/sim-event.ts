import type { Invocation } from './invocations.ts';
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
