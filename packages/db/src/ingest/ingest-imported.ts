import {
  canonicalJson,
  checkNumbers,
  IMPORTED_SCHEMA_ID,
  type ImportedV1,
  identityTextRefusal,
  importedIdentityTextProblems,
  validateImported,
} from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import type { IngestOptions } from './check-submission.js';
import { contentId, resultPagePath } from './content-id.js';
import type { IngestOutcome } from './ingest.js';
import { IngestError } from './ingest-error.js';
import { type CellRow, identityColumns, majorMinor, type ResultRow } from './rows.js';

/**
 * Store one imported result (`redis-benchdb/imported.v1`): figures a tool printed or a document
 * published, unsigned, with their source named. The one way imported results enter the database
 * (`redis-benchdb import` and `pnpm db:build`). Its id is the SHA-256 of its canonical JSON without
 * the import time, so the same import twice is a no-op. What the source does not state stays null: in particular the
 * workload fingerprint, because a partial workload must not look comparable to a complete one.
 */
export function ingestImported(
  db: BenchDb,
  body: string | ImportedV1,
  opts: IngestOptions = {},
): IngestOutcome {
  const imported = parseImported(body);
  // The id leaves out when the import happened: the same file imported twice is one result.
  const id = contentId(canonicalJson({ ...imported, source: { ...imported.source, importedAt: null } }));
  const row = importedResultRow(id, imported, opts.now ?? new Date());
  const cells = imported.cells.map((c, idx) => importedCellRow(id, idx, c));
  const st = db.statements;
  const stored = db.sqlite
    .transaction(() => {
      if (st.insertResult.run(row).changes === 0) return false;
      for (const c of cells) st.insertCell.run(c);
      return true;
    })
    .immediate();
  return { id, duplicate: !stored, pagePath: resultPagePath(id) };
}

/** The body as a valid imported.v1 document, or the IngestError that refuses it. */
function parseImported(body: string | ImportedV1): ImportedV1 {
  let doc: unknown = body;
  if (typeof body === 'string') {
    try {
      doc = JSON.parse(body);
    } catch (e) {
      throw new IngestError('MALFORMED_JSON', 400, `malformed JSON: ${(e as Error).message}`);
    }
  }
  const schema = (doc as { schema?: unknown } | null)?.schema;
  if (schema !== IMPORTED_SCHEMA_ID) {
    throw new IngestError(
      'UNSUPPORTED_SCHEMA',
      422,
      `unsupported imported schema ${JSON.stringify(schema)}; this redis-benchdb supports ${IMPORTED_SCHEMA_ID}`,
    );
  }
  const numbers = checkNumbers(doc);
  if (numbers.length > 0)
    throw new IngestError(
      'IMPLAUSIBLE',
      422,
      `implausible result: ${numbers.map((p) => p.message).join('; ')}`,
    );
  const valid = validateImported(doc);
  if (!valid.ok) {
    throw new IngestError(
      'INVALID_RESULT',
      422,
      `invalid imported result: ${valid.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  }
  // An imported result names machine kinds and versions too: the same normal form as a signed one.
  const problems = importedIdentityTextProblems(doc as ImportedV1);
  if (problems.length > 0) throw new IngestError('IDENTITY_TEXT', 422, identityTextRefusal(problems).message);
  return doc as ImportedV1;
}

/** The results row of an imported result. */
function importedResultRow(id: string, imported: ImportedV1, now: Date): ResultRow {
  const document = canonicalJson(imported);
  const version = majorMinor(imported.server.version);
  const published = imported.source.publishedAt ? new Date(imported.source.publishedAt) : null;
  // The columns a signed result fills from its environment are null here unless the source said them.
  const settings = imported.server.settings ?? {};
  return {
    id,
    kind: 'imported',
    schema: imported.schema,
    envelope: null,
    document,
    key_fingerprint: null,
    received_at: now.toISOString(),
    runner_version: null,
    suite_id: null,
    suite_version: null,
    suite_profile: null,
    started_at: published && !Number.isNaN(published.getTime()) ? published.toISOString() : null,
    finished_at: null,
    incomplete: 0,
    environment_fingerprint: null,
    cpu_model: imported.machine.cpuModel,
    cpu_cores: imported.machine.cores,
    cpu_threads: null,
    virtualization_kind: imported.machine.virtualization,
    hypervisor: null,
    server_product: imported.server.product,
    server_version: imported.server.version,
    server_version_major: version.major,
    server_version_minor: version.minor,
    allocator: null,
    io_threads: settings.ioThreads ?? null,
    persistence_on:
      settings.appendonly === true || settings.rdbSnapshots === true
        ? 1
        : settings.appendonly === false && settings.rdbSnapshots === false
          ? 0
          : null,
    // A TCP transport may be the loopback or a network: the source's word "tcp" does not say which.
    link_kind: settings.transport === 'unix' ? 'unix' : null,
    warning_codes: '',
    run_group_id: null,
    run_group_label: null,
    run_group_index: null,
    run_group_size: null,
    cpu_caches: null,
    ...identityColumns('imported', imported),
  } as unknown as ResultRow;
}

/** One cell's row: what the source does not state (the workload fingerprint, the histogram) is null. */
function importedCellRow(id: string, idx: number, c: ImportedV1['cells'][number]): CellRow {
  return {
    result_id: id,
    idx,
    label: c.label,
    test: c.test,
    workload_fingerprint: null,
    connections: c.workload.connections,
    pipeline_depth: c.workload.pipelineDepth,
    pipeline_mode: null,
    value_size_min: c.workload.valueSizeBytes,
    value_size_max: c.workload.valueSizeBytes,
    keyspace_size: c.workload.keyspaceSize,
    key_pattern: null,
    rate_ops_per_sec: null,
    trial_count: null,
    ops_median: c.opsPerSec,
    ops_ci95_low: null,
    ops_ci95_high: null,
    ops_cv: null,
    unstable: null,
    min_us: c.latencyUs.minUs,
    mean_us: c.latencyUs.avgUs,
    p50_us: c.latencyUs.p50Us,
    p90_us: c.latencyUs.p90Us,
    p95_us: c.latencyUs.p95Us,
    p99_us: c.latencyUs.p99Us,
    p999_us: c.latencyUs.p999Us,
    p9999_us: null,
    max_us: c.latencyUs.maxUs,
    histogram: null,
    client_bound: null,
    limited_by: null,
    cross_check: null,
    hit_ratio: null,
    incomplete: 0,
  } as unknown as CellRow;
}
