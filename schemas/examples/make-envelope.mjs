// Regenerates examples/valid/minimal.envelope.json: valid/minimal.json signed with a throwaway
// Ed25519 key (made here and then forgotten; the envelope carries only the public half).
// Uses the built package: `npx tsc -b packages/result/tsconfig.json && node schemas/examples/make-envelope.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateSigningKey, signResult, verifyEnvelope } from '@redis-benchdb/result';

const here = (p) => new URL(p, import.meta.url);

export const ENVELOPE_SOURCE = 'valid/minimal.json';
export const ENVELOPE_FILE = 'valid/minimal.envelope.json';

/** Sign the source example with a new throwaway key and check the result verifies. */
export function makeEnvelope() {
  const result = JSON.parse(readFileSync(here(ENVELOPE_SOURCE), 'utf8'));
  const envelope = signResult(result, generateSigningKey().privateKeyPem);
  const check = verifyEnvelope(envelope);
  if (!check.ok) throw new Error(`the new envelope does not verify: ${check.message}`);
  return envelope;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(here(ENVELOPE_FILE), `${JSON.stringify(makeEnvelope(), null, 2)}\n`);
  console.log(`wrote schemas/examples/${ENVELOPE_FILE}`);
}
