import { type Arg, RequestTemplate } from './resp/request-template.js';

/**
 * redis-benchmark's default tests, with the same commands and key shapes, so that a cell named
 * SET here measures what `redis-benchmark -t set` measures. Every key lives under the run's
 * prefix so that the run never touches a key it did not create.
 */
export interface TestDefinition {
  name: string;
  /** The `cmdstat_*` entry in INFO commandstats that counts this test's requests. */
  commandstat: string;
  /** Words of the command; `{key}` is a key-space key, `{value}` a value, `{list}`... fixed keys. */
  words: readonly string[];
  /** Sent as an inline command rather than a RESP array. */
  inline?: boolean;
  /** Needs the list `mylist` filled with 600 elements before it runs. */
  needsList?: boolean;
}

const t = (name: string, words: string, extra: Partial<TestDefinition> = {}): TestDefinition => ({
  name,
  commandstat: words.split(' ')[0]!.toLowerCase(),
  words: words.split(' '),
  ...extra,
});

export const TESTS: readonly TestDefinition[] = [
  t('PING_INLINE', 'PING', { inline: true }),
  t('PING_MBULK', 'PING'),
  t('SET', 'SET key:{key} {value}'),
  t('GET', 'GET key:{key}'),
  t('INCR', 'INCR counter:{key}'),
  t('LPUSH', 'LPUSH mylist {value}'),
  t('RPUSH', 'RPUSH mylist {value}'),
  t('LPOP', 'LPOP mylist'),
  t('RPOP', 'RPOP mylist'),
  t('SADD', 'SADD myset element:{key}'),
  t('HSET', 'HSET myhash element:{key} {value}'),
  t('SPOP', 'SPOP myset'),
  t('ZADD', 'ZADD myzset 0 element:{key}'),
  t('ZPOPMIN', 'ZPOPMIN myzset'),
  t('LRANGE_100', 'LRANGE mylist 0 99', { needsList: true }),
  t('LRANGE_300', 'LRANGE mylist 0 299', { needsList: true }),
  t('LRANGE_500', 'LRANGE mylist 0 499', { needsList: true }),
  t('LRANGE_600', 'LRANGE mylist 0 599', { needsList: true }),
  t('MSET', `MSET ${Array.from({ length: 10 }, () => 'key:{key} {value}').join(' ')}`),
  t('XADD', 'XADD mystream * myfield {value}'),
];

/** Names accepted by -t, lower case as redis-benchmark takes them; `lrange` means all four. */
export function findTests(names: readonly string[]): TestDefinition[] {
  const out: TestDefinition[] = [];
  for (const raw of names) {
    const name = raw.trim().toUpperCase();
    if (!name) continue;
    const found =
      name === 'LRANGE'
        ? TESTS.filter((x) => x.name.startsWith('LRANGE_'))
        : TESTS.filter((x) => x.name === name);
    if (found.length === 0) {
      throw new UnknownTestError(
        `unknown test "${raw}": expected one of ${TESTS.map((x) => x.name.toLowerCase()).join(', ')}, lrange`,
      );
    }
    for (const f of found) if (!out.includes(f)) out.push(f);
  }
  return out;
}

export class UnknownTestError extends Error {
  readonly code = 'ERR_UNKNOWN_TEST';
}

/** A custom command: `__key__` / `__rand_int__` become key-space keys, `__data__` a value. */
export function customTest(words: readonly string[]): TestDefinition {
  if (words.length === 0)
    throw new UnknownTestError('a custom command needs at least one word, e.g. "SET __key__ __data__"');
  const mapped = words.map((w) => {
    if (w === '__key__') return 'key:{key}';
    if (w === '__data__') return '{value}';
    const at = w.indexOf('__rand_int__');
    if (at >= 0) {
      if (at + '__rand_int__'.length !== w.length) {
        throw new UnknownTestError(
          `placeholder __rand_int__ must end its argument: "${w}" (write it as "prefix:__rand_int__")`,
        );
      }
      return `${w.slice(0, at)}{key}`;
    }
    return w;
  });
  return { name: words.join(' '), commandstat: words[0]!.toLowerCase(), words: mapped };
}

/**
 * Compile a test into a request template. Words holding `{key}` become a key hole under
 * `prefix`; fixed key names of the tests (mylist, myset...) are prefixed too. A custom command's
 * literal words are sent as given.
 */
export function compileTest(
  test: TestDefinition,
  prefix: string,
  maxValueSize: number,
  custom = false,
): RequestTemplate {
  if (test.inline) return new RequestTemplate([], 0, Buffer.from(`${test.words.join(' ')}\r\n`));
  const args: Arg[] = test.words.map((w, i): Arg => {
    if (w === '{value}') return { kind: 'value' };
    const k = w.indexOf('{key}');
    if (k >= 0) return { kind: 'key', prefix: Buffer.from(prefix + w.slice(0, k)) };
    if (!custom && i === 1 && FIXED_KEYS.has(w)) return { kind: 'literal', bytes: Buffer.from(prefix + w) };
    return { kind: 'literal', bytes: Buffer.from(w) };
  });
  return new RequestTemplate(args, maxValueSize);
}

/** The fixed key names of the default tests; they are prefixed like every other key. */
export const FIXED_KEYS = new Set(['mylist', 'myset', 'myhash', 'myzset', 'mystream']);
