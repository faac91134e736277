import { inflateSync } from 'node:zlib';
import { craftHistogram, deflateBombHistogram, emptyRunHistogram } from '@redis-benchdb/testing';
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  createLatencyHistogram,
  decodeCounts,
  decodeHistogram,
  encodeHistogram,
  HistogramError,
  MAX_COUNTS_LENGTH,
  MAX_INFLATED_BYTES,
  newDecodeScratch,
  summarizeCounts,
  summarizeHistogram,
} from '../src/index.js';

function refusal(encoded: string): HistogramError {
  try {
    decodeHistogram(encoded).destroy();
  } catch (e) {
    if (e instanceof HistogramError) return e;
    throw e;
  }
  throw new Error('decodeHistogram accepted it');
}

describe('decodeHistogram', () => {
  it('reads what the runner writes exactly as hdr-histogram-js does', () => {
    const h = createLatencyHistogram();
    for (let i = 0; i < 20_000; i++) h.recordValue(Math.floor((i / 20_000) ** 4 * 5_000_000));
    h.recordValue(3_599_999_999);
    const encoded = encodeHistogram(h);
    const theirs = createLatencyHistogram();
    theirs.add(hdr.decodeFromCompressedBase64(encoded, 32, false));
    expect(summarizeHistogram(decodeHistogram(encoded))).toEqual(summarizeHistogram(theirs));
  });

  it('refuses a run of 2^33 empty buckets in a 64-character string, before walking it', () => {
    const encoded = emptyRunHistogram(33);
    expect(encoded.length).toBeLessThanOrEqual(64);
    const e = refusal(encoded);
    expect(e.code).toBe('HISTOGRAM_TOO_LARGE');
    expect(e.message).toContain(`a run of 8589934592 empty buckets from bucket 0`);
    expect(e.message).toContain(`has ${MAX_COUNTS_LENGTH} buckets`);
  });

  it('refuses a run of 2^29 placed after real counts', () => {
    const e = refusal(emptyRunHistogram(29, [0, 5, 7]));
    expect(e.code).toBe('HISTOGRAM_TOO_LARGE');
    expect(e.message).toContain('a run of 536870912 empty buckets from bucket 3');
  });

  it('refuses a deflate bomb once it inflates past what its buckets can need', () => {
    const encoded = deflateBombHistogram(64 * 1024 * 1024);
    // The helper is a real bomb: zlib inflates it to the header and 64 MiB of zeros.
    expect(inflateSync(Buffer.from(encoded, 'base64').subarray(8)).length).toBe(40 + 64 * 1024 * 1024);
    const e = refusal(encoded);
    expect(e.code).toBe('HISTOGRAM_TOO_LARGE');
    expect(e.message).toContain(`inflates to more than ${MAX_INFLATED_BYTES} bytes`);
  });

  it('refuses a header whose range has more buckets than the format', () => {
    const e = refusal(craftHistogram({ words: [1], digits: 5, highest: 2 ** 50 }));
    expect(e.code).toBe('HISTOGRAM_TOO_LARGE');
    expect(e.message).toMatch(/its range \(1 to 1125899906842624, 5 significant digits\) has \d+ buckets/);
  });

  it('refuses a count past the last bucket, a stated length that is not the payload, and junk', () => {
    expect(refusal(craftHistogram({ words: [-(MAX_COUNTS_LENGTH - 1), 4, 4] })).message).toContain(
      `a count for bucket ${MAX_COUNTS_LENGTH}`,
    );
    expect(refusal(craftHistogram({ words: [1, 2], payloadLength: 1_000_000 })).message).toContain(
      'says 1000000 payload bytes, but 2 follow',
    );
    expect(refusal('AAAAAAAA').code).toBe('HISTOGRAM_MALFORMED');
    expect(refusal('not base64!').code).toBe('HISTOGRAM_MALFORMED');
  });

  it('decodes a crafted histogram that stays in its range', () => {
    const h = decodeHistogram(craftHistogram({ words: [0, 3, -5, 9] }));
    expect(h.totalCount).toBe(12);
    expect(h.minNonZeroValue).toBe(1);
    expect(h.maxValue).toBe(7);
  });
});

describe('summarizeCounts', () => {
  it('gives summarizeHistogram figures from the counts alone', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (const spread of [1, 3, 6, 9]) {
      const h = createLatencyHistogram();
      for (let i = 0; i < 5000; i++) h.recordValue(Math.floor(random() ** 3 * 10 ** spread));
      const encoded = encodeHistogram(h);
      expect(summarizeCounts(decodeCounts(encoded))).toEqual(summarizeHistogram(decodeHistogram(encoded)));
    }
    const empty = encodeHistogram(createLatencyHistogram());
    expect(summarizeCounts(decodeCounts(empty))).toEqual(summarizeHistogram(decodeHistogram(empty)));
  });

  it('gives the same figures when decoded into a reused scratch, one histogram after another', () => {
    const scratch = newDecodeScratch();
    for (const spread of [9, 2, 6]) {
      const h = createLatencyHistogram();
      for (let i = 0; i < 3000; i++)
        h.recordValue(Math.floor(((i * 7919) % 3000) / 3000) ** 2 * 10 ** spread + i);
      const encoded = encodeHistogram(h);
      const reused = decodeCounts(encoded, scratch);
      // The counts are read into the scratch, not into new arrays: ingest decodes hundreds per body.
      expect(reused.indexes.buffer).toBe(scratch.indexes.buffer);
      expect(reused.counts.buffer).toBe(scratch.counts.buffer);
      expect(reused.total).toBe(h.totalCount);
      expect(summarizeCounts(reused)).toEqual(summarizeHistogram(decodeHistogram(encoded)));
    }
  });
});
