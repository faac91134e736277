import { describe, expect, it } from 'vitest';
import { CONTROL_REPLY_LIMITS, MEASURED_REPLY_LIMITS, ReplyLimitError } from '../src/resp/reply-limits.js';
import { ReplyReader } from '../src/resp/reply-reader.js';

// The reader's bounds (resp/reply-limits.ts): what a server sends past one ends the connection
// with ReplyLimitError, however the bytes are cut into reads, and what stays within passes.

/** Feed `bytes` in reads of `size`; returns the error thrown, or null. */
function feed(reader: ReplyReader, bytes: Buffer, size = 65_536): Error | null {
  try {
    for (let i = 0; i < bytes.length; i += size) {
      const chunk = bytes.subarray(i, Math.min(bytes.length, i + size));
      reader.feed(chunk, chunk.length);
    }
    return null;
  } catch (err) {
    return err as Error;
  }
}

const nested = (depth: number) => Buffer.from(`${'*1\r\n'.repeat(depth)}:1\r\n`);

describe('reply limits', () => {
  it('takes arrays nested 64 deep, and refuses the 65th level', () => {
    const ok = new ReplyReader();
    expect(feed(ok, nested(64))).toBeNull();
    expect(ok.replies).toBe(1);
    for (const size of [3, 4096, 65_536]) {
      const err = feed(new ReplyReader(), nested(65), size);
      expect(err).toBeInstanceOf(ReplyLimitError);
      expect(err!.message).toBe('a reply nested deeper than 64 levels (the deepest taken)');
    }
  });

  it('refuses a line longer than 64 KiB, within one read or across many, before it is all held', () => {
    const at = Buffer.from(`+${'a'.repeat(MEASURED_REPLY_LIMITS.maxLineBytes - 3)}\r\n`);
    const reader = new ReplyReader();
    expect(feed(reader, at, 1000)).toBeNull();
    expect(reader.replies).toBe(1);
    const long = Buffer.from(`+${'a'.repeat(200_000)}`);
    for (const size of [1000, 65_536, 300_000]) {
      const err = feed(new ReplyReader(), long, size);
      expect(err, `reads of ${size}`).toBeInstanceOf(ReplyLimitError);
      expect(err!.message).toMatch(/^a line longer than 65,536 bytes/);
    }
  });

  it('refuses a bulk string declared longer than 512 MiB at its header', () => {
    const reader = new ReplyReader();
    expect(feed(reader, Buffer.from(`$${512 * 1024 * 1024}\r\n`))).toBeNull();
    const err = feed(new ReplyReader(), Buffer.from('$1000000000000000\r\n'));
    expect(err!.message).toBe(
      'a bulk string of 1,000,000,000,000,000 bytes, more than 536,870,912 (the longest taken)',
    );
  });

  it('control connection: a reply over 16 MiB, or of more than 262,144 values, is refused', () => {
    const big = new ReplyReader(CONTROL_REPLY_LIMITS);
    expect(feed(big, Buffer.from(`$${16 * 1024 * 1024 + 1}\r\n`))!.message).toMatch(/more than 16,777,216/);
    // Arrays of small values that add up: each read keeps the reply open.
    const many = new ReplyReader(CONTROL_REPLY_LIMITS);
    const err = feed(
      many,
      Buffer.concat([Buffer.from('*1000000\r\n'), Buffer.from(':1\r\n'.repeat(300_000))]),
    );
    expect(err!.message).toMatch(/^a reply of more than 262,144 values/);
    const bytes = new ReplyReader({ ...CONTROL_REPLY_LIMITS, maxReplyValues: Number.POSITIVE_INFINITY });
    const streamed = Buffer.concat([Buffer.from('*100000000\r\n'), Buffer.from(':1\r\n'.repeat(5_000_000))]);
    expect(feed(bytes, streamed)!.message).toMatch(/^a reply of more than 16,777,216 bytes/);
  });

  it('control connection: many replies that together pass 16 MiB are fine', () => {
    const reader = new ReplyReader(CONTROL_REPLY_LIMITS);
    const info = Buffer.from(`$${1024 * 1024}\r\n${'x'.repeat(1024 * 1024)}\r\n`);
    expect(feed(reader, Buffer.concat(Array.from({ length: 40 }, () => info)))).toBeNull();
    expect(reader.replies).toBe(40);
  });

  it('counts errors of at most 64 distinct first words by name, the rest together', () => {
    const reader = new ReplyReader();
    const errors = Array.from({ length: 1000 }, (_, i) => `-E${i} no\r\n`).join('');
    expect(feed(reader, Buffer.from(errors))).toBeNull();
    expect(reader.errorsByType.size).toBe(65);
    expect(reader.errorsByType.get('(other)')).toBe(1000 - 64);
  });
});

describe('reply types', () => {
  it('counts top-level replies of a type the command never returns; errors and nested values are not', () => {
    const reader = new ReplyReader();
    reader.expectReplyTypes('$_');
    const bytes = Buffer.from('$3\r\nabc\r\n$-1\r\n:1\r\n-ERR no\r\n*2\r\n:1\r\n:2\r\n_\r\n');
    expect(feed(reader, bytes, 5)).toBeNull();
    expect(reader.replies).toBe(6);
    expect(reader.wrongTypes).toBe(2);
    expect(String.fromCharCode(reader.firstWrongType)).toBe(':');
  });

  it('checks nothing until told (the handshake), or when told null (a custom command)', () => {
    const reader = new ReplyReader();
    feed(reader, Buffer.from('+OK\r\n%1\r\n+a\r\n:1\r\n'));
    reader.expectReplyTypes(null);
    feed(reader, Buffer.from(':1\r\n'));
    expect(reader.wrongTypes).toBe(0);
  });
});
