import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers
 * as ECMAScript prints them (1e+21, 0 for -0), minimal string escapes. The signed payload of an
 * envelope and the input of every fingerprint.
 *
 * Stricter than JSON.stringify, which silently drops or rewrites what JSON cannot carry: this throws,
 * naming the path, on undefined (anywhere, object properties included), NaN and ±Infinity, bigint,
 * functions, symbols and strings with lone surrogates. `toJSON` is honoured (a Date becomes its ISO string).
 */
export function canonicalJson(value: unknown): string {
  check(value, '', new Set());
  const out = canonicalize(value);
  if (out === undefined) throw new Error('canonicalJson: the value has no JSON form');
  return out;
}

function check(value: unknown, path: string, ancestors: Set<object>): void {
  const where = path || '(the value itself)';
  switch (typeof value) {
    case 'undefined':
      throw new Error(
        `canonicalJson: undefined at ${where} (JSON has no undefined: use null or leave the property out)`,
      );
    case 'number':
      if (!Number.isFinite(value))
        throw new Error(`canonicalJson: ${value} at ${where} (JSON numbers must be finite)`);
      return;
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new Error(`canonicalJson: a ${typeof value} at ${where} has no JSON form`);
    case 'string':
      if (!isWellFormed(value))
        throw new Error(`canonicalJson: a lone UTF-16 surrogate in the string at ${where}`);
      return;
    case 'boolean':
      return;
  }
  if (value === null) return;
  const obj = value as object;
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
    check((obj as { toJSON: () => unknown }).toJSON(), path, ancestors);
    return;
  }
  if (ancestors.has(obj)) throw new Error(`canonicalJson: a circular reference at ${where}`);
  ancestors.add(obj);
  if (Array.isArray(obj)) for (const [i, v] of obj.entries()) check(v, `${path}/${i}`, ancestors);
  else for (const [k, v] of Object.entries(obj)) check(v, `${path}/${k}`, ancestors);
  ancestors.delete(obj);
}

function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (!(n >= 0xdc00 && n <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
