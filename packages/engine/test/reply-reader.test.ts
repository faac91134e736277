import { describe, expect, it } from 'vitest';
import { ProtocolError, ReplyReader } from '../src/resp/reply-reader.js';

/** One entry of the corpus: its bytes and what it adds to the reader's counters. */
interface Case {
  name: string;
  bytes: string;
  replies: number;
  nils?: number;
  errors?: Record<string, number>;
}

const CORPUS: Case[] = [
  // RESP2
  { name: 'simple string', bytes: '+OK\r\n', replies: 1 },
  { name: 'simple string PONG', bytes: '+PONG\r\n', replies: 1 },
  { name: 'error ERR', bytes: '-ERR x\r\n', replies: 1, errors: { ERR: 1 } },
  {
    name: 'error WRONGTYPE',
    bytes: '-WRONGTYPE Operation against a key holding the wrong kind of value\r\n',
    replies: 1,
    errors: { WRONGTYPE: 1 },
  },
  { name: 'error without a message', bytes: '-NOSCRIPT\r\n', replies: 1, errors: { NOSCRIPT: 1 } },
  { name: 'integer', bytes: ':1000\r\n', replies: 1 },
  { name: 'negative integer', bytes: ':-42\r\n', replies: 1 },
  { name: 'bulk', bytes: '$5\r\nhello\r\n', replies: 1 },
  // A bulk payload may hold CR, LF and bytes that look like RESP headers: it is skipped by length.
  { name: 'bulk holding CRLF and type bytes', bytes: '$12\r\n-ERR\r\n*3\r\n:\n\r\n', replies: 1 },
  { name: 'empty bulk', bytes: '$0\r\n\r\n', replies: 1 },
  { name: 'nil bulk', bytes: '$-1\r\n', replies: 1, nils: 1 },
  { name: 'array', bytes: '*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n', replies: 1 },
  {
    name: 'nested array with an inner error (EXEC-like): not a top-level error',
    bytes: '*3\r\n*2\r\n:1\r\n:2\r\n-ERR inner\r\n*1\r\n*1\r\n+deep\r\n',
    replies: 1,
  },
  { name: 'nested nils are not misses', bytes: '*3\r\n$-1\r\n*-1\r\n*0\r\n', replies: 1 },
  { name: 'empty array', bytes: '*0\r\n', replies: 1 },
  { name: 'nil array', bytes: '*-1\r\n', replies: 1, nils: 1 },
  // RESP3
  { name: 'null', bytes: '_\r\n', replies: 1, nils: 1 },
  { name: 'double', bytes: ',1.5\r\n', replies: 1 },
  { name: 'double inf', bytes: ',-inf\r\n', replies: 1 },
  { name: 'boolean true', bytes: '#t\r\n', replies: 1 },
  { name: 'boolean false', bytes: '#f\r\n', replies: 1 },
  { name: 'big number', bytes: '(123\r\n', replies: 1 },
  { name: 'huge big number', bytes: '(3492890328409238509324850943850943825024385\r\n', replies: 1 },
  { name: 'verbatim string', bytes: '=15\r\ntxt:hello world\r\n', replies: 1 },
  { name: 'map', bytes: '%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n', replies: 1 },
  { name: 'map holding null and error values', bytes: '%2\r\n+a\r\n_\r\n+b\r\n-ERR no\r\n', replies: 1 },
  { name: 'empty map', bytes: '%0\r\n', replies: 1 },
  { name: 'set', bytes: '~3\r\n+a\r\n+b\r\n+c\r\n', replies: 1 },
  { name: 'set of aggregates', bytes: '~2\r\n*2\r\n:1\r\n:2\r\n%1\r\n+k\r\n$1\r\nv\r\n', replies: 1 },
  // Out of band: a push is not a reply to any request, and its contents count for nothing.
  {
    name: 'push (pub/sub message)',
    bytes: '>3\r\n$7\r\nmessage\r\n$7\r\nchannel\r\n$5\r\nhello\r\n',
    replies: 0,
  },
  {
    name: 'push (client-side caching invalidation) holding a null and an error',
    bytes: '>3\r\n$10\r\ninvalidate\r\n_\r\n-ERR not-a-reply\r\n',
    replies: 0,
  },
  {
    name: 'push holding a nested array',
    bytes: '>2\r\n+invalidate\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n',
    replies: 0,
  },
  // An attribute decorates the reply that follows it: the pair is one reply.
  {
    name: 'attribute before an array reply (the RESP3 spec example)',
    bytes:
      '|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n',
    replies: 1,
  },
  { name: 'attribute before a null reply', bytes: '|1\r\n+ttl\r\n:3600\r\n$-1\r\n', replies: 1, nils: 1 },
  {
    name: 'attribute before an error reply',
    bytes: '|1\r\n+a\r\n+b\r\n-WRONGTYPE wrong\r\n',
    replies: 1,
    errors: { WRONGTYPE: 1 },
  },
  { name: 'reply after all the out-of-band data', bytes: ':7\r\n', replies: 1 },
];

const BLOB_ERROR = '!21\r\nSYNTAX invalid syntax\r\n';

function expectedTotals(cases: Case[]) {
  const errors: Record<string, number> = {};
  let replies = 0;
  let nils = 0;
  for (const c of cases) {
    replies += c.replies;
    nils += c.nils ?? 0;
    for (const [k, v] of Object.entries(c.errors ?? {})) errors[k] = (errors[k] ?? 0) + v;
  }
  return { replies, nils, errors };
}

interface Totals {
  replies: number;
  nils: number;
  errors: Record<string, number>;
  /** Sum of feed()'s return values: must equal replies. */
  returned: number;
}

/**
 * Feed `chunks` one by one the way LoadConnection does: into one reused read buffer whose bytes
 * past `end` are stale (here: garbage holding LFs and type bytes), passing the valid length.
 */
function feedReused(chunks: Buffer[]): Totals {
  const reader = new ReplyReader();
  const maxLen = Math.max(1, ...chunks.map((c) => c.length));
  const shared = Buffer.alloc(maxLen + 64, '\n-ERR stale\r\n$3\r\n');
  let returned = 0;
  for (const chunk of chunks) {
    shared.fill('\n-ERR stale\r\n$3\r\n');
    chunk.copy(shared, 0);
    returned += reader.feed(shared, chunk.length);
  }
  return totals(reader, returned);
}

/** Feed each chunk as its own exactly-sized buffer. */
function feedFresh(chunks: Buffer[]): Totals {
  const reader = new ReplyReader();
  let returned = 0;
  for (const chunk of chunks) returned += reader.feed(Buffer.from(chunk), chunk.length);
  return totals(reader, returned);
}

function totals(reader: ReplyReader, returned: number): Totals {
  return {
    replies: reader.replies,
    nils: reader.nils,
    errors: Object.fromEntries(reader.errorsByType),
    returned,
  };
}

function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of cuts) {
    out.push(buf.subarray(prev, c));
    prev = c;
  }
  out.push(buf.subarray(prev));
  return out;
}

/** mulberry32: a small seeded generator so that a failing split can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChunks(buf: Buffer, seed: number, maxChunk: number): Buffer[] {
  const rnd = seeded(seed);
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const n = 1 + Math.floor(rnd() * maxChunk);
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  return out;
}

const corpus = Buffer.from(CORPUS.map((c) => c.bytes).join(''), 'latin1');
const expected = expectedTotals(CORPUS);

describe('ReplyReader: each reply type on its own', () => {
  for (const c of CORPUS) {
    it(c.name, () => {
      const buf = Buffer.from(c.bytes, 'latin1');
      const got = feedFresh([buf]);
      expect(got.replies).toBe(c.replies);
      expect(got.returned).toBe(c.replies);
      expect(got.nils).toBe(c.nils ?? 0);
      expect(got.errors).toEqual(c.errors ?? {});
    });
  }

  it('a RESP3 blob error is one reply and one error', () => {
    const reader = new ReplyReader();
    const buf = Buffer.from(BLOB_ERROR);
    expect(reader.feed(buf, buf.length)).toBe(1);
    expect(reader.nils).toBe(0);
    // The payload is skipped unread, so the error cannot be classified by its first word.
    expect([...reader.errorsByType.values()].reduce((a, b) => a + b, 0)).toBe(1);
    expect(reader.errorsByType.get('ERR')).toBe(1);
  });

  it('keeps the message of the last top-level error', () => {
    const reader = new ReplyReader();
    const buf = Buffer.from('-ERR first\r\n*1\r\n-ERR nested\r\n-WRONGPASS invalid password\r\n+OK\r\n');
    expect(reader.feed(buf, buf.length)).toBe(4);
    expect(reader.lastError).toBe('WRONGPASS invalid password');
    expect(Object.fromEntries(reader.errorsByType)).toEqual({ ERR: 1, WRONGPASS: 1 });
  });
});

describe('ReplyReader: the corpus in one piece and in pieces', () => {
  it('counts the whole corpus fed at once', () => {
    expect(expected.replies).toBeGreaterThan(30);
    expect(expected.nils).toBe(4);
    expect(expected.errors).toEqual({ ERR: 1, WRONGTYPE: 2, NOSCRIPT: 1 });
    const whole = feedFresh([corpus]);
    expect(whole).toEqual({ ...expected, returned: expected.replies });
    expect(feedReused([corpus])).toEqual(whole);
  });

  it('gives the same counts when split in two at every byte boundary', () => {
    for (let cut = 0; cut <= corpus.length; cut++) {
      const chunks = splitAt(corpus, [cut]);
      const fresh = feedFresh(chunks);
      const reused = feedReused(chunks);
      if (fresh.replies !== expected.replies || fresh.nils !== expected.nils) {
        throw new Error(`split at ${cut}: ${JSON.stringify(fresh)}`);
      }
      expect(fresh).toEqual({ ...expected, returned: expected.replies });
      expect(reused).toEqual(fresh);
    }
  });

  it('gives the same counts when split in three at every pair of nearby boundaries', () => {
    // Two cuts close together put a header (or a bulk's CRLF) across three chunks.
    for (let a = 0; a < corpus.length; a++) {
      for (let b = a; b <= Math.min(corpus.length, a + 6); b++) {
        const got = feedReused(splitAt(corpus, [a, b]));
        if (got.replies !== expected.replies || got.nils !== expected.nils) {
          throw new Error(`split at ${a},${b}: ${JSON.stringify(got)}`);
        }
        expect(got.errors).toEqual(expected.errors);
        expect(got.returned).toBe(expected.replies);
      }
    }
  });

  it('gives the same counts one byte at a time', () => {
    const chunks = Array.from({ length: corpus.length }, (_, i) => corpus.subarray(i, i + 1));
    expect(feedFresh(chunks)).toEqual({ ...expected, returned: expected.replies });
    expect(feedReused(chunks)).toEqual({ ...expected, returned: expected.replies });
  });

  it('gives the same counts in random small chunks (seeded)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const chunks = randomChunks(corpus, seed, 1 + (seed % 13));
      const got = feedReused(chunks);
      if (got.replies !== expected.replies) throw new Error(`seed ${seed}: ${JSON.stringify(got)}`);
      expect(got).toEqual({ ...expected, returned: expected.replies });
    }
  });

  it('gives the same counts for the corpus repeated, in random chunks, with zero-length feeds', () => {
    const times = 20;
    const big = Buffer.concat(Array.from({ length: times }, () => corpus));
    const chunks = randomChunks(big, 7, 97).flatMap((c, i) => (i % 5 === 0 ? [Buffer.alloc(0), c] : [c]));
    const got = feedReused(chunks);
    const errors = Object.fromEntries(Object.entries(expected.errors).map(([k, v]) => [k, v * times]));
    expect(got).toEqual({
      replies: expected.replies * times,
      nils: expected.nils * times,
      errors,
      returned: expected.replies * times,
    });
  });

  it('counts the blob error the same whole and split at every boundary', () => {
    const buf = Buffer.from(`+OK\r\n${BLOB_ERROR}$-1\r\n`);
    const whole = feedFresh([buf]);
    expect(whole.replies).toBe(3);
    expect(whole.nils).toBe(1);
    for (let cut = 0; cut <= buf.length; cut++) expect(feedReused(splitAt(buf, [cut]))).toEqual(whole);
  });
});

describe('ReplyReader: large bulk replies', () => {
  const size = 64 * 1024;
  // The payload is full of bytes that would look like headers if the reader looked at them.
  const payload = Buffer.alloc(size, '\r\n-ERR $-1\r\n*1\r\n_\r\n');
  const big = Buffer.concat([
    Buffer.from('+OK\r\n'),
    Buffer.from(`$${size}\r\n`),
    payload,
    Buffer.from('\r\n'),
    Buffer.from(`*2\r\n$${size}\r\n`),
    payload,
    Buffer.from('\r\n$-1\r\n'),
    Buffer.from(':1\r\n'),
  ]);
  const want = { replies: 4, nils: 0, errors: {}, returned: 4 };

  it('skips a 64 KiB bulk fed whole', () => {
    expect(feedFresh([big])).toEqual(want);
  });

  it('skips a 64 KiB bulk split across many chunks', () => {
    for (const max of [1000, 4096, 16_384, 65_536]) {
      for (let seed = 1; seed <= 5; seed++) expect(feedReused(randomChunks(big, seed, max))).toEqual(want);
    }
  });

  it('skips a 64 KiB bulk split at every boundary near the headers and the payload ends', () => {
    const interesting: number[] = [];
    const first = 5;
    const firstPayload = first + `$${size}\r\n`.length;
    const secondPayload = firstPayload + size + 2 + `*2\r\n$${size}\r\n`.length;
    for (const anchor of [first, firstPayload, firstPayload + size, secondPayload, secondPayload + size])
      for (let d = -12; d <= 12; d++) interesting.push(anchor + d);
    for (const cut of interesting) expect(feedReused(splitAt(big, [cut]))).toEqual(want);
  });

  it('reports each reply in the feed that completes it', () => {
    const reader = new ReplyReader();
    const header = Buffer.from(`$${size}\r\n`);
    expect(reader.feed(header, header.length)).toBe(0);
    expect(reader.feed(payload, size - 1)).toBe(0);
    const tail = Buffer.from('x\r\n+OK\r\n');
    expect(reader.feed(tail, 1)).toBe(0);
    expect(reader.feed(tail.subarray(1), tail.length - 1)).toBe(2);
    expect(reader.replies).toBe(2);
  });
});

describe('ReplyReader: protocol errors', () => {
  it('throws ProtocolError on a bad type byte', () => {
    const reader = new ReplyReader();
    const buf = Buffer.from('+OK\r\n?what\r\n');
    let err: unknown;
    try {
      reader.feed(buf, buf.length);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('ERR_RESP_PROTOCOL');
    expect((err as Error).message).toMatch(/unexpected RESP type byte 0x3f/);
  });

  it('throws ProtocolError on a bad type byte split across chunks', () => {
    const reader = new ReplyReader();
    const a = Buffer.from('+OK\r\nX');
    expect(reader.feed(a, a.length)).toBe(1);
    const b = Buffer.from('YZ\r\n');
    expect(() => reader.feed(b, b.length)).toThrow(ProtocolError);
  });

  it('throws ProtocolError on a bad type byte inside an aggregate', () => {
    const reader = new ReplyReader();
    const buf = Buffer.from('*2\r\n:1\r\n@2\r\n');
    expect(() => reader.feed(buf, buf.length)).toThrow(ProtocolError);
  });
});

describe('ReplyReader: attributes inside aggregates', () => {
  // RESP3 spec: "Attributes can appear anywhere before a valid part of the protocol identifying a
  // given type, and will inform only the part of the reply that immediately follows", e.g. the
  // third element of `*3 :1 :2 |1 +ttl :3600 :3`. The reader counts the finished attribute as an
  // element of the enclosing array, so the array ends one element early, its last element is
  // counted as a second top-level reply, and outOfBandDepth is left at 1 (a later push would then
  // be counted as a reply). Would make the reader desynchronise from requests on a server that
  // sends attributes (Redis with DEBUG PROTOCOL attrib, or future servers).
  it('counts an array with an attribute on one of its elements as one reply', () => {
    const reader = new ReplyReader();
    const buf = Buffer.from('*3\r\n:1\r\n:2\r\n|1\r\n+ttl\r\n:3600\r\n:3\r\n>2\r\n+a\r\n+b\r\n+OK\r\n');
    expect(reader.feed(buf, buf.length)).toBe(2);
  });
});

// A load socket counts only the misses of measured requests: it needs to know which replies were
// null, by ordinal, however the bytes were split into reads.
describe('ReplyReader: null replies marked by ordinal', () => {
  const nilOrdinals: number[] = [];
  let ordinal = 0;
  for (const c of CORPUS) {
    if (c.nils) nilOrdinals.push(ordinal);
    ordinal += c.replies;
  }

  const marked = (reader: ReplyReader) =>
    [...reader.nilMarks!].flatMap((m, i) => (m === 1 ? [i] : [])).sort((a, b) => a - b);

  it('marks the ordinal of every top-level null, and only those', () => {
    expect(nilOrdinals.length).toBeGreaterThan(3);
    for (const seed of [1, 2, 3]) {
      const reader = new ReplyReader();
      reader.trackNils(255);
      for (const chunk of randomChunks(corpus, seed, 7)) reader.feed(Buffer.from(chunk), chunk.length);
      expect(reader.replies).toBeLessThan(256);
      expect(marked(reader)).toEqual(nilOrdinals);
    }
  });

  it('wraps the ordinal around the ring', () => {
    const reader = new ReplyReader();
    reader.trackNils(3);
    const buf = Buffer.from('+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n$-1\r\n');
    reader.feed(buf, buf.length);
    // The sixth reply, ordinal 5, is the null: 5 & 3 = 1.
    expect(marked(reader)).toEqual([1]);
  });
});
