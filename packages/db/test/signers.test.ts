import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, keyFingerprint } from '@redis-benchdb/result';
import { withOwnHistograms } from '@redis-benchdb/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assignSigner,
  cohort,
  ingest,
  keyFileName,
  keySigners,
  MIGRATIONS,
  openDatabase,
  PROJECT_SIGNER,
  RankIndex,
  readSignerKeys,
  resultRanks,
  schemaVersion,
  signerOf,
} from '../src/index.js';
import { body, key, NOW, otherKey, tempDb, tempPath, variant } from './fixtures.js';
import { backToVersion13 } from './support/old-store.js';

const [K1, K2] = [keyFingerprint(key.publicKeyPem), keyFingerprint(otherKey.publicKeyPem)];

/** Two results of the example's GET, one signed by each key. */
function twoKeys(path = tempPath()) {
  const db = tempDb(path);
  const a = ingest(db, body(withOwnHistograms(variant(1), 1), key), { now: NOW }).id;
  const b = ingest(db, body(withOwnHistograms(variant(2), 2), otherKey), { now: NOW }).id;
  const getFp = variant(1).cells.find((c) => c.label === 'GET')!.workloadFingerprint;
  return { db, a, b, getFp };
}

describe('signers (migration 7)', () => {
  it('counts two keys as two signers until they are assigned one, then as one: cohort, counted rank and rank index', () => {
    const { db, a, getFp } = twoKeys();
    expect(cohort(db, getFp).distinctSigners).toBe(2);
    expect(signerOf(db, K1)).toBe(K1);
    assignSigner(db, PROJECT_SIGNER, [K1, K2]);
    expect(cohort(db, getFp).distinctSigners).toBe(1);
    expect(resultRanks(db, a).find((r) => r.label === 'GET')!.overall).toMatchObject({
      size: 2,
      distinctSigners: 1,
    });
    expect(new RankIndex(db).ranks(a).find((r) => r.label === 'GET')!.overall).toMatchObject({
      size: 2,
      distinctSigners: 1,
    });
    expect(signerOf(db, K2)).toBe(PROJECT_SIGNER);
  });

  it('upgrades a database of the previous version: its results stay, each key its own signer', () => {
    const path = tempPath();
    const { db, getFp } = twoKeys(path);
    // Back to version 6, as a database made before this migration is (undoing migrations 8 to 14 too).
    backToVersion13(db);
    db.sqlite.exec(
      `DROP TABLE key_rotations; DROP TABLE key_revocations;
       DROP TRIGGER results_run_group_one_key_insert; DROP TRIGGER results_run_group_one_key_update;
       DROP INDEX results_by_machine_version; DROP INDEX results_by_machine; DROP INDEX results_by_version_machine;
       DROP TABLE result_disputes; DROP TABLE key_signers; DROP INDEX results_site_list; DROP INDEX results_site_by_id;
       ALTER TABLE results DROP COLUMN cpu_caches; ALTER TABLE results DROP COLUMN machine_key;
       ALTER TABLE results DROP COLUMN machine_label; ALTER TABLE results DROP COLUMN config_key;
       ALTER TABLE results DROP COLUMN config_label; ALTER TABLE results DROP COLUMN config_default;
       DELETE FROM schema_migrations WHERE version >= 7`,
    );
    db.close();
    const again = openDatabase(path);
    expect(schemaVersion(again.sqlite)).toBe(MIGRATIONS.length);
    expect(cohort(again, getFp)).toMatchObject({ distinctSigners: 2 });
    expect(cohort(again, getFp).members).toHaveLength(2);
    assignSigner(again, PROJECT_SIGNER, [K1, K2]);
    expect(cohort(again, getFp).distinctSigners).toBe(1);
    again.close();
  });

  it('refuses to move a key to another signer: its results would change hands', () => {
    const db = tempDb();
    assignSigner(db, PROJECT_SIGNER, [K1]);
    assignSigner(db, PROJECT_SIGNER, [K1, K2]); // again: nothing changes
    expect(() => assignSigner(db, 'someone else', [K2])).toThrow(
      `the key ${K2} already signs for "${PROJECT_SIGNER}", not "someone else"`,
    );
    expect(keySigners(db)).toEqual(
      [K1, K2].sort().map((keyFingerprint) => ({ keyFingerprint, signer: PROJECT_SIGNER })),
    );
  });
});

describe('readSignerKeys', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const keyDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'rbdb-keys-'));
    dirs.push(d);
    return d;
  };

  it('reads each <fingerprint hex>.pub.pem as its key', () => {
    const d = keyDir();
    for (const k of [key, otherKey])
      writeFileSync(join(d, keyFileName(keyFingerprint(k.publicKeyPem))), k.publicKeyPem);
    expect(readSignerKeys(d)).toEqual([K1, K2].sort((x, y) => keyFileName(x).localeCompare(keyFileName(y))));
  });

  it('refuses a file named after another key, saying what to rename it to', () => {
    const d = keyDir();
    const stranger = generateSigningKey();
    writeFileSync(join(d, keyFileName(K1)), stranger.publicKeyPem);
    const fp = keyFingerprint(stranger.publicKeyPem);
    expect(() => readSignerKeys(d)).toThrow(
      `${join(d, keyFileName(K1))}: is the key ${fp}: rename it ${keyFileName(fp)}`,
    );
  });

  it('refuses a file that is not a public key, and a directory that is not there', () => {
    const d = keyDir();
    writeFileSync(join(d, 'notes.txt'), 'hello');
    expect(() => readSignerKeys(d)).toThrow(/notes\.txt: not an Ed25519 public key in PEM/);
    writeFileSync(join(d, 'notes.txt'), key.privateKeyPem);
    expect(() => readSignerKeys(d)).toThrow(/notes\.txt: is a private key: move it out of this directory/);
    expect(() => readSignerKeys(join(d, 'missing'))).toThrow(/cannot read the key directory .*missing/);
  });
});
