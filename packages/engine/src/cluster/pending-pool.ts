/**
 * Requests drawn for one primary and not yet sent, in draw order (FIFO): the next ones that
 * primary sends. A ring of plain typed arrays, fixed at construction; ClusterConnection reads the
 * front entries from the arrays directly (`head`, `mask`), then drops them.
 */
export class PendingPool {
  length = 0;
  /** The front request's entry in the arrays. */
  head = 0;
  readonly templates: Uint8Array;
  readonly keys: Float64Array;
  readonly slots: Int16Array;
  /** Open loop: each request's intended send time; null in the closed loop. */
  readonly intended: Float64Array | null;
  readonly mask: number;

  /** `capacity`: the most requests the owner ever lets wait here (push does not check). */
  constructor(capacity: number, openLoop: boolean) {
    let size = 1;
    while (size < capacity) size <<= 1;
    this.mask = size - 1;
    this.templates = new Uint8Array(size);
    this.keys = new Float64Array(size);
    this.slots = new Int16Array(size);
    this.intended = openLoop ? new Float64Array(size) : null;
  }

  push(template: number, key: number, slot: number, intended: number): void {
    const e = (this.head + this.length) & this.mask;
    this.templates[e] = template;
    this.keys[e] = key;
    this.slots[e] = slot;
    if (this.intended !== null) this.intended[e] = intended;
    this.length++;
  }

  /** Remove the first n requests (read from the arrays first). */
  drop(n: number): void {
    this.head = (this.head + n) & this.mask;
    this.length -= n;
  }

  clear(): void {
    this.length = 0;
  }
}
