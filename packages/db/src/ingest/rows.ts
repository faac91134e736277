import {
  type Cell,
  configFactsOf,
  configIdentity,
  type ImportedV1,
  importedConfigIdentity,
  importedMachineFacts,
  machineFactsOf,
  machineIdentity,
  type ResultV1,
  type Server,
  warningsOf,
} from '@redis-benchdb/result';

/**
 * The columns copied out of a result.v1 document. Named parameters for the prepared INSERTs in
 * statements.ts: better-sqlite3 binds no booleans and no undefined, so flags become 0/1 and every
 * key is present.
 */
export type ResultRow = ReturnType<typeof resultRow>;
export type CellRow = ReturnType<typeof cellRows>[number];
export type WarningRow = ReturnType<typeof warningRows>[number];

export interface SignedMeta {
  id: string;
  keyFingerprint: string;
  receivedAt: string;
}

export function resultRow(r: ResultV1, meta: SignedMeta) {
  const { client, server, link } = r.environment;
  const version = majorMinor(server.version);
  return {
    id: meta.id,
    kind: 'signed',
    schema: r.schema,
    // The envelope lives in result_envelopes (store/): these two are empty for a signed row (migration 14).
    envelope: '',
    document: '',
    key_fingerprint: meta.keyFingerprint,
    received_at: meta.receivedAt,
    runner_version: r.runner.version,
    suite_id: r.suite?.id ?? null,
    suite_version: r.suite?.version ?? null,
    suite_profile: r.suite?.profile ?? null,
    // UTC, so that text order is time order; the document keeps the offset the runner wrote.
    started_at: new Date(r.startedAt).toISOString(),
    finished_at: new Date(r.finishedAt).toISOString(),
    incomplete: flag(r.incomplete),
    environment_fingerprint: r.environment.fingerprint,
    cpu_model: client.cpu.model,
    cpu_cores: client.cpu.cores,
    cpu_threads: client.cpu.threads,
    virtualization_kind: client.virtualization.kind,
    hypervisor: client.virtualization.hypervisor,
    server_product: server.product,
    server_version: server.version,
    server_version_major: version.major,
    server_version_minor: version.minor,
    allocator: server.allocator,
    io_threads: server.ioThreads,
    persistence_on: persistenceOn(server.persistence),
    link_kind: link.kind,
    // Sorted, comma-joined: a list page shows badges without a join; filters use the `warnings` table.
    warning_codes: [...new Set(warningsOf(r).map((w) => w.code))].sort().join(','),
    run_group_id: r.runGroup?.id ?? null,
    run_group_label: r.runGroup?.label ?? null,
    run_group_index: r.runGroup?.index ?? null,
    run_group_size: r.runGroup?.size ?? null,
    cpu_caches: cpuCaches(client.cpu),
    ...identityColumns('signed', r),
  };
}

export function cellRows(resultId: string, cells: readonly Cell[]) {
  return cells.map((c, idx) => {
    const w = c.workload;
    return {
      result_id: resultId,
      idx,
      label: c.label,
      test: c.test,
      workload_fingerprint: c.workloadFingerprint,
      connections: w.connections,
      pipeline_depth: w.pipelineDepth,
      pipeline_mode: w.pipelineMode,
      value_size_min: w.valueSizeBytes.min,
      value_size_max: w.valueSizeBytes.max,
      keyspace_size: w.keyspaceSize,
      key_pattern: w.keyPattern,
      rate_ops_per_sec: w.rateOpsPerSec,
      trial_count: c.trialCount,
      ops_median: c.opsPerSec.median,
      ops_ci95_low: c.opsPerSec.ci95Low,
      ops_ci95_high: c.opsPerSec.ci95High,
      ops_cv: c.opsPerSec.cv,
      unstable: flag(c.unstable),
      min_us: c.latencyUs.minUs,
      mean_us: c.latencyUs.meanUs,
      p50_us: c.latencyUs.p50Us,
      p90_us: c.latencyUs.p90Us,
      p95_us: c.latencyUs.p95Us,
      p99_us: c.latencyUs.p99Us,
      p999_us: c.latencyUs.p999Us,
      p9999_us: c.latencyUs.p9999Us,
      max_us: c.latencyUs.maxUs,
      client_bound: flag(c.saturation.clientBound),
      limited_by: c.saturation.limitedBy,
      cross_check: c.crossCheck.status,
      hit_ratio: c.hitRatio,
      incomplete: flag(c.incomplete),
    };
  });
}

/** The result's own warnings, then those its facts imply but its runner did not check (derivedWarnings). */
export function warningRows(resultId: string, r: ResultV1) {
  return warningsOf(r).map((w, idx) => ({
    result_id: resultId,
    idx,
    code: w.code,
    cell_label: w.cell,
    message: w.message,
  }));
}

/** "7.4.1" → 7, 4; "unknown" or null → nulls, so "Redis 7.x" is an indexed integer comparison. */
export function majorMinor(version: string | null): { major: number | null; minor: number | null } {
  const m = version === null ? null : /^v?(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) return { major: null, minor: null };
  return { major: Number(m[1]), minor: m[2] === undefined ? null : Number(m[2]) };
}

/**
 * Does the server write to disk while it serves? AOF on, or any RDB save point. Null when the
 * probe could not tell, rather than a guess.
 */
export function persistenceOn(p: Server['persistence']): 0 | 1 | null {
  if (p.appendonly === true || (p.save !== null && p.save.trim() !== '')) return 1;
  if (p.appendonly === false && p.save !== null) return 0;
  return null;
}

function flag(b: boolean): 0 | 1 {
  return b ? 1 : 0;
}

/** "L1d/L2/L3" in KiB, as migration 8 backfills it: null where any size is unknown. */
export function cpuCaches(cpu: ResultV1['environment']['client']['cpu']): string | null {
  const { cacheL1dKiB: l1, cacheL2KiB: l2, cacheL3KiB: l3 } = cpu;
  return l1 == null || l2 == null || l3 == null ? null : `${l1}/${l2}/${l3}`;
}

/** The identity columns of one stored document (signed result.v1 or imported.v1). */
export function identityColumns(kind: 'signed' | 'imported', doc: ResultV1 | ImportedV1) {
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
