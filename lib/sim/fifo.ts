/** A growable ring buffer of send times: the queue's never-received messages, oldest first. */
export class TimeFifo {
  private buffer = new Float64Array(1024);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(time: number): void {
    if (this.count === this.buffer.length) this.grow();
    this.buffer[(this.head + this.count) % this.buffer.length] = time;
    this.count++;
  }

  peek(): number | undefined {
    return this.count === 0 ? undefined : this.buffer[this.head];
  }

  shift(): number | undefined {
    if (this.count === 0) return undefined;
    const value = this.buffer[this.head];
    this.head = (this.head + 1) % this.buffer.length;
    this.count--;
    return value;
  }

  private grow(): void {
    const next = new Float64Array(this.buffer.length * 2);
    for (let i = 0; i < this.count; i++)
      next[i] = this.buffer[(this.head + i) % this.buffer.length] as number;
    this.buffer = next;
    this.head = 0;
  }
}

/** A growable list of numbers (waits per phase). */
export class NumberList {
  private buffer = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.buffer.length) {
      const next = new Float64Array(this.buffer.length * 2);
      next.set(this.buffer);
      this.buffer = next;
    }
    this.buffer[this.length++] = value;
  }

  /** The values, sorted ascending (a copy). */
  sorted(): Float64Array {
    return this.buffer.slice(0, this.length).sort();
  }
}
