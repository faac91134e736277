// Crafted HdrHistogram encodings (compressed V2, base64) for tests of everything that decodes one:
// ingest, the service, the site. Written byte by byte, so they can claim what no encoder would write.
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

export interface CraftOptions {
  /** ZigZag words of the payload: a count (>= 0), or minus the length of a run of empty buckets. */
  words: number[];
  /** @default 1 */
  lowest?: number;
  /** @default 3_600_000_000 (the format's one hour, in µs) */
  highest?: number;
  /** @default 3 */
  digits?: number;
  /** The payload length the header states. @default the real one */
  payloadLength?: number;
}

/** An encoded histogram with exactly these header fields and payload words. */
export function craftHistogram(o: CraftOptions): string {
  const payload = Buffer.concat(o.words.map(zigzagWord));
  const header = Buffer.alloc(40);
  header.writeInt32BE(0x1c849313, 0);
  header.writeInt32BE(o.payloadLength ?? payload.length, 4);
  header.writeInt32BE(0, 8);
  header.writeInt32BE(o.digits ?? 3, 12);
  header.writeBigInt64BE(BigInt(o.lowest ?? 1), 16);
  header.writeBigInt64BE(BigInt(o.highest ?? 3_600_000_000), 24);
  header.writeDoubleBE(1, 32);
  return wrap(deflateSync(Buffer.concat([header, payload])));
}

/**
 * Row 1 of issue 11: a valid header, then a run of `2 ** runLog2` empty buckets. With `realCounts`,
 * those counts come first (so the histogram's total matches a real summary) and the run after them.
 */
export function emptyRunHistogram(runLog2: number, realCounts: number[] = []): string {
  return craftHistogram({ words: [...realCounts, -(2 ** runLog2)] });
}

/**
 * Row 2 of issue 11: a deflate bomb, a valid histogram header followed by `zeroBytes` zero bytes
 * (each a count of 0), ~1,000 times smaller compressed: 1 GiB of zeros is ~1 MB of deflate.
 * Built from one compressed MiB of zeros repeated, so making a GiB needs no GiB of memory. Blocks
 * ending in a sync flush can be concatenated, and a repeated block's back-references only reach
 * zeros, which is what precedes it.
 */
export function deflateBombHistogram(zeroBytes: number): string {
  const header = Buffer.alloc(40);
  header.writeInt32BE(0x1c849313, 0);
  header.writeInt32BE(Math.min(zeroBytes, 0x7fffffff), 4);
  header.writeInt32BE(3, 12);
  header.writeBigInt64BE(1n, 16);
  header.writeBigInt64BE(3_600_000_000n, 24);
  const sync = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const mib = 1024 * 1024;
  const parts: Buffer[] = [Buffer.from([0x78, 0xda]), deflateRawSync(header, sync)];
  const block = deflateRawSync(Buffer.alloc(mib), sync);
  for (let left = zeroBytes; left > 0; left -= mib)
    parts.push(left >= mib ? block : deflateRawSync(Buffer.alloc(left), sync));
  parts.push(deflateRawSync(Buffer.alloc(0)));
  parts.push(adler32OfHeaderAndZeros(header, zeroBytes));
  return wrap(Buffer.concat(parts));
}

/** zlib's trailer: Adler-32 of everything inflated. Zeros leave `a` alone and add `a` to `b` each. */
function adler32OfHeaderAndZeros(header: Buffer, zeros: number): Buffer {
  const mod = 65521;
  let a = 1;
  let b = 0;
  for (const byte of header) {
    a = (a + byte) % mod;
    b = (b + a) % mod;
  }
  b = Number((BigInt(b) + BigInt(a) * BigInt(zeros)) % BigInt(mod));
  const out = Buffer.alloc(4);
  out.writeUInt32BE(b * 65536 + a, 0);
  return out;
}

function wrap(deflated: Buffer): string {
  const outer = Buffer.alloc(8);
  outer.writeInt32BE(0x1c849314, 0);
  outer.writeInt32BE(deflated.length, 4);
  return Buffer.concat([outer, deflated]).toString('base64');
}

/** ZigZag LEB128-64b9B, as HdrHistogram writes it; arithmetic, not bit operators, past 2^31. */
function zigzagWord(value: number): Buffer {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const out: number[] = [];
  for (let i = 0; i < 8; i++) {
    if (v < 128) {
      out.push(v);
      return Buffer.from(out);
    }
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
