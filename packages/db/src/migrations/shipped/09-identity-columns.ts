import {
  configFactsOf,
  configIdentity,
  type ImportedV1,
  importedConfigIdentity,
  importedMachineFacts,
  machineFactsOf,
  machineIdentity,
  type ResultV1,
} from '@redis-benchdb/result';

/**
 * Migration 9's backfill columns, frozen as ingest computed them when the migration shipped
 * (identityColumns of packages/db/src/ingest/rows.ts at the time): a later change to ingest's columns
 * brings a migration of its own instead of changing what this one writes. The identity rules
 * themselves come from packages/result, the floor below, as every db file takes them.
 */
export function shippedIdentityColumns(kind: 'signed' | 'imported', doc: ResultV1 | ImportedV1) {
  const m = machineIdentity(
    kind === 'signed' ? machineFactsOf(doc as ResultV1) : importedMachineFacts(doc as ImportedV1),
  );
  const c =
    kind === 'signed'
      ? configIdentity(configFactsOf(doc as ResultV1))
      : importedConfigIdentity(doc as ImportedV1);
  return {
    machine_key: m.key,
    machine_label: m.label,
    config_key: c.key,
    config_label: c.label,
    config_default: c.isDefault ? 1 : 0,
  };
}
