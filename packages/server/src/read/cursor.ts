import type { SearchPosition } from '@redis-benchdb/db';
import { HttpError } from '../http-error.js';

/**
 * A page's `cursor`: where the previous page stopped, opaque to the client (base64url of
 * `[receivedAt, id]`), so that the order it encodes may change without breaking a client.
 */
export function encodeCursor(p: SearchPosition): string {
  return Buffer.from(JSON.stringify([p.receivedAt, p.id]), 'utf8').toString('base64url');
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const ID = /^[0-9a-f]{64}$/;

export function decodeCursor(text: string): SearchPosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== 'string' ||
    !ISO.test(value[0]) ||
    typeof value[1] !== 'string' ||
    !ID.test(value[1])
  )
    throw new HttpError(
      'BAD_CURSOR',
      400,
      `cursor ${JSON.stringify(text.slice(0, 80))} is not one this service gave: pass the nextCursor of the previous page as it was, or leave cursor out for the first page`,
    );
  return { receivedAt: value[0], id: value[1] };
}
