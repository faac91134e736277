import { describe, expect, it } from 'vitest';
import {
  compileTest,
  customTest,
  FIXED_KEYS,
  findTests,
  TESTS,
  type TestDefinition,
  UnknownTestError,
} from '../src/commands.js';
import { Rng } from '../src/keys.js';
import { createValueSource } from '../src/load/values.js';
import {
  KEY_DIGITS,
  type KeySource,
  RequestTemplate,
  type ValueSource,
} from '../src/resp/request-template.js';

const P = 'rbdb:t:';

/** Parse one RESP array of bulk strings at buf[pos], strictly; returns its words and the end. */
function parseRequest(buf: Buffer, pos: number): { words: string[]; end: number } {
  const line = (): string => {
    const cr = buf.indexOf('\r\n', pos, 'latin1');
    if (cr < 0) throw new Error(`no CRLF after ${pos}`);
    const s = buf.toString('latin1', pos, cr);
    pos = cr + 2;
    return s;
  };
  const head = line();
  if (!/^\*[1-9]\d*$/.test(head)) throw new Error(`bad array header ${JSON.stringify(head)}`);
  const n = Number(head.slice(1));
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const h = line();
    if (!/^\$(0|[1-9]\d*)$/.test(h)) throw new Error(`bad bulk header ${JSON.stringify(h)}`);
    const len = Number(h.slice(1));
    if (pos + len + 2 > buf.length) throw new Error('bulk runs past the end');
    words.push(buf.toString('latin1', pos, pos + len));
    pos += len;
    if (buf[pos] !== 13 || buf[pos + 1] !== 10) throw new Error(`bulk ${i} is not followed by CRLF`);
    pos += 2;
  }
  return { words, end: pos };
}

const fixedKey = (n: number): KeySource => ({ nextKey: () => n });

function fixedValues(size: number, fill = 'x'): ValueSource {
  return {
    pool: Buffer.alloc(size, fill),
    maxSize: size,
    fixedHeader: Buffer.from(`$${size}\r\n`),
    nextSize: () => size,
  };
}

/** Encode one request into a buffer of exactly maxBytes (plus a guard) and return its bytes. */
function encodeOne(t: RequestTemplate, keys: KeySource, values: ValueSource): Buffer {
  const out = Buffer.alloc(t.maxBytes + 16, 0xee);
  const end = t.encode(out, 0, keys, values);
  expect(end).toBeLessThanOrEqual(t.maxBytes);
  // Nothing is written past the returned end.
  expect(out.subarray(end).every((b) => b === 0xee)).toBe(true);
  return out.subarray(0, end);
}

function words(name: string, valueSize = 3, key = 42): string[] {
  const test = findTests([name])[0]!;
  const t = compileTest(test, P, valueSize);
  const bytes = encodeOne(t, fixedKey(key), fixedValues(valueSize));
  const { words, end } = parseRequest(bytes, 0);
  expect(end).toBe(bytes.length);
  return words;
}

describe('default tests encode what redis-benchmark sends (keys under the prefix)', () => {
  const k = `${P}key:000000000042`;
  const v = 'xxx';
  // redis-benchmark's commands with __rand_int__ = 42, -d 3, and every key under the prefix.
  const expected: Record<string, string[]> = {
    PING_MBULK: ['PING'],
    SET: ['SET', k, v],
    GET: ['GET', k],
    INCR: ['INCR', `${P}counter:000000000042`],
    LPUSH: ['LPUSH', `${P}mylist`, v],
    RPUSH: ['RPUSH', `${P}mylist`, v],
    LPOP: ['LPOP', `${P}mylist`],
    RPOP: ['RPOP', `${P}mylist`],
    // Members (element:__rand_int__) live inside a prefixed key, so they are sent as redis-benchmark sends them.
    SADD: ['SADD', `${P}myset`, 'element:000000000042'],
    HSET: ['HSET', `${P}myhash`, 'element:000000000042', v],
    SPOP: ['SPOP', `${P}myset`],
    ZADD: ['ZADD', `${P}myzset`, '0', 'element:000000000042'],
    ZPOPMIN: ['ZPOPMIN', `${P}myzset`],
    LRANGE_100: ['LRANGE', `${P}mylist`, '0', '99'],
    LRANGE_300: ['LRANGE', `${P}mylist`, '0', '299'],
    LRANGE_500: ['LRANGE', `${P}mylist`, '0', '499'],
    LRANGE_600: ['LRANGE', `${P}mylist`, '0', '599'],
    MSET: ['MSET', ...Array.from({ length: 10 }, () => [k, v]).flat()],
    XADD: ['XADD', `${P}mystream`, '*', 'myfield', v],
  };

  it('covers every default test but PING_INLINE', () => {
    expect(Object.keys(expected).sort()).toEqual(
      TESTS.map((t) => t.name)
        .filter((n) => n !== 'PING_INLINE')
        .sort(),
    );
  });

  for (const [name, want] of Object.entries(expected)) {
    it(name, () => {
      expect(words(name)).toEqual(want);
    });
  }

  it('PING_INLINE is the inline command PING\\r\\n', () => {
    const t = compileTest(findTests(['ping_inline'])[0]!, P, 3);
    const bytes = encodeOne(t, fixedKey(42), fixedValues(3));
    expect(bytes.toString('latin1')).toBe('PING\r\n');
    expect(t.maxBytes).toBe(6);
    expect(t.keyCount).toBe(0);
    expect(t.hasValue).toBe(false);
  });

  it('MSET carries 10 key/value pairs with 10 key holes and 10 values', () => {
    const t = compileTest(findTests(['mset'])[0]!, P, 3);
    expect(t.keyCount).toBe(10);
    let calls = 0;
    const keys = { nextKey: () => calls++ };
    const w = parseRequest(encodeOne(t, keys, fixedValues(3)), 0).words;
    expect(w).toHaveLength(21);
    expect(calls).toBe(10);
    // Each pair draws its own key.
    expect(w.filter((_, i) => i % 2 === 1)).toEqual(
      Array.from({ length: 10 }, (_, i) => `${P}key:${String(i).padStart(12, '0')}`),
    );
  });

  it('keys are 12 zero-padded digits over the whole key range', () => {
    expect(KEY_DIGITS).toBe(12);
    expect(words('GET', 3, 0)).toEqual(['GET', `${P}key:000000000000`]);
    expect(words('GET', 3, 2 ** 32 - 1)).toEqual(['GET', `${P}key:004294967295`]);
    expect(words('GET', 3, 999_999_999_999)).toEqual(['GET', `${P}key:999999999999`]);
  });

  it('fixed keys (mylist, myset...) are prefixed, each at its command position', () => {
    expect([...FIXED_KEYS].sort()).toEqual(['myhash', 'mylist', 'myset', 'mystream', 'myzset']);
    for (const test of TESTS) {
      if (test.inline) continue;
      const w = parseRequest(encodeOne(compileTest(test, P, 3), fixedKey(1), fixedValues(3)), 0).words;
      for (const word of w) {
        if (FIXED_KEYS.has(word)) throw new Error(`${test.name} sends the bare fixed key ${word}`);
      }
      // Every key argument of the default tests is under the prefix.
      if (test.name !== 'PING_MBULK') expect(w[1]!.startsWith(P)).toBe(true);
    }
  });

  it('values are runs of x of the requested size, including 0 bytes and large values', () => {
    expect(words('SET', 0)).toEqual(['SET', `${P}key:000000000042`, '']);
    const big = words('SET', 100_000);
    expect(big[2]).toBe('x'.repeat(100_000));
  });

  it('commandstat names match the command', () => {
    for (const t of TESTS) expect(t.commandstat).toBe(t.words[0]!.toLowerCase());
    expect(findTests(['lrange_100'])[0]!.commandstat).toBe('lrange');
    expect(findTests(['mset'])[0]!.commandstat).toBe('mset');
  });

  it('only LRANGE tests need the prepared list', () => {
    expect(TESTS.filter((t) => t.needsList).map((t) => t.name)).toEqual([
      'LRANGE_100',
      'LRANGE_300',
      'LRANGE_500',
      'LRANGE_600',
    ]);
  });
});

describe('RequestTemplate encoding', () => {
  it('pipelines: back-to-back requests at increasing offsets parse one after another', () => {
    const t = compileTest(findTests(['set'])[0]!, P, 5);
    const out = Buffer.alloc(t.maxBytes * 50);
    let n = 0;
    const keys = { nextKey: () => n++ * 1_000_003 };
    let pos = 0;
    for (let i = 0; i < 50; i++) pos = t.encode(out, pos, keys, fixedValues(5));
    let at = 0;
    for (let i = 0; i < 50; i++) {
      const { words, end } = parseRequest(out, at);
      expect(words).toEqual(['SET', `${P}key:${String(i * 1_000_003).padStart(12, '0')}`, 'xxxxx']);
      at = end;
    }
    expect(at).toBe(pos);
  });

  it('maxBytes is an upper bound for every size of a value range', () => {
    for (const [min, max] of [
      [0, 9],
      [1, 10],
      [5, 1000],
      [99, 100_001],
    ] as const) {
      const values = createValueSource(min, max, new Rng(3));
      expect(values.fixedHeader).toBeNull();
      for (const name of ['set', 'hset', 'mset', 'xadd', 'lpush']) {
        const t = compileTest(findTests([name])[0]!, P, max);
        const rng = new Rng(9);
        const keys = { nextKey: () => rng.nextInt(2 ** 32) };
        // Both extreme sizes, then random ones.
        for (const size of [min, max]) {
          const one: ValueSource = { ...values, nextSize: () => size };
          const w = parseRequest(encodeOne(t, keys, one), 0).words;
          expect(w[w.length - 1]).toBe('x'.repeat(size));
        }
        for (let i = 0; i < 30; i++) {
          const bytes = encodeOne(t, keys, values);
          const w = parseRequest(bytes, 0).words;
          const v = w[w.length - 1]!;
          expect(v.length).toBeGreaterThanOrEqual(min);
          expect(v.length).toBeLessThanOrEqual(max);
        }
      }
    }
  });

  it('maxBytes is exact for a fixed value size (a 12-digit key and one value)', () => {
    const t = compileTest(findTests(['set'])[0]!, P, 3);
    const len = encodeOne(t, fixedKey(7), fixedValues(3)).length;
    expect(len).toBe(t.maxBytes);
  });

  it('encodes literal, key and value args in any order', () => {
    const t = new RequestTemplate(
      [
        { kind: 'value' },
        { kind: 'literal', bytes: Buffer.from('lit') },
        { kind: 'key', prefix: Buffer.from('p:') },
        { kind: 'literal', bytes: Buffer.from('') },
        { kind: 'key', prefix: Buffer.from('') },
        { kind: 'value' },
      ],
      4,
    );
    expect(t.keyCount).toBe(2);
    expect(t.hasValue).toBe(true);
    let k = 5;
    const bytes = encodeOne(t, { nextKey: () => k++ }, fixedValues(4, 'v'));
    expect(parseRequest(bytes, 0).words).toEqual([
      'vvvv',
      'lit',
      'p:000000000005',
      '',
      '000000000006',
      'vvvv',
    ]);
    expect(bytes.length).toBe(t.maxBytes);
  });
});

describe('findTests', () => {
  it('takes redis-benchmark names in any case and expands lrange', () => {
    expect(findTests(['set', 'GET', ' Incr ']).map((t) => t.name)).toEqual(['SET', 'GET', 'INCR']);
    expect(findTests(['lrange']).map((t) => t.name)).toEqual([
      'LRANGE_100',
      'LRANGE_300',
      'LRANGE_500',
      'LRANGE_600',
    ]);
    expect(findTests(['set', 'set', '', 'lrange_100', 'lrange']).map((t) => t.name)).toEqual([
      'SET',
      'LRANGE_100',
      'LRANGE_300',
      'LRANGE_500',
      'LRANGE_600',
    ]);
  });

  it('rejects unknown names with the list of known ones', () => {
    expect(() => findTests(['sett'])).toThrow(UnknownTestError);
    expect(() => findTests(['sett'])).toThrow(
      /unknown test "sett": expected one of ping_inline, .*xadd, lrange/,
    );
  });
});

describe('customTest', () => {
  const encodeCustom = (w: string[], valueSize = 3, key = 42) => {
    const test = customTest(w);
    const t = compileTest(test, P, valueSize);
    return parseRequest(encodeOne(t, fixedKey(key), fixedValues(valueSize)), 0).words;
  };

  it('__key__ is a key-space key under the prefix, __data__ a value', () => {
    expect(encodeCustom(['SET', '__key__', '__data__'])).toEqual(['SET', `${P}key:000000000042`, 'xxx']);
    const t: TestDefinition = customTest(['SET', '__key__', '__data__']);
    expect(t.name).toBe('SET __key__ __data__');
    expect(t.commandstat).toBe('set');
  });

  it('__rand_int__ ending a word becomes 12 key digits after that word, under the prefix', () => {
    expect(encodeCustom(['HSET', 'user:__rand_int__', 'field', '__data__'], 2, 7)).toEqual([
      'HSET',
      `${P}user:000000000007`,
      'field',
      'xx',
    ]);
    expect(encodeCustom(['GET', '__rand_int__'])).toEqual(['GET', `${P}000000000042`]);
  });

  it('sends literal words as given, fixed key names included (not prefixed)', () => {
    expect(encodeCustom(['LPUSH', 'mylist', '__data__'])).toEqual(['LPUSH', 'mylist', 'xxx']);
    expect(encodeCustom(['PING'])).toEqual(['PING']);
    expect(encodeCustom(['ECHO', 'key:__key__', '__key__x'])).toEqual(['ECHO', 'key:__key__', '__key__x']);
  });

  it('lower-cases the commandstat name', () => {
    expect(customTest(['FooBar', '__key__']).commandstat).toBe('foobar');
  });

  it('rejects __rand_int__ in the middle of a word', () => {
    expect(() => customTest(['SET', 'a__rand_int__b', 'x'])).toThrow(UnknownTestError);
    expect(() => customTest(['SET', 'a__rand_int__b', 'x'])).toThrow(
      'placeholder __rand_int__ must end its argument: "a__rand_int__b" (write it as "prefix:__rand_int__")',
    );
  });

  it('rejects an empty command', () => {
    expect(() => customTest([])).toThrow(/a custom command needs at least one word/);
  });

  it('rejects what the result could not record: a control or bidi character, or a command past 160 characters', () => {
    expect(() => customTest(['SET', 'k', 'a\tb'])).toThrow(
      'word 3 of the custom command contains a control character (U+0009) at character 1: a result records the command as text, which cannot hold it; remove it',
    );
    expect(() => customTest(['SET', 'k\u202e', 'v'])).toThrow(/RIGHT-TO-LEFT OVERRIDE/);
    expect(() => customTest(['SET', '__key__', 'v'.repeat(200)])).toThrow(
      'the custom command is 212 characters long; a result records at most 160: send a long value as __data__ with -d SIZE (e.g. SET __key__ __data__ with -d 4096)',
    );
    expect(customTest(['SET', '__key__', 'v'.repeat(148)]).name).toHaveLength(160);
  });

  // Bug: customTest maps placeholders to the internal `{key}` / `{value}` markers, and
  // compileTest then treats ANY word containing `{key}` or equal to `{value}` as a hole, even a
  // literal word the user typed (braces are common in Redis keys: hash tags). So
  // ['SET', '{value}', 'v'] sends `SET xxx v`: it writes the UNPREFIXED key "xxx" (which
  // cleanup() does not remove and which may be the user's data), and 'tag{key}suffix' silently
  // becomes `rbdb:..:tag000000000042`, dropping "suffix".
  it('sends a literal word holding {value} as given', () => {
    expect(encodeCustom(['SET', '{value}', 'v'])).toEqual(['SET', '{value}', 'v']);
  });

  it('sends a literal word holding {key} as given', () => {
    expect(encodeCustom(['SET', 'tag{key}suffix', 'v'])).toEqual(['SET', 'tag{key}suffix', 'v']);
  });
});
