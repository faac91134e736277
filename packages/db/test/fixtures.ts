// Real signed envelopes and real SQLite files in a temp dir, shared by the db tests.
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type EnvelopeV1,
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  type ResultV1,
  rawPublicKey,
  type SigningKey,
  signResult,
  workloadFingerprint,
} from '@redis-benchdb/result';
import { afterEach } from 'vitest';
import { type BenchDb, openDatabase } from '../src/index.js';

const example = readFileSync(
  new URL('../../../schemas/examples/valid/suite-run.json', import.meta.url),
  'utf8',
);

/** A fresh copy of schemas/examples/valid/suite-run.json: Redis 7.4.1, bare metal, SET and GET at P1. */
export function suiteRun(): ResultV1 {
  return JSON.parse(example) as ResultV1;
}

/** The example with a distinct keyPrefix, so that each `n` is a different result (a different id). */
export function variant(n: number, edit?: (r: ResultV1) => void): ResultV1 {
  const r = suiteRun();
  r.keyPrefix = `rbdb:${n.toString(16).padStart(6, '0')}:`;
  edit?.(r);
  return r;
}

/** Set every cell's pipeline depth, keeping its workload fingerprint true to the workload. */
export function withPipeline(r: ResultV1, depth: number): void {
  for (const c of r.cells) {
    c.workload.pipelineDepth = depth;
    c.label = `${c.test} P${depth}`;
    c.workloadFingerprint = workloadFingerprint(c.workload);
  }
}

export const key: SigningKey = generateSigningKey();
export const otherKey: SigningKey = generateSigningKey();

export function envelope(r: ResultV1, k: SigningKey = key): EnvelopeV1 {
  return signResult(r, k.privateKeyPem);
}

/** The body a client sends. */
export function body(r: ResultV1, k: SigningKey = key): string {
  return JSON.stringify(envelope(r, k), null, 2);
}

/**
 * An envelope around any payload text, validly signed: for payloads signResult refuses (not
 * canonical, not result.v1), so that only the check under test can catch them.
 */
export function signPayload(payload: string, k: SigningKey = key): string {
  const raw = rawPublicKey(publicKeyFromPrivate(k.privateKeyPem));
  const env: EnvelopeV1 = {
    schema: 'redis-benchdb/envelope.v1',
    payload,
    signature: sign(null, Buffer.from(payload, 'utf8'), createPrivateKey(k.privateKeyPem)).toString('base64'),
    publicKey: raw.toString('base64'),
    keyFingerprint: keyFingerprint(raw),
  };
  return JSON.stringify(env);
}

/** When the example results are judged: a few days after they ran. */
export const NOW = new Date('2025-03-06T12:00:00Z');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A path for a new database file in a temp dir removed after the test. */
export function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-db-'));
  dirs.push(dir);
  return join(dir, 'benchdb.sqlite');
}

const open: BenchDb[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.sqlite.open) db.close();
});

/** A new database in a temp file, closed after the test. */
export function tempDb(path = tempPath()): BenchDb {
  const db = openDatabase(path);
  open.push(db);
  return db;
}
