// checkSubmission, IngestError and their types: the checks half of ingest(), also `@redis-benchdb/db/checks`.
export * from './checks.js';
export { defaultDatabasePath } from './database/default-path.js';
export { type BenchDb, DEFAULT_OPEN_OPTIONS, type OpenOptions, openDatabase } from './database/open.js';
export {
  assignSigner,
  keyFileName,
  keySigners,
  PROJECT_SIGNER,
  readSignerKeys,
  SignerKeysError,
  signerOf,
} from './database/signers.js';
export { copyDatabase, inReadTransaction } from './database/snapshot.js';
export { changeStamp, dataVersion, resultCounter, schemaVersionOf } from './database/state.js';
export { contentId, resultPagePath } from './ingest/content-id.js';
export { type DisputeRow, disputesOf } from './ingest/disputes.js';
export { type BatchOutcome, groupCommit } from './ingest/group-commit.js';
export { type IngestOutcome, ingest, storeSubmission } from './ingest/ingest.js';
export { ingestImported } from './ingest/ingest-imported.js';
export { MIN_DIGEST_LATENCIES } from './ingest/measurements.js';
export {
  type RevocationOutcome,
  type RotationOutcome,
  recordRevocation,
  recordRotation,
  revocationOf,
  successorsOf,
} from './keys/key-history.js';
export {
  type KeyRevocation,
  type KeyRotation,
  type KeyStatementCheck,
  REVOCATION_SCHEMA_ID,
  ROTATION_SCHEMA_ID,
  signKeyRevocation,
  signKeyRotation,
  verifyKeyRevocation,
  verifyKeyRotation,
} from './keys/key-statement.js';
export { KeyStatementError, type KeyStatementErrorCode } from './keys/key-statement-error.js';
export {
  applyMigrations,
  checkMigrated,
  MIGRATIONS,
  type Migration,
  SCHEMA_VERSION,
  schemaVersion,
} from './migrations/migrate.js';
export { SchemaVersionError } from './migrations/schema-version-error.js';
export {
  type AdHocCells,
  adHocCells,
  type CellFigureRow,
  cellFiguresOf,
  serverBlockOf,
} from './queries/cell-figures.js';
export type { CellWorkloadColumns } from './queries/find-cells.js';
export { type CellFilter, explainFindCells, type FoundCell, findCells } from './queries/find-cells.js';
export {
  DEFAULT_SIMILAR_LIMIT,
  explainSimilar,
  type SimilarResult,
  similarResults,
} from './queries/neighbours.js';
export {
  noiseDigests,
  type RepeatedCell,
  repeatedEnvironments,
  repeatedMedians,
  repeatedMediansPlan,
} from './queries/noise.js';
export {
  databaseFingerprint,
  exportJsonlPart,
  OPEN_DATA_INDEX,
  OPEN_DATA_INDEX_SCHEMA,
  type OpenDataPart,
  openDataParts,
} from './queries/open-data.js';
export {
  iterateReceipts,
  keysWithResults,
  listedResultCount,
  type Receipt,
  resultReceipt,
} from './queries/receipts.js';
export {
  DEFAULT_SEARCH_LIMIT,
  explainSearch,
  MAX_SEARCH_LIMIT,
  type ResultFilter,
  SEARCH_SCAN_LIMIT,
  type SearchCell,
  type SearchOptions,
  type SearchPage,
  type SearchPosition,
  type SearchResult,
  searchResults,
} from './queries/result-search.js';
export {
  type Counts,
  count,
  DEFAULT_LIST_OPTIONS,
  type ExportedResult,
  exportResults,
  getEnvelope,
  integrityCheck,
  type ListOptions,
  listResults,
  listRunGroup,
  MAX_LIST_LIMIT,
  type ResultSummary,
  type StoredEnvelope,
} from './queries/results.js';
export {
  cellsByWorkload,
  commonWorkload,
  exportJsonlLines,
  getSiteResult,
  iterateSiteResults,
  type SiteCellRow,
  type SiteResultRecord,
  type SiteResultRow,
  siteQueryPlans,
} from './queries/site.js';
export { getStoredResult, type StoredResult } from './queries/stored-result.js';
export {
  explainWorkloadCells,
  iterateWorkloadCells,
  type WorkloadCell,
  type WorkloadDefinition,
  workloadDefinition,
} from './queries/workloads.js';
export { ADMITTED_CELL_SQL } from './ranking/admitted-sql.js';
export {
  type Cohort,
  type CohortMember,
  type CohortOptions,
  type CohortRank,
  cohort,
  explainCohort,
  rankAmong,
  rankIn,
} from './ranking/cohort.js';
export {
  type CohortDistribution,
  cohortDistribution,
  DISTRIBUTION_PERCENTILES,
  type DistributionOptions,
  MIN_COHORT_FOR_PERCENTILES,
  nearestRank,
} from './ranking/cohort-distribution.js';
export {
  FALLBACK_HEADLINE_CELLS,
  HEADLINE_LABELS,
  type HeadlineRank,
  headlineCells,
  type RankOptions,
  resultRanks,
} from './ranking/headline-ranks.js';
export { RankIndex } from './ranking/rank-index.js';
export { heldResults, resultStandings, standingOf, standingsOfResults } from './ranking/standing.js';
export { type RestoreOutcome, restoreDatabase } from './restore/restore.js';
export { RestoreError, type RestoreErrorCode } from './restore/restore-error.js';
export {
  RETRACT_WINDOW_MS,
  type RetractOptions,
  type RetractOutcome,
  retract,
} from './retraction/retract.js';
export { RetractError, type RetractErrorCode } from './retraction/retract-error.js';
export {
  LOCAL_ORIGIN,
  RETRACT_DEFAULT_LIFE_MS,
  RETRACT_MAX_LIFE_MS,
  RETRACT_SCHEMA_ID,
  type RetractionCheck,
  type RetractRequest,
  type RetractTarget,
  retractionMessage,
  serviceOrigin,
  signRetraction,
  verifyRetraction,
} from './retraction/retract-request.js';
export { type StoreBytes, storeBreakdown } from './store/breakdown.js';
export {
  decodeEnvelope,
  ENVELOPE_FORMAT,
  EnvelopeFormatError,
  type EnvelopeParts,
  encodeEnvelope,
} from './store/envelope-codec.js';
export { iterateListedRecords, type ReceivedRange, readDocument, readEnvelope } from './store/envelopes.js';
