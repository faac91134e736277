import { inflateSync } from 'node:zlib';
import { HistogramError } from './histogram-error.js';

/*
 * A bounded reader of HdrHistogram's compressed V2 encoding (what encodeIntoCompressedBase64 writes):
 *
 *   outer:  int32 cookie 0x1c8493[01]4 | int32 length of the deflated part | zlib-deflated inner
 *   inner:  int32 cookie 0x1c8493[01]3 | int32 payload length | int32 normalizing offset (unused)
 *           | int32 significant digits | int64 lowest discernible value | int64 highest trackable
 *           | float64 int-to-double ratio (unused) | payload: ZigZag LEB128 words, up to 9 bytes each;
 *           a word >= 0 is the count of the next bucket, a word < 0 skips that many empty buckets.
 *
 * Why our own and not hdr-histogram-js's decodeFromCompressedBase64: that one inflates without a
 * limit (a 1.4 MB body inflated to 1 GiB) and walks every skipped bucket, however many the payload
 * claims (a 64-character string claiming 2^33 empty buckets held a server for minutes). Everything
 * here is checked against the bucket count the histogram's own header allows, before it is used,
 * so the work is bounded by that count: at most MAX_COUNTS_LENGTH words, MAX_INFLATED_BYTES bytes.
 */

const OUTER_COOKIE_BASE = 0x1c849304;
const INNER_COOKIE_BASE = 0x1c849303;
const HEADER_BYTES = 40;
/** A ZigZag LEB128-64b9B word takes at most 9 bytes. */
const MAX_WORD_BYTES = 9;
/** The runner's histograms count in 32-bit buckets; a larger count cannot have come from one. */
const MAX_BUCKET_COUNT = 0xffff_ffff;

/** The shape of a histogram's counts array, as HdrHistogram derives it from the header. */
export interface HistogramGeometry {
  lowestDiscernibleValue: number;
  highestTrackableValue: number;
  significantDigits: number;
  /** How many buckets (counts) the range holds. */
  countsLength: number;
  /** log2 of the lowest discernible value, rounded down: bucket 0 counts in steps of 2^unitMagnitude. */
  unitMagnitude: number;
  /** Half the sub-buckets of a bucket: the counts array holds this many per bucket after the first. */
  subBucketHalfCount: number;
}

/** The same arithmetic as HdrHistogram's constructor (establishSize, getBucketsNeededToCoverValue). */
export function histogramGeometry(lowest: number, highest: number, digits: number): HistogramGeometry {
  const largestWithUnitResolution = 2 * 10 ** digits;
  const subBucketCountMagnitude = Math.ceil(Math.log2(largestWithUnitResolution));
  const subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
  const subBucketCount = 2 ** (subBucketHalfCountMagnitude + 1);
  const unitMagnitude = Math.floor(Math.log2(lowest));
  let smallestUntrackable = subBucketCount * 2 ** unitMagnitude;
  let buckets = 1;
  while (smallestUntrackable <= highest) {
    if (smallestUntrackable > Number.MAX_SAFE_INTEGER / 2) {
      buckets++;
      break;
    }
    smallestUntrackable *= 2;
    buckets++;
  }
  return {
    lowestDiscernibleValue: lowest,
    highestTrackableValue: highest,
    significantDigits: digits,
    countsLength: (buckets + 1) * (subBucketCount / 2),
    unitMagnitude,
    subBucketHalfCount: subBucketCount / 2,
  };
}

/** The latency histogram of the format: 1 µs to one hour, 3 significant digits (23,552 buckets). */
export const LATENCY_GEOMETRY = histogramGeometry(1, 3_600_000_000, 3);
/** No histogram a result carries may have more buckets than the format's own. */
export const MAX_COUNTS_LENGTH = LATENCY_GEOMETRY.countsLength;
/** The most an honest encoding can inflate to: the header and one word of 9 bytes per bucket. */
export const MAX_INFLATED_BYTES = HEADER_BYTES + MAX_WORD_BYTES * MAX_COUNTS_LENGTH;

export interface DecodedCounts {
  geometry: HistogramGeometry;
  /** Bucket indexes and their counts, ascending, non-zero counts only. */
  indexes: Uint32Array;
  counts: Uint32Array;
  /** One past the last bucket the payload reached (what HdrHistogram calls the filled length). */
  filledLength: number;
  /** What the deflated part inflated to: the decoder's work, for callers that budget it. */
  inflatedBytes: number;
}

/** Read an encoded histogram's header and counts, refusing anything its own range cannot hold. */
export function decodeCounts(base64: string): DecodedCounts {
  if (base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
    throw malformed('it is not base64 (A-Z, a-z, 0-9, +, / and = padding, in groups of 4)');
  const outer = Buffer.from(base64, 'base64');
  if (outer.length < 8) throw malformed(`it has ${outer.length} bytes, fewer than its 8-byte header`);
  const outerCookie = outer.readInt32BE(0);
  if ((outerCookie & ~0xf0) !== OUTER_COOKIE_BASE)
    throw malformed('it is not HdrHistogram compressed V2 encoding (wrong cookie)');
  const deflatedLength = outer.readInt32BE(4);
  if (deflatedLength !== outer.length - 8)
    throw malformed(`its header says ${deflatedLength} compressed bytes follow, but ${outer.length - 8} do`);

  const inner = inflate(outer.subarray(8));
  if (inner.length < HEADER_BYTES)
    throw malformed(`it inflates to ${inner.length} bytes, fewer than its ${HEADER_BYTES}-byte header`);
  if ((inner.readInt32BE(0) & ~0xf0) !== INNER_COOKIE_BASE)
    throw malformed('its inflated content is not HdrHistogram V2 encoding (wrong cookie)');
  const payloadLength = inner.readInt32BE(4);
  const digits = inner.readInt32BE(12);
  const lowest = safeInt64(inner, 16, 'lowest discernible value');
  const highest = safeInt64(inner, 24, 'highest trackable value');
  if (digits < 0 || digits > 5)
    throw malformed(`it declares ${digits} significant digits (HdrHistogram allows 0 to 5)`);
  if (lowest < 1) throw malformed(`it declares a lowest discernible value of ${lowest} (at least 1)`);
  if (highest < 2 * lowest)
    throw malformed(`its highest trackable value ${highest} is below twice its lowest (${lowest})`);

  const geometry = histogramGeometry(lowest, highest, digits);
  const range = describe(geometry);
  if (geometry.countsLength > MAX_COUNTS_LENGTH)
    throw tooLarge(
      `its range (${range}) has ${geometry.countsLength} buckets; a latency histogram of this format has at most ${MAX_COUNTS_LENGTH}`,
    );
  if (payloadLength !== inner.length - HEADER_BYTES)
    throw malformed(
      `its header says ${payloadLength} payload bytes, but ${inner.length - HEADER_BYTES} follow`,
    );
  if (payloadLength > MAX_WORD_BYTES * geometry.countsLength)
    throw tooLarge(
      `its payload of ${payloadLength} bytes is more than the ${MAX_WORD_BYTES * geometry.countsLength} its ${geometry.countsLength} buckets can need`,
    );
  return readCounts(inner, geometry, range);
}

function readCounts(inner: Buffer, geometry: HistogramGeometry, range: string): DecodedCounts {
  // Typed arrays sized by what the payload can hold (a word is at least a byte): growing plain
  // arrays with push cost ~40x more here. Counts fit: no bucket may hold more than 2^32 - 1.
  const most = Math.min(geometry.countsLength, inner.length - HEADER_BYTES);
  const indexes = new Uint32Array(most);
  const counts = new Uint32Array(most);
  let filled = 0;
  const limit = geometry.countsLength;
  let index = 0;
  let at = HEADER_BYTES;
  const end = inner.length;
  while (at < end) {
    // ZigZag LEB128-64b9B: 7 bits a byte, little end first, the 9th byte gives all 8 of its bits.
    // Most words are one byte: read those without the general loop (it is the decoder's hot path).
    let raw = inner[at++]!;
    if (raw >= 0x80) {
      raw &= 0x7f;
      let scale = 128;
      for (let i = 1; ; i++) {
        if (at >= end) throw malformed(`its payload ends inside a word, at bucket ${index}`);
        const b = inner[at++]!;
        if (i === 8) {
          raw += b * scale;
          break;
        }
        raw += (b & 0x7f) * scale;
        scale *= 128;
        if ((b & 0x80) === 0) break;
      }
    }
    if (raw > Number.MAX_SAFE_INTEGER) throw tooLarge(`it holds a word beyond 2^53, at bucket ${index}`);
    const word = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
    if (word < 0) {
      // Checked before it is used: nothing below ever walks an empty run.
      if (-word > limit - index)
        throw tooLarge(
          `it declares a run of ${-word} empty buckets from bucket ${index}, but its range (${range}) has ${limit} buckets`,
        );
      index += -word;
      continue;
    }
    if (index >= limit)
      throw tooLarge(
        `it declares a count for bucket ${index}, but its range (${range}) has ${limit} buckets`,
      );
    if (word > MAX_BUCKET_COUNT)
      throw tooLarge(`it declares ${word} values in bucket ${index}, more than a 32-bit bucket holds`);
    if (word > 0) {
      indexes[filled] = index;
      counts[filled++] = word;
    }
    index++;
  }
  return {
    geometry,
    indexes: indexes.subarray(0, filled),
    counts: counts.subarray(0, filled),
    filledLength: index,
    inflatedBytes: end,
  };
}

function inflate(deflated: Buffer): Buffer {
  try {
    // The cap is what an honest encoding of the largest range can inflate to: a deflate bomb stops here.
    return inflateSync(deflated, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(
        `it inflates to more than ${MAX_INFLATED_BYTES} bytes, the most a histogram of ${MAX_COUNTS_LENGTH} buckets can need`,
      );
    throw malformed(`its compressed part does not inflate (${(e as Error).message})`);
  }
}

function safeInt64(buf: Buffer, offset: number, what: string): number {
  const v = buf.readBigInt64BE(offset);
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(`its ${what} ${v} is out of range`);
  return Number(v);
}

function describe(g: HistogramGeometry): string {
  return `${g.lowestDiscernibleValue} to ${g.highestTrackableValue}, ${g.significantDigits} significant digits`;
}

function malformed(why: string): HistogramError {
  return new HistogramError('HISTOGRAM_MALFORMED', `not a decodable HdrHistogram: ${why}`);
}

function tooLarge(why: string): HistogramError {
  return new HistogramError('HISTOGRAM_TOO_LARGE', `histogram refused: ${why}`);
}
