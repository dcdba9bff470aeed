import type { TickerMessage, TickerPort } from '../../../lib/aws/ticker.ts';

/**
 * The ticker queue's mapping, for tests on a virtual clock: it keeps what each tick sends (and forwards it to a
 * real queue where one is given, the emulator's), then delivers each message back to the handler at its due time,
 * as the mapping would, stepping the clock with the test's own `sleep` first. A delivery plan can drop, repeat or
 * delay a message, as SQS's at-least-once delivery may.
 */

/** What becomes of one message: delivered once, lost, delivered twice, or delivered after the next tick. */
export type Delivery = 'once' | 'lost' | 'twice' | 'late';

export interface Scheduled {
  readonly due: number;
  readonly body: string;
}

export function tickerEvent(body: string) {
  return { Records: [{ eventSource: 'aws:sqs', body }] };
}

export class TickerDriver implements TickerPort {
  /** Every message sent, in order, with its due time. */
  readonly sent: Scheduled[] = [];
  #pending: Scheduled[] = [];
  #late: Scheduled[] = [];
  /** How the n-th message of a tick is delivered (0-based). @default every message once */
  plan: (index: number) => Delivery = () => 'once';

  constructor(
    private readonly clock: () => number,
    private readonly forward?: TickerPort,
  ) {}

  async schedule(messages: readonly TickerMessage[]) {
    const now = this.clock();
    const scheduled = messages.map((m) => ({
      due: now + Math.max(0, Math.round(m.delaySeconds)),
      body: m.body,
    }));
    this.sent.push(...scheduled);
    this.#pending.push(...scheduled);
    return this.forward ? this.forward.schedule(messages) : { sent: messages.length, refused: 0 };
  }

  /**
   * Delivers the last tick's messages in due order: `sleep` moves the clock to each due time (and lets the test act
   * there), then the handler runs the delivery. Messages planned `late` wait for `deliverLate`.
   */
  async deliver(
    handler: (event: unknown) => Promise<unknown>,
    sleep: (seconds: number) => Promise<void>,
  ): Promise<void> {
    const batch = this.#pending.sort((a, b) => a.due - b.due);
    this.#pending = [];
    for (const [i, message] of batch.entries()) {
      const delivery = this.plan(i);
      if (delivery === 'lost') continue;
      if (delivery === 'late') {
        this.#late.push(message);
        continue;
      }
      const wait = message.due - this.clock();
      if (wait > 0) await sleep(wait);
      await handler(tickerEvent(message.body));
      if (delivery === 'twice') await handler(tickerEvent(message.body));
    }
  }

  /** Delivers the messages held back as late, now. */
  async deliverLate(handler: (event: unknown) => Promise<unknown>): Promise<number> {
    const late = this.#late;
    this.#late = [];
    for (const message of late) await handler(tickerEvent(message.body));
    return late.length;
  }
}

/**
 * A handler that behaves as the deployed controller and its ticker queue together: each tick, then the samples it
 * sent, delivered on the test's clock.
 */
export function withTicker<T>(
  handler: (event: unknown) => Promise<unknown>,
  driver: TickerDriver,
  sleep: (seconds: number) => Promise<void>,
): (event: unknown) => Promise<T> {
  return async (event) => {
    const answer = (await handler(event)) as T;
    await driver.deliver(handler, sleep);
    return answer;
  };
}
