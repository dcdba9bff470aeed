/**
 * A sample's message on the controller's ticker queue: which tick's slot it belongs to, when it is due, and the
 * loop's state as the tick left it. Each sample is its own invocation, so what carries from the tick to its samples
 * travels in the message (the state after a later sample is kept in the warm container, see sample-handler.ts).
 */
export interface TickerBody<State> {
  readonly kind: 'queue-age-scaler:sample';
  /** The tick's slot start (epoch seconds): samples of an older slot than the newest seen are superseded. */
  readonly slot: number;
  /** When the sample is due (epoch seconds). */
  readonly at: number;
  /** The last instant it may start (writes stop there anyway): a delivery after it does nothing. */
  readonly end: number;
  readonly state: State;
}

const KIND = 'queue-age-scaler:sample';

export function tickerBody<State>(slot: number, at: number, end: number, state: State): TickerBody<State> {
  return { kind: KIND, slot, at, end, state };
}

/**
 * The body, or undefined for anything else on the queue (a hand-sent message, a truncated body): such a message is
 * dropped, never retried, never an error that would make the mapping redeliver it.
 */
export function parseTickerBody<State>(body: string | undefined): TickerBody<State> | undefined {
  if (body === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const b = parsed as Partial<TickerBody<State>> | null;
  if (b === null || typeof b !== 'object' || b.kind !== KIND) return undefined;
  const times = [b.slot, b.at, b.end];
  if (!times.every((t) => typeof t === 'number' && Number.isFinite(t))) return undefined;
  if (b.state === undefined || b.state === null || typeof b.state !== 'object') return undefined;
  return b as TickerBody<State>;
}

/** The SQS event a ticker delivery brings: the mapping's batch size is 1, but every record is read. */
export interface TickerEvent {
  readonly Records: readonly { readonly body?: string; readonly eventSource?: string }[];
}

export function isTickerEvent(event: unknown): event is TickerEvent {
  const records = (event as { Records?: unknown } | null)?.Records;
  return (
    Array.isArray(records) &&
    records.every((r) => (r as { eventSource?: string } | null)?.eventSource === 'aws:sqs')
  );
}
