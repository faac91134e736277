/**
 * A command compiled once into RESP bytes, with holes for the key digits and the value.
 *
 * Why our own encoder: per request, the hot path only writes a key number's digits and copies a
 * value; everything else (array header, command name, lengths, key prefix) is pre-encoded. A
 * general client re-encodes every argument of every command.
 */

/** One argument of a command: literal bytes, a key from the key space, or a value. */
export type Arg = { kind: 'literal'; bytes: Buffer } | { kind: 'key'; prefix: Buffer } | { kind: 'value' };

/** Keys are `prefix + 12 zero-padded digits`, as redis-benchmark's `__rand_int__` is. */
export const KEY_DIGITS = 12;

const SEG_BYTES = 0;
const SEG_KEY = 1;
const SEG_VALUE = 2;

export interface ValueSource {
  /** Bytes of the value pool; a value of n bytes is its first n bytes. */
  pool: Buffer;
  /** Next value length in bytes. */
  nextSize(): number;
  /** Largest length nextSize() can return. */
  maxSize: number;
  /** `$<size>\r\n` when every value has the same size, so it is not formatted per request. */
  fixedHeader: Buffer | null;
}

export interface KeySource {
  nextKey(): number;
}

export class RequestTemplate {
  private readonly segKinds: Uint8Array;
  private readonly segBytes: (Buffer | null)[];
  /** Upper bound of one encoded request's length. */
  readonly maxBytes: number;
  readonly hasValue: boolean;
  readonly keyCount: number;

  constructor(args: readonly Arg[], maxValueSize: number, inline?: Buffer) {
    const kinds: number[] = [];
    const bytes: (Buffer | null)[] = [];
    const pushBytes = (b: Buffer) => {
      const last = bytes.length - 1;
      if (last >= 0 && kinds[last] === SEG_BYTES) bytes[last] = Buffer.concat([bytes[last]!, b]);
      else {
        kinds.push(SEG_BYTES);
        bytes.push(b);
      }
    };
    let keyCount = 0;
    let hasValue = false;
    if (inline) pushBytes(inline);
    else {
      pushBytes(Buffer.from(`*${args.length}\r\n`));
      for (const a of args) {
        if (a.kind === 'literal')
          pushBytes(Buffer.concat([Buffer.from(`$${a.bytes.length}\r\n`), a.bytes, CRLF]));
        else if (a.kind === 'key') {
          pushBytes(Buffer.concat([Buffer.from(`$${a.prefix.length + KEY_DIGITS}\r\n`), a.prefix]));
          kinds.push(SEG_KEY);
          bytes.push(null);
          pushBytes(CRLF);
          keyCount++;
        } else {
          kinds.push(SEG_VALUE);
          bytes.push(null);
          hasValue = true;
        }
      }
    }
    this.segKinds = Uint8Array.from(kinds);
    this.segBytes = bytes;
    this.keyCount = keyCount;
    this.hasValue = hasValue;
    let fixed = 0;
    for (const b of bytes) fixed += b ? b.length : 0;
    const perValue = 1 + String(maxValueSize).length + 2 + maxValueSize + 2;
    this.maxBytes = fixed + keyCount * KEY_DIGITS + (hasValue ? perValue * countValues(args) : 0);
  }

  /**
   * When every request of this template has the same length (no value, or a fixed value size),
   * the bytes of one request and where its key digits sit, so a sender can pre-encode requests
   * once and rewrite only the digits. Null when lengths vary.
   */
  fixedLayout(values: ValueSource): { bytes: Buffer; keyOffsets: number[] } | null {
    if (this.hasValue && values.fixedHeader === null) return null;
    const bytes = Buffer.alloc(this.maxBytes);
    const end = this.encode(bytes, 0, { nextKey: () => 0 }, values);
    const keyOffsets: number[] = [];
    let pos = 0;
    for (let s = 0; s < this.segKinds.length; s++) {
      const kind = this.segKinds[s];
      if (kind === SEG_BYTES) pos += this.segBytes[s]!.length;
      else if (kind === SEG_KEY) {
        keyOffsets.push(pos);
        pos += KEY_DIGITS;
      } else pos += values.fixedHeader!.length + values.maxSize + 2;
    }
    return { bytes: bytes.subarray(0, end), keyOffsets };
  }

  /** Encode one request at out[pos]; returns the position after it. */
  encode(out: Buffer, pos: number, keys: KeySource, values: ValueSource): number {
    const kinds = this.segKinds;
    const segs = this.segBytes;
    for (let s = 0; s < kinds.length; s++) {
      const kind = kinds[s];
      if (kind === SEG_BYTES) {
        const b = segs[s]!;
        // Very short runs: a byte loop is cheaper than a native call; longer ones: set().
        if (b.length <= 8) {
          for (let i = 0; i < b.length; i++) out[pos + i] = b[i]!;
        } else out.set(b, pos);
        pos += b.length;
      } else if (kind === SEG_KEY) {
        writeKeyDigits(out, pos, keys.nextKey());
        pos += KEY_DIGITS;
      } else {
        const size = values.nextSize();
        const header = values.fixedHeader;
        if (header !== null) {
          for (let i = 0; i < header.length; i++) out[pos + i] = header[i]!;
          pos += header.length;
        } else {
          out[pos++] = 36; // $
          pos += out.write(String(size), pos, 'latin1');
          out[pos++] = 13;
          out[pos++] = 10;
        }
        values.pool.copy(out, pos, 0, size);
        pos += size;
        out[pos++] = 13;
        out[pos++] = 10;
      }
    }
    return pos;
  }
}

const CRLF = Buffer.from('\r\n');

/** '00'..'99' as byte pairs: two digits per table read instead of one division per digit. */
const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''));

/**
 * Write n as 12 zero-padded digits. n < 1e12 is split into two halves below 1e6 so the rest runs
 * in int32 arithmetic (`| 0`), which V8 keeps out of floating point.
 */
export function writeKeyDigits(out: Buffer, pos: number, n: number): void {
  const hi = Math.floor(n / 1e6);
  writeSixDigits(out, pos, hi);
  writeSixDigits(out, pos + 6, n - hi * 1e6);
}

function writeSixDigits(out: Buffer, pos: number, x: number): void {
  const a = (x / 10000) | 0;
  const rest = x - a * 10000;
  const b = (rest / 100) | 0;
  const c = rest - b * 100;
  out[pos] = PAIRS[a * 2]!;
  out[pos + 1] = PAIRS[a * 2 + 1]!;
  out[pos + 2] = PAIRS[b * 2]!;
  out[pos + 3] = PAIRS[b * 2 + 1]!;
  out[pos + 4] = PAIRS[c * 2]!;
  out[pos + 5] = PAIRS[c * 2 + 1]!;
}

function countValues(args: readonly Arg[]): number {
  let n = 0;
  for (const a of args) if (a.kind === 'value') n++;
  return n;
}
