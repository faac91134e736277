/**
 * A value with the reason it is missing. Every probe reader returns these, so the reason travels
 * with the null into the block's `unknown` map instead of being reconstructed later.
 */
export type Fact<T> = { value: T; reason: null } | { value: null; reason: string };

export function known<T>(value: T): Fact<T> {
  return { value, reason: null };
}

export function missing<T = never>(reason: string): Fact<T> {
  return { value: null, reason };
}

/** The first fact that has a value; otherwise every source's reason, preferred source first. */
export function firstKnown<T>(...facts: Fact<T>[]): Fact<T> {
  for (const f of facts) if (f.reason === null) return f;
  const reasons = [...new Set(facts.map((f) => f.reason).filter((r): r is string => r !== null))];
  return missing(reasons.join('; ') || 'no source');
}

/**
 * Stores a fact at `path` of a block: sets the value, or null plus the reason in `unknown`.
 * Returns the value so callers can assign it inline.
 */
export function take<T>(unknown: Record<string, string>, path: string, fact: Fact<T>): T | null {
  if (fact.reason !== null) unknown[path] = fact.reason;
  return fact.value;
}

/**
 * Safety net for the format's rule: every null leaf of a block has a reason. Paths that slipped
 * through get a generic one rather than leaving the document inconsistent.
 */
export function ensureReasons(block: object, unknown: Record<string, string>, prefix = ''): void {
  for (const [k, v] of Object.entries(block)) {
    if (prefix === '' && k === 'unknown') continue;
    const p = prefix ? `${prefix}.${k}` : k;
    if (v === null) unknown[p] ??= 'no source reported a value';
    else if (typeof v === 'object' && !Array.isArray(v)) ensureReasons(v, unknown, p);
  }
}
