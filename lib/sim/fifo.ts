// A chunk holds 64 Ki send times (512 KiB): large enough that chunk bookkeeping is rare, small enough that a
// backlog of tens of millions grows without ever copying what it already holds.
const CHUNK = 1 << 16;

/**
 * The queue's never-received messages, oldest first: their send times in fixed-size chunks. A backlog of n
 * messages takes 8·n bytes and growing it copies nothing (a doubling ring buffer would hold 3× that while it grows).
 */
export class TimeFifo {
  private readonly chunks: Float64Array[] = [];
  /** Index of the first unread slot in chunks[0]. */
  private head = 0;
  /** Index of the next free slot in the last chunk. */
  private tail = CHUNK;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(time: number): void {
    if (this.tail === CHUNK) {
      this.chunks.push(new Float64Array(CHUNK));
      this.tail = 0;
    }
    (this.chunks[this.chunks.length - 1] as Float64Array)[this.tail++] = time;
    this.count++;
  }

  peek(): number | undefined {
    return this.count === 0 ? undefined : (this.chunks[0] as Float64Array)[this.head];
  }

  shift(): number | undefined {
    if (this.count === 0) return undefined;
    const value = (this.chunks[0] as Float64Array)[this.head++];
    this.count--;
    if (this.count === 0) {
      // Keep one chunk to refill, from its start.
      this.chunks.length = 1;
      this.head = 0;
      this.tail = 0;
    } else if (this.head === CHUNK) {
      this.chunks.shift();
      this.head = 0;
    }
    return value;
  }
}
