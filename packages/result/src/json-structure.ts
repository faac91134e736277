/**
 * The deepest a signed document may nest. result.v1 and imported.v1 nest at most 7 levels of objects
 * and arrays (a cell's trial's latencyUs; schemas/examples/valid), an envelope 1: 32 leaves room for
 * later versions and still stops a hostile file long before a recursive walk or JSON.parse's own cost
 * (a 4 MiB array nested 2 million deep takes V8 seconds to parse) becomes a problem.
 */
export const MAX_JSON_DEPTH = 32;

export type JsonStructureErrorCode = 'DUPLICATE_KEY' | 'TOO_DEEP';

export class JsonStructureError extends Error {
  override name = 'JsonStructureError';

  constructor(
    readonly code: JsonStructureErrorCode,
    /** JSON Pointer of the duplicate key, or of the container that went too deep. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

interface Frame {
  /** Keys seen so far (unescaped), each with its first spelling; null for an array. */
  keys: Map<string, string> | null;
  /** An object expects a key next (after `{` or `,`). */
  expectKey: boolean;
  /** The pointer segment of the value being read: the last key, or the array index. */
  segment: string;
  index: number;
}

/**
 * Refuse duplicate object keys (compared after unescaping, so `"p\u0061yload"` is `"payload"`) and
 * nesting deeper than `maxDepth`, by one pass over the raw text. JSON.parse keeps the last of two
 * keys without a word, so a file could carry one value that was signed and another that is read;
 * only the text shows both.
 *
 * Iterative on purpose, with its own stack of frames: a recursive parser (and the well-kept JSON AST
 * libraries are recursive descent) overflows the call stack on exactly the input this guards against.
 * It does not validate JSON: call it before JSON.parse, which still rejects what is not JSON.
 *
 * @param what names the document in messages: `envelope`, `payload`.
 */
export function checkJsonStructure(text: string, what: string, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i + 1);
      if (end < 0) return; // unterminated: JSON.parse says so
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? unescapeKey(raw) : raw.slice(1, -1);
        if (key === undefined) return; // a bad escape: JSON.parse says so
        const first = top.keys.get(key);
        if (first !== undefined) throw duplicate(stack, key, first, raw, what);
        top.keys.set(key, raw);
        top.segment = key;
        top.expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth)
        throw new JsonStructureError(
          'TOO_DEEP',
          pointer(stack),
          `the ${what} nests objects and arrays more than ${maxDepth} deep (at ${pointer(stack) || 'the top'}); a redis-benchdb document nests at most 7`,
        );
      stack.push({ keys: c === 0x7b ? new Map() : null, expectKey: c === 0x7b, segment: '0', index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.segment = String(++top.index);
    }
    i++;
  }
}

/** The index of the quote closing a string that opened before `from`, or -1. */
function stringEnd(text: string, from: number): number {
  let at = from;
  for (;;) {
    const q = text.indexOf('"', at);
    if (q < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c /* \ */) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}

function unescapeKey(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

function pointer(stack: Frame[]): string {
  return stack.map((f) => `/${f.segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function duplicate(
  stack: Frame[],
  key: string,
  first: string,
  raw: string,
  what: string,
): JsonStructureError {
  const top = stack[stack.length - 1]!;
  top.segment = key;
  const path = pointer(stack);
  const spelt = first === raw ? '' : ` (spelt ${first} and ${raw})`;
  return new JsonStructureError(
    'DUPLICATE_KEY',
    path,
    `the ${what} has the key ${JSON.stringify(key)} twice at ${path}${spelt}: JSON readers keep only one, so what was signed and what is read could differ; send the file as redis-benchdb wrote it`,
  );
}
