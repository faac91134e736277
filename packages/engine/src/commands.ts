import { findForbiddenChar, TEXT_MAX } from '@redis-benchdb/result';
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
  /** Words of the command as written, for display; `{key}` and `{value}` mark the holes. */
  words: readonly string[];
  /** What the request is built from. Plain data, because it crosses to the worker threads. */
  parts: readonly WordPart[];
  /** Sent as an inline command rather than a RESP array. */
  inline?: boolean;
  /** Needs the list `mylist` filled with 600 elements before it runs. */
  needsList?: boolean;
  /**
   * The RESP type bytes its reply may have (RESP2 and RESP3), errors aside: '+' status, ':'
   * integer, '$' bulk (and RESP2's nil), '*' array, '_' RESP3 null. A reply of another type is
   * not this command's answer (ReplyReader.expectReplyTypes). Absent: not checked (custom commands).
   */
  replyTypes?: string;
}

/** The fixed key names of the default tests; they are prefixed like every other key. */
export const FIXED_KEYS = new Set(['mylist', 'myset', 'myhash', 'myzset', 'mystream']);

/**
 * One word of a command: literal text; a key-space key (`text` + 12 digits, under the run's
 * prefix when `prefixed`); a fixed key name under the run's prefix; or a value.
 */
export type WordPart =
  | { kind: 'literal'; text: string }
  | { kind: 'key'; text: string; prefixed: boolean }
  | { kind: 'fixedKey'; text: string }
  | { kind: 'value' };

/**
 * Built-in tests are written as redis-benchmark writes them. `key:{key}` is a key under the run's
 * prefix; `element:{key}` (a member inside a key) is not prefixed, as the key holding it is.
 */
function parseWords(words: readonly string[]): WordPart[] {
  return words.map((w, i): WordPart => {
    if (w === '{value}') return { kind: 'value' };
    const k = w.indexOf('{key}');
    if (k >= 0) return { kind: 'key', text: w.slice(0, k), prefixed: !w.startsWith('element:') };
    if (i === 1 && FIXED_KEYS.has(w)) return { kind: 'fixedKey', text: w };
    return { kind: 'literal', text: w };
  });
}

const t = (name: string, command: string, extra: Partial<TestDefinition> = {}): TestDefinition => {
  const words = command.split(' ');
  return { name, commandstat: words[0]!.toLowerCase(), words, parts: parseWords(words), ...extra };
};

// Reply types (TestDefinition.replyTypes). A nil is `$-1` or `*-1` in RESP2, `_` in RESP3.
const STATUS = '+';
const INTEGER = ':';
const BULK_OR_NULL = '$_';
const ARRAY = '*_';

/** The reply types a cycle of tests may get, or null when one of them is not checked. */
export function cellReplyTypes(tests: readonly TestDefinition[]): string | null {
  if (tests.some((x) => x.replyTypes === undefined)) return null;
  return [...new Set(tests.flatMap((x) => [...x.replyTypes!]))].join('');
}

export const TESTS: readonly TestDefinition[] = [
  t('PING_INLINE', 'PING', { inline: true, replyTypes: STATUS }),
  t('PING_MBULK', 'PING', { replyTypes: STATUS }),
  t('SET', 'SET key:{key} {value}', { replyTypes: STATUS }),
  t('GET', 'GET key:{key}', { replyTypes: BULK_OR_NULL }),
  t('INCR', 'INCR counter:{key}', { replyTypes: INTEGER }),
  t('LPUSH', 'LPUSH mylist {value}', { replyTypes: INTEGER }),
  t('RPUSH', 'RPUSH mylist {value}', { replyTypes: INTEGER }),
  t('LPOP', 'LPOP mylist', { replyTypes: BULK_OR_NULL }),
  t('RPOP', 'RPOP mylist', { replyTypes: BULK_OR_NULL }),
  t('SADD', 'SADD myset element:{key}', { replyTypes: INTEGER }),
  t('HSET', 'HSET myhash element:{key} {value}', { replyTypes: INTEGER }),
  t('SPOP', 'SPOP myset', { replyTypes: BULK_OR_NULL }),
  t('ZADD', 'ZADD myzset 0 element:{key}', { replyTypes: INTEGER }),
  t('ZPOPMIN', 'ZPOPMIN myzset', { replyTypes: ARRAY }),
  t('LRANGE_100', 'LRANGE mylist 0 99', { needsList: true, replyTypes: ARRAY }),
  t('LRANGE_300', 'LRANGE mylist 0 299', { needsList: true, replyTypes: ARRAY }),
  t('LRANGE_500', 'LRANGE mylist 0 499', { needsList: true, replyTypes: ARRAY }),
  t('LRANGE_600', 'LRANGE mylist 0 599', { needsList: true, replyTypes: ARRAY }),
  t('MSET', `MSET ${Array.from({ length: 10 }, () => 'key:{key} {value}').join(' ')}`, {
    replyTypes: STATUS,
  }),
  t('XADD', 'XADD mystream * myfield {value}', { replyTypes: BULK_OR_NULL }),
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
  checkCustomText(words);
  // A user's words are never read as our template syntax: only the documented placeholders
  // become holes, and every other word (braces included) is sent exactly as typed.
  const parts = words.map((w): WordPart => {
    if (w === '__key__') return { kind: 'key', text: 'key:', prefixed: true };
    if (w === '__data__') return { kind: 'value' };
    const at = w.indexOf('__rand_int__');
    if (at >= 0) {
      if (at + '__rand_int__'.length !== w.length) {
        throw new UnknownTestError(
          `placeholder __rand_int__ must end its argument: "${w}" (write it as "prefix:__rand_int__")`,
        );
      }
      return { kind: 'key', text: w.slice(0, at), prefixed: true };
    }
    return { kind: 'literal', text: w };
  });
  return { name: words.join(' '), commandstat: words[0]!.toLowerCase(), words, parts };
}

/**
 * The command is recorded as text (the cell's label and test, `workload.command`), and the result
 * format refuses control and bidi characters and long labels there: say so before the run, not after.
 * Room is left for what a label adds (` P16 64KiB k1000 c1`).
 */
export const MAX_CUSTOM_COMMAND_CHARS = TEXT_MAX.cellTest - 40;

function checkCustomText(words: readonly string[]): void {
  for (const [i, w] of words.entries()) {
    const bad = findForbiddenChar(w);
    if (bad)
      throw new UnknownTestError(
        `word ${i + 1} of the custom command contains ${bad.description} at character ${bad.index}: a result records the command as text, which cannot hold it; remove it`,
      );
  }
  const length = Array.from(words.join(' ')).length;
  if (length > MAX_CUSTOM_COMMAND_CHARS)
    throw new UnknownTestError(
      `the custom command is ${length} characters long; a result records at most ${MAX_CUSTOM_COMMAND_CHARS}: send a long value as __data__ with -d SIZE (e.g. SET __key__ __data__ with -d 4096)`,
    );
}

/** Compile a test into a request template, with every key of ours under `prefix`. */
export function compileTest(test: TestDefinition, prefix: string, maxValueSize: number): RequestTemplate {
  if (test.inline) return new RequestTemplate([], 0, Buffer.from(`${test.words.join(' ')}\r\n`));
  const args = test.parts.map((p): Arg => {
    if (p.kind === 'value') return { kind: 'value' };
    if (p.kind === 'key') return { kind: 'key', prefix: Buffer.from(p.prefixed ? prefix + p.text : p.text) };
    if (p.kind === 'fixedKey') return { kind: 'literal', bytes: Buffer.from(prefix + p.text) };
    return { kind: 'literal', bytes: Buffer.from(p.text) };
  });
  return new RequestTemplate(args, maxValueSize);
}
