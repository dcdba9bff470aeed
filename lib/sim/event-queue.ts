/**
 * A binary min-heap of timed events; ties keep insertion order so runs are deterministic. Holes are sifted rather
 * than swapped, and times and sequence numbers live in typed arrays: this heap is on every message's path.
 */
export class EventQueue<T> {
  private times = new Float64Array(64);
  private seqs = new Float64Array(64);
  private items: (T | undefined)[] = [];
  private count = 0;
  private seq = 0;

  get size(): number {
    return this.count;
  }

  push(time: number, item: T): void {
    if (this.count === this.times.length) this.grow();
    const seq = this.seq++;
    let i = this.count++;
    // Sift the hole up from the end.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = this.times[parent] as number;
      if (pt < time || (pt === time && (this.seqs[parent] as number) < seq)) break;
      this.move(parent, i);
      i = parent;
    }
    this.times[i] = time;
    this.seqs[i] = seq;
    this.items[i] = item;
  }

  peekTime(): number | undefined {
    return this.count === 0 ? undefined : this.times[0];
  }

  peekItem(): T | undefined {
    return this.count === 0 ? undefined : this.items[0];
  }

  pop(): { time: number; item: T } | undefined {
    if (this.count === 0) return undefined;
    const time = this.times[0] as number;
    const item = this.items[0] as T;
    this.removeTop();
    return { time, item };
  }

  /** Drops the earliest event (after `peekTime`/`peekItem`), without allocating. */
  removeTop(): void {
    const last = --this.count;
    const time = this.times[last] as number;
    const seq = this.seqs[last] as number;
    const item = this.items[last];
    this.items[last] = undefined;
    if (last === 0) return;
    // Sift the hole down from the root, then drop the former last element into it.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= last) break;
      const r = l + 1;
      let c = l;
      if (r < last && this.before(r, l)) c = r;
      const ct = this.times[c] as number;
      if (time < ct || (time === ct && seq < (this.seqs[c] as number))) break;
      this.move(c, i);
      i = c;
    }
    this.times[i] = time;
    this.seqs[i] = seq;
    this.items[i] = item;
  }

  private before(a: number, b: number): boolean {
    const ta = this.times[a] as number;
    const tb = this.times[b] as number;
    return ta < tb || (ta === tb && (this.seqs[a] as number) < (this.seqs[b] as number));
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from] as number;
    this.seqs[to] = this.seqs[from] as number;
    this.items[to] = this.items[from];
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    this.times = times;
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }
}
