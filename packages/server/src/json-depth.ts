/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one pass over its bytes
 * without parsing it. V8's JSON.parse takes about half a second over 100,000 levels (a 200 KB
 * body) and holds the event loop, health included, all that time; an envelope nests one level.
 * Brackets inside strings do not count. Not a validator: malformed text is left to the parser.
 */
export function nestsDeeperThan(body: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
