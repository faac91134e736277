/**
 * Redis Cluster hash slots: CRC16 (XMODEM, as Redis's crc16.c) of the key, or of its hash tag,
 * modulo 16384.
 */

import { KEY_DIGITS, writeKeyDigits } from '../resp/request-template.js';

export const SLOT_COUNT = 16384;

const CRC_TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let crc = i << 8;
  for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  CRC_TABLE[i] = crc;
}

/** CRC16 of bytes[start, end), continuing from `crc`. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  for (let i = start; i < end; i++)
    crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >>> 8) ^ bytes[i]!) & 0xff]!;
  return crc;
}

/**
 * The part of a key that is hashed: between the first `{` and the next `}` when that is not
 * empty, else the whole key (Redis's keyHashSlot). Returns [start, end).
 */
export function hashedRange(key: Uint8Array): [number, number] {
  const open = key.indexOf(123); // {
  if (open < 0) return [0, key.length];
  const close = key.indexOf(125, open + 1); // }
  if (close < 0 || close === open + 1) return [0, key.length];
  return [open + 1, close];
}

export function keySlot(key: string | Uint8Array): number {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const [start, end] = hashedRange(bytes);
  return crc16(bytes, start, end) & (SLOT_COUNT - 1);
}

/**
 * Key spaces up to this size get a table of each key number's slot (2 bytes a key: 8 MiB at
 * the limit, built in ~0.1 s per worker), so routing a request costs one array read. Above it,
 * the slot is computed per request from the CRC state after the prefix and the 12 digits: ~20 ns,
 * still without allocating.
 */
export const SLOT_TABLE_MAX_KEYS = 4 * 1024 * 1024;

/** The slot of `prefix + 12-digit key number`, for every key number of a key space. */
export class KeySlots {
  /** The slot when every key of this prefix shares one (a hash tag in the prefix), else -1. */
  readonly constantSlot: number;
  /** slot of key number i, when the key space is small enough for a table. */
  readonly table: Uint16Array | null;
  private readonly prefixCrc: number;
  private readonly digits = Buffer.alloc(KEY_DIGITS);

  constructor(prefix: Buffer, keyspaceSize: number) {
    const open = prefix.indexOf(123);
    const close = open < 0 ? -1 : prefix.indexOf(125, open + 1);
    // A complete, non-empty tag in the prefix fixes the slot. A `{` left open cannot close in
    // the digits, so then (as with no tag) the whole key is hashed.
    this.constantSlot = close > open + 1 ? crc16(prefix, open + 1, close) & (SLOT_COUNT - 1) : -1;
    this.prefixCrc = crc16(prefix);
    this.table = null;
    if (this.constantSlot < 0 && keyspaceSize <= SLOT_TABLE_MAX_KEYS) {
      const table = new Uint16Array(keyspaceSize);
      for (let k = 0; k < keyspaceSize; k++) table[k] = this.compute(k);
      this.table = table;
    }
  }

  slotOf(keyNumber: number): number {
    if (this.constantSlot >= 0) return this.constantSlot;
    if (this.table !== null) return this.table[keyNumber]!;
    return this.compute(keyNumber);
  }

  private compute(keyNumber: number): number {
    writeKeyDigits(this.digits, 0, keyNumber);
    return crc16(this.digits, 0, KEY_DIGITS, this.prefixCrc) & (SLOT_COUNT - 1);
  }
}

/**
 * The key numbers of a key space grouped by slot (CSR layout: the keys of slot s are
 * keys[start[s] .. start[s+1])), so a multi-key request can draw all its keys from one slot.
 */
export class KeysBySlot {
  readonly start = new Uint32Array(SLOT_COUNT + 1);
  readonly keys: Uint32Array;

  constructor(table: Uint16Array) {
    const count = this.start;
    for (let k = 0; k < table.length; k++) count[table[k]! + 1]!++;
    for (let s = 0; s < SLOT_COUNT; s++) count[s + 1]! += count[s]!;
    const fill = count.slice(0, SLOT_COUNT);
    this.keys = new Uint32Array(table.length);
    for (let k = 0; k < table.length; k++) this.keys[fill[table[k]!]!++] = k;
  }
}
