/**
 * Received-but-not-deleted messages that are visible again, oldest send time first, with their receive counts.
 * Typed arrays: 10 bytes a message, so an overpulled backlog of millions stays small.
 */
export class MessageHeap {
  private sentAt = new Float64Array(256);
  private receives = new Uint16Array(256);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(sentAt: number, receiveCount: number): void {
    if (this.count === this.sentAt.length) this.grow();
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.sentAt[parent] as number) <= sentAt) break;
      this.sentAt[i] = this.sentAt[parent] as number;
      this.receives[i] = this.receives[parent] as number;
      i = parent;
    }
    this.sentAt[i] = sentAt;
    this.receives[i] = receiveCount;
  }

  /** The oldest send time, or undefined when empty. */
  oldest(): number | undefined {
    return this.count === 0 ? undefined : this.sentAt[0];
  }

  /** The oldest message's receive count (call only when not empty). */
  oldestReceiveCount(): number {
    return this.receives[0] as number;
  }

  /** Removes the oldest message (call only when not empty). */
  removeOldest(): void {
    const last = --this.count;
    if (last === 0) return;
    const sentAt = this.sentAt[last] as number;
    const receives = this.receives[last] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= last) break;
      const r = l + 1;
      const c = r < last && (this.sentAt[r] as number) < (this.sentAt[l] as number) ? r : l;
      if (sentAt <= (this.sentAt[c] as number)) break;
      this.sentAt[i] = this.sentAt[c] as number;
      this.receives[i] = this.receives[c] as number;
      i = c;
    }
    this.sentAt[i] = sentAt;
    this.receives[i] = receives;
  }

  private grow(): void {
    const sentAt = new Float64Array(this.sentAt.length * 2);
    sentAt.set(this.sentAt);
    this.sentAt = sentAt;
    const receives = new Uint16Array(this.receives.length * 2);
    receives.set(this.receives);
    this.receives = receives;
  }
}
