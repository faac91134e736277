import { createHash } from 'node:crypto';

/**
 * A signed result's id: the hex SHA-256 of its payload, the canonical result JSON that was signed.
 *
 * All 64 hex digits, not a prefix. A 32-digit prefix (128 bits) would never collide by accident,
 * but anyone can submit, and a birthday search for two payloads sharing 128 bits is within reach of
 * a determined attacker; 256 bits is not. The id is in URLs, where 64 characters cost nothing.
 *
 * The payload, not the envelope: the same result re-signed with another key, or sent with other
 * whitespace around it, is the same result and gets the same page (the first submission's).
 * It lives here, not in db/, so that the CLI's spool can name entries without loading SQLite.
 */
export function contentId(payload: string): string {
  return createHash('sha256').update(payload, 'utf8').digest('hex');
}
