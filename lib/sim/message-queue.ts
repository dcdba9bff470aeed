import { EventQueue } from './event-queue.ts';
import { TimeFifo } from './fifo.ts';
import { MessageHeap } from './message-heap.ts';

/** The messages one receive returned, with their send times and receive counts (this receive included). */
export interface Batch {
  readonly id: number;
  readonly sentAt: number[];
  readonly receiveCount: number[];
}

// AWS: a message received three times or more without being deleted is moved to the back of the queue, and
// ApproximateAgeOfOldestMessage then shows the next one.
const HIDDEN_AFTER_RECEIVES = 3;

/**
 * The SQS queue: never-received messages, returned ones, those hidden at the back, and the batches in flight,
 * with the redrive policy (maxReceiveCount) that moves a message to the DLQ. Apart from the consumer because the
 * age a controller reads is the queue's, whoever holds the messages: a throttled batch waiting out its visibility
 * timeout still counts.
 */
export class MessageQueue {
  private readonly fresh = new TimeFifo();
  private readonly returned = new MessageHeap();
  /** Returned messages received HIDDEN_AFTER_RECEIVES times or more: at the back, hidden from the age. */
  private readonly hidden = new MessageHeap();
  /** In-flight batches by their oldest age-eligible message; entries of finished batches are skipped lazily. */
  private readonly inFlightOldest = new EventQueue<number>();
  private readonly liveBatches = new Set<number>();
  private nextBatchId = 0;
  /** Messages received and neither deleted nor visible again. */
  inFlight = 0;
  deadLettered = 0;

  /**
   * @param maxReceiveCount the redrive policy's: a message received that many times goes to the DLQ on its next
   * @param inFlightInAge whether in-flight messages count in the age (SQS); the seed's in-process pool reads the
   *   head of its queue, and an item a worker took is no longer there
   */
  constructor(
    private readonly maxReceiveCount: number,
    private readonly inFlightInAge: boolean,
  ) {}

  /** A message is sent at `now`. */
  send(now: number): void {
    this.fresh.push(now);
  }

  visibleCount(): number {
    return this.fresh.length + this.returned.length + this.hidden.length;
  }

  /**
   * ApproximateAgeOfOldestMessage: the oldest message not yet deleted, visible or in flight (a throttled batch
   * waiting out its visibility timeout counts), except those received three times or more, which hide.
   */
  headAge(now: number): number {
    while (this.inFlightOldest.size > 0 && !this.liveBatches.has(this.inFlightOldest.peekItem() as number)) {
      this.inFlightOldest.removeTop();
    }
    const oldest = Math.min(
      this.fresh.peek() ?? Number.POSITIVE_INFINITY,
      this.returned.oldest() ?? Number.POSITIVE_INFINITY,
      (this.inFlightInAge ? this.inFlightOldest.peekTime() : undefined) ?? Number.POSITIVE_INFINITY,
    );
    return Number.isFinite(oldest) ? now - oldest : 0;
  }

  /** One receive of up to `max` messages, oldest first; it goes in flight (possibly empty). */
  receive(max: number): Batch {
    const batch = this.newBatch();
    while (batch.sentAt.length < max) {
      const returnedAt = this.returned.oldest();
      const freshAt = this.fresh.peek();
      let sentAt: number;
      let count: number;
      if (returnedAt !== undefined && (freshAt === undefined || returnedAt <= freshAt)) {
        sentAt = returnedAt;
        count = this.returned.oldestReceiveCount();
        this.returned.removeOldest();
      } else if (freshAt !== undefined) {
        sentAt = this.fresh.shift() as number;
        count = 0;
      } else if (this.hidden.length > 0) {
        // The back of the queue: messages moved there after three receives come last.
        sentAt = this.hidden.oldest() as number;
        count = this.hidden.oldestReceiveCount();
        this.hidden.removeOldest();
      } else break;
      // Redrive: a message already received maxReceiveCount times goes to the DLQ on its next receive.
      if (count >= this.maxReceiveCount) {
        this.deadLettered++;
        continue;
      }
      batch.sentAt.push(sentAt);
      batch.receiveCount.push(count + 1);
    }
    this.track(batch);
    return batch;
  }

  /** An empty batch, to gather the messages of a batch that return (its failed items); `track` it when full. */
  newBatch(): Batch {
    return { id: this.nextBatchId++, sentAt: [], receiveCount: [] };
  }

  /** A batch goes in flight: invisible, counted in the age until deleted or returned. */
  track(batch: Batch): void {
    this.inFlight += batch.sentAt.length;
    let oldestEligible = Number.POSITIVE_INFINITY;
    for (let i = 0; i < batch.sentAt.length; i++) {
      if ((batch.receiveCount[i] as number) < HIDDEN_AFTER_RECEIVES)
        oldestEligible = Math.min(oldestEligible, batch.sentAt[i] as number);
    }
    if (Number.isFinite(oldestEligible)) {
      this.liveBatches.add(batch.id);
      this.inFlightOldest.push(oldestEligible, batch.id);
    }
  }

  /** A batch leaves flight (its messages deleted, or about to be visible again). */
  finish(batch: Batch): void {
    this.inFlight -= batch.sentAt.length;
    this.liveBatches.delete(batch.id);
  }

  /** A batch's visibility timeout ended: its messages are visible again, at the back after three receives. */
  makeVisible(batch: Batch): void {
    this.finish(batch);
    for (let i = 0; i < batch.sentAt.length; i++) {
      const count = batch.receiveCount[i] as number;
      (count >= HIDDEN_AFTER_RECEIVES ? this.hidden : this.returned).push(batch.sentAt[i] as number, count);
    }
  }
}
