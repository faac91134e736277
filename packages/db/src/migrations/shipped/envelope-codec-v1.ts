// FROZEN: a copy of store/envelope-codec.ts as migration 14 shipped it (format 1). Migrations never
// import live code (a live change would change what an old migration writes): edit store/, never this.

import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * How a signed envelope is stored (issue 42): its canonical text cut in two. `histograms` holds every
 * histogram of the payload as the binary it encodes (base64 is 4/3 of it, and the bytes are already
 * deflated by the HDR encoding, so compressing them again gains nothing); `body` holds the rest of the
 * text, brotli-compressed (numbers, labels and keys repeat cell after cell: 130 KB become 16 KB).
 * decodeEnvelope gives back the exact text ingest verified, byte for byte: encodeEnvelope checks that
 * before anything is stored, so a text this format cannot hold is refused, never stored wrong.
 *
 * Format 1, the first byte of both parts. Migration 14 writes it with a frozen copy of this encoder
 * (migrations/shipped/envelope-codec-v1.ts): a change of format is a format 2 beside it, and the
 * decoder keeps reading 1.
 */
export interface EnvelopeParts {
  histograms: Buffer;
  body: Buffer;
}

export const ENVELOPE_FORMAT = 1;

// A histogram inside the envelope's payload string (its quotes escaped once): any key ending in
// "histogram" whose value is base64. In valid JSON `\"key\":\"` can only be a key and its value.
const HISTOGRAM = /\\"([A-Za-z]*[Hh]istogram)\\":\\"([A-Za-z0-9+/]*={0,2})\\"/g;
// A value kept as its base64's bytes, or as its text (base64 that does not encode back the same).
const AS_BYTES = 0;
const AS_TEXT = 1;
// Brotli at 5: a twentieth of quality 11's time (10 ms against 290 ms for a quick result, on the
// service's check threads) for 25% more bytes on the smallest of the two parts.
const BROTLI_QUALITY = 5;

export class EnvelopeFormatError extends Error {
  readonly code = 'ENVELOPE_FORMAT';
}

export function encodeEnvelope(text: string): EnvelopeParts {
  const parts: Buffer[] = [Buffer.of(ENVELOPE_FORMAT)];
  const rest = text.replace(HISTOGRAM, (_m, key: string, value: string) => {
    const bytes = Buffer.from(value, 'base64');
    const asBytes = bytes.toString('base64') === value;
    const data = asBytes ? bytes : Buffer.from(value, 'utf8');
    const head = Buffer.alloc(5);
    head.writeUInt8(asBytes ? AS_BYTES : AS_TEXT, 0);
    head.writeUInt32BE(data.length, 1);
    parts.push(head, data);
    return `\\"${key}\\":\\"\\"`;
  });
  const compressed = brotliCompressSync(rest, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(rest),
    },
  });
  const stored = {
    histograms: Buffer.concat(parts),
    body: Buffer.concat([Buffer.of(ENVELOPE_FORMAT), compressed]),
  };
  if (decodeEnvelope(stored) !== text)
    throw new EnvelopeFormatError(
      'invalid envelope text: it does not come back byte for byte from the store',
    );
  return stored;
}

export function decodeEnvelope({ histograms, body }: EnvelopeParts): string {
  if (histograms[0] !== ENVELOPE_FORMAT || body[0] !== ENVELOPE_FORMAT)
    throw new EnvelopeFormatError(
      `invalid stored envelope: format ${histograms[0]}/${body[0]}, this redis-benchdb reads ${ENVELOPE_FORMAT}`,
    );
  const rest = brotliDecompressSync(body.subarray(1)).toString('utf8');
  let at = 1;
  const text = rest.replace(HISTOGRAM, (m, key: string, value: string) => {
    if (value !== '' || at + 5 > histograms.length)
      throw new EnvelopeFormatError(`invalid stored envelope: ${m.slice(0, 40)} has no stored histogram`);
    const kind = histograms.readUInt8(at);
    const length = histograms.readUInt32BE(at + 1);
    const data = histograms.subarray(at + 5, at + 5 + length);
    at += 5 + length;
    return `\\"${key}\\":\\"${kind === AS_BYTES ? data.toString('base64') : data.toString('utf8')}\\"`;
  });
  if (at !== histograms.length)
    throw new EnvelopeFormatError('invalid stored envelope: histograms left over after its text');
  return text;
}
