/** A binary min-heap of timed events; ties keep insertion order so runs are deterministic. */
export class EventQueue<T> {
  private times: number[] = [];
  private seqs: number[] = [];
  private items: T[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  push(time: number, item: T): void {
    this.times.push(time);
    this.seqs.push(this.seq++);
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  peekTime(): number | undefined {
    return this.times[0];
  }

  peekItem(): T | undefined {
    return this.items[0];
  }

  pop(): { time: number; item: T } | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const time = this.times[0] as number;
    const item = this.items[0] as T;
    this.swap(0, n - 1);
    this.times.pop();
    this.seqs.pop();
    this.items.pop();
    if (n > 1) this.down(0);
    return { time, item };
  }

  private less(a: number, b: number): boolean {
    const ta = this.times[a] as number;
    const tb = this.times[b] as number;
    return ta < tb || (ta === tb && (this.seqs[a] as number) < (this.seqs[b] as number));
  }

  private swap(a: number, b: number): void {
    [this.times[a], this.times[b]] = [this.times[b] as number, this.times[a] as number];
    [this.seqs[a], this.seqs[b]] = [this.seqs[b] as number, this.seqs[a] as number];
    [this.items[a], this.items[b]] = [this.items[b] as T, this.items[a] as T];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < n && this.less(l, smallest)) smallest = l;
      if (r < n && this.less(r, smallest)) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
