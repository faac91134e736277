/**
 * One command as a RESP array of bulk strings, for the few commands sent outside the measured
 * path (the handshake). The measured requests are encoded from templates (request-template.ts).
 */
export function encodeCommand(words: readonly string[]): Buffer {
  const parts = [`*${words.length}\r\n`];
  for (const w of words) parts.push(`$${Buffer.byteLength(w)}\r\n${w}\r\n`);
  return Buffer.from(parts.join(''));
}
