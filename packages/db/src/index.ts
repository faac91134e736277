export { ADMITTED_CELL_SQL } from './admitted-sql.js';
export {
  type AdHocCells,
  adHocCells,
  type CellFigureRow,
  cellFiguresOf,
  serverBlockOf,
} from './cell-figures.js';
// checkSubmission, IngestError and their types: the checks half of ingest(), also `@redis-benchdb/db/checks`.
export * from './checks.js';
export {
  type Cohort,
  type CohortMember,
  type CohortOptions,
  type CohortRank,
  cohort,
  explainCohort,
  rankIn,
} from './cohort.js';
export {
  type CohortDistribution,
  cohortDistribution,
  DISTRIBUTION_PERCENTILES,
  type DistributionOptions,
  MIN_COHORT_FOR_PERCENTILES,
  nearestRank,
} from './cohort-distribution.js';
export { contentId, resultPagePath } from './content-id.js';
export { defaultDatabasePath } from './default-path.js';
export { type DisputeRow, disputesOf } from './disputes.js';
export type { CellWorkloadColumns } from './find-cells.js';
export { type CellFilter, explainFindCells, type FoundCell, findCells } from './find-cells.js';
export { type IngestOutcome, ingest, storeSubmission } from './ingest.js';
export { ingestImported } from './ingest-imported.js';
export { MIN_DIGEST_LATENCIES } from './measurements.js';
export {
  applyMigrations,
  checkMigrated,
  MIGRATIONS,
  type Migration,
  SCHEMA_VERSION,
  schemaVersion,
} from './migrations.js';
export { DEFAULT_SIMILAR_LIMIT, explainSimilar, type SimilarResult, similarResults } from './neighbours.js';
export {
  type RepeatedCell,
  repeatedEnvironments,
  repeatedMedians,
  repeatedMediansPlan,
} from './noise-queries.js';
export { type BenchDb, DEFAULT_OPEN_OPTIONS, type OpenOptions, openDatabase } from './open.js';
export {
  checkNumbers,
  checkPlausibility,
  PLAUSIBILITY_LIMITS,
  type PlausibilityOptions,
  type PlausibilityProblem,
} from './plausibility.js';
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
} from './queries.js';
export {
  FALLBACK_HEADLINE_CELLS,
  HEADLINE_LABELS,
  type HeadlineRank,
  headlineCells,
  type RankOptions,
  resultRanks,
} from './rank.js';
export { RankIndex } from './rank-index.js';
export { type RestoreOutcome, restoreDatabase } from './restore.js';
export { RestoreError, type RestoreErrorCode } from './restore-error.js';
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
} from './result-search.js';
export { RETRACT_WINDOW_MS, type RetractOptions, type RetractOutcome, retract } from './retract.js';
export { RetractError, type RetractErrorCode } from './retract-error.js';
export {
  RETRACT_SCHEMA_ID,
  type RetractionCheck,
  type RetractRequest,
  retractionMessage,
  signRetraction,
  verifyRetraction,
} from './retraction.js';
export { SchemaVersionError } from './schema-version-error.js';
export {
  assignSigner,
  keyFileName,
  keySigners,
  PROJECT_SIGNER,
  readSignerKeys,
  SignerKeysError,
  signerOf,
} from './signers.js';
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
} from './site-queries.js';
export { getStoredResult, type StoredResult } from './stored-result.js';
export {
  explainWorkloadCells,
  iterateWorkloadCells,
  type WorkloadCell,
  type WorkloadDefinition,
  workloadDefinition,
} from './workloads.js';
